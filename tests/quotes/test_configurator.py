"""The configurator of a draft option (quotes/views/configure.py) and a configured system
on the quote (services.configured): the system line at the barebone price with its
component lines under it, part numbers on every line, in the documents too."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from catalog.configure.rules import Configuration
from common.formatting import money
from quotes import pdf, selectors, services
from quotes.models import LineKind, QuoteRevision
from quotes.services.configured import revision_add_configured_system

from .conftest import send
from .test_reprice import SERVERS, change_price

pytestmark = pytest.mark.django_db
SERVER = "smc-821ge-tnhr-h100"  # Supermicro SYS-821GE-TNHR, USD 280,000 as listed
CPU, DIMM, NVME, NIC, PSU = (
    "Xeon Platinum 8468",
    "MEM-DR564MC-ER48",
    "MZQL23T8HCLS-00A07",
    "MCX75310AAS-NEAT",
    "SMC-PSU-3000W-TI",
)


def configuration(dimms: int = 32) -> Configuration:
    """The chassis's default (catalog/data/chassis_defaults.csv) with `dimms` modules."""
    return Configuration(SERVER, ((CPU, 2), (DIMM, dimms), (NVME, 8), (NIC, 8), (PSU, 6)))


@pytest.fixture
def revision(seed_catalog: object, draft_quote: Any) -> QuoteRevision:
    """An empty draft (EUR) of the Benelux team."""
    quote = services.quote_create(customer=draft_quote.customer, owner=draft_quote.owner)
    return quote.revisions.get()


def test_a_configured_system_is_its_barebone_and_its_component_lines(
    revision: QuoteRevision,
) -> None:
    system = revision_add_configured_system(
        revision=revision, configuration=configuration(dimms=16), quantity=Decimal(2)
    )
    # Hand calculation (USD list prices, catalog/data; EUR at the catalog's 1.16 USD, each
    # converted price rounded to whole euros, docs/quotes.md "Pricing rule"):
    # default parts 2 × 7,214 + 32 × 380 + 8 × 450 + 8 × 1,700 + 6 × 650 = 47,688;
    # barebone 280,000 − 47,688 = 232,312 USD = 200,268.97 → €200,269.
    assert system.unit_price == Decimal("200269")
    assert system.quantity == 2
    children = {line.catalog_key: line for line in system.children.order_by("position")}
    expected = {  # part: (per system, € unit price = USD ÷ 1.16 to whole euros)
        CPU: (2, "6219"),  # 7,214 ÷ 1.16 = 6,218.97
        DIMM: (16, "328"),  # 380 ÷ 1.16 = 327.59
        NVME: (8, "388"),  # 450 ÷ 1.16 = 387.93
        NIC: (8, "1466"),  # 1,700 ÷ 1.16 = 1,465.52
        PSU: (6, "560"),  # 650 ÷ 1.16 = 560.34
    }
    assert set(children) == {f"component:{part}" for part in expected}
    for part, (per_system, price) in expected.items():
        line = children[f"component:{part}"]
        assert line.kind == LineKind.COMPONENT
        assert (line.per_parent, line.quantity, line.unit_price) == (
            Decimal(per_system),
            Decimal(2 * per_system),
            Decimal(price),
        )
    # Per system: 200,269 + 2 × 6,219 + 16 × 328 + 8 × 388 + 8 × 1,466 + 6 × 560 = 236,147
    # (273,920 USD ÷ 1.16 = 236,137.93: each line rounds to whole euros).
    totals = services.revision_totals(revision)
    assert totals.subtotal == 2 * Decimal("236147")

    # One system more: the components follow (services.bom.follow_systems).
    services.revision_update_line(
        revision=revision,
        line_id=system.pk,
        quantity=Decimal(3),
        unit_price=system.unit_price,
        discount_pct=Decimal(0),
    )
    assert revision.lines.get(catalog_key=f"component:{DIMM}").quantity == 48


def test_a_new_server_price_reprices_a_configured_system_as_its_barebone(
    revision: QuoteRevision, sales_user: User
) -> None:
    system = revision_add_configured_system(
        revision=revision, configuration=configuration(), quantity=Decimal(1)
    )
    # The server's list price up $10,000 (a price-list import, as staff change prices).
    change_price(SERVERS, SERVER, Decimal("290000"))
    [change] = selectors.revision_price_changes(revision=revision)
    # The barebone follows: (290,000 − 47,688) ÷ 1.16 = 208,889.66 → €208,890, not the
    # whole server (290,000 ÷ 1.16 = €250,000) on top of its components.
    assert (change.line.pk, change.unit_price) == (system.pk, Decimal("208890"))
    services.revision_reprice(revision=revision, actor=sales_user)
    system.refresh_from_db()
    assert system.unit_price == Decimal("208890")

    # A default component's new price: its line follows ($400 ÷ 1.16 = 344.83 → €345 a
    # module) and the barebone gives it back (the server's list price is unchanged):
    # (290,000 − 47,688 − 32 × 20) ÷ 1.16 = 241,672 ÷ 1.16 = 208,337.93 → €208,338.
    change_price(("components", "list_price"), DIMM, Decimal("400"))
    changes = {
        c.line.catalog_key: c.unit_price
        for c in selectors.revision_price_changes(revision=revision)
    }
    assert changes == {f"server:{SERVER}": Decimal("208338"), f"component:{DIMM}": Decimal("345")}


def test_an_invalid_configuration_is_refused_with_its_reason(revision: QuoteRevision) -> None:
    with pytest.raises(services.QuoteError) as refused:
        revision_add_configured_system(
            revision=revision, configuration=configuration(dimms=8), quantity=Decimal(1)
        )
    # 2 sockets × 8 channels = 16 channels; 8 modules leave half of them empty.
    assert "8 DIMMs do not populate the 16 channels of two 4th-generation Xeon CPUs" in str(
        refused.value
    )
    assert not revision.lines.exists()


