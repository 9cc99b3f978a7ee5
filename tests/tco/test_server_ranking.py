"""tco.services: the ranking of the catalog's servers ("the cheapest that fits") is kept per
catalog snapshot for the inputs it reads, and never for those it does not."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import QueryDict

from catalog.models import PricingTerm
from tco import services
from tco.forms import PROVIDERS, CalculatorForm
from tco.presets import PRESETS
from tco.scenario_io import CatalogSnapshot
from tco.services import analyse_form, form_data

pytestmark = pytest.mark.django_db

# Inputs the ranking must not depend on: the discount rate (owning is ranked by its nominal
# cost) and which cloud providers and terms are compared (owning has no cloud offering).
UNRANKED_VARIANTS = [
    "discount_rate_pct=0",
    "discount_rate_pct=3.5",
    "discount_rate_pct=25",
    f"providers={PROVIDERS[0]}&terms={PricingTerm.ON_DEMAND}",
    f"providers={PROVIDERS[-1]}&terms={PricingTerm.ON_DEMAND}&terms={PricingTerm.RESERVED_3Y}",
    f"discount_rate_pct=12&providers={PROVIDERS[1]}&providers={PROVIDERS[-1]}"
    f"&terms={PricingTerm.RESERVED_1Y}&terms={PricingTerm.ON_DEMAND}",
]


def _form(catalog: CatalogSnapshot, query: str) -> CalculatorForm:
    form = CalculatorForm(form_data(QueryDict(query)), catalog=catalog)
    assert form.is_valid(), form.errors
    return form


def _ranked(catalog: CatalogSnapshot, query: str) -> Any:
    """The ranking made afresh (no kept rankings)."""
    form = _form(catalog, query)
    keys = list(catalog.servers)
    return services._rank_servers(form, keys, form.to_document(keys[0]), {})


def _outcome_figures(outcome: services.CalculatorOutcome) -> Any:
    analysis = outcome.analysis
    assert analysis is not None, outcome.problem
    return (
        [(c.server.key, c.onprem_total, c.reason) for c in analysis.candidates],
        analysis.built.server_model.key,
        analysis.summary,
    )


@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
def test_the_ranking_reads_no_discount_rate_provider_or_term(
    seed_catalog: object, preset: str
) -> None:
    catalog = CatalogSnapshot.load()
    base = f"preset={preset}&server=auto"
    expected = _ranked(catalog, base)
    assert not isinstance(expected, services.CalculatorOutcome)
    assert any(total is not None for _key, total, _reason, _meets in expected)
    for variant in UNRANKED_VARIANTS:
        assert _ranked(catalog, f"{base}&{variant}") == expected, variant
    # ... while the inputs it does read change it.
    assert _ranked(catalog, f"{base}&electricity_price=0.31") != expected


@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
def test_a_kept_ranking_gives_the_result_of_a_fresh_one(
    seed_catalog: object, preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = CatalogSnapshot.load()
    base = f"preset={preset}&server=auto"
    analyse_form(_form(catalog, base))  # ranks, and keeps the ranking
    made: list[object] = []
    real = services.owning_plan
    monkeypatch.setattr(services, "owning_plan", lambda *a, **k: made.append(a) or real(*a, **k))
    for variant in UNRANKED_VARIANTS:
        query = f"{base}&{variant}"
        kept = analyse_form(_form(catalog, query))
        assert made == [], f"ranked again for {variant}"
        fresh = analyse_form(_form(CatalogSnapshot.load(), query))  # a new snapshot keeps none
        assert len(made) == len(catalog.servers), "the fresh snapshot ranks"
        made.clear()
        assert _outcome_figures(kept) == _outcome_figures(fresh), variant
    analyse_form(_form(catalog, f"{base}&electricity_price=0.31"))
    assert len(made) == len(catalog.servers), "an input the ranking reads ranks again"


def test_kept_rankings_are_bounded(seed_catalog: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "RECENT_RANKINGS", 3)
    catalog = CatalogSnapshot.load()
    for pct in range(10, 20):
        analyse_form(_form(catalog, f"preset=pretrain-7b&server=auto&electricity_price=0.{pct}"))
        assert 1 <= len(catalog.derived["server rankings"]) <= 3


def test_the_key_holds_every_other_input(seed_catalog: object) -> None:
    form = _form(CatalogSnapshot.load(), "preset=serve-70b&server=auto")
    named = {name for name, _value in services._ranking_key(form)}
    given = {name for name, value in form.cleaned_data.items() if value is not None}
    assert named == given - {"discount_rate_pct", "providers", "terms"}
