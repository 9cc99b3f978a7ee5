"""The analysis PDF a visitor receives reads the distributor's own list prices as its
price list: no internal estimate note and no date on them; cloud prices keep theirs."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from quotes import pdf

from .conftest import lead_analysis_text

pytestmark = pytest.mark.django_db

QUERY = "preset=pretrain-7b&server=nvidia-dgx-h100"


@pytest.mark.parametrize(
    ("language", "price_list"), [("en", "Our price list"), ("nl", "Onze prijslijst")]
)
def test_lead_pdf_reads_own_prices_as_the_price_list(
    seed_catalog: object, language: str, price_list: str
) -> None:
    snapshot, text = lead_analysis_text(QUERY, language, "Startup BV")
    frozen = snapshot["tco"]["assumptions"]
    own = [a for a in frozen if a.get("own_price")]
    # The server's price, installation per server and hardware support.
    assert len(own) == 3 and all(a["as_of"] for a in own)
    with translation.override(language):
        rows = pdf._tco_context(snapshot["tco"], snapshot["seller"])["assumptions"]
    for frozen_row, row in zip(frozen, rows, strict=True):
        if frozen_row.get("own_price"):
            assert row["source"] == price_list and row["as_of"] is None, row["label"]
        elif "/h" in frozen_row["value"]:  # a cloud price: dated
            assert row["as_of"] is not None, row["label"]
    assert text.count(price_list) == 3
    # The server's row: label, price, source and no date (the next row follows at once);
    # the seed's estimate note on the DGX H100 price is not in the document.
    assert re.search(rf"DGX H100 (price|prijs) 300[.,]000 USD {price_list} NVIDIA DGX H100", text)
    assert "SemiAnalysis" not in text
