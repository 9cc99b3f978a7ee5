"""One net total excl. VAT everywhere a proposal's amount is shown.

The net total is the non-optional lines less the quote discount; VAT is charged on it and
total incl. VAT = net + VAT. The cover, the price table, the reconciliation, the buyer's
page and the CSV/XLSX exports must all print that same net (a quote discount once made the
cover print the pre-discount subtotal as "Total excl. VAT" beside the discounted total).
"""

from __future__ import annotations

import csv
import io
import re
import uuid
from decimal import ROUND_HALF_UP, Decimal
from html import unescape
from typing import Any

import openpyxl
import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common.formatting import money
from quotes import pdf, services
from quotes.models import Customer, LineKind, LineUnit, Team

from .conftest import send

pytestmark = pytest.mark.django_db

CENT = Decimal("0.01")


def cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


# Buyer cases: Dutch VAT, an intra-Community supply (0 %) and an export (0 %).
BUYERS = {
    "NL": {"country": "NL", "vat_number": "NL123456789B01"},
    "DE": {"country": "DE", "vat_number": "DE136695976"},
    "US": {"country": "US", "vat_number": ""},
}

amounts = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("250000"), places=2)
percents = st.decimals(min_value=Decimal(0), max_value=Decimal(100), places=2)
lines_strategy = st.lists(
    st.tuples(
        st.integers(min_value=1, max_value=64),  # quantity
        amounts,  # unit price
        st.one_of(st.just(Decimal(0)), percents),  # line discount
        st.booleans(),  # optional
    ),
    min_size=1,
    max_size=5,
)


def _cell(html: str, css_class: str) -> str:
    """The text of the first element whose class list contains ``css_class``."""
    match = re.search(rf'class="(?:[^"]* )?{css_class}(?: [^"]*)?">(.*?)</td>', html, re.S)
    assert match is not None, css_class
    return unescape(re.sub(r"<[^>]+>", "", match.group(1))).strip()


def _hand_quote(customer: Customer, owner: Any, lines: list[Any], discount: Decimal) -> Any:
    quote = services.quote_create(customer=customer, owner=owner, currency="EUR")
    revision = quote.revisions.get()
    for number, (quantity, price, line_discount, optional) in enumerate(lines):
        services.revision_add_free_line(
            revision=revision,
            description=f"Line {number}",
            quantity=Decimal(quantity),
            unit=LineUnit.PCS,
            unit_price=price,
            cost_price=None,
            kind=LineKind.OTHER,
            discount_pct=line_discount,
            optional=optional,
        )
    services.revision_set_discount(revision=revision, discount_pct=discount)
    send(revision, owner)
    revision.refresh_from_db()
    return revision


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=lines_strategy, discount=percents, buyer=st.sampled_from(sorted(BUYERS)))
def test_every_document_prints_one_net_total_with_vat_on_it(
    seed_catalog: object, sales_user: User, lines: list[Any], discount: Decimal, buyer: str
) -> None:
    customer = services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company=f"Buyer {uuid.uuid4().hex[:8]}",
        contact_name="Jan de Vries",
        email="jan@buyer.example",
        language="en",
        **BUYERS[buyer],
    )
    revision = _hand_quote(customer, sales_user, lines, discount)
    frozen = revision.snapshot["totals"]
    rate = Decimal(revision.snapshot["vat"]["rate"])

    # By hand: the lines' amounts, the quote discount on the non-optional ones, VAT on the net.
    # Half up to the cent, as the documents round (quotes/money.py; Decimal's own default
    # rounds half to even: 200.50 × 21 % = 42.105 is VAT 42.11, not 42.10).
    amounts_ = [(cents(q * p * (100 - d) / 100), optional) for q, p, d, optional in lines]
    subtotal = sum((a for a, optional in amounts_ if not optional), Decimal("0.00"))
    net = subtotal - cents(subtotal * discount / 100)
    vat = cents(net * rate / 100)
    assert Decimal(frozen["net"]) == net
    assert Decimal(frozen["total"]) == net + vat
    assert abs(net * (1 + rate / 100) - Decimal(frozen["total"])) <= CENT / 2

    # The proposal: cover and price table.
    html = render_to_string("quotes/pdf/proposal.html", pdf.revision_context(revision.snapshot))
    assert _cell(html, "cover-total") == money(net, "EUR")
    assert _cell(html, "total") == money(net + vat, "EUR")
    if Decimal(frozen["discount"]):
        assert _cell(html, "net") == money(net, "EUR")
    else:
        assert _cell(html, "subtotal") == money(net, "EUR")

    # The buyer's page.
    client = Client()
    token = services.buyer_link_token(revision=revision)
    page = client.get(reverse("quotes:buyer", kwargs={"token": token})).content.decode()
    buyer_net = _cell(page, "net") if Decimal(frozen["discount"]) else _cell(page, "subtotal")
    assert buyer_net == money(net, "EUR")
    assert _cell(page, "total") == money(net + vat, "EUR")

    # The sales desk's exports.
    client.force_login(sales_user)
    text = client.get(reverse("quotes:quotes_export", args=["csv"])).content.decode("utf-8-sig")
    row = next(r for r in csv.DictReader(io.StringIO(text)) if r["Customer"] == customer.company)
    assert Decimal(row["Net"]) == net and Decimal(row["Total"]) == net + vat
    book = openpyxl.load_workbook(
        io.BytesIO(client.get(reverse("quotes:quotes_export", args=["xlsx"])).content)
    )
    sheet = book.active
    assert sheet is not None
    header = [c.value for c in sheet[1]]
    found = [
        dict(zip(header, (c.value for c in cells), strict=True))
        for cells in sheet.iter_rows(min_row=2)
    ]
    xrow = next(r for r in found if r["Customer"] == customer.company)
    assert Decimal(str(xrow["Net"])) == net and Decimal(str(xrow["Total"])) == net + vat


