"""Quotes carry delivery (quotes/services/availability.py): each server line's stock or
lead time from the catalog, set by hand with a reason, frozen in the snapshot, a catalog
change shown like a price change, and the delivery schedule in the proposal PDF."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from catalog.models import ServerAvailability
from quotes import pdf, services
from quotes.models import LineKind

from .conftest import pdf_text, send

pytestmark = pytest.mark.django_db

# One HGX B200 server: the seed has none in stock and a 12-week lead time.
QUERY = "preset=serve-70b&server=smc-822gs-nbrt-b200&needed_in_days=30"
B200 = "smc-822gs-nbrt-b200"


@pytest.fixture
def quote(seed_catalog: object, customer: Any, sales_user: Any) -> Any:
    return services.quote_create_from_calculator(customer=customer, owner=sales_user, query=QUERY)


def server_line(quote: Any) -> Any:
    return quote.revisions.get().lines.get(kind=LineKind.SERVER)


@pytest.mark.dates
def test_a_server_line_carries_the_catalogs_lead_time_and_the_snapshot_its_date(
    quote: Any, sales_user: Any
) -> None:
    line = server_line(quote)
    assert (line.lead_time_weeks, line.in_stock, line.delivery_reason) == (Decimal(12), False, "")
    revision = quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    frozen = next(x for x in revision.snapshot["lines"] if x["kind"] == "server")
    # 12 weeks from the day the revision is issued.
    expected = (timezone.localdate() + timedelta(weeks=12)).isoformat()
    assert frozen["delivery"] == {
        "in_stock": False,
        "lead_time_weeks": "12",
        "expected_delivery": expected,
        "as_of": "2026-05-01",
        "set_by_hand": False,
    }
    others = [x for x in revision.snapshot["lines"] if x["kind"] != "server"]
    assert others and all(x["delivery"] is None for x in others)


def test_stock_that_covers_the_quantity_ships_at_once(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    ServerAvailability.objects.filter(server__key=B200).update(units_in_stock=5)
    quote = services.quote_create_from_calculator(customer=customer, owner=sales_user, query=QUERY)
    line = server_line(quote)
    assert (line.lead_time_weeks, line.in_stock) == (Decimal(0), True)


def test_set_by_hand_needs_a_reason_which_stays_internal(quote: Any, sales_user: Any) -> None:
    revision = quote.revisions.get()
    line = server_line(quote)
    with pytest.raises(services.QuoteError, match="Say why"):
        services.revision_set_line_delivery(
            revision=revision, line_id=line.pk, lead_time_weeks=Decimal(4), reason=" "
        )
    services.revision_set_line_delivery(
        revision=revision,
        line_id=line.pk,
        lead_time_weeks=Decimal(4),
        reason="Vendor confirmed 4 weeks on 2 Dec",
    )
    line.refresh_from_db()
    assert (line.lead_time_weeks, line.in_stock) == (Decimal(4), False)
    # A catalog change does not touch a line set by hand.
    ServerAvailability.objects.filter(server__key=B200).update(lead_time_weeks=Decimal(20))
    assert services.revision_lead_time_changes(revision=revision) == []
    send(revision, sales_user)
    revision.refresh_from_db()
    frozen = next(x for x in revision.snapshot["lines"] if x["kind"] == "server")
    assert frozen["delivery"]["lead_time_weeks"] == "4" and frozen["delivery"]["set_by_hand"]
    assert "Vendor confirmed" not in str(revision.snapshot)


def test_a_catalog_lead_time_change_shows_like_a_price_change_and_a_reprice_takes_it(
    client: Client, quote: Any, sales_user: Any
) -> None:
    revision = quote.revisions.get()
    ServerAvailability.objects.filter(server__key=B200).update(lead_time_weeks=Decimal(20))
    changes = services.revision_lead_time_changes(revision=revision)
    assert [(c.old_weeks, c.new_weeks) for c in changes] == [(Decimal(12), Decimal(20))]
    client.force_login(sales_user)
    page = client.get(reverse("quotes:detail", args=[quote.public_id])).content.decode()
    assert 'id="lead-time-changes"' in page and "12 → 20 weeks" in page
    services.revision_reprice(revision=revision, actor=sales_user)
    assert server_line(quote).lead_time_weeks == Decimal(20)
    assert services.revision_lead_time_changes(revision=revision) == []


def test_the_delivery_page_sets_a_line_by_hand(client: Client, quote: Any, sales_user: Any) -> None:
    revision = quote.revisions.get()
    line = server_line(quote)
    client.force_login(sales_user)
    url = reverse("quotes:line_delivery", args=[revision.public_id, line.pk])
    assert "Ships in 12 weeks" in client.get(url).content.decode()
    refused = client.post(url, {"lead_time_weeks": "0", "reason": ""})
    assert refused.status_code == 400
    client.post(url, {"lead_time_weeks": "0", "reason": "Two units held for this buyer"})
    line.refresh_from_db()
    assert (line.lead_time_weeks, line.in_stock) == (Decimal(0), True)


@pytest.mark.dates
def test_the_proposal_states_the_delivery_schedule_and_the_bridge(
    quote: Any, sales_user: Any
) -> None:
    # The schedule's date counts from today (run on other days too): the text is what is
    # checked, so the PDF is rendered without its charts.
    revision = quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    rendered = pdf.render_revision(revision.snapshot, language="en", with_charts=False)
    text, _pages = pdf_text(rendered.pdf)
    flat = re.sub(r"\s+", " ", text.replace("\u00a0", " "))
    expected = timezone.localdate() + timedelta(weeks=12)
    assert "Delivery schedule" in flat
    assert (
        f"lead time 12 weeks, expected delivery {expected.day} {expected:%b} {expected.year}"
        in flat
    )
    assert "Bridge plan" in flat  # the work needs capacity in 30 days: bridged


def test_the_dutch_proposal_states_the_delivery_schedule(quote: Any, sales_user: Any) -> None:
    revision = quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    dutch, _pages = pdf_text(pdf.render_revision(revision.snapshot, language="nl").pdf)
    assert "Leverschema" in dutch and "verwachte levering" in dutch


@pytest.mark.dates
def test_the_deal_analysis_counts_from_the_lines_lead_time_not_the_calculators(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    # The buyer typed 10 weeks into the calculator; the catalog ships in 12. The quote's
    # line carries the catalog's 12 weeks, and its analysis (ready date, bridge) counts
    # from the same 12: ready 12 × 7 + 7 days' installation = 91 days from today.
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query=QUERY + "&lead_time_weeks=10"
    )
    revision = quote.revisions.get()
    line = server_line(quote)
    assert line.lead_time_weeks == Decimal(12)

    def owned_ready() -> tuple[float, Any]:
        report = services.stored_report(services.deal_analysis(revision=revision))
        assert report is not None and report.capacity is not None and report.onprem is not None
        return report.capacity.lead_time_weeks, report.onprem.ready_date

    today = timezone.localdate()
    assert owned_ready() == (12.0, today + timedelta(days=91))
    # Set by hand to 4 weeks (with a reason): 4 × 7 + 7 = 35 days.
    services.revision_set_line_delivery(
        revision=revision, line_id=line.pk, lead_time_weeks=Decimal(4), reason="Demo stock"
    )
    assert owned_ready() == (4.0, today + timedelta(days=35))


def test_a_quote_line_and_the_stock_feed_meet_the_same_lead_time_limit(
    quote: Any, sales_user: Any, tmp_path: Any
) -> None:
    """common/bounds.py LEAD_TIME_WEEKS (0-260 weeks): the audit found the feed taking
    9,999.9 weeks while a line's own override stopped at 260."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    revision = quote.revisions.get()
    line = server_line(quote)
    yesterday = (timezone.localdate() - timedelta(days=1)).isoformat()
    for weeks in ("260", "260.5"):
        in_range = weeks == "260"
        feed = tmp_path / f"feed-{weeks}.csv"
        feed.write_text(
            f"sku,quantity,lead_time_weeks,as_of\nSYS-822GS-NBRT,0,{weeks},{yesterday}\n"
        )
        if in_range:
            call_command("import_stock", str(feed))
            services.revision_set_line_delivery(
                revision=revision, line_id=line.pk, lead_time_weeks=Decimal(weeks), reason="ERP"
            )
            continue
        with pytest.raises(CommandError):
            call_command("import_stock", str(feed))
        with pytest.raises(services.QuoteError, match="between 0 and 260 weeks"):
            services.revision_set_line_delivery(
                revision=revision, line_id=line.pk, lead_time_weeks=Decimal(weeks), reason="ERP"
            )
    assert ServerAvailability.objects.get(server__key=B200).lead_time_weeks == Decimal(260)
    line.refresh_from_db()
    assert line.lead_time_weeks == Decimal(260)


@pytest.mark.dates
def test_a_validity_date_lies_within_a_year(quote: Any) -> None:
    revision = quote.revisions.get()
    today = timezone.localdate()
    services.revision_update(revision=revision, valid_until=today + timedelta(days=366), terms="")
    with pytest.raises(services.QuoteError, match="at most a year"):
        services.revision_update(
            revision=revision, valid_until=today + timedelta(days=367), terms=""
        )
    with pytest.raises(services.QuoteError, match="past"):
        services.revision_update(revision=revision, valid_until=today - timedelta(days=1), terms="")
