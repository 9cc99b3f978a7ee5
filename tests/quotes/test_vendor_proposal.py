"""A vendor-grade proposal (issue 31, item 8): the price summary on page 1, each server's
configuration with part numbers, warranty and service level per line, support billed up
front or yearly, shipping, site prerequisites, the payment schedule (a team default, edited
per draft), the currency clause for USD-priced hardware, seller and buyer signatures, the
general terms attached or linked, and an acceptance page with the accepted total; in
English and Dutch, without internal marks; old snapshots still render."""

from __future__ import annotations

import copy
import io
import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from catalog.models import FxRate, ServerModel, ServerPart
from common.formatting import money
from quotes import pdf, services
from quotes.billing import billing_plan, clean_schedule, split
from quotes.models import CompanyProfile, Customer, LineKind, LineUnit, QuoteRevision, Team

from .conftest import send
from .test_acceptance import finish_render

pytestmark = pytest.mark.django_db

CENT = Decimal("0.01")
INTERNAL_MARKS = ("estimate", "schatting", "stale", "verouderd", "margin", "marge", "cost price")
SERVER = "smc-821ge-tnhr-h100"


def _pages(data: bytes) -> list[str]:
    reader = PdfReader(io.BytesIO(data))
    return [re.sub(r"\s+", " ", p.extract_text().replace("\u00a0", " ")) for p in reader.pages]


def _customer(language: str, country: str = "NL", vat_number: str = "NL123456789B01") -> Any:
    return services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company="Rekenlab BV" if language == "nl" else "Tensor GmbH",
        contact_name="Jan de Vries",
        email="jan@buyer.example",
        country=country,
        vat_number=vat_number,
        language=language,
    )


def _server_quote(sales_user: User, language: str, *, yearly: bool = False) -> QuoteRevision:
    """4 × Supermicro SYS-821GE-TNHR (USD list price) with installation and 3 years of
    support, built by hand; a Dutch buyer pays 21 % VAT."""
    quote = services.quote_create(customer=_customer(language), owner=sales_user)
    revision = quote.revisions.get()
    services.revision_add_line(
        revision=revision, catalog_key=f"server:{SERVER}", quantity=Decimal(4)
    )
    services.revision_add_line(
        revision=revision, catalog_key="item:installation-per-server", quantity=Decimal(4)
    )
    support = services.revision_add_line(
        revision=revision, catalog_key="item:support-10pct", quantity=Decimal(3)
    )
    if yearly:
        services.revision_set_payment_terms(
            revision=revision,
            schedule=[{"event": "order", "pct": "20"}, {"event": "delivery", "pct": "80"}],
            support_billing={support.pk: "yearly"},
        )
    return revision


def _frozen(revision: QuoteRevision, sales_user: User) -> dict[str, Any]:
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    snapshot: dict[str, Any] = revision.snapshot
    return snapshot


def test_page_one_summarises_the_prices_and_the_analysis_follows(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b"
    )
    snapshot = _frozen(quote.revisions.get(), sales_user)
    pages = _pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf)
    first = pages[0]
    totals = snapshot["totals"]
    assert "Price summary (EUR)" in first
    for line in snapshot["lines"]:
        assert money(Decimal(line["amount"]), "EUR") in first, line["description"]
    assert f"Total excl. VAT {money(Decimal(totals['net']), 'EUR')}" in first
    assert f"Total incl. VAT {money(Decimal(totals['total']), 'EUR')}" in first
    assert "Payment 30 % on order confirmation, 70 % on delivery" in first
    # The analysis comes after the vendor's sections, the appendix last.
    summary_page = next(n for n, page in enumerate(pages) if "Executive summary" in page)
    signature_page = next(n for n, page in enumerate(pages) if "For the seller:" in page)
    assert 0 < signature_page <= summary_page
    assert "Appendix: assumptions and sources" in pages[-1] or any(
        "Appendix: assumptions and sources" in page for page in pages[summary_page:]
    )


