"""The canonical query string of a calculator result: its validated inputs, re-serialised.

Two URLs that mean the same inputs (`params_billion=7` and `params_billion=7.000`, fields
in another order, repeated or unknown keys, a preset with or without its values) have one
canonical form: every field of the bound, valid form in declaration order, numbers written
in their shortest exact form, choices sorted. It is what gets cached (tco/web/page_cache.py),
what a lead's email links to and what a lead stores: nothing a visitor typed reaches those
places except through the form's validation.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return str(value)


def canonical_query(form: forms.Form) -> str:
    """The query string of a *valid* form's cleaned data (empty optional fields left out).

    Raises ValueError for a form that is not valid: only validated inputs are serialised.
    """
    if not form.is_valid():
        raise ValueError("only a valid form has a canonical query")
    from tco.inputs.presets import PRESETS_BY_SLUG

    pairs: list[tuple[str, str]] = []
    for name in form.fields:
        if name == "full":
            # Marks a complete set of fields: absent booleans are off, not the preset's.
            pairs.append(("full", "1"))
            continue
        value = form.cleaned_data.get(name)
        if value is None or value == "" or value == []:
            continue
        if name == "preset" and value not in PRESETS_BY_SLUG:
            continue  # free text in the form (it only marks the active preset)
        if isinstance(value, list | tuple | set):
            pairs += [(name, _text(item)) for item in sorted(value, key=str)]
        else:
            text = _text(value)
            if text:
                pairs.append((name, text))
    return urlencode(pairs)