def test_the_configurator_checks_as_you_type_and_adds_to_the_option(
    client: Client, revision: QuoteRevision, sales_user: User
) -> None:
    client.force_login(sales_user)
    url = reverse("quotes:configure", args=[revision.public_id])
    page = client.get(url, {"server": SERVER}).content.decode()
    # The default configuration of the chassis, valid, at its list price.
    assert 'id="configuration-valid"' in page and f'value="{DIMM}" selected' in page
    assert "$280,000.00" in page
    # An edit (htmx): the result only, with the violation worded and the price updated
    # (32 − 8 = 24 modules less at $380: 280,000 − 9,120 = $270,880).
    quantities = ["2", "8", "8", "8", "6", "0"]
    query: dict[str, Any] = {
        "server": SERVER,
        "part": [CPU, DIMM, NVME, NIC, PSU, ""],
        "qty": quantities,
    }
    partial = client.get(url, query, headers={"HX-Request": "true"}).content.decode()
    assert partial.lstrip().startswith("<section") and 'id="configuration-invalid"' in partial
    assert "8 DIMMs do not populate the 16 channels of two 4th-generation Xeon CPUs" in partial
    assert "$270,880.00" in partial
    # Dutch readers read it in Dutch.
    dutch = client.get(url, query, headers={"HX-Request": "true", "Accept-Language": "nl"})
    assert "Niet geldig" in dutch.content.decode()

    add = reverse("quotes:configure_add", args=[revision.public_id])
    refused = client.post(add, {**query, "systems": "2"})
    assert refused.status_code == 302 and not revision.lines.exists()
    quantities[1] = "16"
    done = client.post(add, {**query, "systems": "2"})
    assert done.status_code == 302 and done["Location"].endswith("#draft-lines")
    system = revision.lines.get(kind=LineKind.SERVER)
    assert system.children.get(catalog_key=f"component:{DIMM}").quantity == 32
    # The quote page shows each component line's part number.
    detail = client.get(reverse("quotes:detail", args=[revision.quote.public_id])).content
    assert f'<small class="part-number">{NIC}</small>'.encode() in detail


def _text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    return re.sub(r"\s+", " ", " ".join(p.extract_text() for p in reader.pages)).replace(
        "\u00a0", " "
    )


def test_the_documents_list_the_configured_parts_and_the_systems_subtotal(
    client: Client, revision: QuoteRevision, sales_user: User
) -> None:
    system = revision_add_configured_system(
        revision=revision, configuration=configuration(), quantity=Decimal(2)
    )
    client.force_login(sales_user)
    response = client.get(reverse("quotes:revision_bom", args=[revision.public_id, "csv"]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    parts = [r["Part number"] for r in rows if r["Line"]]
    assert parts == ["SYS-821GE-TNHR", CPU, DIMM, NVME, NIC, PSU]
    assert not any(r["Note"] == "included in the system price" for r in rows)
    # The default configuration: €200,269 + 2 × 6,219 + 32 × 328 + 8 × 388 + 8 × 1,466 +
    # 6 × 560 = €241,395 per system (the server line unconfigured: 280,000 ÷ 1.16 =
    # €241,379; 16 more from rounding six lines instead of one), €482,790 for two.
    subtotal = next(r for r in rows if r["Note"] == "subtotal")
    assert Decimal(subtotal["System subtotal"]) == Decimal("482790")

    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    text = _text(pdf.render_revision(revision.snapshot, language="en", with_charts=False).pdf)
    for part in (CPU, DIMM, NVME, NIC, PSU):
        assert part in text, part
    assert f"{DIMM} 64 GB DDR5-4800" in text and " 32 64 " in text  # per system, in total
    assert (
        f"Subtotal of line {system.position} and the lines under it, excl. VAT "
        f"{money(Decimal('482790'), 'EUR')}" in text
    )
    assert f"Per system {money(Decimal('241395'), 'EUR')}" in text


@pytest.mark.parametrize(
    ("who", "get_status", "post_status"),
    [
        ("anonymous", 302, 403),
        ("plain", 403, 403),
        ("other-team", 404, 404),
        ("sales", 200, 302),
        ("manager", 200, 302),
        ("staff", 200, 302),
    ],
)
def test_only_the_quotes_team_and_staff_configure_its_options(
    client: Client,
    revision: QuoteRevision,
    sales_user: User,
    make_sales_user: Callable[..., User],
    who: str,
    get_status: int,
    post_status: int,
) -> None:
    users = {
        "plain": lambda: make_sales_user("paul", sales=False),
        "other-team": lambda: make_sales_user("nils", team="Nordics"),
        "sales": lambda: sales_user,
        "manager": lambda: _in_group(make_sales_user("mia"), "sales-manager"),
        "staff": lambda: _staff(make_sales_user("boss", team=None, sales=False)),
    }
    if who in users:
        client.force_login(users[who]())
    url = reverse("quotes:configure", args=[revision.public_id])
    assert client.get(url).status_code == get_status
    post = {"server": SERVER, "part": [CPU, DIMM], "qty": ["2", "32"], "systems": "1"}
    response = client.post(reverse("quotes:configure_add", args=[revision.public_id]), post)
    assert response.status_code == post_status
    if post_status != 302:
        assert not revision.lines.exists()


def _in_group(user: User, group: str) -> User:
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def _staff(user: User) -> User:
    user.is_staff = True
    user.save()
    return user