def test_each_server_line_shows_its_configuration_part_numbers_and_warranty(
    seed_catalog: object, sales_user: User
) -> None:
    snapshot = _frozen(_server_quote(sales_user, "en"), sales_user)
    text = " ".join(_pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf))
    server = ServerModel.objects.get(key=SERVER)
    assert f"Per server: Supermicro SYS-821GE-TNHR, 8 × {server.gpu.name}, 8U" in text
    for part in ServerPart.objects.filter(server=server):
        assert part.description in text, part.description
        if part.part_number:
            assert part.part_number in text, part.part_number
    for role in ("Processor:", "Memory:", "NVMe storage:", "Network adapter:", "Power supply:"):
        assert role in text, role
    # The bill of materials per system: part number, role and description, per server and
    # for the 4 servers (32 DIMMs per server: 128), included in the server's price.
    assert (
        "MEM-DR564MC-ER48 Memory: 64 GB DDR5-4800 ECC RDIMM (2 TB in total) 32 128 included" in text
    )
    assert "MCX75310AAS-NEAT Network adapter: NVIDIA ConnectX-7" in text
    # Warranty per server line and the support contract's service level per support line.
    assert "Warranty: 3 years, return to depot (RMA)" in text
    assert "Service level: next-business-day on site" in text
    assert "Billed up front, with the payment schedule." in text
    # Site prerequisites from the catalog's power and size (no analysis on this quote).
    kw = server.max_power_kw * 4
    assert (
        f"{server.max_power_kw:.1f} kW per server at full load; {kw:.1f} kW for 4 servers" in text
    )
    assert "8U per server" in text
    # No internal marks: the catalog's estimate flags and sources stay out.
    lowered = text.lower()
    for mark in INTERNAL_MARKS:
        assert mark not in lowered, mark
    assert "MLPerf" not in text and "our standard build" not in lowered


def test_the_payment_schedule_and_yearly_support_add_up_to_the_totals(
    seed_catalog: object, sales_user: User
) -> None:
    revision = _server_quote(sales_user, "en", yearly=True)
    snapshot = _frozen(revision, sales_user)
    totals = {k: Decimal(v) for k, v in snapshot["totals"].items()}
    support = next(line for line in snapshot["lines"] if line["kind"] == "support")
    yearly = Decimal(support["amount"])  # no discount: the support's own amount
    one_off = totals["net"] - yearly
    plan = snapshot["payment"]["plan"]
    assert [row["event"] or row["year"] for row in plan] == ["order", "delivery", 1, 2, 3]
    assert Decimal(plan[0]["net"]) == (one_off * Decimal("0.2")).quantize(CENT)
    assert Decimal(plan[1]["net"]) == one_off - Decimal(plan[0]["net"])
    assert sum(Decimal(row["net"]) for row in plan[2:]) == yearly
    assert sum(Decimal(row["net"]) for row in plan) == totals["net"]
    assert sum(Decimal(row["vat"]) for row in plan) == totals["vat"]
    assert sum(Decimal(row["gross"]) for row in plan) == totals["total"]

    text = " ".join(_pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf))
    deposit = money(Decimal(plan[0]["net"]), "EUR")
    assert f"On order confirmation (deposit) 20 % {deposit}" in text
    assert f"On delivery 80 % {money(Decimal(plan[1]['net']), 'EUR')}" in text
    assert "Support year 1, at the start of support (delivery)" in text
    assert "Support year 3, 24 months after delivery" in text
    per_year = money((yearly / 3).quantize(CENT), "EUR")
    assert f"Billed yearly in advance: {per_year} a year excl. VAT." in text
    assert "Payment 20 % on order confirmation, 80 % on delivery; support billed yearly" in text
    assert f"Total {money(totals['net'], 'EUR')} {money(totals['vat'], 'EUR')}" in text


