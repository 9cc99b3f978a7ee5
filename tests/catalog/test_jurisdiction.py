"""Cloud offerings carry where their data goes and whose law the provider is under."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.models import CloudOffering
from catalog.services import PriceImportError, import_price_file
from tco.engine import EU_COUNTRIES
from tests.catalog.price_files import csv_bytes, exported_rows, set_cell

pytestmark = pytest.mark.django_db

US_PROVIDERS = {"AWS", "Google Cloud", "Azure", "Lambda", "CoreWeave", "RunPod"}
EU_PROVIDERS = {"Nebius", "Scaleway", "OVHcloud", "Verda"}


def test_every_seed_offering_says_whose_law_and_where_with_a_source(seed_catalog: object) -> None:
    offers = list(CloudOffering.objects.all())
    assert {o.provider for o in offers} >= US_PROVIDERS | EU_PROVIDERS | {"Hyperstack"}
    for offer in offers:
        assert len(offer.jurisdiction) == 2, offer.key
        assert offer.jurisdiction_source, offer.key
        if offer.provider in US_PROVIDERS:
            assert offer.jurisdiction == "US"
        if offer.provider in EU_PROVIDERS:
            assert offer.jurisdiction in EU_COUNTRIES and offer.data_country in EU_COUNTRIES
    # Known only when the region is named: RunPod's "global" and Hyperstack's unnamed EU DCs.
    unknown = {o.provider for o in offers if not o.data_country}
    assert unknown == {"RunPod", "Hyperstack"}
    assert CloudOffering.objects.get(key="hyperstack-h100-8x-od").jurisdiction == "GB"


def test_eu_clouds_carry_the_sourced_prices_and_dates(seed_catalog: object) -> None:
    nebius = CloudOffering.objects.get(key="nebius-h100-8x-od")
    # $4.50 per H100 GPU-hour from 1 October 2026 × 8 GPUs.
    assert (nebius.price_per_hour, nebius.currency, nebius.gpu_count) == (Decimal(36), "USD", 8)
    assert nebius.as_of.isoformat() == "2026-10-07" and "nebius" in nebius.source_url
    scaleway = CloudOffering.objects.get(key="scaleway-h100-sxm-8x-od")
    assert (float(scaleway.price_per_hour), scaleway.currency) == (25.33, "EUR")
    assert scaleway.data_country == "FR" and scaleway.as_of.isoformat() == "2026-09-26"
    ovh = CloudOffering.objects.get(key="ovhcloud-h200-8x-od")
    assert float(ovh.price_per_hour) / ovh.gpu_count == pytest.approx(5.25)


@pytest.mark.dates
def test_jurisdiction_and_data_country_are_importable(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    assert {"jurisdiction", "data_country", "jurisdiction_source"} <= set(rows[0])
    key = "runpod-h100-8x-secure"
    set_cell(rows, key, "data_country", "nl")
    set_cell(rows, key, "jurisdiction_source", "RunPod EU-NL-1 region (test)")
    set_cell(rows, key, "as_of", timezone.localdate().isoformat())
    import_price_file(kind="cloud", filename="cloud.csv", data=csv_bytes(rows), source="test")
    offer = CloudOffering.objects.get(key=key)
    assert offer.data_country == "NL" and offer.jurisdiction == "US"


def test_a_bad_country_code_names_its_row_and_column(seed_catalog: object) -> None:
    rows = exported_rows("cloud")
    row = set_cell(rows, "aws-p5-48xlarge-od", "jurisdiction", "USA")
    with pytest.raises(PriceImportError) as caught:
        import_price_file(kind="cloud", filename="cloud.csv", data=csv_bytes(rows), source="test")
    messages = [str(error) for error in caught.value.preview.errors]
    assert any(f"row {row}, column 'jurisdiction'" in m and "country code" in m for m in messages)
