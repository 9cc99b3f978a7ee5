"""Win/loss: how the team's sent quotes ended, per team and period (docs/quotes.md,
"Win/loss").

A quote counts in the period in which it was first sent. It ends as its latest sent revision
(option A; the alternatives are answered with it) stands: **won** (accepted, with the option
the buyer chose), **lost** (declined, with the buyer's reason), **expired** (not answered
within its validity), or is still **open**. The win rate is won ÷ (won + lost): an expired or
open quote was never decided. Reads only, scoped to the user's teams like every sales list.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import OuterRef, Prefetch, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .models import (
    AcceptanceRecord,
    AnalysisPresentation,
    DeclineReason,
    Quote,
    QuoteRevision,
    Status,
    Team,
)
from .selectors import team_filter
from .services.options import chosen_option
from .services.presentation import argues_against_itself

WON, LOST, EXPIRED, OPEN = "won", "lost", "expired", "open"
OUTCOMES = (WON, LOST, EXPIRED, OPEN)
LETTERS = ("A", "B", "C", "D")


@dataclass(frozen=True)
class QuoteOutcome:
    """How one quote ended (or stands), from its latest sent revision."""

    quote: Quote
    revision: QuoteRevision
    outcome: str
    sent_on: date
    decided_on: date | None
    option: str  # the letter the buyer chose (won only; "A" without options)
    currency: str
    value: Decimal  # excl. VAT: the chosen option's when won, option A's otherwise
    reason: str  # DeclineReason value (lost only; "" when none was given)
    note: str
    rent: bool  # the frozen analysis recommended renting

    @property
    def days_to_decision(self) -> int | None:
        """Calendar days from the first send to the buyer's answer (won or lost)."""
        if self.decided_on is None or self.outcome not in (WON, LOST):
            return None
        return (self.decided_on - self.sent_on).days


@dataclass
class Summary:
    """The page's figures; amounts per currency (quotes are in EUR or USD)."""

    sent: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    win_rate: Decimal | None = None  # won ÷ (won + lost), 0–1
    value_won: dict[str, Decimal] = field(default_factory=dict)
    value_lost: dict[str, Decimal] = field(default_factory=dict)
    median_days: Decimal | None = None
    reasons: list[tuple[str, int]] = field(default_factory=list)
    options_won: list[tuple[str, int]] = field(default_factory=list)
    rent: int = 0  # quotes whose analysis said "rent"
    rent_won: int = 0
    rent_lost: int = 0


def default_period(today: date) -> tuple[date, date]:
    """The last 90 days, today included."""
    return today - timedelta(days=89), today


def visible_teams(user: Any) -> list[Team]:
    """The teams the user may report on: their own (staff: every team)."""
    teams = Team.objects.all() if user.is_staff else Team.objects.filter(members=user)
    return list(teams.order_by("name"))


def _first_sent() -> Subquery:
    return Subquery(
        QuoteRevision.objects.filter(
            quote=OuterRef("pk"), option_of__isnull=True, sent_at__isnull=False
        )
        .order_by("sent_at")
        .values("sent_at")[:1]
    )


def outcomes(*, user: Any, start: date, end: date, team: Team | None = None) -> list[QuoteOutcome]:
    """The quotes of the user's teams (or of `team`, one of them) first sent from `start`
    to `end` (both included, local dates), each with how it ended."""
    zone = timezone.get_current_timezone()
    since = datetime.combine(start, time.min, tzinfo=zone)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=zone)
    sent = (
        QuoteRevision.objects.filter(option_of__isnull=True)
        .exclude(status=Status.DRAFT)
        .order_by("seq")
    )
    quotes = (
        Quote.objects.filter(team_filter(user))
        .annotate(first_sent=_first_sent())
        .filter(first_sent__gte=since, first_sent__lt=until)
        .select_related("customer", "owner", "team")
        .prefetch_related(Prefetch("revisions", queryset=sent, to_attr="sent_revisions"))
        .distinct()
        .order_by("first_sent", "number")
    )
    if team is not None:
        quotes = quotes.filter(team=team)
    found = list(quotes)
    acceptances = {
        a.revision_id: a
        for a in AcceptanceRecord.objects.filter(revision__quote__in=found).only(
            "revision_id", "option_letter"
        )
    }
    today = timezone.localdate()
    return [_outcome(q, acceptances, today) for q in found]


