"""tco.analysis.calculator: the ranking of the catalog's servers ("the cheapest that fits")
reads what owning costs in nominal terms, never the discount rate or the cloud providers and
terms."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import QueryDict

from catalog.models import PricingTerm
from tco.analysis import calculator
from tco.analysis.calculator import form_data
from tco.inputs.forms import PROVIDERS, CalculatorForm
from tco.inputs.presets import PRESETS
from tco.scenario.resolve import CatalogSnapshot

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
    """The ranking of the catalog's servers for these inputs."""
    form = _form(catalog, query)
    keys = list(catalog.servers)
    return calculator._rank_servers(form, keys, form.to_document(keys[0]), {})


@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
def test_the_ranking_reads_no_discount_rate_provider_or_term(
    seed_catalog: object, preset: str
) -> None:
    catalog = CatalogSnapshot.load()
    base = f"preset={preset}&server=auto"
    expected = _ranked(catalog, base)
    assert not isinstance(expected, calculator.CalculatorOutcome)
    assert any(total is not None for _key, total, _reason, _meets in expected)
    for variant in UNRANKED_VARIANTS:
        assert _ranked(catalog, f"{base}&{variant}") == expected, variant
    # ... while the inputs it does read change it. The site's power is typed: a fleet
    # beyond a server room's assumed 30 kW is costed at the colocation, whose electricity
    # price the site's override does not change (the rack-scale preset's fleets all are).
    site = f"{base}&available_it_kw=100000"
    assert _ranked(catalog, f"{site}&electricity_price=0.31") != _ranked(catalog, site)
