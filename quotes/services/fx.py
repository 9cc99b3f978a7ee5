"""Currency terms that act (docs/quotes.md, "Exchange rate: fixed by hand, watched daily").

A proposal priced partly from list prices in another currency states a currency clause:
the rate of the day each line was priced and a threshold (QUOTES_FX_CLAUSE_THRESHOLD_PCT).
Here the clause acts:

- the sales engineer may fix the EUR/USD rate of a draft by hand, with a reason: its
  converted lines are priced again at that rate, adding or re-pricing lines uses it, and the
  proposal states the fixed rate instead of the threshold;
- `rate_moves` compares today's rate (the latest FxRate) with the rate each group of lines
  was priced at and reports the groups that moved past the threshold; the sales view of a
  draft or of a sent quote shows them;
- `quotes_watch_rates` (the daily beat task) tells the quote's owner once per revision, by
  email through the outbox under the idempotency key ``fx-move:<revision>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from catalog.models import InfrastructureItem, PricingUnit, ServerModel
from catalog.selectors import latest_fx_rate

from ..models import EmailKind, OutboxEmail, QuoteLine, QuoteRevision, Status
from ..money import HUNDRED, catalog_unit_cost, catalog_unit_price
from .drafts import locked_draft
from .errors import QuoteError
from .links import quote_url
from .offer import catalog_rows, currency_clause
from .options import main_option, options_of
from .pricing import follow_hardware
from .queue import PRIORITY_BATCH, email_once

# The largest rate a person can mean for EUR/USD; a typo such as 10800 is refused.
MAX_RATE = Decimal(10)


@dataclass(frozen=True)
class RateMove:
    """A group of lines priced at one EUR/USD rate that today's rate moved past the
    currency clause's threshold."""

    lines: list[int]  # line positions (the "% of hardware" lines that follow them included)
    priced_rate: Decimal
    priced_on: date
    today_rate: Decimal
    today_on: date
    move_pct: Decimal  # (today − priced) ÷ priced × 100, to two decimals

    @property
    def positions(self) -> str:
        """The line numbers as a reader lists them: "1, 2 and 3" (Dutch "1, 2 en 3")."""
        return str(get_text_list([str(n) for n in self.lines], _("and")))

    @property
    def sign(self) -> str:
        """ "+" before a rise (a fall's number carries its minus)."""
        return "+" if self.move_pct > 0 else ""


def threshold_pct() -> Decimal:
    return Decimal(settings.QUOTES_FX_CLAUSE_THRESHOLD_PCT)


def move_pct(priced: Decimal, today: Decimal) -> Decimal:
    """How far the rate moved, in % of the rate the lines were priced at.

    >>> move_pct(Decimal("1.0800"), Decimal("1.1135"))  # 0.0335 / 1.08 = 3.1018… %
    Decimal('3.1018518518518518518518518519')
    """
    return (today - priced) / priced * HUNDRED


def _clause_of(revision: QuoteRevision, lines: list[QuoteLine] | None) -> dict[str, Any] | None:
    """The currency clause as the buyer holds it (sent: frozen) or would get it (draft)."""
    if not revision.is_draft:
        return (revision.snapshot or {}).get("currency_clause")
    if lines is None:
        lines = list(revision.lines.order_by("position"))
    return currency_clause(revision=revision, lines=lines, rows=catalog_rows(lines))


def currency_clause_of(
    *, revision: QuoteRevision, lines: list[QuoteLine] | None = None
) -> dict[str, Any] | None:
    """The currency clause of a revision for its sales view (None: no converted line)."""
    return _clause_of(revision, lines)


def rate_moves(
    *,
    revision: QuoteRevision,
    lines: list[QuoteLine] | None = None,
    clause: dict[str, Any] | None = None,
) -> list[RateMove]:
    """The line groups whose EUR/USD rate today's rate moved past the threshold (strictly:
    a move of exactly the threshold is still within the clause). Nothing for a revision with
    a fixed rate, one the buyer answered, or one that expired. `clause`: the revision's
    currency clause when the caller has it (currency_clause_of)."""
    if revision.fixed_fx_rate is not None:
        return []
    if revision.status not in (Status.DRAFT, Status.SENT, Status.VIEWED):
        return []
    clause = clause if clause is not None else _clause_of(revision, lines)
    if not clause or clause.get("fixed"):
        return []
    today = latest_fx_rate("EUR", "USD")
    if today is None:
        return []
    limit = Decimal(clause.get("threshold_pct") or threshold_pct())
    moves = []
    for group in clause["rates"]:
        priced = Decimal(group["eur_usd"])
        pct = move_pct(priced, today.rate)
        if abs(pct) <= limit:
            continue
        moves.append(
            RateMove(
                lines=sorted({*group["lines"], *clause.get("percent_lines", [])}),
                priced_rate=priced,
                priced_on=date.fromisoformat(group["as_of"]),
                today_rate=today.rate,
                today_on=today.as_of,
                move_pct=pct.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP),
            )
        )
    return moves


# --- fixing the rate by hand -------------------------------------------------------------


