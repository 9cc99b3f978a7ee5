"""tco/forms.py and tco/form_fields.py's quick paths give what Django's own paths give:
the bound fields' attributes, the cleaned data and errors, the catalog choices."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms
from django.forms import BoundField
from django.http import QueryDict
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.form_fields import QuickBoundField
from tco.forms import CalculatorForm
from tco.presets import PRESETS
from tco.scenario_io import CatalogSnapshot
from tco.services import form_data

pytestmark = pytest.mark.django_db

QUERIES = [f"preset={preset.slug}" for preset in PRESETS] + [
    "preset=pretrain-7b&params_billion=-1&site=nowhere&horizon_years=9",
    'full=1&kind=lora&params_billion="><script>&providers=AWS&terms=spot',
    "preset=serve-70b&server=auto&electricity_price=0.25&currency=USD",
    "full=1&kind=inference&serving_load=users&users=-3&demand_pattern=once&mfu_pct=900",
    "full=1&kind=pretrain&tokens_billion=&demand_pattern=recurring&users=x&runs_per_year=",
]
ATTRIBUTES = (
    "form",
    "field",
    "name",
    "html_name",
    "html_initial_name",
    "html_initial_id",
    "label",
    "help_text",
    "renderer",
    "auto_id",
    "id_for_label",
)


def attributes(field: BoundField) -> dict[str, Any]:
    return {name: getattr(field, name) for name in ATTRIBUTES}


def djangos_form(query: str, catalog: CatalogSnapshot) -> CalculatorForm:
    """The form checked by Django's own `_clean_fields`, with its own bound fields."""
    form = CalculatorForm(form_data(QueryDict(query)), catalog=catalog)
    form.bound_field_class = BoundField
    form._clean_fields = lambda: forms.BaseForm._clean_fields(form)  # type: ignore[method-assign]
    return form


@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("query", QUERIES)
def test_quick_bound_fields_and_clean_equal_djangos(
    seed_catalog: object, query: str, language: str
) -> None:
    catalog = CatalogSnapshot.load()
    with translation.override(language):
        ours = CalculatorForm(form_data(QueryDict(query)), catalog=catalog)
        theirs = djangos_form(query, catalog)
        assert ours.is_valid() == theirs.is_valid()
        assert ours.errors == theirs.errors
        assert ours.cleaned_data == theirs.cleaned_data
        assert list(ours.cleaned_data) == list(theirs.cleaned_data)  # the same order
        for name in ours.fields:
            assert type(ours[name]) is QuickBoundField
            assert type(theirs[name]) is BoundField
            mine, django = attributes(ours[name]), attributes(theirs[name])
            assert mine.pop("form") is ours and django.pop("form") is theirs
            assert mine.pop("field") is ours.fields[name]
            assert django.pop("field") is theirs.fields[name]
            assert mine == django, name
            assert str(ours[name].help_text) == str(theirs[name].help_text), name
            assert ours[name].value() == theirs[name].value(), name


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=st.dictionaries(
        st.sampled_from(list(CalculatorForm.base_fields)),
        st.sampled_from(["", "0", "1", "-1", "2.5", "1e9", "x", "inference", "lora", "users"])
        | st.text(max_size=5),
        max_size=12,
    )
)
def test_clean_without_the_ignored_fields_equals_djangos(
    seed_catalog: object, values: dict[str, str]
) -> None:
    catalog = CatalogSnapshot.current()
    query = QueryDict(mutable=True)
    query.update({"preset": "serve-70b", **values})
    raw = query.urlencode()
    ours = CalculatorForm(form_data(QueryDict(raw)), catalog=catalog)
    theirs = djangos_form(raw, catalog)
    assert ours.is_valid() == theirs.is_valid()
    assert ours.errors == theirs.errors
    assert ours.cleaned_data == theirs.cleaned_data
    for name in ours.fields:
        assert ours[name].value() == theirs[name].value(), name


def test_a_disabled_field_shows_its_initial_value_as_djangos(seed_catalog: object) -> None:
    form = CalculatorForm(
        form_data(QueryDict("preset=pretrain-7b&params_billion=13")),
        catalog=CatalogSnapshot.load(),
        initial={"params_billion": 70},
    )
    form.own_field("params_billion").disabled = True
    django = BoundField(form, form.fields["params_billion"], "params_billion")
    assert form["params_billion"].value() == django.value() == 70


def test_a_prefixed_form_gets_djangos_names(seed_catalog: object) -> None:
    form = CalculatorForm(
        form_data(QueryDict("preset=pretrain-7b")), catalog=CatalogSnapshot.load(), prefix="p"
    )
    django = BoundField(form, form.fields["kind"], "kind")
    assert attributes(form["kind"]) == attributes(django)
    assert form["kind"].html_name == "p-kind"


@pytest.mark.parametrize("language", ["en", "nl"])
def test_catalog_choices_are_the_catalogs_in_the_language(
    seed_catalog: object, language: str
) -> None:
    catalog = CatalogSnapshot.load()
    with translation.override(language):
        first = CalculatorForm(form_data(QueryDict("")), catalog=catalog)
        second = CalculatorForm(form_data(QueryDict("")), catalog=catalog)
        servers = sorted(
            catalog.servers.values(), key=lambda s: (s.gpu.bf16_tflops, s.vendor, s.sku)
        )
        expected = forms.ChoiceField(
            choices=[("auto", translation.gettext("The cheapest that fits"))]
            + [(s.key, f"{s.vendor} {s.sku} · {s.gpu_count}× {s.gpu.name}") for s in servers]
        )
        sites = forms.ChoiceField(
            choices=[(s.key, s.display_name()) for s in catalog.sites.values()]
        )
        for form in (first, second):
            field = form.fields["server"]
            assert [(k, str(v)) for k, v in field.choices] == expected.choices
            assert [(k, str(v)) for k, v in field.widget.choices] == expected.widget.choices
            assert form.fields["site"].choices == sites.choices
            assert form.fields["site"].widget.choices == sites.widget.choices
        # Each form has its own lists (an instance may change its choices).
        assert first.fields["server"].choices is not second.fields["server"].choices
        assert first.fields["server"].widget.choices is not first.fields["server"].choices
    if language == "nl":
        assert any(s.name_nl for s in catalog.sites.values())  # the check compares names
