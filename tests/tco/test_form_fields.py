"""tco/form_fields.py: a form's fields copied one level deep equal Django's deep copies;
forms share the others and leave them as they were."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django import forms
from django.forms.widgets import ChoiceWidget
from django.http import QueryDict
from django.test import Client
from django.utils import translation

from tco.field_html import calculator_field
from tco.form_fields import copy_field
from tco.forms import CalculatorForm
from tco.presets import PRESETS
from tco.scenario_io import CatalogSnapshot
from tco.services import analyse_query, form_data


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


def _state(fields: dict[str, forms.Field]) -> dict[str, Any]:
    """What a form could change of each field (its attributes, its widget's, their lists)."""
    return {
        name: (
            dict(vars(field)),
            dict(vars(field.widget)),
            dict(field.widget.attrs),
            list(field.validators),
            dict(field.error_messages),
            list(getattr(field, "_choices", None) or ()),
            list(getattr(field.widget, "choices", None) or ()),
        )
        for name, field in fields.items()
    }


QUERIES = [f"preset={preset.slug}" for preset in PRESETS] + [
    "preset=pretrain-7b&params_billion=-1&site=nowhere&horizon_years=9",
    'full=1&kind=lora&params_billion="><script>&providers=AWS&terms=spot',
    "preset=serve-70b&server=auto&electricity_price=0.25&currency=USD&site=nl-colo-amsterdam",
    "full=1&kind=inference&serving_load=users&users=-3&demand_pattern=once&mfu_pct=900",
]


@pytest.mark.django_db
def test_forms_leave_the_fields_they_share_as_they_were(seed_catalog: object) -> None:
    before = _state(CalculatorForm.base_fields)
    client = Client()
    for language in ("en", "nl"):
        for query in QUERIES:
            with translation.override(language):
                form, _outcome = analyse_query(QueryDict(query))
                for field in form:
                    calculator_field(field)
                    str(field)  # Django's own widget rendering
            headers = {"HTTP_ACCEPT_LANGUAGE": language}
            assert client.get(f"/calculator/?{query}", **headers).status_code == 200
            client.get(f"/calculator/?{query}", HTTP_HX_REQUEST="true", **headers)
    assert _state(CalculatorForm.base_fields) == before


@pytest.mark.django_db
def test_a_form_changes_only_its_own_copies(seed_catalog: object) -> None:
    catalog = CatalogSnapshot.load()
    query = "preset=serve-70b&site=nl-colo-amsterdam"
    first = CalculatorForm(form_data(QueryDict(query)), catalog=catalog)
    second = CalculatorForm(form_data(QueryDict("preset=pretrain-7b")), catalog=catalog)
    shared = CalculatorForm.base_fields
    for form in (first, second):
        for name in ("server", "site"):
            assert form.fields[name] is not shared[name]
        for name in form.ignored_fields:  # made optional: a copy unless it was already
            assert form.fields[name].required is False
            assert (form.fields[name] is shared[name]) is (not shared[name].required)
    assert first.fields["pue"].widget.attrs["placeholder"]
    assert "placeholder" not in shared["pue"].widget.attrs
    assert first.fields["kind"] is shared["kind"] is second.fields["kind"]
    own = first.own_field("kind")
    assert own is not shared["kind"] and first.own_field("kind") is own
