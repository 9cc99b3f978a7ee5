"""Quotes and proposals of rack-scale systems (issue 34): the site's build-out as catalog
lines, and the site requirements the buyer must meet printed in the proposal."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

from quotes import pdf, services
from quotes.models import LineKind, LineUnit

from .test_vendor_proposal import _customer, _frozen, _pages

# GB300 NVL72 racks of 140 kW in a hall with facility water but no CDUs, 150 kW a rack and
# 4 MW of IT power free (a room with no power given holds 30 kW: the racks would go to the
# colocation).
WATER_ROOM = (
    "preset=rack-scale-nvl72&site_cooling=facility_water&rack_power_limit=150&available_it_kw=4000"
)


def test_a_quote_carries_the_build_out_the_analysis_priced(
    seed_catalog: object, sales_user: Any
) -> None:
    """R racks × 140 kW: ⌈140·R ÷ 250⌉ CDUs and 140·R kW of liquid loop, the catalog's
    facility items at their list prices ($90,000 and $400, converted at one rate)."""
    quote = services.quote_create_from_calculator(
        customer=_customer("en"), owner=sales_user, query=WATER_ROOM
    )
    revision = quote.revisions.get()
    lines = {line.catalog_key: line for line in revision.lines.all()}
    racks = lines["server:nvidia-gb300-nvl72"].quantity
    cdu, loop = lines["item:cdu-in-row-250kw"], lines["item:liquid-cooling-per-kw"]
    cdus = math.ceil(racks * 140 / 250)
    assert (cdu.quantity, cdu.unit, cdu.kind) == (Decimal(cdus), LineUnit.PCS, LineKind.FACILITY)
    assert (loop.quantity, loop.unit, loop.kind) == (racks * 140, LineUnit.KW, LineKind.FACILITY)
    assert "item:power-per-kw" not in lines  # 140 kW racks within the 150 kW feed
    # One FX rate for both (prices rounded to whole units).
    assert float(cdu.unit_price) / 90_000 == pytest.approx(float(loop.unit_price) / 400, rel=0.005)


def test_the_proposal_lists_the_site_requirements(seed_catalog: object, sales_user: Any) -> None:
    quote = services.quote_create_from_calculator(
        customer=_customer("nl"), owner=sales_user, query="preset=rack-scale-nvl72"
    )
    snapshot = _frozen(quote.revisions.get(), sales_user)
    text = " ".join(_pages(pdf.render_revision(snapshot, language="nl", with_charts=False).pdf))
    assert "140,0 kW per rack bij volle belasting" in text
    assert "Colocatie met vloeistofkoeling regio Amsterdam (NL)" in text
    assert "Eisen aan de locatie" in text and "koelwater van het gebouw" in text
    assert "EU-databank" in text and "restwarmte" in text
    # The summary says whose site could not take the racks, why, and where they are costed
    # (the preset's server room is a default the buyer never described).
    words = " ".join(text.split())
    assert (
        "De standaardlocatie, Eigen serverruimte (NL), kan de NVIDIA GB300 NVL72 niet aan" in words
    )
    assert "geen water bij de racks" in words
    assert "de standaardlocatie kan deze racks niet aan" in words
