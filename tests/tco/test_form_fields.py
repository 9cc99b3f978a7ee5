"""tco/form_fields.py: a form's fields copied one level deep equal Django's deep copies."""

from __future__ import annotations

import copy

from django import forms
from django.forms.widgets import ChoiceWidget

from tco.form_fields import copy_field
from tco.forms import CalculatorForm


def test_copied_choices_equal_djangos_copy_and_are_the_instances_own() -> None:
    for name, field in CalculatorForm.base_fields.items():
        ours, djangos = copy_field(field), copy.deepcopy(field)
        if isinstance(field.widget, ChoiceWidget):
            assert ours.widget.choices == djangos.widget.choices, name
            assert ours.widget.choices is not field.widget.choices, name
            ours.widget.choices = [("x", "X")]  # an instance's change stays its own
            assert field.widget.choices == djangos.widget.choices, name
        if isinstance(field, forms.ChoiceField):
            assert ours.choices == djangos.choices, name
