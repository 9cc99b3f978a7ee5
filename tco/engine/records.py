"""Frozen dataclasses built at the cost of plain ones.

A frozen dataclass's generated ``__init__`` sets each field with ``object.__setattr__`` (its
own ``__setattr__`` refuses), about 0.3 us a field; a result page builds ~170 of the
engine's frozen records, ~1,000 fields. :func:`quick_init` gives such a class an
``__init__`` with the same parameters and defaults that writes each field straight into its
slot (or, for a class without slots, its ``__dict__``), then calls ``__post_init__`` as the
generated one does: the same instances at under half the cost. The dataclass's own
``__init__`` stays as ``__dataclass_init__`` (tests build with both and compare).
"""

from __future__ import annotations

import dataclasses
import functools
from operator import attrgetter
from typing import Any


def quick_init[T](cls: type[T]) -> type[T]:
    """Give the frozen dataclass ``cls`` (fields with plain defaults or factories, none
    keyword-only or left out of ``__init__``) the faster ``__init__``."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    pseudo = [f for f in cls.__dataclass_fields__.values() if f not in fields]  # type: ignore[attr-defined]
    if pseudo or any(not f.init or f.kw_only for f in fields):
        raise TypeError(f"quick_init() takes plain fields only: {cls.__qualname__}")
    slotted = "__slots__" in cls.__dict__
    namespace: dict[str, Any] = {"_NO_VALUE": _NO_VALUE}
    params, lines = [], [] if slotted else ["    _fields = self.__dict__"]
    for k, f in enumerate(fields):
        if f.default is not dataclasses.MISSING:
            namespace[f"_default{k}"] = f.default
            params.append(f"{f.name}=_default{k}")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_factory{k}"] = f.default_factory
            params.append(f"{f.name}=_NO_VALUE")
            lines.append(f"    if {f.name} is _NO_VALUE:\n        {f.name} = _factory{k}()")
        else:
            params.append(f.name)
        if slotted:
            namespace[f"_write{k}"] = cls.__dict__[f.name].__set__
            lines.append(f"    _write{k}(self, {f.name})")
        else:
            lines.append(f"    _fields[{f.name!r}] = {f.name}")
    if hasattr(cls, "__post_init__"):
        lines.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(lines or ["    pass"])
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    cls.__dataclass_init__ = cls.__init__  # type: ignore[attr-defined]
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def replace[T](record: T, **changes: Any) -> T:
    """``dataclasses.replace`` of a :func:`quick_init` record: its class's ``__init__``
    (checks included) with the record's fields, ``changes`` instead of some, without
    dataclasses' walk over the fields' definitions on every call."""
    values_of, index = _layout(type(record))  # type: ignore[arg-type]
    values = list(values_of(record))
    for name, value in changes.items():
        k = index.get(name)
        if k is None:
            raise TypeError(f"{type(record).__qualname__} has no field {name!r}")
        values[k] = value
    return type(record)(*values)


@functools.cache
def _layout(cls: type) -> tuple[Any, dict[str, int]]:
    """A record's fields read at once (as a tuple), and each field's place."""
    if "__dataclass_init__" not in cls.__dict__:
        raise TypeError(f"records.replace() takes quick_init records: {cls.__qualname__}")
    names = tuple(f.name for f in dataclasses.fields(cls))
    if len(names) == 1:
        return (lambda record: (getattr(record, names[0]),)), {names[0]: 0}
    return attrgetter(*names), {name: k for k, name in enumerate(names)}


class _NoValue:
    """The default of a field with a factory, before the factory is called."""

    def __repr__(self) -> str:
        return "<factory>"


# The dataclass's own marker where there is one (the same signature), else one of ours.
_NO_VALUE = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", _NoValue())