def test_usd_priced_hardware_gets_a_currency_clause_with_the_catalogs_rate(
    seed_catalog: object, sales_user: User
) -> None:
    snapshot = _frozen(_server_quote(sales_user, "en"), sales_user)
    rate = FxRate.objects.filter(base="EUR", quote="USD").order_by("-as_of").first()
    assert rate is not None
    clause = snapshot["currency_clause"]
    assert clause["source_currency"] == "USD"
    assert clause["rates"] == [
        {"eur_usd": str(rate.rate), "as_of": rate.as_of.isoformat(), "lines": [1, 2]}
    ]
    assert clause["percent_lines"] == [3]  # the support is 10 % of the server prices
    text = " ".join(_pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf))
    date = f"{rate.as_of.day} {rate.as_of:%b %Y}"
    assert (
        f"Lines 1 and 2 are priced from USD list prices at 1 EUR = {rate.rate:.4f} USD "
        f"(rate of {date})." in text
    )
    assert "Line 3 is a percentage of the server prices and follows them." in text
    assert "moves more than 3 % against you or us" in text
    # A EUR-priced proposal in EUR has no clause.
    quote = services.quote_create(customer=_customer("en"), owner=sales_user)
    free = quote.revisions.get()
    services.revision_add_free_line(
        revision=free,
        description="Consulting",
        quantity=Decimal(1),
        unit=LineUnit.LOT,
        unit_price=Decimal("1000"),
        cost_price=None,
    )
    assert _frozen(free, sales_user)["currency_clause"] is None


def test_signatures_of_both_parties_and_the_general_terms_linked_or_attached(
    seed_catalog: object, sales_user: User
) -> None:
    sales_user.first_name, sales_user.last_name = "Anna", "de Boer"
    sales_user.save()
    snapshot = _frozen(_server_quote(sales_user, "en"), sales_user)
    profile = CompanyProfile.current()
    assert profile is not None and profile.general_terms_url
    pages = _pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf)
    text = " ".join(pages)
    signing = next(page for page in pages if "For the seller:" in page)
    assert "For the buyer: Tensor GmbH" in signing
    assert f"For the seller: {profile.legal_name}" in signing
    assert "Anna de Boer" in signing and signing.count("Signature") == 1  # one row, two blocks
    # Named once, with the link (issue 42: the terms no longer name them a second time).
    assert "Our general terms of sale apply; other terms and conditions are rejected." in text
    assert f"You can read and download them at {profile.general_terms_url}" in text
    assert text.count("general terms of sale") == 1

    profile.general_terms_en = "1. Scope. These terms apply to every sale.\n\n2. Delivery. DAP."
    profile.save()
    snapshot = _frozen(_server_quote(sales_user, "en"), sales_user)
    pages = _pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf)
    assert "Appendix: general terms of sale" in pages[-1]
    assert "1. Scope. These terms apply to every sale." in pages[-1]
    assert "are attached to this proposal" in " ".join(pages)


def test_a_dutch_proposal_says_all_of_it_in_dutch(seed_catalog: object, sales_user: User) -> None:
    snapshot = _frozen(_server_quote(sales_user, "nl", yearly=True), sales_user)
    pages = _pages(pdf.render_revision(snapshot, language="nl", with_charts=False).pdf)
    text = " ".join(pages)
    assert "Prijsoverzicht (EUR)" in pages[0]
    assert "Betaling 20 % bij orderbevestiging, 80 % bij levering" in pages[0]
    for words in (
        "Configuratie en prijzen",
        "Processor: Intel Xeon Platinum 8468, 48 kernen",
        "MEM-DR564MC-ER48 Geheugen: 64 GB DDR5-4800 ECC RDIMM (2 TB in totaal) 32 128 inbegrepen",
        "Garantie: 3 jaar, retour naar depot (RMA)",
        "Serviceniveau: volgende werkdag op locatie",
        "Jaarlijks vooraf gefactureerd:",
        "Levering en locatie",
        "kW per server bij vol vermogen",
        "Bij orderbevestiging (aanbetaling)",
        "Supportjaar 2, 12 maanden na levering",
        "Valutaclausule",
        "Regels 1 en 2 zijn geprijsd op basis van USD-lijstprijzen",
        "Voor de koper: Rekenlab BV",
        "Voor de verkoper:",
        "Handtekening",
    ):
        assert words in text, words
    lowered = text.lower()
    for english in ("cores", "in total", "per server at full load", "billed", "warranty"):
        assert english not in lowered, english
    for mark in INTERNAL_MARKS:
        assert mark not in lowered, mark


