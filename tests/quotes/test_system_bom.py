"""Each system's bill of materials in the documents (quotes/system_bom.py): the proposal
lists per system its lines with part numbers, quantities and a subtotal; the BOM export
(CSV, XLSX) per option, formula-safe, for the quote's team only."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from catalog.models import ServerPart
from common.formatting import money
from quotes import pdf, services
from quotes.models import LineKind, LineUnit, QuoteRevision

from .conftest import send

pytestmark = pytest.mark.django_db
SERVER = "smc-821ge-tnhr-h100"
EVIL = '=HYPERLINK("http://evil.example","click")'


def _text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    pages = (p.extract_text().replace("\u00a0", " ") for p in reader.pages)
    return re.sub(r"\s+", " ", " ".join(pages))


def _sent_pdf_text(revision: QuoteRevision, user: User, language: str) -> str:
    send(revision, user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    return _text(pdf.render_revision(revision.snapshot, language=language, with_charts=False).pdf)


@pytest.fixture
def revision(seed_catalog: object, draft_quote: Any) -> QuoteRevision:
    """3 × SYS-821GE-TNHR with installation per server under it, and a free line whose
    description a spreadsheet would run as a formula."""
    quote = services.quote_create(customer=draft_quote.customer, owner=draft_quote.owner)
    revision = quote.revisions.get()
    services.revision_add_line(
        revision=revision, catalog_key=f"server:{SERVER}", quantity=Decimal(3)
    )
    services.revision_add_line(
        revision=revision, catalog_key="item:installation-per-server", quantity=Decimal(3)
    )
    services.revision_add_free_line(
        revision=revision,
        description=EVIL,
        quantity=Decimal(1),
        unit=LineUnit.PCS,
        unit_price=Decimal("100.00"),
        cost_price=None,
    )
    return revision


def _lines(revision: QuoteRevision) -> tuple[Any, Any, Any]:
    server = revision.lines.get(kind=LineKind.SERVER)
    install = revision.lines.get(kind=LineKind.INSTALLATION)
    free = revision.lines.get(kind=LineKind.OTHER)
    assert install.parent_id == server.pk  # hangs under its system (services.bom)
    return server, install, free


def test_the_proposal_lists_each_systems_parts_and_subtotal(
    revision: QuoteRevision, sales_user: User
) -> None:
    server, install, _free = _lines(revision)
    text = _sent_pdf_text(revision, sales_user, "en")
    assert "Bill of materials (EUR)" in text
    assert "Line 1: 3 × " in text
    # No component lines: the model's parts as included in the system price, per system
    # and for the 3 systems (32 DIMMs per server: 96).
    for part in ServerPart.objects.filter(server__key=SERVER):
        assert part.part_number in text or not part.part_number
    assert "MEM-DR564MC-ER48 Memory: 64 GB DDR5-4800 ECC RDIMM (2 TB in total) 32 96 included" in (
        text
    )
    # Subtotal = 3 servers + 3 installations; per system a third of it.
    subtotal = 3 * server.unit_price + 3 * install.unit_price
    assert f"Subtotal of line 1 and the lines under it, excl. VAT {money(subtotal, 'EUR')}" in text
    assert f"Per system {money(subtotal / 3, 'EUR')}" in text


def test_the_dutch_proposal_words_the_bill_of_materials_in_dutch(
    revision: QuoteRevision, sales_user: User
) -> None:
    text = _sent_pdf_text(revision, sales_user, "nl")
    assert "Stuklijst (EUR)" in text
    assert "Geheugen: " in text and " inbegrepen" in text
    assert "Subtotaal van regel 1 en de regels eronder, excl. btw" in text


def test_the_bom_export_lists_part_numbers_subtotals_and_is_formula_safe(
    client: Client, revision: QuoteRevision, sales_user: User
) -> None:
    server, install, free = _lines(revision)
    client.force_login(sales_user)
    url = reverse("quotes:revision_bom", args=[revision.public_id, "csv"])
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0]["Part number"] == "SYS-821GE-TNHR" and rows[0]["Quantity"] == "3"
    memory = next(r for r in rows if r["Part number"] == "MEM-DR564MC-ER48")
    assert (memory["Per system"], memory["Quantity"], memory["Amount"]) == ("32", "96", "")
    assert memory["Note"] == "included in the system price"
    subtotal = next(r for r in rows if r["Note"] == "subtotal")
    assert Decimal(subtotal["System subtotal"]) == 3 * server.unit_price + 3 * install.unit_price
    # The quote lines' amounts add up to the option's subtotal (3 servers, 3 installations,
    # the free line at 100.00).
    amounts = sum(Decimal(r["Amount"]) for r in rows if r["Amount"])
    assert amounts == 3 * server.unit_price + 3 * install.unit_price + Decimal("100.00")
    evil = next(r for r in rows if r["Line"] == str(free.position))
    assert evil["Description"] == "'" + EVIL

    response = client.get(reverse("quotes:revision_bom", args=[revision.public_id, "xlsx"]))
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert "<f>" not in archive.read("xl/worksheets/sheet1.xml").decode()
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert sheet is not None
    cells = [c for row in sheet.iter_rows() for c in row if c.value == EVIL]
    assert cells and all(c.data_type == "s" for c in cells)

    # In the reader's language: Dutch titles and notes.
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="nl")
    dutch = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert "Onderdeelnummer" in dutch[0]
    assert any(r["Toelichting"] == "inbegrepen in de systeemprijs" for r in dutch)


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("anonymous", 302),
        ("plain", 403),
        ("other-team", 404),
        ("sales", 200),
        ("manager", 200),
        ("staff", 200),
    ],
)
def test_only_the_quotes_team_and_staff_export_its_bom(
    client: Client,
    revision: QuoteRevision,
    sales_user: User,
    make_sales_user: Callable[..., User],
    who: str,
    status: int,
) -> None:
    users = {
        "plain": lambda: make_sales_user("paul", sales=False),
        "other-team": lambda: make_sales_user("nils", team="Nordics"),
        "sales": lambda: sales_user,
        "manager": lambda: _manager(make_sales_user("mia")),
        "staff": lambda: _staff(make_sales_user("boss", team=None, sales=False)),
    }
    if who in users:
        client.force_login(users[who]())
    response = client.get(reverse("quotes:revision_bom", args=[revision.public_id, "csv"]))
    assert response.status_code == status
    if status == 200:
        assert b"SYS-821GE-TNHR" in response.content


def _manager(user: User) -> User:
    user.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    return user


def _staff(user: User) -> User:
    user.is_staff = True
    user.save()
    return user
