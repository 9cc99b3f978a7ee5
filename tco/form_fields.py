"""Copying a form's fields for each form instance at a fraction of Django's cost.

Django deep-copies a form class's fields for every instance, so that an instance may
change its own fields. For the calculator's 56 fields that cost about 1 ms of an
uncached result page (~380 `copy.deepcopy` calls), mostly in copying choice lists item by
item. An instance here does change attributes of its fields (choices, `required`, widget
attributes such as placeholders) but never the items of a choice list, which are
(value, label) pairs of immutable strings; so each field, its widget and the containers
Django's own `__deepcopy__` methods copy are copied one level deep, and nothing deeper.
"""

from __future__ import annotations

import copy
from typing import Any

from django import forms
from django.forms.widgets import ChoiceWidget


def _clone(obj: Any) -> Any:
    """A shallow copy of a plain instance (what `copy.copy` does, without its protocol)."""
    copied = object.__new__(type(obj))
    copied.__dict__.update(obj.__dict__)
    return copied


def copy_field(field: forms.Field) -> forms.Field:
    """What `Field.__deepcopy__` (and ChoiceField's, and Widget's) copy, one level deep.

    A field with sub-widgets or lazily computed choices gets Django's deep copy."""
    choices = getattr(field, "_choices", None)
    if isinstance(field.widget, forms.MultiWidget) or not isinstance(choices, list | None):
        return copy.deepcopy(field)
    copied = _clone(field)
    widget = copied.widget = _clone(field.widget)
    widget.attrs = field.widget.attrs.copy()
    if isinstance(widget, ChoiceWidget):
        options = field.widget.choices
        if type(options) is list:
            # Normalized when it was set (Django's setter, which its own copy calls again
            # and which rebuilds the list item by item): a copy is the same list.
            widget._choices = options[:]
        else:
            widget.choices = copy.copy(options)
    copied.error_messages = field.error_messages.copy()
    copied.validators = field.validators[:]
    if choices is not None:
        copied._choices = list(choices)
    return copied


class CheaplyCopiedFields(dict[str, forms.Field]):
    """A form class's `base_fields` whose per-instance deep copy is `copy_field` each."""

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, forms.Field]:
        return {name: copy_field(field) for name, field in self.items()}