def test_a_snapshot_frozen_before_vendor_proposals_still_renders(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b"
    )
    snapshot = copy.deepcopy(_frozen(quote.revisions.get(), sales_user))
    for key in ("payment", "currency_clause", "site", "general_terms"):
        del snapshot[key]
    for line in snapshot["lines"]:
        for key in ("billing", "configuration", "warranty_years", "service_level"):
            line.pop(key, None)
    pages = _pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf)
    text = " ".join(pages)
    net = money(Decimal(snapshot["totals"]["net"]), "EUR")
    assert f"Total excl. VAT {net}" in pages[0]
    assert "Configuration and prices" in text and "For the seller:" in text
    for absent in ("Per server:", "Currency clause", "Delivery and site", "Invoice Share"):
        assert absent not in text, absent


def test_the_draft_page_edits_the_payment_schedule_with_clear_errors(
    seed_catalog: object, sales_user: User
) -> None:
    revision = _server_quote(sales_user, "en")
    assert revision.payment_schedule == Team.objects.get(name="Benelux").payment_schedule
    support = revision.lines.get(kind=LineKind.SUPPORT)
    client = Client()
    client.force_login(sales_user)
    page = client.get(reverse("quotes:detail", args=[revision.quote.public_id])).content.decode()
    assert 'id="payment-terms"' in page and "Team default" in page
    url = reverse("quotes:payment_terms", args=[revision.public_id])
    bad = {"event_1": "order", "pct_1": "30", "event_2": "delivery", "pct_2": "60"}
    response = client.post(url, bad)
    assert response.status_code == 400
    assert "The milestones add up to 90 %; they must add up to 100 %." in response.content.decode()
    response = client.post(url, bad, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and 'role="alert"' in response.content.decode()
    response = client.post(url, {"event_1": "order", "pct_1": "", "event_2": "", "pct_2": "50"})
    body = response.content.decode()
    assert "Enter the share of this milestone." in body
    assert "Choose when this milestone is invoiced." in body
    revision.refresh_from_db()
    assert revision.payment_schedule == [
        {"event": "order", "pct": "30"},
        {"event": "delivery", "pct": "70"},
    ]

    good = {
        "event_1": "order",
        "pct_1": "25",
        "event_2": "delivery",
        "pct_2": "65",
        "event_3": "installation",
        "pct_3": "10",
        f"billing_{support.pk}": "yearly",
    }
    response = client.post(url, good, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "Payment terms saved." in response.content.decode()
    revision.refresh_from_db()
    support.refresh_from_db()
    assert [m["pct"] for m in revision.payment_schedule] == ["25", "65", "10"]
    assert support.billing == "yearly"
    # A revision of the sent quote keeps the schedule and the billing.
    send(revision, sales_user)
    following = services.quote_revise(revision=revision, actor=sales_user)
    assert following.payment_schedule == revision.payment_schedule
    assert following.lines.get(kind=LineKind.SUPPORT).billing == "yearly"
    # A sent revision refuses the change.
    with pytest.raises(services.QuoteError):
        services.revision_set_payment_terms(
            revision=revision, schedule=[{"event": "order", "pct": "100"}]
        )


def test_the_acceptance_page_states_the_accepted_option_and_total_on_the_letterhead(
    seed_catalog: object, sales_user: User
) -> None:
    revision = _server_quote(sales_user, "en")
    snapshot = _frozen(revision, sales_user)
    finish_render(revision)
    token = services.buyer_link_token(revision=revision)
    Client().post(
        reverse("quotes:buyer_accept", args=[token]),
        {"terms": "on", "name": "Jan de Vries", "role": "CTO", "po_number": "PO-7"},
    )
    revision.refresh_from_db()
    record = revision.acceptance
    last = _pages(bytes(record.pdf))[-1].replace("- ", "-")  # a line broken after a hyphen
    seller = CompanyProfile.current()
    assert seller is not None
    assert seller.legal_name in last and f"KvK {seller.kvk_number}" in last  # letterhead
    assert f"Proposal {snapshot['number']} · revision {snapshot['revision']}" in last
    assert f"Option accepted 4 pcs · {snapshot['lines'][0]['description']}" in last
    total = money(Decimal(snapshot["totals"]["total"]), "EUR")
    assert f"Accepted total incl. VAT {total}" in last
    assert f"Total excl. VAT {money(Decimal(snapshot['totals']['net']), 'EUR')}" in last


# --- the billing plan by itself ---------------------------------------------------------

money_amounts = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("900000"), places=2)


@settings(max_examples=200, deadline=None)
@given(
    one_off=st.lists(money_amounts, min_size=0, max_size=4),
    support=st.lists(
        st.tuples(money_amounts, st.sampled_from(["1", "2", "2.5", "3", "5"])), max_size=2
    ),
    shares=st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=4),
    discount=st.decimals(min_value=Decimal(0), max_value=Decimal(100), places=2),
    rate=st.sampled_from([Decimal(0), Decimal(9), Decimal(21)]),
)
# Found by this test: 3 cents of yearly support over 5 years billed -2 cents in year 5.
@example(
    one_off=[], support=[(Decimal("0.03"), "5")], shares=[1], discount=Decimal(0), rate=Decimal(0)
)
def test_the_plan_adds_up_to_the_net_and_the_vat_to_the_cent(
    one_off: list[Decimal],
    support: list[tuple[Decimal, str]],
    shares: list[int],
    discount: Decimal,
    rate: Decimal,
) -> None:
    events = ["order", "shipment", "delivery", "installation"][: len(shares)]
    total = sum(shares)
    pcts = [Decimal(s) * 100 / total for s in shares]
    pcts = [p.quantize(CENT) for p in pcts[:-1]]
    pcts.append(Decimal(100) - sum(pcts, Decimal(0)))
    if pcts[-1] <= 0:
        return
    schedule = clean_schedule(
        {"event": e, "pct": str(p)} for e, p in zip(events, pcts, strict=True)
    )
    lines: list[dict[str, Any]] = [
        {"kind": "server", "amount": str(a), "optional": False} for a in one_off
    ]
    lines += [
        {"kind": "support", "billing": "yearly", "amount": str(a), "quantity": y, "unit": "years"}
        for a, y in support
    ]
    subtotal = sum((Decimal(line["amount"]) for line in lines), Decimal(0))
    net = subtotal - (subtotal * discount / 100).quantize(CENT)
    vat = (net * rate / 100).quantize(CENT)
    plan = billing_plan(lines=lines, schedule=schedule, net=net, vat=vat)
    assert sum(row.net for row in plan) == net
    assert sum(row.vat for row in plan) == vat
    assert all(row.net >= 0 and row.vat >= 0 for row in plan)
    years = max((int(Decimal(y) + Decimal("0.99")) for _a, y in support), default=0)
    assert [row.year for row in plan if row.year] == list(range(1, years + 1))