def _outcome(quote: Any, acceptances: dict[int, AcceptanceRecord], today: date) -> QuoteOutcome:
    revision: QuoteRevision = quote.sent_revisions[-1]
    snapshot = revision.snapshot or {}
    status = revision.status
    option, value = "", _net(snapshot)
    if status == Status.ACCEPTED:
        outcome = WON
        record = acceptances.get(revision.pk)
        letter, _name, accepted = chosen_option(revision, record.option_letter if record else "")
        option, value = letter or "A", _net(accepted)
    elif status == Status.DECLINED:
        outcome = LOST
    elif status == Status.EXPIRED or revision.valid_until < today:
        outcome = EXPIRED  # the nightly expiry marks it; until then it is past its date
    else:
        outcome = OPEN
    decided = revision.decided_at if outcome in (WON, LOST) else None
    return QuoteOutcome(
        quote=quote,
        revision=revision,
        outcome=outcome,
        sent_on=timezone.localdate(quote.first_sent),
        decided_on=timezone.localdate(decided) if decided else None,
        option=option,
        currency=revision.currency,
        value=value,
        reason=revision.decline_reason if outcome == LOST else "",
        note=revision.decline_note if outcome == LOST else "",
        rent=said_rent(snapshot),
    )


def _net(snapshot: dict[str, Any]) -> Decimal:
    totals = snapshot.get("totals") or {}
    return Decimal(totals.get("net") or totals.get("subtotal") or 0)


def said_rent(snapshot: dict[str, Any]) -> bool:
    """The analysis frozen with the proposal recommended renting: its executive summary's
    ``buy`` is false, or the proposal was sent without it or like for like, which is only
    offered when it recommends renting (services.presentation)."""
    presentation = (snapshot.get("analysis") or {}).get("presentation")
    if presentation and presentation != AnalysisPresentation.FULL:
        return True
    return argues_against_itself(snapshot.get("tco"))


def summarise(rows: list[QuoteOutcome]) -> Summary:
    counts = Counter(row.outcome for row in rows)
    summary = Summary(sent=len(rows), counts={o: counts.get(o, 0) for o in OUTCOMES})
    decided = counts[WON] + counts[LOST]
    if decided:
        summary.win_rate = Decimal(counts[WON]) / Decimal(decided)
    for row in rows:
        if row.outcome == WON:
            _add(summary.value_won, row.currency, row.value)
        elif row.outcome == LOST:
            _add(summary.value_lost, row.currency, row.value)
    days = [d for d in (row.days_to_decision for row in rows) if d is not None]
    if days:
        summary.median_days = Decimal(str(statistics.median(days)))
    reasons = Counter(row.reason for row in rows if row.outcome == LOST)
    summary.reasons = [(r, reasons[r]) for r in [*DeclineReason.values, ""] if reasons[r]]
    letters = Counter(row.option for row in rows if row.outcome == WON)
    summary.options_won = [(letter, letters[letter]) for letter in LETTERS]
    summary.rent = sum(row.rent for row in rows)
    summary.rent_won = sum(row.rent for row in rows if row.outcome == WON)
    summary.rent_lost = sum(row.rent for row in rows if row.outcome == LOST)
    return summary


def _add(totals: dict[str, Decimal], currency: str, amount: Decimal) -> None:
    totals[currency] = totals.get(currency, Decimal(0)) + amount


# The export's columns: (row key, title in the reader's language).
COLUMNS = (
    ("number", gettext_lazy("Quote")),
    ("revision", gettext_lazy("Revision")),
    ("team", gettext_lazy("Team")),
    ("company", gettext_lazy("Customer")),
    ("owner", gettext_lazy("Owner")),
    ("sent_on", gettext_lazy("First sent")),
    ("outcome", gettext_lazy("Outcome")),
    ("decided_on", gettext_lazy("Decided")),
    ("days", gettext_lazy("Days to a decision")),
    ("option", gettext_lazy("Option won")),
    ("currency", gettext_lazy("Currency")),
    ("value", gettext_lazy("Value excl. VAT")),
    ("reason", gettext_lazy("Reason for losing")),
    ("note", gettext_lazy("The buyer's words")),
    ("rent", gettext_lazy("The analysis said rent")),
)


def outcome_label(outcome: str) -> str:
    labels = {WON: _("won"), LOST: _("lost"), EXPIRED: _("expired"), OPEN: _("open")}
    return str(labels[outcome])


def _owner_name(user: Any) -> str:
    return str(user.get_full_name() or user.get_username())


def columns() -> tuple[tuple[str, str], ...]:
    """The export's columns with their titles in the active language."""
    return tuple((key, str(title)) for key, title in COLUMNS)


def export_rows(rows: list[QuoteOutcome]) -> list[dict[str, Any]]:
    """One row per quote for CSV/XLSX (quotes/exports.py neutralises the text)."""
    return [
        {
            "number": row.quote.number,
            "revision": row.revision.letter,
            "team": row.quote.team.name,
            "company": row.quote.customer.company,
            "owner": _owner_name(row.quote.owner),
            "sent_on": row.sent_on,
            "outcome": outcome_label(row.outcome),
            "decided_on": row.decided_on,
            "days": row.days_to_decision,
            "option": row.option,
            "currency": row.currency,
            "value": row.value,
            "reason": str(DeclineReason(row.reason).label) if row.reason else "",
            "note": row.note,
            "rent": str(_("yes") if row.rent else _("no")),
        }
        for row in rows
    ]