def _pdf_text(data: bytes) -> list[str]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return [
        re.sub(r"\s+", " ", page.extract_text().replace("\u00a0", " ")) for page in reader.pages
    ]


def test_a_discounted_calculator_proposal_prints_the_net_on_the_cover_and_reconciles(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    from django.contrib.auth.models import Group

    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b"
    )
    revision = quote.revisions.get()
    services.revision_set_discount(revision=revision, discount_pct=Decimal("5"))
    if services.approval_status(revision).blocks_sending:
        manager = type(sales_user).objects.create_user("marta", "marta@distributor.example")
        manager.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
        Team.objects.get(name="Benelux").members.add(manager)
        services.approval_request(revision=revision, actor=sales_user)
        services.approval_decide(revision=revision, actor=manager, approve=True)
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    totals = revision.snapshot["totals"]
    subtotal, net = Decimal(totals["subtotal"]), Decimal(totals["net"])
    assert net < subtotal

    pages = _pdf_text(pdf.render_revision(revision.snapshot, language="en", with_charts=False).pdf)
    cover = pages[0]
    assert f"Total excl. VAT {money(net, 'EUR')}" in cover.replace("\u00a0", " ")
    assert money(subtotal, "EUR") not in cover
    text = " ".join(pages)
    assert f"Proposal total {money(net, 'EUR')} excl. VAT" in text
    # The reconciliation's parts add up to the net: hardware + support and services.
    context = pdf.revision_context(revision.snapshot)
    reconcile = context["reconcile"]
    assert reconcile is not None
    assert reconcile["hardware"] + reconcile["rest"] == net
    assert f"Support and services in this proposal {money(reconcile['rest'], 'EUR')}" in text
    assert "after the quote discount of 5 %" in text


def test_a_revision_frozen_before_quote_discounts_reads_its_subtotal_as_net() -> None:
    totals = pdf.proposal_totals(
        {"subtotal": "100.00", "vat": "21.00", "total": "121.00", "optional_subtotal": "0.00"}
    )
    assert totals["net"] == Decimal("100.00") and totals["discount"] == Decimal("0.00")
