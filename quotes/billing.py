"""What the buyer is billed when: the payment schedule (deposit and milestones) and yearly
support, as amounts that add up to the proposal's totals to the cent.

A schedule is a list of milestones ``{"event": "order", "pct": "30"}``: the share of the
one-off amount invoiced at that event (the events are codes, worded per language by
:class:`PaymentEvent`). Support lines billed yearly are taken out of the one-off amount
and invoiced at the start of each support year instead. The plan is computed once, when a
revision is frozen (services.snapshots), and the proposal only prints it.

Rounding: every share is rounded to cents and the largest share of a split takes what is
left, so the shares always add up to the amount split (:func:`split`). VAT is split the
same way over the rows, so the rows' totals incl. VAT add up to the proposal's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .money import HUNDRED, to_cents

MAX_MILESTONES = 6


class PaymentEvent(models.TextChoices):
    """When a milestone of the payment schedule is invoiced."""

    ORDER = "order", gettext_lazy("on order confirmation")
    SHIPMENT = "shipment", gettext_lazy("on shipment")
    DELIVERY = "delivery", gettext_lazy("on delivery")
    INSTALLATION = "installation", gettext_lazy("on completed installation")
    ACCEPTANCE = "acceptance", gettext_lazy("on acceptance after burn-in")


class LineBilling(models.TextChoices):
    """How a support line is invoiced."""

    UPFRONT = "upfront", gettext_lazy("billed up front")
    YEARLY = "yearly", gettext_lazy("billed yearly in advance")


class ScheduleError(ValueError):
    """A payment schedule that cannot be used; the message says why in plain words."""


def _percent(raw: Any) -> Decimal:
    try:
        value = Decimal(str(raw).strip().replace(",", "."))
    except InvalidOperation as exc:
        raise ScheduleError(_("Enter each milestone's share as a number, e.g. 30.")) from exc
    if not value.is_finite() or value <= 0 or value > HUNDRED:
        raise ScheduleError(_("Each milestone's share must lie between 0 and 100 %."))
    if value != value.quantize(Decimal("0.01")):
        raise ScheduleError(_("Give each milestone's share with at most two decimals."))
    return value


def clean_schedule(milestones: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """A schedule checked and in its stored form, or ScheduleError.

    >>> clean_schedule([{"event": "order", "pct": "30"}, {"event": "delivery", "pct": 70}])
    [{'event': 'order', 'pct': '30'}, {'event': 'delivery', 'pct': '70'}]
    >>> clean_schedule([{"event": "order", "pct": "30"}, {"event": "delivery", "pct": "60"}])
    Traceback (most recent call last):
    ...
    quotes.billing.ScheduleError: The milestones add up to 90 %; they must add up to 100 %.
    """
    cleaned: list[dict[str, str]] = []
    for milestone in milestones:
        event = str(milestone.get("event") or "")
        if event not in PaymentEvent.values:
            raise ScheduleError(_("Choose when each milestone is invoiced."))
        if any(m["event"] == event for m in cleaned):
            raise ScheduleError(
                _("“%(event)s” appears twice; give each event one milestone.")
                % {"event": PaymentEvent(event).label}
            )
        pct = _percent(milestone.get("pct"))
        cleaned.append({"event": event, "pct": _plain(pct)})
    if not cleaned:
        raise ScheduleError(_("A payment schedule needs at least one milestone."))
    if len(cleaned) > MAX_MILESTONES:
        raise ScheduleError(
            _("A payment schedule has at most %(n)d milestones.") % {"n": MAX_MILESTONES}
        )
    total = sum((Decimal(m["pct"]) for m in cleaned), Decimal(0))
    if total != HUNDRED:
        raise ScheduleError(
            _("The milestones add up to %(total)s %%; they must add up to 100 %%.")
            % {"total": _plain(total)}
        )
    return cleaned


def _plain(value: Decimal) -> str:
    """30.00 → "30", 12.50 → "12.5" (the stored and printed form of a share)."""
    return format(value.normalize(), "f")


def default_schedule() -> list[dict[str, str]]:
    """The schedule a new team starts with: setting QUOTES_DEFAULT_PAYMENT_SCHEDULE,
    "event:pct" pairs separated by commas (default "order:30,delivery:70")."""
    raw = str(getattr(settings, "QUOTES_DEFAULT_PAYMENT_SCHEDULE", "order:30,delivery:70"))
    pairs = [item.split(":", 1) for item in raw.split(",") if item.strip()]
    return clean_schedule({"event": e.strip(), "pct": p.strip()} for e, p in pairs)


def validate_schedule(value: Any) -> None:
    """A model field validator (the team's default schedule, edited in the admin)."""
    if not isinstance(value, list):
        raise ValidationError(_("A payment schedule is a list of milestones."))
    try:
        clean_schedule(value)
    except ScheduleError as exc:
        raise ValidationError(str(exc)) from exc


def split(amount: Decimal, weights: Sequence[Decimal]) -> list[Decimal]:
    """`amount` in shares proportional to `weights`, in cents that add up to `amount` exactly:
    each share rounded down to the cent, the cents left over one each to the shares with the
    largest remainders (the first of equals), so that none turns negative, even when the
    amount has fewer cents than there are shares.

    >>> split(Decimal("100.00"), [Decimal(1), Decimal(1), Decimal(1)])
    [Decimal('33.34'), Decimal('33.33'), Decimal('33.33')]
    >>> split(Decimal("1776726.00"), [Decimal(30), Decimal(70)])
    [Decimal('533017.80'), Decimal('1243708.20')]
    >>> split(Decimal("0.03"), [Decimal(1)] * 5)
    [Decimal('0.01'), Decimal('0.01'), Decimal('0.01'), Decimal('0.00'), Decimal('0.00')]
    """
    if not weights:
        return []
    cents = int(to_cents(amount) * 100)
    if cents < 0:
        return [-share for share in split(-to_cents(amount), weights)]
    total = sum(weights, Decimal(0))
    if total == 0:  # no weights to go by: the whole amount on the first share
        weights, total = [Decimal(i == 0) for i in range(len(weights))], Decimal(1)
    exact = [Decimal(cents) * weight / total for weight in weights]
    floors = [int(x) for x in exact]  # exact ≥ 0: int() rounds down
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(exact[i] - floors[i]), i))
    for i in by_remainder[: cents - sum(floors)]:
        floors[i] += 1
    return [Decimal(f).scaleb(-2) for f in floors]


