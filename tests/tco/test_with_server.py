"""scenario_io.with_server: another server in a built scenario, as if built afresh."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from tco.analysis.calculator import form_data
from tco.inputs.forms import CalculatorForm
from tco.inputs.presets import PRESETS
from tco.scenario import parse_server
from tco.scenario.resolve import (
    BuiltScenario,
    CatalogSnapshot,
    ScenarioError,
    build_scenario,
    with_server,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("query", [f"preset={p.slug}&server=auto" for p in PRESETS])
def test_swapping_the_server_equals_building_with_it(seed_catalog: object, query: str) -> None:
    catalog = CatalogSnapshot.load()
    form = CalculatorForm(form_data(QueryDict(query + "&discount_pct=5")), catalog=catalog)
    assert form.is_valid(), form.errors
    keys = list(catalog.servers)
    first = build_scenario(form.to_document(keys[0]), catalog, with_assumptions=False)
    for key in keys:
        document = form.to_document(key)
        fresh = build_scenario(document, catalog, with_assumptions=False)
        swapped = with_server(first, document.server, catalog)
        assert swapped.scenario == fresh.scenario, key
        assert swapped.server_model is fresh.server_model and swapped.site is fresh.site


@pytest.mark.parametrize(
    "query", [f"preset={p.slug}{extra}" for p in PRESETS for extra in ("", "&server=auto")]
)
def test_one_document_serves_every_candidate(seed_catalog: object, query: str) -> None:
    """The calculator makes the form's document once and swaps in each candidate's
    server reference: the document the form makes for that server (discounts included)."""
    catalog = CatalogSnapshot.load()
    form = CalculatorForm(form_data(QueryDict(query + "&discount_pct=5")), catalog=catalog)
    assert form.is_valid(), form.errors
    keys = list(catalog.servers)
    first = form.to_document(keys[0])
    for key in keys:
        swapped = first.model_copy(update={"server": form.server_reference(key)})
        own = form.to_document(key)
        assert swapped == own, key
        assert swapped.model_dump(exclude_unset=True) == own.model_dump(exclude_unset=True)


def test_an_unknown_server_is_refused(seed_catalog: object) -> None:
    catalog = CatalogSnapshot.load()
    form = CalculatorForm(form_data(QueryDict("preset=pretrain-7b")), catalog=catalog)
    assert form.is_valid()
    built = build_scenario(form.to_document(next(iter(catalog.servers))), catalog)
    with pytest.raises(ScenarioError) as caught:
        with_server(built, parse_server("no-such-server"), catalog)
    assert caught.value.field == "server"


def _shown(built: BuiltScenario) -> list[tuple[str, str, str, object, bool]]:
    return [
        (str(a.label), a.value, str(a.source), a.as_of, a.is_estimate) for a in built.assumptions
    ]


@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
def test_offering_rows_kept_per_language_are_built_afresh(
    seed_catalog: object, preset: str
) -> None:
    """An offering at its catalog spec has its assumption row made once per snapshot and
    language: in English, Dutch and English again it reads as a row built without them,
    and an overridden offering's row is its own."""
    from django.utils import translation

    catalog = CatalogSnapshot.load()
    form = CalculatorForm(form_data(QueryDict(f"preset={preset}")), catalog=catalog)
    assert form.is_valid(), form.errors
    document = form.to_document(next(iter(catalog.servers))).model_dump(exclude_unset=True)
    first = document["cloud_offerings"][0]["key"]
    changed = {**document, "cloud_offerings": [{"key": first, "price_per_hour": 1.25}]}
    for language in ("en", "nl", "en"):
        with translation.override(language):
            for doc in (document, changed):
                kept = build_scenario(doc, catalog)
                fresh = build_scenario(doc, CatalogSnapshot.load())
                assert _shown(kept) == _shown(fresh), (language, doc is changed)
