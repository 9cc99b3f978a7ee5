"""Template helpers for the quote pages and the calculator's quote actions."""

import uuid
from decimal import Decimal, InvalidOperation
from typing import Any

from django import template
from django.utils.translation import gettext as _

from common.dates import iso_date
from common.formatting import grouped
from quotes.services import approval_refusal, escalation_candidates, needs_escalation
from quotes.services import is_sales as _is_sales
from quotes.services import is_sales_manager as _is_sales_manager

register = template.Library()


@register.filter
def is_sales(user: Any) -> bool:
    return _is_sales(user)


@register.simple_tag
def new_uuid() -> str:
    """A fresh idempotency key for a form that performs one action."""
    return str(uuid.uuid4())


@register.filter
def quantity(value: Any) -> str:
    """A quantity without decimals when whole, in the active language's notation.

    19.00 → "19"; 2.50 → "2.5" (English) or "2,5" (Dutch); 1250 → "1,250" / "1.250".
    Accepts Decimals, numbers and their string form (snapshots store strings).
    """
    if value is None or value == "":
        return ""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return str(value)
    if not number.is_finite():
        return str(value)
    if number == number.to_integral_value():
        return grouped(number, 0)
    exponent = number.normalize().as_tuple().exponent
    assert isinstance(exponent, int)  # a finite number's (checked above)
    decimals = max(0, -exponent)
    return grouped(number, decimals)


@register.filter
def as_count(value: Any) -> int:
    """A stored whole quantity ("4", a snapshot's string) as the count of a plural."""
    try:
        return int(Decimal(str(value)))
    except (InvalidOperation, ValueError):
        return 0


@register.filter
def is_sales_manager(user: Any) -> bool:
    return _is_sales_manager(user)


@register.filter
def deal_difference(difference: dict[str, Any]) -> str:
    """One way the quoted deal differs from the analysis it was started from
    (services.deal.deal_differences), in the active language."""
    code, p = difference.get("code"), difference.get("params") or {}
    if code == "servers":
        return _(
            "The analysis sized %(sized)s servers; this proposal quotes %(quoted)s, and its "
            "analysis is of the quoted number."
        ) % {"sized": quantity(p.get("sized")), "quoted": quantity(p.get("quoted"))}
    if code == "server_model":
        return _(
            "The analysis was made for another server model than the one quoted; this "
            "analysis is of the quoted model."
        )
    if code == "spares":
        return _(
            "The scenario included spares (%(pct)s %% of the servers); they are not quoted, "
            "so this analysis leaves them out."
        ) % {"pct": quantity(Decimal(str(p.get("pct") or 0)) * 100)}
    if code == "one_off":
        return _("The scenario's one-off amounts are not quoted, so this analysis leaves them out.")
    return str(code or "")


@register.filter
def can_decide_approval(user: Any, revision: Any) -> bool:
    """May `user` approve or reject the revision's requested margin (four eyes)?"""
    return approval_refusal(revision=revision, user=user) is None


@register.filter
def escalation_choices(user: Any, revision: Any) -> list[Any]:
    """Who `user` may send the approval request to past the team: none while the team has
    another sales manager to ask (services.needs_escalation)."""
    if not needs_escalation(revision, user):
        return []
    return list(escalation_candidates(revision, user))


@register.filter
def parse_iso_date(value: Any) -> Any:
    """A snapshot's YYYY-MM-DD text as a date (for the date filter); other values as they are."""
    return iso_date(value) or value


@register.filter
def with_delivery(lines: Any) -> list[Any]:
    """The snapshot lines that carry a delivery (server lines)."""
    return [line for line in lines or [] if isinstance(line, dict) and line.get("delivery")]
