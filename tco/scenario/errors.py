"""Problems of a scenario document, named by their path and worded for its reader.

A `ScenarioError` carries the dotted path of the value at fault (`workload.params_billion`,
`cloud_offerings[1]`) and a message in the words of docs/scenario.md ("Errors"), whether the
schema, the catalog or the engine found the problem. The CLI prints it on one line, the API
answers it as problem details (400), the calculator puts it beside the form field it maps to.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from tco.engine import InvalidInput


class ScenarioError(ValueError):
    """A scenario document's problem: ``field`` is its dotted path, ``message`` says what.

    ``errors`` lists every problem found as (path, message), the first one first (the
    schema reports all of them at once; the catalog and the engine stop at the first).
    """

    def __init__(
        self, field: str, message: str, errors: Sequence[tuple[str, str]] | None = None
    ) -> None:
        self.field = field
        self.message = message
        self.errors = list(errors) if errors else [(field, message)]
        super().__init__(f"{field}: {message}")


def join(path: str, name: str) -> str:
    """``path.name``, either of them possibly empty."""
    return f"{path}.{name}" if path and name else path or name


def construct[T](path: str, build: Callable[..., T], **fields: Any) -> T:
    """``build(**fields)``, an engine input, with its InvalidInput as a ScenarioError at
    ``path`` (the engine names the field within its own dataclass)."""
    try:
        return build(**fields)
    except InvalidInput as exc:
        raise ScenarioError(join(path, exc.field), exc.message) from exc


def from_validation(
    exc: ValidationError, prefix: str = "", hidden: frozenset[str] = frozenset()
) -> ScenarioError:
    """The schema's validation errors as one ScenarioError (the first one's path and
    message, every one in ``errors``); ``hidden``: location parts that are no field (the
    tags of a union's forms)."""
    problems = [
        (join(prefix, location(error["loc"], hidden)) or "scenario", message(error))
        for error in exc.errors(include_url=False)
    ]
    return ScenarioError(*problems[0], problems)


def location(loc: Sequence[int | str], hidden: frozenset[str] = frozenset()) -> str:
    r"""A validation error's location as a dotted path.

    >>> location(("cloud_offerings", 1, "term"))
    'cloud_offerings[1].term'
    >>> location(("workload", "new\nline"))
    "workload.'new\\nline'"
    """
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part not in hidden:
            path = join(path, key_name(part))
    return path


def key_name(key: str) -> str:
    """A key as a path shows it: quoted when it is not a plain name (a path is one line)."""
    plain = key and key.isprintable() and not any(c.isspace() or c in ".[]'" for c in key)
    return key if plain else repr(key)


def _shown(value: object) -> str:
    """An input as the message shows it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: object) -> str:
    """A bound or a value as written: 12 for 12.0, 0.30000000000000004 as it is."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value) if isinstance(value, int | float) else str(value)


# Pydantic's error types → the message a scenario's reader gets (input: the value given).
_TYPE_MESSAGES = {
    "float_type": "expected a number, got {input}",
    "int_type": "expected a whole number, got {input}",
    "bool_type": "expected true or false, got {input}",
    "string_type": "expected text, got {input}",
    "list_type": "expected a list, got {input}",
    "model_type": "expected an object, got {input}",
    "dict_type": "expected an object, got {input}",
    "literal_error": "must be one of {expected}",
    "enum": "must be one of {expected}",
    "finite_number": "expected a finite number",
    "greater_than": "must be greater than {gt}, got {input}",
    "greater_than_equal": "must be at least {ge}, got {input}",
    "less_than": "must be less than {lt}, got {input}",
    "less_than_equal": "must be at most {le}, got {input}",
    "too_short": "expected at least {min_length} values, got {actual_length}",
    "too_long": "too many values (at most {max_length:,})",
    "string_too_short": "may not be empty",
    "string_too_long": "is longer than {max_length} characters",
}


def message(error: ErrorDetails) -> str:
    """One validation error in the words of docs/scenario.md ("Errors").

    >>> message({"type": "float_type", "loc": ("x",), "msg": "", "input": "seven"})
    "expected a number, got 'seven'"
    >>> message({"type": "enum", "loc": ("k",), "msg": "", "input": "x",
    ...          "ctx": {"expected": "'lora' or 'qlora'"}})
    'must be one of lora, qlora'
    """
    kind, value = error["type"], error.get("input")
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind in ("model_type", "dict_type") and not error["loc"]:
        return "expected a JSON object"
    if kind.endswith("_type") and value is None:
        return "may not be null"
    if kind == "float_type" and isinstance(value, int) and not isinstance(value, bool):
        return "the number is too large"  # an integer no float holds
    template = _TYPE_MESSAGES.get(kind)
    if template is None:
        return error["msg"]  # our own errors (PydanticCustomError) are worded already
    ctx = dict(error.get("ctx") or {})
    if "expected" in ctx:  # "'a', 'b' or 'c'" → "a, b, c"
        ctx["expected"] = ", ".join(re.findall(r"'([^']*)'", ctx["expected"]))
    for name in ("gt", "ge", "lt", "le"):
        if name in ctx:
            ctx[name] = _number(ctx[name])
    shown = _number(value) if kind.startswith(("greater", "less")) else _shown(value)
    return template.format(input=shown, **ctx)
