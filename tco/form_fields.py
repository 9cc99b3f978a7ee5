"""A form's fields shared between its instances, and copied at a fraction of Django's cost.

Django deep-copies a form class's fields for every instance, so that an instance may
change its own fields. For the calculator's 56 fields that cost about 1 ms of an
uncached result page (~380 `copy.deepcopy` calls), mostly in copying choice lists item by
item; copied one level deep it still cost ~25,000 instructions a field, ~1.4 M a page.
Yet an instance changes only a few of them (the catalog's server and site choices, the
site's placeholders, `required` off for fields its workload ignores) and Django's own
code changes none while it validates or renders. So the instances share the class's
fields (`SharedFields`), and an instance copies a field before it changes it
(`CalculatorForm.own_field`): `copy_field` copies what Django's own `__deepcopy__`
methods copy, one level deep, and nothing deeper, as an instance never changes the items
of a choice list, (value, label) pairs of immutable strings. A test checks that making,
validating and rendering forms leaves the shared fields as they were.
"""

from __future__ import annotations

import copy
from typing import Any

from django import forms
from django.forms import BoundField
from django.forms.utils import pretty_name
from django.forms.widgets import ChoiceWidget
from django.utils.functional import Promise

from config.bounded import Bounded


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


class SharedFields(dict[str, forms.Field]):
    """A form class's `base_fields`, whose per-instance "deep copy" is the same fields:
    an instance copies (`copy_field`) each field it changes, before it changes it."""

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, forms.Field]:
        return dict(self)


# Whether a lazily translated help text has words, by (language, the text object): Django's
# BoundField asks (`field.help_text or ""`) for each of a form's fields, and each asking
# translated the text (~1 µs a field). The text object is kept with its answer, so an id
# reused by another object is never taken for it.
_HAS_WORDS: Bounded[tuple[str | None, int], tuple[Any, bool]] = Bounded(10_000)


def _help_text(text: Any, language: str | None) -> Any:
    """``text or ""`` as Django's BoundField has it, for a form made in ``language``."""
    if not isinstance(text, Promise):
        return text or ""
    key = (language, id(text))
    held = _HAS_WORDS.get(key)
    if held is None or held[0] is not text:
        held = _HAS_WORDS.keep(key, (text, bool(text)))
    return text if held[1] else ""


class QuickBoundField(BoundField):
    """Django's BoundField with the same attributes, made in a fraction of the time.

    A form without a prefix and with Django's default ``auto_id`` (the calculator's) has
    its names written directly instead of through the form's prefix methods, and the help
    text's truthiness is known per language (the form's `language`: the one it was made
    in; the calculator's page makes, checks and renders its form in one request). The
    calculator makes 56 of these per page: ~2.3 → ~0.5 µs each. Any other form gets
    Django's own.
    """

    def __init__(self, form: forms.BaseForm, field: forms.Field, name: str) -> None:
        if form.prefix or form.auto_id != "id_%s":
            super().__init__(form, field, name)
            return
        self.form = form
        self.field = field
        self.name = name
        self.html_name = name
        self.html_initial_name = f"initial-{name}"
        self.html_initial_id = f"initial-id_{name}"
        self.label = pretty_name(name) if field.label is None else field.label
        self.help_text = _help_text(field.help_text, getattr(form, "language", None))
        self.renderer = form.renderer

    def value(self) -> Any:
        """Django's, without working out the initial value a bound form's enabled field
        never shows (`Field.bound_data` gives the data unless the field is disabled)."""
        field = self.field
        form = self.form
        if (
            form.is_bound
            and not field.disabled
            and type(field).bound_data is _BOUND_DATA
            and type(form)._widget_data_value is _WIDGET_DATA_VALUE
        ):
            data = field.widget.value_from_datadict(form.data, form.files, self.html_name)
            return field.prepare_value(data)
        return super().value()


# Django's own, which QuickBoundField.value takes the short way through.
_BOUND_DATA = forms.Field.bound_data
_WIDGET_DATA_VALUE = forms.BaseForm._widget_data_value
