from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.models import ApiOffering, CloudOffering, Gpu, InfrastructureItem, ServerModel
from tests.catalog_dates import date_current_fx_rates

pytestmark = pytest.mark.django_db


# Ages count from today: runs on other days too (tests/clock.py).
@pytest.mark.dates
def test_catalog_page_shows_gpus_servers_and_prices_with_age(
    client: Client, seed_catalog: object
) -> None:
    response = client.get("/catalog/")
    assert response.status_code == 200
    html = response.content.decode()
    for text in (
        "H100 SXM5 80GB",
        "B300",
        "SYS-822GS-NB3RT",
        "p5.48xlarge",
        "a3-highgpu-8g",
        "CoreWeave",
        "Colocation Amsterdam area (NL)",
        "$55.04",
        "$6.88",
    ):
        assert text in html, text
    age = (timezone.localdate() - CloudOffering.objects.get(key="aws-p5-48xlarge-od").as_of).days
    assert f"{age:,} days" in html  # the seed's date grows older: 1,000 days and more
    assert "estimate" in html


# Ages count from today: runs on other days too (tests/clock.py).
@pytest.mark.dates
def test_stale_prices_are_flagged_and_fresh_ones_are_not(
    client: Client, admin_client: Client, seed_catalog: object
) -> None:
    # Cloud and hosted API prices show their age and are flagged when stale, to everyone;
    # our own server and item prices to staff only (tests/web/test_distributor_face.py).
    for model in (CloudOffering, ServerModel, InfrastructureItem, ApiOffering):
        model.objects.all().update(as_of=timezone.localdate() - timedelta(days=10))
    ServerModel.objects.update(price_as_of=timezone.localdate() - timedelta(days=10))
    date_current_fx_rates(10)
    assert 'class="badge stale"' not in client.get("/catalog/").content.decode()
    assert 'class="badge stale"' not in admin_client.get("/catalog/").content.decode()
    CloudOffering.objects.filter(key="aws-p5-48xlarge-od").update(
        as_of=timezone.localdate() - timedelta(days=181)
    )
    html = client.get("/catalog/").content.decode()
    assert html.count('class="badge stale"') == 1
    assert "181 days" in html
    ServerModel.objects.filter(key="nvidia-dgx-h100").update(  # the price's own date
        price_as_of=timezone.localdate() - timedelta(days=200)
    )
    html = client.get("/catalog/").content.decode()
    assert html.count('class="badge stale"') == 1
    assert "200 days" not in html
    html = admin_client.get("/catalog/").content.decode()
    assert html.count('class="badge stale"') == 2
    assert "200 days" in html


def test_dutch_visitors_get_dutch_number_formats(client: Client, seed_catalog: object) -> None:
    html = client.get("/catalog/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert 'lang="nl"' in html
    assert "$\u00a055,04" in html  # decimal comma
    assert "$\u00a0199.000" in html  # thousands dot


def test_catalog_page_query_count_does_not_grow_with_the_catalog(
    client: Client, seed_catalog: object
) -> None:
    with CaptureQueriesContext(connection) as small:
        client.get("/catalog/")
    gpu = Gpu.objects.get(key="h100-sxm")
    for index in range(40):
        CloudOffering.objects.create(
            key=f"extra-{index}",
            provider="Extra",
            instance_type=f"x{index}",
            region="r",
            gpu=gpu,
            gpu_count=8,
            term="on_demand",
            price_per_hour=1,
            currency="USD",
            source="test",
            as_of=timezone.localdate(),
        )
    with CaptureQueriesContext(connection) as large:
        client.get("/catalog/")
    assert len(large) == len(small) <= 8


def test_empty_catalog_page_renders(client: Client, db: None) -> None:
    response = client.get("/catalog/")
    assert response.status_code == 200
    assert "No GPUs in the catalog yet." in response.content.decode()


def test_home_and_admin_are_served(client: Client, db: None) -> None:
    assert client.get("/").status_code == 200
    login = client.get("/admin/", follow=True)
    assert login.status_code == 200 and "Log in" in login.content.decode()


def test_admin_lists_every_catalog_model_with_search(
    admin_client: Client, seed_catalog: object
) -> None:
    for name in ("gpu", "servermodel", "cloudoffering", "site", "infrastructureitem", "fxrate"):
        response = admin_client.get(f"/admin/catalog/{name}/", {"q": "a"})
        assert response.status_code == 200, name
