"""The distributor's face on its public pages: its own list prices read as its price list,
without estimate marks, dates or staleness (those are for staff and sales); third-party
prices keep their dates and ages; the company profile on every public page."""

from __future__ import annotations

import html as html_lib
import re
from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone

from catalog.models import (
    ApiOffering,
    CloudOffering,
    CloudRegion,
    Gpu,
    InfrastructureItem,
    ServerModel,
    Site,
)
from quotes.models import CompanyProfile
from tests.catalog_dates import date_current_fx_rates

pytestmark = pytest.mark.django_db

# A result whose own prices are the server (the DGX H100 on its seed price, an estimate),
# installation per server and hardware support (both catalog items).
QUERY = {"preset": "pretrain-7b", "server": "nvidia-dgx-h100"}
SERVER_PRICE = "NVIDIA DGX H100 price"
INSTALLATION = "Rack-and-stack installation and burn-in per server"
SUPPORT = "Hardware support contract (standard next-business-day)"
ROW = re.compile(
    r'<tr( class="stale")?>\s*<th scope="row">(.*?)</th><td>(.*?)</td>\s*'
    r'<td class="source">(.*?)</td>\s*<td>(.*?)</td></tr>',
    re.S,
)


def _assumptions(html: str) -> dict[str, dict[str, Any]]:
    table = html.split('<table class="assumptions">', 1)[1].split("</table>", 1)[0]
    return {
        label: {"stale": bool(stale), "value": value, "source": source, "date": when}
        for stale, label, value, source, when in ROW.findall(table)
    }


def _banner(html: str) -> str | None:
    found = re.search(r"(\d+) prices? (?:is|are) older than the freshness limit", html)
    return found.group(1) if found else None


@pytest.fixture
def sales_client(db: None) -> Client:
    user = User.objects.create_user("sanne", "sanne@distributor.example", "pw-sanne")
    user.groups.add(Group.objects.get_or_create(name="sales")[0])
    client = Client()
    client.force_login(user)
    return client


def _age_catalog(*, own_days: int, others_days: int) -> None:
    """Date the own price rows (servers, items) and the third-party rows apart (the current
    FX rates with the third-party rows)."""
    today = timezone.localdate()
    own = today - timedelta(days=own_days)
    ServerModel.objects.update(as_of=own, price_as_of=own)  # a server's price has its own date
    InfrastructureItem.objects.update(as_of=own)
    for third_party in (CloudOffering, ApiOffering, Site, Gpu, CloudRegion):
        third_party.objects.update(as_of=today - timedelta(days=others_days))
    date_current_fx_rates(others_days)


def test_public_calculator_reads_own_prices_as_the_price_list_and_staff_see_their_date(
    client: Client, sales_client: Client, seed_catalog: object
) -> None:
    public = _assumptions(client.get("/calculator/", QUERY).content.decode())
    for label in (SERVER_PRICE, INSTALLATION, SUPPORT):
        row = public[label]
        assert row["source"] == "Our price list", label
        assert row["date"] == "" and not row["stale"], label
        assert "estimate" not in row["source"] and "stale" not in row["date"], label
    # The seed's DGX H100 price is an estimate dated 1 December 2026: staff and sales read
    # its own source, the estimate mark and the date.
    server = ServerModel.objects.get(key="nvidia-dgx-h100")
    internal = _assumptions(sales_client.get("/calculator/", QUERY).content.decode())
    row = internal[SERVER_PRICE]
    assert server.price_is_estimate and server.price_source in html_lib.unescape(row["source"])
    assert 'class="badge estimate"' in row["source"]
    assert server.as_of.isoformat() == "2026-12-01" and row["date"].startswith("1 Dec 2026")
    # Cloud prices are third-party facts: dated for everyone.
    cloud = next(label for label in public if "(on-demand)" in label)
    assert public[cloud]["date"] and public[cloud]["date"] == internal[cloud]["date"]


# Ages count from today: runs on other days too (tests/clock.py).
@pytest.mark.dates
def test_the_public_stale_banner_does_not_count_own_prices(
    client: Client, sales_client: Client, seed_catalog: object
) -> None:
    # Own prices 200 days old, everything else from yesterday: the three own prices are
    # stale for staff (server, installation, support), none of them for the public.
    _age_catalog(own_days=200, others_days=1)
    public = client.get("/calculator/", QUERY).content.decode()
    assert _banner(public) is None
    assert 'class="badge stale"' not in public.split('<table class="assumptions">', 1)[1]
    internal = sales_client.get("/calculator/", QUERY).content.decode()
    assert _banner(internal) == "3"
    rows = _assumptions(internal)
    assert {label for label, row in rows.items() if row["stale"]} == {
        SERVER_PRICE,
        INSTALLATION,
        SUPPORT,
    }
    # A third-party price past the limit counts for everyone: one cloud offering 181 days
    # old (the reference cloud of this result is on-demand; any offering listed counts).
    cloud_label = next(label for label in rows if "(on-demand)" in label)
    offer = next(o for o in CloudOffering.objects.all() if str(o) == cloud_label)
    offer.as_of = timezone.localdate() - timedelta(days=181)
    offer.save()  # a catalog write: cached pages are not served again
    assert _banner(client.get("/calculator/", QUERY).content.decode()) == "1"
    assert _banner(sales_client.get("/calculator/", QUERY).content.decode()) == "4"


