"""Currency terms that act (docs/quotes.md, "Exchange rate: fixed by hand, watched daily"):
the daily rate watch past the currency clause's threshold, one email per revision, a rate
fixed by hand, what a re-price moves; and the validity by catalog category.

Hand numbers: Supermicro SYS-821GE-TNHR lists at $280,000 (cost $238,000) in the seed; on a
EUR quote a converted price is rounded to whole euros (docs/quotes.md, "Pricing rule").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.contrib.auth.models import Group, User
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import translation
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from quotes import selectors, services
from quotes.models import (
    Customer,
    EmailKind,
    OutboxEmail,
    Quote,
    QuoteLine,
    QuoteRevision,
    Status,
)
from quotes.pdf import proposal_html, revision_context
from quotes.services import moved
from quotes.services.validity import validity
from tests.quotes.test_reprice import change_eur_usd

from .conftest import send

pytestmark = pytest.mark.django_db

SERVER = "server:smc-821ge-tnhr-h100"
PRICED_ON = date(2026, 12, 3)
LATER = date(2026, 12, 10)


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=UTC)


def _at(day: date) -> time_machine.travel:
    """The clock at 08:15 UTC on `day` (the rate watch's hour), standing still."""
    return time_machine.travel(datetime.combine(day, time(8, 15), tzinfo=UTC), tick=False)


def _eur_quote(customer: Customer, owner: User, servers: int = 2) -> QuoteRevision:
    """A EUR draft of `servers` × SYS-821GE-TNHR priced today at 1 EUR = 1.0800 USD."""
    change_eur_usd(Decimal("1.0800"))
    quote = services.quote_create(customer=customer, owner=owner, currency="EUR")
    revision = quote.revisions.get()
    services.revision_add_line(revision=revision, catalog_key=SERVER, quantity=Decimal(servers))
    return revision


def _alerts() -> list[OutboxEmail]:
    return list(OutboxEmail.objects.filter(kind=EmailKind.FX_MOVE))


@pytest.fixture
def sent(seed_catalog: object, customer: Customer, sales_user: User) -> QuoteRevision:
    # The seed catalog is loaded today, which on a later run is after the days these tests
    # travel to: its price history is dated the day before the quote was priced, as it
    # would have been.
    from catalog.models import PriceChange

    PriceChange.objects.filter(changed_at__gte=_day_start(PRICED_ON)).update(
        changed_at=_day_start(PRICED_ON) - timedelta(days=1)
    )
    with _at(PRICED_ON):
        revision = _eur_quote(customer, sales_user)
        send(revision, sales_user)
    revision.refresh_from_db()
    return revision


def test_the_owner_is_told_once_when_the_rate_moves_past_the_threshold(
    sent: QuoteRevision, sales_user: User
) -> None:
    # Priced at 1.0800, today 1.1135: (1.1135 − 1.0800) / 1.0800 = 0.0335 / 1.08 = 3.10 %,
    # past the 3 % of the currency clause.
    assert sent.snapshot is not None
    assert sent.snapshot["currency_clause"]["rates"][0]["eur_usd"] == "1.080000"
    with _at(LATER):
        change_eur_usd(Decimal("1.1135"))
        assert services.quotes_watch_rates() == 1
        assert services.quotes_watch_rates() == 0  # the same day again: nothing new
    with _at(LATER + timedelta(days=1)):
        assert services.quotes_watch_rates() == 0  # the next morning: told already
    [email] = _alerts()
    assert email.to_email == sales_user.email
    assert email.idempotency_key == f"fx-move:{sent.public_id}"
    assert email.subject == f"{sent.quote.number} rev. A: the exchange rate moved past 3 %"
    assert (
        "line 1: priced at 1 EUR = 1.0800 USD (3 Dec 2026), "
        "today 1 EUR = 1.1135 USD (10 Dec 2026): +3.10 %" in email.body
    )


def test_no_alert_within_the_threshold(sent: QuoteRevision) -> None:
    # 1.1113: (1.1113 − 1.0800) / 1.0800 = 0.0313 / 1.08 = 2.90 %, within 3 %.
    with _at(LATER):
        change_eur_usd(Decimal("1.1113"))
        assert services.rate_moves(revision=sent) == []
        assert services.quotes_watch_rates() == 0
    assert _alerts() == []


def test_a_fall_counts_as_much_as_a_rise(sent: QuoteRevision) -> None:
    # 1.0460: (1.0460 − 1.0800) / 1.0800 = −0.0340 / 1.08 = −3.148… → −3.15 %.
    with _at(LATER):
        change_eur_usd(Decimal("1.0460"))
        [move] = services.rate_moves(revision=sent)
    assert (move.lines, move.move_pct, move.sign) == ([1], Decimal("-3.15"), "")


@override_settings(LANGUAGE_CODE="nl")
def test_the_alert_speaks_the_sales_desks_language(sent: QuoteRevision) -> None:
    with _at(LATER):
        change_eur_usd(Decimal("1.1135"))
        services.quotes_watch_rates()
    [email] = _alerts()
    assert email.subject == f"{sent.quote.number} rev. A: de wisselkoers is meer dan 3 % bewogen"
    assert "+3,10 %" in email.body and "1,0800" in email.body


def test_the_sent_quotes_sales_view_says_which_lines_moved(
    client: Client, sent: QuoteRevision, sales_user: User
) -> None:
    client.force_login(sales_user)
    url = reverse("quotes:detail", args=[sent.quote.public_id])
    with _at(LATER):
        change_eur_usd(Decimal("1.1135"))
        html = client.get(url).content.decode()
        with translation.override("nl"):
            dutch = client.get(url, headers={"accept-language": "nl"}).content.decode()
    assert 'id="fx-moves"' in html
    assert "Line 1: 1 EUR = 1.0800 USD (3 Dec 2026) → 1.1135 USD (10 Dec 2026), +3.10 %" in html
    assert "Regel 1: 1 EUR = 1,0800 USD (3 dec. 2026) → 1,1135 USD (10 dec. 2026), +3,10 %" in dutch


def test_a_draft_is_watched_too_and_re_price_shows_totals_and_margin(
    client: Client, seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    with _at(PRICED_ON):
        draft = _eur_quote(customer, sales_user)
    line = draft.lines.get()
    # 280,000 / 1.08 = 259,259.26 → €259,259; cost 238,000 / 1.08 = 220,370.37 → €220,370.
    assert (line.unit_price, line.cost_price) == (Decimal(259_259), Decimal(220_370))
    with _at(LATER):
        change_eur_usd(Decimal("1.1135"))
        assert services.quotes_watch_rates() == 1
        changes = selectors.revision_price_changes(revision=draft)
        effect = moved.reprice_effect(draft, list(draft.lines.all()), changes)
        client.force_login(sales_user)
        html = client.get(reverse("quotes:detail", args=[draft.quote.public_id])).content.decode()
    # 280,000 / 1.1135 = 251,459.36 → €251,459 a server; 2 servers: 518,518 → 502,918.
    # Margin: (518,518 − 2 × 220,370) / 518,518 = 77,778 / 518,518 = 15.00 %;
    # cost 238,000 / 1.1135 = 213,740.46 → €213,740: (502,918 − 427,480) / 502,918 = 15.00 %.
    assert effect is not None
    assert (effect.net_before, effect.net_after) == (Decimal(518_518), Decimal(502_918))
    assert (effect.margin_before, effect.margin_after) == (Decimal("15.00"), Decimal("15.00"))
    assert "Total excl. VAT: €518,518.00 → €502,918.00" in html
    assert 'id="fx-moves"' in html and "+3.10 %" in html


def test_a_fixed_rate_prices_the_lines_and_the_proposal_states_it(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    with _at(PRICED_ON):
        draft = _eur_quote(customer, sales_user)
        with pytest.raises(services.QuoteError):
            services.revision_fix_rate(
                revision=draft, rate=Decimal("1.05"), reason=" ", actor=sales_user
            )
        count = services.revision_fix_rate(
            revision=draft, rate=Decimal("1.05"), reason="Hedged with the bank", actor=sales_user
        )
        assert count == 1
        # 280,000 / 1.05 = 266,666.67 → €266,667 (cost 238,000 / 1.05 = 226,666.67 → 226,667)
        line = draft.lines.get()
        assert (line.unit_price, line.cost_price) == (Decimal(266_667), Decimal(226_667))
        # A line added while the rate is fixed takes it too.
        services.revision_add_line(revision=draft, catalog_key=SERVER, quantity=Decimal(1))
        assert draft.lines.get(position=2).unit_price == Decimal(266_667)
        send(draft, sales_user)
    draft.refresh_from_db()
    assert draft.snapshot is not None
    clause = draft.snapshot["currency_clause"]
    assert clause["fixed"] is True
    assert clause["rates"] == [{"eur_usd": "1.050000", "as_of": "2026-12-03", "lines": [1, 2]}]
    html, _charts = proposal_html(
        None, lambda: revision_context(draft.snapshot or {}), language="en", with_charts=False
    )
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert (
        "Lines 1 and 2 are priced from USD list prices at a fixed rate of 1 EUR = 1.0500 USD."
        in text
    )
    assert "the prices do not follow the exchange rate" in text
    assert "moves more than 3 %" not in text
    assert "Hedged" not in html  # the reason stays internal
    with _at(LATER):
        change_eur_usd(Decimal("1.1135"))  # +6.05 % against 1.05: fixed, so no alert
        assert services.rate_moves(revision=draft) == []
        assert services.quotes_watch_rates() == 0
    assert _alerts() == []


def test_a_sent_revisions_rate_cannot_be_fixed(sent: QuoteRevision, sales_user: User) -> None:
    with pytest.raises(services.QuoteError):
        services.revision_fix_rate(
            revision=sent, rate=Decimal("1.05"), reason="Too late", actor=sales_user
        )
    sent.refresh_from_db()
    assert sent.fx_fixed_rate is None


def test_releasing_the_rate_prices_the_lines_at_the_latest_again(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    with _at(PRICED_ON):
        draft = _eur_quote(customer, sales_user)
        services.revision_fix_rate(
            revision=draft, rate=Decimal("1.05"), reason="Hedged", actor=sales_user
        )
        services.revision_fix_rate(revision=draft, rate=None, reason="", actor=sales_user)
    draft.refresh_from_db()
    assert (draft.fx_fixed_rate, draft.fx_fixed_reason, draft.fx_fixed_by) == (None, "", None)
    assert draft.lines.get().unit_price == Decimal(259_259)  # 280,000 / 1.08 again


def _make_manager(make_sales_user: Callable[..., User]) -> User:
    user = make_sales_user("maria")
    user.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    return user


def test_fixing_the_rate_is_for_the_quotes_team(
    client: Client,
    seed_catalog: object,
    customer: Customer,
    sales_user: User,
    make_sales_user: Callable[..., User],
) -> None:
    draft = _eur_quote(customer, sales_user)
    url = reverse("quotes:fix_rate", args=[draft.public_id])
    data = {"rate": "1.0500", "reason": "Hedged"}

    def fixed() -> Decimal | None:
        draft.refresh_from_db()
        return draft.fx_fixed_rate

    assert client.post(url, data).status_code == 403  # anonymous, like every quote URL
    client.force_login(make_sales_user("bob", sales=False))
    assert client.post(url, data).status_code == 403
    client.force_login(make_sales_user("olaf", team="Nordics"))
    assert client.post(url, data).status_code == 404
    client.force_login(make_sales_user("sven", team=None))  # sales, in no team yet
    assert client.post(url, data).status_code == 404
    assert fixed() is None

    client.force_login(sales_user)
    assert client.get(url).status_code == 405  # a change: POST only
    assert client.post(url, data).status_code == 302
    assert fixed() == Decimal("1.05")
    client.force_login(_make_manager(make_sales_user))
    assert client.post(url, {"release": "True"}).status_code == 302
    assert fixed() is None
    staff = User.objects.create_user("root", "root@distributor.example", "pw", is_staff=True)
    staff.groups.add(Group.objects.get_or_create(name="sales")[0])
    client.force_login(staff)
    assert client.post(url, {"rate": "1,0800", "reason": "x"}).status_code == 302
    assert fixed() is None  # an English form refuses "1,0800": nothing changed
    assert client.post(url, {"rate": "1.0800", "reason": "Agreed"}).status_code == 302
    assert fixed() == Decimal("1.08")


def test_celery_beat_watches_the_rates_every_morning(sent: QuoteRevision) -> None:
    from celery.schedules import crontab
    from django.conf import settings

    from quotes.tasks import watch_rates

    entry = settings.CELERY_BEAT_SCHEDULE["watch-rates"]
    assert entry["task"] == watch_rates.name == "quotes.tasks.watch_rates"
    assert entry["schedule"] == crontab(hour=8, minute=15)
    with _at(LATER):
        change_eur_usd(Decimal("1.1135"))
        assert watch_rates.apply().get() == 1
        assert watch_rates.apply().get() == 0


def test_an_answered_or_replaced_quote_is_not_watched(
    sent: QuoteRevision, sales_user: User
) -> None:
    QuoteRevision.objects.filter(pk=sent.pk).update(status=Status.ACCEPTED)
    with _at(LATER):
        change_eur_usd(Decimal("1.1135"))
        assert services.quotes_watch_rates() == 0


# --- validity by category --------------------------------------------------------------


@override_settings(QUOTES_VALIDITY_DAYS_BY_CATEGORY={"memory": 14, "networking": 21})
def test_the_validity_is_the_shortest_over_the_lines_categories(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    with _at(PRICED_ON):
        quote = services.quote_create(customer=customer, owner=sales_user)
        revision = quote.revisions.get()
        assert revision.valid_until == date(2027, 1, 2)  # 3 Dec + 30 days (no line yet)
        # The server has 32 DIMMs (a "memory" part): 3 Dec + 14 days = 17 Dec 2026.
        services.revision_add_line(revision=revision, catalog_key=SERVER, quantity=Decimal(1))
        revision.refresh_from_db()
        assert revision.valid_until == date(2026, 12, 17)
        services.revision_add_line(
            revision=revision, catalog_key="item:installation-per-server", quantity=Decimal(1)
        )
        revision.refresh_from_db()
        assert revision.valid_until == date(2026, 12, 17)  # installation: no shorter term
        with pytest.raises(services.QuoteError, match="14 days"):
            services.revision_update(
                revision=revision, valid_until=date(2026, 12, 18), terms=revision.terms
            )
        services.revision_update(revision=revision, valid_until=date(2026, 12, 10), terms="")
        send(revision, sales_user)
    with _at(date(2026, 12, 20)):  # expired on 18 Dec
        services.quotes_expire()
        draft = services.quote_revise(revision=revision, actor=sales_user)
    assert draft.valid_until == date(2027, 1, 3)  # 20 Dec + 14 days, from the lines again


@override_settings(QUOTES_VALIDITY_DAYS_BY_CATEGORY={"networking": 21})
def test_a_quote_without_a_listed_category_keeps_the_default(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    with _at(PRICED_ON):
        revision = _eur_quote(customer, sales_user)
    assert revision.valid_until == date(2027, 1, 2)


# --- one click on an expired quote ------------------------------------------------------


def test_an_expired_quote_is_revised_in_one_click_at_todays_prices_lead_time_and_rate(
    client: Client, sent: QuoteRevision, sales_user: User
) -> None:
    from catalog.models import ServerAvailability
    from tests.quotes.test_reprice import SERVERS, change_price

    with _at(date(2027, 1, 10)):  # valid until 2 Jan 2027
        services.quotes_expire()
        change_eur_usd(Decimal("1.1135"))
        change_price(SERVERS, "smc-821ge-tnhr-h100", Decimal(290_000))
        ServerAvailability.objects.filter(server__key="smc-821ge-tnhr-h100").update(
            lead_time_weeks=20
        )
        client.force_login(sales_user)
        response = client.post(reverse("quotes:revise", args=[sent.public_id]))
        assert response.status_code == 302
        quote: Quote = sent.quote
        draft = quote.revisions.get(letter="B")
        html = client.get(reverse("quotes:detail", args=[quote.public_id])).content.decode()
        # nothing left to re-price on the day it was revised
        assert selectors.revision_price_changes(revision=draft) == []
    line = draft.lines.get()
    # Today's $290,000 at today's 1.1135: 260,440.0… → €260,440; the catalog's 20 weeks.
    assert line.unit_price == Decimal(260_440)
    assert line.lead_time_weeks == Decimal(20)
    assert "Revision B is a draft at today&#x27;s prices, lead times and rate" in html
    assert 'id="since-previous"' in html
    assert "€259,259.00 → €260,440.00" in html  # a server, revision A → B
    assert "44 → 20 weeks" in html
    # 2 servers: 518,518 → 520,880 excl. VAT.
    assert "total excl. VAT €518,518.00 → €520,880.00." in html


KINDS = ["server", "networking", "storage", "installation", "support", "facility", "other"]


@hsettings(max_examples=30)  # cheap: no database, a few dozen line sets suffice
@given(
    kinds=st.lists(st.sampled_from(KINDS), max_size=6),
    days=st.dictionaries(st.sampled_from(KINDS), st.integers(1, 60), max_size=4),
)
def test_the_validity_is_never_longer_than_the_default_nor_any_lines_category(
    kinds: list[str], days: dict[str, int]
) -> None:
    # Free lines (no catalog row, so no part roles and no query): their kind is their category.
    lines = [QuoteLine(position=n, kind=kind, catalog_key="") for n, kind in enumerate(kinds, 1)]
    with override_settings(QUOTE_VALIDITY_DAYS=30, QUOTES_VALIDITY_DAYS_BY_CATEGORY=days):
        found = validity(lines)
    expected = min([30, *(days[kind] for kind in kinds if kind in days)])
    assert found.days == expected
    if found.category:
        assert found.line is not None and kinds[found.line - 1] == found.category
