"""Reminders before a sent quote expires, driven day by day by a frozen clock, and the
one-click revision of an expired quote (docs/quotes.md, "Reminders before expiry")."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone

from quotes import selectors, services
from quotes.models import Customer, EmailKind, OutboxEmail, QuoteRevision, Status, Team
from quotes.services import moved
from quotes.services.options import new_option as option_add_alternative
from tests.quotes.test_reprice import SERVERS, change_price

from .conftest import send

pytestmark = pytest.mark.django_db

SENT_ON = date(2026, 12, 3)


def _at(day: date) -> time_machine.travel:
    """The clock at 08:00 UTC on `day` (the beat task's hour), standing still."""
    return time_machine.travel(datetime.combine(day, time(8, 0), tzinfo=UTC), tick=False)


def _mark_sent(revision: QuoteRevision, valid_until: date) -> QuoteRevision:
    """A revision as quote_send leaves it, with a frozen snapshot holding what the emails
    read (the owner's name and address)."""
    revision.status = Status.SENT
    revision.sent_at = timezone.now()
    revision.valid_until = valid_until
    revision.snapshot = {"owner": {"name": "anna", "email": "anna@distributor.example"}}
    revision.save(update_fields=["status", "sent_at", "valid_until", "snapshot"])
    return revision


def _sent_revision(customer: Customer, owner: User, valid_days: int = 30) -> QuoteRevision:
    with _at(SENT_ON):
        quote = services.quote_create(customer=customer, owner=owner)
        return _mark_sent(quote.revisions.get(), SENT_ON + timedelta(days=valid_days))


def _run_daily(first: date, last: date) -> dict[date, int]:
    """The beat task's service once a day (08:00), after the expiry run; returns the
    reminders queued per day (days with none left out)."""
    queued = {}
    day = first
    while day <= last:
        with _at(day):
            services.quotes_expire()
            count = services.quotes_remind()
        if count:
            queued[day] = count
        day += timedelta(days=1)
    return queued


def _reminders() -> list[OutboxEmail]:
    return list(OutboxEmail.objects.filter(kind=EmailKind.REMINDER).order_by("to_email"))


@override_settings(QUOTES_REMINDER_DAYS=7)
def test_the_owner_and_the_buyer_are_each_reminded_exactly_once_seven_days_before(
    customer: Customer, sales_user: User
) -> None:
    Team.objects.filter(pk=customer.team_id).update(remind_buyers=True)
    revision = _sent_revision(customer, sales_user)  # valid until 3 Dec + 30 d = 2 Jan 2027
    # Every day from sending to past the expiry: 2 Jan 2027 − 7 days = 26 Dec 2026 is the
    # first day within the window; both reminders are queued then, and never again.
    queued = _run_daily(SENT_ON, date(2027, 1, 5))
    assert queued == {date(2026, 12, 26): 2}
    owner = [e for e in _reminders() if e.to_email == sales_user.email]
    buyer = [e for e in _reminders() if e.to_email == customer.email]
    assert len(owner) == 1 and len(buyer) == 1
    assert owner[0].revision_id == buyer[0].revision_id == revision.pk
    assert revision.quote.number in owner[0].subject
    assert f"/quotes/{revision.quote.public_id}/" in owner[0].body
    assert "/quotes/p/" in buyer[0].body  # the buyer's link to the proposal
    assert "valid until 2 Jan 2027" in buyer[0].body
    revision.refresh_from_db()
    assert revision.status == Status.EXPIRED


@override_settings(QUOTES_REMINDER_DAYS=7)
def test_the_buyer_is_reminded_only_when_the_team_says_so(
    customer: Customer, sales_user: User
) -> None:
    _sent_revision(customer, sales_user)
    assert _run_daily(date(2026, 12, 25), date(2027, 1, 2)) == {date(2026, 12, 26): 1}
    assert [e.to_email for e in _reminders()] == [sales_user.email]


@override_settings(QUOTES_REMINDER_DAYS=7)
def test_a_buyer_who_speaks_dutch_is_reminded_in_dutch(
    customer: Customer, sales_user: User
) -> None:
    Team.objects.filter(pk=customer.team_id).update(remind_buyers=True)
    Customer.objects.filter(pk=customer.pk).update(language="nl")
    customer.refresh_from_db()
    _sent_revision(customer, sales_user)
    _run_daily(date(2026, 12, 26), date(2026, 12, 26))
    buyer = OutboxEmail.objects.get(kind=EmailKind.REMINDER, to_email=customer.email)
    assert "Herinnering" in buyer.subject and "geldig tot 2 jan. 2027" in buyer.body


@override_settings(QUOTES_REMINDER_DAYS=7)
def test_no_reminder_after_the_buyer_accepted_or_declined(
    customer: Customer, sales_user: User
) -> None:
    Team.objects.filter(pk=customer.team_id).update(remind_buyers=True)
    accepted = _sent_revision(customer, sales_user)
    declined = _sent_revision(customer, sales_user)
    with _at(date(2026, 12, 20)):
        services.revision_decide(revision=accepted, accept=True, name="Jan de Vries")
        services.revision_decide(
            revision=declined, accept=False, name="Jan de Vries", reason="price"
        )
    assert _run_daily(date(2026, 12, 20), date(2027, 1, 5)) == {}
    assert _reminders() == []


@override_settings(QUOTES_REMINDER_DAYS=7)
def test_options_b_to_d_share_option_a_reminder(customer: Customer, sales_user: User) -> None:
    Team.objects.filter(pk=customer.team_id).update(remind_buyers=True)
    main = _sent_revision(customer, sales_user)
    with _at(SENT_ON):
        for letter in "BCD":
            option = option_add_alternative(main, name=f"Option {letter}", letter=letter, tco=None)
            _mark_sent(option, main.valid_until)
    assert main.alternatives.filter(status=Status.SENT).count() == 3
    # One to the owner and one to the buyer, both for option A's revision.
    assert _run_daily(date(2026, 12, 20), date(2027, 1, 5)) == {date(2026, 12, 26): 2}
    assert {e.revision_id for e in _reminders()} == {main.pk}


@override_settings(QUOTES_REMINDER_DAYS=7)
def test_a_revision_replaced_by_a_newer_sent_one_is_not_reminded(
    customer: Customer, sales_user: User
) -> None:
    first = _sent_revision(customer, sales_user)
    with _at(date(2026, 12, 10)):
        second = services.quote_revise(revision=first, actor=sales_user)
        _mark_sent(second, date(2027, 1, 9))
    # The first stays "sent" (the buyer can no longer answer it); only the second, valid
    # until 9 Jan 2027, is reminded, on 9 Jan − 7 days = 2 Jan 2027.
    assert _run_daily(date(2026, 12, 20), date(2027, 1, 10)) == {date(2027, 1, 2): 1}
    assert [e.revision_id for e in _reminders()] == [second.pk]


def test_an_expired_quote_is_revised_in_one_click_at_todays_prices_and_shows_what_moved(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    with _at(SENT_ON):
        quote = services.quote_create(customer=customer, owner=sales_user, currency="USD")
        revision = quote.revisions.get()
        services.revision_add_line(
            revision=revision, catalog_key="server:smc-821ge-tnhr-h100", quantity=Decimal(2)
        )
        send(revision, sales_user)  # valid for 30 days: until 2 Jan 2027
    with _at(date(2027, 1, 10)):  # the validity ended on 2 Jan 2027
        services.quotes_expire()
        change_price(SERVERS, "smc-821ge-tnhr-h100", Decimal(290_000))
        draft = services.quote_revise(revision=revision, actor=sales_user)
        assert draft.status == Status.DRAFT and draft.letter == "B"
        assert draft.valid_until == date(2027, 1, 10) + timedelta(days=30)
        # The seed's list price $280,000 on a USD quote; today's $290,000: the one click
        # re-priced the draft, and the draft's page shows what moved against revision A.
        assert selectors.revision_price_changes(revision=draft) == []
        lines = list(draft.lines.all())
        differences = moved.since_previous(draft, lines)
        assert differences is not None
        assert [(m.old_unit_price, m.new_unit_price) for m in differences.lines] == [
            (Decimal("280000.00"), Decimal("290000"))
        ]
    revision.refresh_from_db()
    assert revision.status == Status.EXPIRED


@override_settings(QUOTES_REMINDER_DAYS=7)
def test_celery_beat_runs_the_reminders_every_morning(customer: Customer, sales_user: User) -> None:
    from celery.schedules import crontab
    from django.conf import settings

    from quotes.tasks import remind_quotes

    entry = settings.CELERY_BEAT_SCHEDULE["remind-quotes"]
    assert entry["task"] == remind_quotes.name == "quotes.tasks.remind_quotes"
    schedule = entry["schedule"]
    assert schedule == crontab(hour=8, minute=0)
    _sent_revision(customer, sales_user)  # valid until 2 Jan 2027: due from 26 Dec
    with _at(date(2026, 12, 26)):
        assert remind_quotes.apply().get() == 1
        assert remind_quotes.apply().get() == 0  # run again: nothing new