# Ages count from today: runs on other days too (tests/clock.py).
@pytest.mark.dates
def test_specifications_do_not_go_stale(client: Client, seed_catalog: object) -> None:
    # Power, GPU specifications, PUE and the service life are not prices: however old
    # their source, the banner about prices does not count them.
    _age_catalog(own_days=1, others_days=1)
    Gpu.objects.update(as_of=timezone.localdate() - timedelta(days=900))
    ServerModel.objects.update(as_of=timezone.localdate() - timedelta(days=1))
    html = client.get("/calculator/", QUERY).content.decode()
    assert _banner(html) is None


def _price_cell(html: str, sku: str) -> str:
    row = re.search(rf'<th scope="row">NVIDIA {sku}<br>.*?</tr>', html, re.S)
    assert row, sku
    cells: list[str] = re.findall(r'<td class="num">(.*?)</td>', row.group(0), re.S)
    return cells[-1]  # the list price is the row's last number


# Ages count from today: runs on other days too (tests/clock.py).
@pytest.mark.dates
def test_public_catalog_shows_own_prices_without_flags_and_staff_with_them(
    client: Client, sales_client: Client, seed_catalog: object
) -> None:
    _age_catalog(own_days=400, others_days=10)
    CloudOffering.objects.filter(key="aws-p5-48xlarge-od").update(
        as_of=timezone.localdate() - timedelta(days=181)
    )
    public = client.get("/catalog/").content.decode()
    cell = _price_cell(public, "DGX H100")
    assert "$300,000" in cell
    assert "estimate" not in cell and "days" not in cell and "stale" not in cell
    items = public.split('id="items-heading"', 1)[1].split("</table>", 1)[0]
    assert "Our price list" in items and "estimate" not in items and "days" not in items
    # Only the third-party price past the limit is flagged; it keeps its age.
    assert public.count('class="badge stale"') == 1 and "181 days" in public
    assert "400 days" not in public
    internal = sales_client.get("/catalog/").content.decode()
    cell = _price_cell(internal, "DGX H100")
    assert 'class="badge estimate"' in cell and "400 days" in cell and "stale" in cell
    # Every server and item (own prices, 400 days old) and the one cloud offering.
    own = ServerModel.objects.count() + InfrastructureItem.objects.count()
    assert internal.count('class="badge stale"') == own + 1


# Ages count from today: runs on other days too (tests/clock.py).
@pytest.mark.dates
def test_public_price_history_of_an_own_price_shows_no_date_or_flag(
    client: Client, sales_client: Client, seed_catalog: object
) -> None:
    ServerModel.objects.filter(key="nvidia-dgx-a100-640gb").update(  # the price's own date
        price_as_of=timezone.localdate() - timedelta(days=2393)
    )
    url = "/catalog/prices/servers/nvidia-dgx-a100-640gb/"
    public = client.get(url).content.decode().split('id="main"', 1)[1].split("</main>")[0]
    assert "199,000.00 USD" in public and "Our price list" in public
    for mark in ("estimate", "stale", "days", "2020", "Effective from"):
        assert mark not in public, mark
    internal = sales_client.get(url).content.decode()
    assert "2,393 days" in internal and 'class="badge estimate"' in internal
    # A cloud price's history stays public, dated.
    cloud = client.get("/catalog/prices/cloud/aws-p5-48xlarge-od/").content.decode()
    assert "Effective from" in cloud and "days" in cloud


