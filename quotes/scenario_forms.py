"""The form that saves a calculator result to a customer (services.scenario_save): the form
parses, the service decides."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from .models import Customer


class ScenarioSaveForm(forms.Form):
    """The customer (of the user's teams), a name and a note; ``calc``: the calculator
    result's query string, carried from the result's page."""

    calc = forms.CharField(widget=forms.HiddenInput, max_length=8000)
    customer = forms.ModelChoiceField(
        label=_("Customer"),
        queryset=Customer.objects.none(),
        to_field_name="public_id",
        empty_label=_("— choose a customer —"),
    )
    name = forms.CharField(
        label=_("Name"),
        max_length=120,
        widget=forms.TextInput(attrs={"placeholder": _("e.g. 16 × B300, 3 years")}),
    )
    note = forms.CharField(
        label=_("Note"), required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args: Any, customers: QuerySet[Customer], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["customer"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = customers
