"""Hosted model API prices in the catalog: seeded with sources, shown, with their history."""

from __future__ import annotations

import pytest
from django.test import Client

from catalog.models import ApiOffering

pytestmark = pytest.mark.django_db


def test_seed_rows_carry_prices_sources_and_countries(seed_catalog: object) -> None:
    rows = list(ApiOffering.objects.all())
    assert len(rows) >= 9
    for row in rows:
        assert row.source and row.as_of and row.price_output_per_million > 0
        assert row.jurisdiction == "" or (len(row.jurisdiction) == 2 and row.jurisdiction.isupper())
    # The EU providers of section 5 of the sources: processed in France and Germany.
    eu = {
        r.provider: (r.jurisdiction, r.data_country, r.currency)
        for r in rows
        if r.currency == "EUR"
    }
    assert eu == {
        "Scaleway": ("FR", "FR", "EUR"),
        "OVHcloud": ("FR", "FR", "EUR"),
        "IONOS": ("DE", "DE", "EUR"),
    }
    groq = ApiOffering.objects.get(key="groq-llama-3-3-70b")
    assert (float(groq.price_input_per_million), float(groq.price_output_per_million)) == (
        0.59,
        0.79,
    )


def test_catalog_page_lists_them_with_a_history_link(client: Client, seed_catalog: object) -> None:
    html = client.get("/catalog/").content.decode()
    assert "Hosted model APIs, per million tokens" in html
    assert "/catalog/prices/api/groq-llama-3-3-70b/" in html
    history = client.get("/catalog/prices/api/groq-llama-3-3-70b/")
    assert history.status_code == 200
    assert "0.79 USD" in history.content.decode()