@pytest.mark.parametrize(
    ("language", "phone_label"), [("en", "Phone"), ("nl", "Telefoon")], ids=["en", "nl"]
)
@pytest.mark.parametrize("path", ["/", "/calculator/", "/catalog/"])
def test_public_pages_carry_the_company_profile(
    client: Client, seed_catalog: object, path: str, language: str, phone_label: str
) -> None:
    profile = CompanyProfile.current()
    assert profile is not None  # seeded by quotes migration 0007
    html = client.get(path, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    header = html.split('<header class="site-header">', 1)[1].split("</header>", 1)[0]
    footer = html.split('<footer class="site-footer">', 1)[1].split("</footer>", 1)[0]
    assert profile.trade_name in header
    assert 'href="tel:+31201234567"' in header and profile.phone in header
    for text in (
        profile.legal_name,
        f"{profile.street}, {profile.postal_code} {profile.city}",
        f"{phone_label} <a",
        profile.phone,
        f'href="mailto:{profile.email}"',
        profile.website,
        f"KvK {profile.kvk_number}",
    ):
        assert text in footer, text
    # The footer no longer says that the distributor's prices are marked as estimates.
    assert "estimate" not in footer and "schatting" not in footer


def test_a_changed_profile_reaches_cached_calculator_pages(
    client: Client, seed_catalog: object
) -> None:
    first = client.get("/calculator/", QUERY).content.decode()
    assert "Rekenkracht Distributie B.V." in first
    assert "Rekenkracht Distributie B.V." in client.get("/calculator/", QUERY).content.decode()
    profile = CompanyProfile.current()
    assert profile is not None
    profile.legal_name, profile.phone = "Rekenkracht Nederland B.V.", "+31 20 765 43 21"
    profile.save()
    again = client.get("/calculator/", QUERY).content.decode()
    assert "Rekenkracht Nederland B.V." in again and "+31 20 765 43 21" in again


def _inputs(content: bytes) -> dict[str, tuple[Any, ...]]:
    """The workbook's Inputs sheet by defined name: (source, as of, estimate)."""
    import io

    from openpyxl import load_workbook

    sheet = load_workbook(io.BytesIO(content))["Inputs"]
    return {
        str(row[6]): (row[3], row[4], row[5])
        for row in sheet.iter_rows(min_row=2, values_only=True)
    }


def test_a_visitors_workbook_reads_own_prices_as_the_price_list(
    client: Client, sales_client: Client, seed_catalog: object
) -> None:
    public = _inputs(client.get("/calculator/workbook.xlsx", QUERY).content)
    for name in ("server_price", "installation_per_server", "support_pct_per_year"):
        assert public[name][0] == "Our price list" and not public[name][1], name
        assert not public[name][2], name
    internal = _inputs(sales_client.get("/calculator/workbook.xlsx", QUERY).content)
    source, as_of, estimate = internal["server_price"]
    assert source.startswith("Estimate: a DGX H100 sold at about $270,000")
    assert as_of.date().isoformat() == "2026-12-01" and estimate == "estimate"
    # A cloud price keeps its source and date in both.
    assert public["cloud1_price_per_instance_hour"] == internal["cloud1_price_per_instance_hour"]
    assert public["cloud1_price_per_instance_hour"][1] is not None


def test_a_servers_price_and_specifications_keep_their_own_provenance(
    client: Client, sales_client: Client, seed_catalog: object, frozen_today: date
) -> None:
    """The audit's N5: the visitor's workbook masked the server's price but printed the same
    catalog row's date and estimate flag on its specification rows, because one provenance
    served both. A price change now dates the price only; visitors read the specifications'
    source by name (as the catalog page and the API show it) and the price as our list."""
    from catalog.services import import_price_file
    from tests.catalog.price_files import csv_bytes, exported_rows, set_cell

    today = frozen_today  # 3 Dec 2026: after the seed's price date (1 Dec 2026)
    rows = exported_rows("servers")
    set_cell(rows, "nvidia-dgx-h100", "list_price", "265000")
    set_cell(rows, "nvidia-dgx-h100", "price_as_of", today.isoformat())
    import_price_file(kind="servers", filename="servers.csv", data=csv_bytes(rows), source="t")

    internal = _inputs(sales_client.get("/calculator/workbook.xlsx", QUERY).content)
    spec_source, spec_as_of, _estimate = internal["gpus_per_server"]
    # Seed row nvidia-dgx-h100: the user guide, as of 2026-12-01, not an estimate.
    assert spec_source.startswith("NVIDIA DGX H100/H200 user guide (6 × 3.3 kW PSU")
    assert spec_as_of.date() == date(2026, 12, 1) and internal["gpus_per_server"][2] != "estimate"
    assert internal["server_price"][1].date() == today  # the price's own date
    assert internal["server_price"][2] == "estimate"  # the price's own flag

    public = _inputs(client.get("/calculator/workbook.xlsx", QUERY).content)
    for name in ("gpus_per_server", "idle_power_kw", "max_power_kw"):
        assert public[name][0] == "NVIDIA DGX H100/H200 user guide", name  # the source's name
        assert public[name][1] is None and not public[name][2], name
    assert public["server_price"][0] == "Our price list" and public["server_price"][1] is None
