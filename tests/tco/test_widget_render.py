"""tco.widget_render writes the same widget HTML as Django's templates, character for character."""

from __future__ import annotations

from typing import Any

import pytest
from django.forms.renderers import DjangoTemplates
from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils import translation

from tco.field_html import calculator_field
from tco.forms import CalculatorForm
from tco.presets import PRESETS
from tco.scenario_io import CatalogSnapshot
from tco.services import form_data
from tco.widget_render import FastWidgetRenderer

pytestmark = pytest.mark.django_db

QUERIES = [f"preset={preset.slug}" for preset in PRESETS] + [
    # Errors, odd values, markup in a value, a box left unticked, no provider at all.
    "preset=pretrain-7b&params_billion=-1&site=nowhere&horizon_years=9",
    'full=1&kind=lora&params_billion="><script>&providers=AWS&terms=spot',
    "preset=serve-70b&server=auto&electricity_price=0.25&currency=USD",
]


def widgets(form: CalculatorForm, renderer: Any) -> dict[str, str]:
    form.renderer = renderer
    return {field.name: str(field) for field in form}


@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("query", QUERIES)
def test_every_widget_matches_djangos_templates(
    seed_catalog: object, query: str, language: str
) -> None:
    with translation.override(language):
        form = CalculatorForm(form_data(QueryDict(query)), catalog=CatalogSnapshot.load())
        form.is_valid()
        fast = widgets(form, FastWidgetRenderer())
        django = widgets(form, DjangoTemplates())
    assert fast == django
    assert len(fast) == len(form.fields)


@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("query", QUERIES)
def test_each_field_block_matches_the_reference_template(
    seed_catalog: object, query: str, language: str
) -> None:
    with translation.override(language):
        form = CalculatorForm(form_data(QueryDict(query)), catalog=CatalogSnapshot.load())
        form.is_valid()
        for field in form:
            reference = render_to_string("tco/_field.html", {"field": field})
            assert str(calculator_field(field)) == reference, field.name


def test_the_calculator_form_uses_it(seed_catalog: object) -> None:
    form = CalculatorForm(form_data(QueryDict("")), catalog=CatalogSnapshot.load())
    assert isinstance(form.renderer, FastWidgetRenderer)


def test_other_templates_are_left_to_django(seed_catalog: object) -> None:
    form = CalculatorForm(
        form_data(QueryDict("preset=pretrain-7b&params_billion=-1")),
        catalog=CatalogSnapshot.load(),
    )
    form.is_valid()
    fast = FastWidgetRenderer()
    assert str(form["params_billion"].errors) == form["params_billion"].errors.render(
        renderer=DjangoTemplates()
    )
    assert form.render(renderer=fast) == form.render(renderer=DjangoTemplates())


def test_field_blocks_built_once_serve_every_later_form(seed_catalog: object) -> None:
    """The parts kept with a catalog snapshot (tco/field_html.py) hold nothing of one
    request's values: forms for every query, in both languages, made one after the other
    from one snapshot, each match the reference template."""
    catalog = CatalogSnapshot.load()
    for _round in range(2):  # the second round is served from what the first one built
        for language in ("en", "nl"):
            for query in QUERIES:
                with translation.override(language):
                    form = CalculatorForm(form_data(QueryDict(query)), catalog=catalog)
                    form.is_valid()
                    for field in form:
                        reference = render_to_string("tco/_field.html", {"field": field})
                        assert str(calculator_field(field)) == reference, (query, field.name)
    assert any(key[0] == "calculator_field" for key in catalog.derived)
