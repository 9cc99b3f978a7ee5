"""A proposal that argues for itself: "% of hardware" lines follow the hardware, a quote
started from the calculator costs what the calculator costed, and an analysis that
recommends renting is never sent as it is."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from quotes import pdf, services
from quotes.models import AnalysisPresentation, LineKind, Quote

from .conftest import send

pytestmark = pytest.mark.django_db


def _line(revision: Any, key: str) -> Any:
    return revision.lines.get(catalog_key=key)


def test_a_support_line_at_ten_percent_follows_the_hardware_until_priced_by_hand(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    quote = services.quote_create(customer=customer, owner=sales_user, currency="USD")
    revision = quote.revisions.get()
    server = services.revision_add_line(
        revision=revision, catalog_key="server:smc-821ge-tnhr-h100", quantity=Decimal(2)
    )
    services.revision_add_line(
        revision=revision, catalog_key="item:support-10pct", quantity=Decimal(5)
    )
    support = _line(revision, "item:support-10pct")
    assert support.unit_price == Decimal("56000.00")  # 10 % of 2 × $280,000

    # Four servers: the support line is 10 % of the new hardware, not 5 %.
    services.revision_update_line(
        revision=revision,
        line_id=server.pk,
        quantity=Decimal(4),
        unit_price=server.unit_price,
        discount_pct=Decimal(0),
    )
    assert _line(revision, "item:support-10pct").unit_price == Decimal("112000.00")
    # A networking line is hardware too (the engine applies support to it).
    services.revision_add_free_line(
        revision=revision,
        description="Fabric",
        quantity=Decimal(4),
        unit="pcs",
        unit_price=Decimal("10000"),
        cost_price=None,
        kind=LineKind.NETWORKING,
    )
    assert _line(revision, "item:support-10pct").unit_price == Decimal("116000.00")

    # A price typed by hand stays as typed when the hardware changes again.
    support = _line(revision, "item:support-10pct")
    services.revision_update_line(
        revision=revision,
        line_id=support.pk,
        quantity=support.quantity,
        unit_price=Decimal("90000"),
        discount_pct=Decimal(0),
    )
    services.revision_remove_line(revision=revision, line_id=server.pk)
    assert _line(revision, "item:support-10pct").unit_price == Decimal("90000.00")


def test_a_quote_started_from_the_calculator_costs_what_the_calculator_costed(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    query = "preset=serve-70b"
    analysis = services.analyse_calculator_query(query=query)
    calculator = analysis.report.onprem
    assert calculator is not None
    quote = services.quote_create_from_calculator(customer=customer, owner=sales_user, query=query)
    revision = quote.revisions.get()
    networking = revision.lines.get(kind=LineKind.NETWORKING)
    # One server serving: a front-end network as the analysis sized it, not a fabric.
    assert "Front-end network" in networking.description
    extras = analysis.report.owning_extras
    assert extras is not None
    assert networking.unit_price == Decimal(str(extras.networking_per_server))
    deal = services.deal_analysis(revision=revision)
    assert deal is not None and not deal["deal"].get("problem")
    quoted = next(o for o in deal["summary"]["options"] if o["kind"] == "onprem")
    # The same fleet at the quoted (catalog) prices: within the rounding of converted
    # prices to whole euros per line.
    assert quoted["total_cost"] == pytest.approx(calculator.total_cost, rel=1e-4)
    assert deal["deal"]["differences"] == []


def test_a_quote_of_another_size_or_with_unquoted_spares_says_how_it_differs(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    document = {
        "workload": {"kind": "inference", "params_billion": 70, "precision": "fp8",
                     "target_tokens_per_second": 3000},
        "server": "smc-821ge-tnhr-h100",
        "site": "nl-colo-amsterdam",
        "cloud_offerings": ["coreweave-h100-8x-od"],
        "finance": {"spares_pct": 0.05},
    }  # fmt: skip
    quote = services.quote_create_from_scenario(
        customer=customer, owner=sales_user, document=document
    )
    revision = quote.revisions.get()
    server = revision.lines.get(kind=LineKind.SERVER)
    services.revision_update_line(
        revision=revision,
        line_id=server.pk,
        quantity=server.quantity + 1,
        unit_price=server.unit_price,
        discount_pct=Decimal(0),
    )
    codes = [d["code"] for d in services.deal_analysis(revision=revision)["deal"]["differences"]]
    assert codes == ["servers", "spares"]
    client = Client()
    client.force_login(sales_user)
    page = client.get(reverse("quotes:detail", args=[quote.public_id])).content.decode()
    assert "The scenario included spares (5 % of the servers)" in page
    assert "this proposal quotes 2, and its analysis is of the quoted number" in page


@pytest.fixture
def rent_quote(seed_catalog: object, customer: Any, sales_user: Any) -> Quote:
    """A quote of the servers a rent verdict sized (pre-training a 7B model once)."""
    return services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=pretrain-7b"
    )


def _pdf_text(snapshot: dict[str, Any]) -> str:
    data = pdf.render_revision(snapshot, language="en", with_charts=False).pdf
    pages = PdfReader(io.BytesIO(data)).pages
    return re.sub(r"\s+", " ", " ".join(p.extract_text() for p in pages).replace("\u00a0", " "))


def test_an_analysis_that_recommends_renting_is_not_sent_as_it_is(
    rent_quote: Quote, sales_user: Any, client: Client
) -> None:
    revision = rent_quote.revisions.get()
    assert services.argues_against_itself(services.deal_analysis(revision=revision))
    client.force_login(sales_user)
    page = client.get(reverse("quotes:detail", args=[rent_quote.public_id])).content.decode()
    assert "The analysis argues against this proposal" in page
    assert re.search(r'<button type="submit" id="send-button"[^>]* disabled', page)
    with pytest.raises(services.QuoteError, match="recommends renting"):
        send(revision, sales_user)

    # Like for like needs the buyer's reason, and the proposal states it.
    with pytest.raises(services.QuoteError, match="reason"):
        services.revision_set_presentation(revision=revision, presentation="like_for_like")
    client.post(
        reverse("quotes:presentation_set", args=[revision.public_id]),
        {"presentation": "like_for_like", "reason": "Our patient data may not leave the site"},
    )
    revision.refresh_from_db()
    assert revision.analysis_presentation == AnalysisPresentation.LIKE_FOR_LIKE
    send(revision, sales_user)
    revision.refresh_from_db()
    text = _pdf_text(revision.snapshot)
    assert "You asked us for owned servers: Our patient data may not leave the site." in text
    assert "Compared like for like, renting" in text
    assert "Recommendation: at the planned utilization, renting" not in text


def test_a_proposal_sent_without_the_analysis_has_prices_and_no_analysis(
    rent_quote: Quote, sales_user: Any
) -> None:
    revision = rent_quote.revisions.get()
    services.revision_set_presentation(revision=revision, presentation="without")
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot["tco"] is None
    assert revision.snapshot["analysis"]["presentation"] == "without"
    text = _pdf_text(revision.snapshot)
    assert "Executive summary" not in text and "Total incl. VAT" in text


def test_a_buy_verdict_needs_no_choice(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b"
    )
    revision = quote.revisions.get()
    deal = services.deal_analysis(revision=revision)
    assert deal is not None and deal["executive"]["buy"] is True
    assert not services.presentation_needed(revision, deal)
    send(revision, sales_user)  # no choice asked