def support_years(quantity: Decimal, unit: str) -> Decimal:
    """A support line's term in years (its quantity counts years or months).

    >>> support_years(Decimal(5), "years"), support_years(Decimal(30), "months")
    (Decimal('5'), Decimal('2.5'))
    """
    return quantity / 12 if unit == "months" else quantity


@dataclass(frozen=True)
class PlanRow:
    """One invoice of the plan: a milestone (`event`, `pct`) or a support year (`year`)."""

    net: Decimal
    vat: Decimal
    event: str = ""
    pct: str = ""
    year: int = 0

    @property
    def gross(self) -> Decimal:
        return self.net + self.vat

    def as_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "pct": self.pct,
            "year": self.year,
            "net": str(self.net),
            "vat": str(self.vat),
            "gross": str(self.gross),
        }


def is_yearly(line: Mapping[str, Any]) -> bool:
    return (
        line.get("kind") == "support"
        and line.get("billing") == LineBilling.YEARLY
        and not line.get("optional")
    )


@dataclass(frozen=True)
class YearlyLine:
    """A support line billed yearly: its share of the net and what each year bills."""

    position: int
    net: Decimal
    years: list[Decimal]


def yearly_lines(lines: Sequence[Mapping[str, Any]], net: Decimal) -> list[YearlyLine]:
    """The yearly support lines with their share of the proposal's net (the net split over
    the non-optional lines by amount, so the quote discount falls on each in proportion and
    the shares add up to the net) and that share per support year (a part year pro rata)."""
    billed = [line for line in lines if not line.get("optional")]
    shares = split(net, [Decimal(str(line["amount"])) for line in billed])
    found = []
    for line, share in zip(billed, shares, strict=True):
        if not is_yearly(line):
            continue
        years = support_years(Decimal(str(line.get("quantity") or 1)), str(line.get("unit") or ""))
        whole = int(years)
        weights = [Decimal(1)] * whole
        if years > whole or not weights:
            weights.append(years - whole if years > whole else Decimal(1))
        found.append(YearlyLine(int(line.get("position") or 0), share, split(share, weights)))
    return found


def billing_plan(
    *,
    lines: Sequence[Mapping[str, Any]],
    schedule: Sequence[Mapping[str, str]],
    net: Decimal,
    vat: Decimal,
) -> list[PlanRow]:
    """The invoices of a proposal (see the module docstring), in order: the milestones,
    then support year 1, 2, … Their net amounts add up to `net` and their VAT to `vat`.

    `lines` are snapshot lines (``amount``, ``kind``, ``billing``, ``quantity``, ``unit``,
    ``optional``); :func:`yearly_lines` gives the yearly support's share of the net and
    its years; the milestones split the rest.

    >>> lines = [{"kind": "server", "amount": "1000.00", "optional": False},
    ...          {"kind": "support", "billing": "yearly", "amount": "300.00", "quantity": "3",
    ...           "unit": "years", "optional": False}]
    >>> plan = billing_plan(lines=lines, schedule=[{"event": "order", "pct": "30"},
    ...     {"event": "delivery", "pct": "70"}], net=Decimal("1170.00"), vat=Decimal("245.70"))
    >>> for row in plan:
    ...     print(row.event or f"support year {row.year}", row.net, row.vat)
    order 270.00 56.70
    delivery 630.00 132.30
    support year 1 90.00 18.90
    support year 2 90.00 18.90
    support year 3 90.00 18.90
    """
    yearly = yearly_lines(lines, net)
    by_year: dict[int, Decimal] = {}
    for line in yearly:
        for number, amount in enumerate(line.years, start=1):
            by_year[number] = by_year.get(number, Decimal(0)) + amount
    one_off = net - sum((line.net for line in yearly), Decimal(0))
    nets: list[tuple[str, str, int, Decimal]] = []
    if one_off or not by_year:
        events = list(schedule) or [{"event": PaymentEvent.ORDER, "pct": "100"}]
        weights = [Decimal(m["pct"]) for m in events]
        for milestone, amount in zip(events, split(one_off, weights), strict=True):
            nets.append((milestone["event"], milestone["pct"], 0, amount))
    for year in sorted(by_year):
        nets.append(("", "", year, by_year[year]))
    vats = split(vat, [amount for *_ignored, amount in nets])
    return [
        PlanRow(net=amount, vat=share, event=event, pct=pct, year=year)
        for (event, pct, year, amount), share in zip(nets, vats, strict=True)
    ]