def _convert_again(revision: QuoteRevision, rate: Decimal | None) -> int:
    """Price the lines converted from another currency again at `rate` (None: the latest),
    at today's list price; returns how many lines. "% of hardware" lines follow."""
    lines = list(revision.lines.all())
    rows = catalog_rows(lines)
    if rate is None:
        latest = latest_fx_rate("EUR", "USD")
        if latest is None:
            raise QuoteError(_("No EUR/USD exchange rate in the catalog."))
        rate = latest.rate
    now = timezone.now()
    changed = 0
    for line in lines:
        row = rows.of(line)
        if row is None or row.currency == revision.currency:
            continue
        if (
            isinstance(row, InfrastructureItem)
            and row.unit == PricingUnit.PERCENT_OF_HARDWARE_PER_YEAR
        ):
            continue
        line.unit_price = catalog_unit_price(row, revision.currency, rate)
        line.cost_price = catalog_unit_cost(row, revision.currency, rate)
        if isinstance(row, ServerModel):
            line.price_as_of, line.price_is_estimate = row.price_as_of, row.price_is_estimate
        else:
            line.price_as_of, line.price_is_estimate = row.as_of, row.is_estimate
        line.priced_at = now
        line.save(
            update_fields=[
                "unit_price",
                "cost_price",
                "price_as_of",
                "price_is_estimate",
                "priced_at",
            ]
        )
        changed += 1
    follow_hardware(revision)
    return changed


@transaction.atomic
def revision_fix_rate(
    *, revision: QuoteRevision, rate: Decimal | None, reason: str, actor: User
) -> int:
    """Fix the EUR/USD rate of a draft and its options by hand (`rate` None releases it);
    the lines priced from another currency are priced again at the fixed rate (released:
    at the latest). Returns how many lines were priced again."""
    main = locked_draft(main_option(revision))
    reason = reason.strip()
    if rate is not None:
        if not reason:
            raise QuoteError(_("Say why the rate is fixed."))
        if not Decimal(0) < rate < MAX_RATE:
            raise QuoteError(_("Give the rate as US dollars for one euro, e.g. 1.0800."))
    main.fx_fixed_rate = rate
    main.fx_fixed_reason = reason if rate is not None else ""
    main.fx_fixed_by = actor if rate is not None else None
    main.fx_fixed_at = timezone.now() if rate is not None else None
    main.save(update_fields=["fx_fixed_rate", "fx_fixed_reason", "fx_fixed_by", "fx_fixed_at"])
    return sum(_convert_again(option, rate) for option in options_of(main))


# --- the daily watch ---------------------------------------------------------------------


def revisions_to_watch(*, today: date) -> QuerySet[QuoteRevision]:
    """Option A revisions whose rate may still matter: drafts, and sent revisions the buyer
    has not answered that are still valid and that no newer sent revision replaced; none
    with a fixed rate."""
    newer = QuoteRevision.objects.filter(
        quote_id=OuterRef("quote_id"), seq__gt=OuterRef("seq"), option_of__isnull=True
    ).exclude(status=Status.DRAFT)
    open_sent = Q(status__in=[Status.SENT, Status.VIEWED], valid_until__gte=today)
    return (
        QuoteRevision.objects.filter(Q(status=Status.DRAFT) | open_sent)
        .filter(option_of__isnull=True, fx_fixed_rate__isnull=True)
        .exclude(Exists(newer))
        .select_related("quote__owner", "quote__customer")
        .order_by("pk")
    )


def _alert_key(revision: QuoteRevision) -> str:
    return f"fx-move:{revision.public_id}"


def _owner_alert(
    revision: QuoteRevision, moves: list[tuple[QuoteRevision, list[RateMove]]]
) -> bool:
    quote = revision.quote
    with translation.override(settings.LANGUAGE_CODE):  # the sales desk's language
        subject = _("%(number)s rev. %(letter)s: the exchange rate moved past %(pct)s %%") % {
            "number": quote.number,
            "letter": revision.letter,
            "pct": threshold_pct(),
        }
        body = render_to_string(
            "quotes/email/fx_move_owner.txt",
            {
                "revision": revision,
                "moves": moves,
                "url": quote_url(quote=quote),
            },
        )
    return email_once(
        key=_alert_key(revision),
        kind=EmailKind.FX_MOVE,
        to=quote.owner.email,
        subject=subject,
        body=body,
        priority=PRIORITY_BATCH,  # a notice to the sales desk, never ahead of a proposal
        revision=revision,
    )


def quotes_watch_rates(*, today: date | None = None) -> int:
    """Tell each owner once per revision that today's rate moved past the threshold of
    its currency clause (any option's lines); returns how many emails were queued."""
    today = today or timezone.localdate()
    queued = 0
    for revision in revisions_to_watch(today=today):
        if not revision.quote.owner.email:
            continue
        if OutboxEmail.objects.filter(idempotency_key=_alert_key(revision)).exists():
            continue  # told already: skip the work
        moves = [(option, rate_moves(revision=option)) for option in options_of(revision)]
        moves = [(option, found) for option, found in moves if found]
        if moves:
            queued += _owner_alert(revision, moves)
    return queued
