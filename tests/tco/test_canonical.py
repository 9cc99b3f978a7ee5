"""tco/inputs/canonical.py: a result's canonical query means the same inputs and is its own
canonical form."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from tco.analysis.calculator import form_data
from tco.inputs.canonical import canonical_query
from tco.inputs.forms import CalculatorForm
from tco.inputs.presets import PRESETS
from tco.scenario.resolve import CatalogSnapshot


def _form(query: str, catalog: CatalogSnapshot) -> CalculatorForm:
    form = CalculatorForm(form_data(QueryDict(query)), catalog=catalog)
    assert form.is_valid(), form.errors
    return form


def _inputs(form: CalculatorForm) -> dict[str, object]:
    """The cleaned inputs, choices in any order, without the page's own marks."""
    return {
        name: sorted(value) if isinstance(value, list) else value
        for name, value in form.cleaned_data.items()
        if name not in ("full", "preset")
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [f"preset={preset.slug}" for preset in PRESETS]
    + ["preset=serve-70b&providers=Google+Cloud&providers=AWS&preset=free+text%C3%A9"],
)
def test_the_canonical_query_gives_the_same_inputs_again(seed_catalog: object, query: str) -> None:
    catalog = CatalogSnapshot.load()
    form = _form(query, catalog)
    canonical = canonical_query(form)
    again = _form(canonical, catalog)
    assert _inputs(again) == _inputs(form)
    assert canonical_query(again) == canonical
    if "Google" in query:
        assert "providers=Google+Cloud" in canonical