def test_split_gives_the_cents_left_over_to_the_first_of_equal_shares() -> None:
    # 5 cents in three: 1 2/3 cents each, rounded down to 1, the 2 left to the first two.
    assert split(Decimal("0.05"), [Decimal(1)] * 3) == [
        Decimal("0.02"),
        Decimal("0.02"),
        Decimal("0.01"),
    ]
    # Fewer cents than shares: 3 cents over 5 years of support, none negative (a yearly
    # support line of €0.03 for 5 years once billed -€0.02 in its last year).
    assert split(Decimal("0.03"), [Decimal(1)] * 5) == [Decimal("0.01")] * 3 + [Decimal("0.00")] * 2
    assert split(Decimal("1000.01"), [Decimal(30), Decimal(70)]) == [
        Decimal("300.00"),
        Decimal("700.01"),
    ]
    assert split(Decimal("-0.05"), [Decimal(1)] * 3) == [
        Decimal("-0.02"),
        Decimal("-0.02"),
        Decimal("-0.01"),
    ]


@pytest.mark.parametrize(
    ("milestones", "message"),
    [
        ([{"event": "order", "pct": "30"}, {"event": "delivery", "pct": "60"}], "add up to 90 %"),
        ([{"event": "order", "pct": "30"}, {"event": "order", "pct": "70"}], "appears twice"),
        ([{"event": "later", "pct": "100"}], "Choose when"),
        ([{"event": "order", "pct": "abc"}], "as a number"),
        ([{"event": "order", "pct": "100.001"}], "between 0 and 100"),
        ([], "at least one milestone"),
    ],
)
def test_a_bad_schedule_is_refused_with_the_reason(
    milestones: list[dict[str, str]], message: str
) -> None:
    from quotes.billing import ScheduleError

    with pytest.raises(ScheduleError, match=re.escape(message)):
        clean_schedule(milestones)
