"""Cost, margin and the margin approval.

Each line carries a unit cost (from the catalog's cost price by the pricing rule, or typed
for a free line). The margin of a revision is (net revenue − cost) / net revenue over its
non-optional lines whose cost is known, the net revenue being the line amounts less the
quote discount. Below the team's floor (Team.margin_floor_pct) sending needs the approval
of a user in the ``sales-manager`` group who belongs to the quote's team and did not ask
for it (four eyes). An approval is given on the lines as they were
(a fingerprint of prices, quantities, discounts and costs): any later change invalidates
it. Cost and margin are internal: they never reach the snapshot, the PDF or the buyer.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ..models import ApprovalState, EmailKind, QuoteLine, QuoteRevision
from ..money import HUNDRED, line_amount, to_cents
from .drafts import locked_draft
from .errors import QuoteError
from .links import quote_url
from .queue import email_once

SALES_MANAGER_GROUP = "sales-manager"
PCT = Decimal("0.1")


@dataclass(frozen=True)
class LineMargin:
    amount: Decimal  # quantity × unit price less the line discount
    cost: Decimal | None  # quantity × unit cost; None when the cost is unknown
    margin: Decimal | None
    pct: Decimal | None  # margin / amount × 100, one decimal


@dataclass(frozen=True)
class Margin:
    revenue: Decimal  # net of the quote discount, lines with a known cost
    cost: Decimal
    margin: Decimal
    pct: Decimal | None  # None: no line with a known cost and an amount
    floor: Decimal
    unknown_cost_lines: int
    lines: dict[int, LineMargin] = field(default_factory=dict)

    @property
    def below_floor(self) -> bool:
        if self.pct is None:
            return self.revenue <= 0 < self.cost
        return self.pct < self.floor


def _pct(margin: Decimal, revenue: Decimal) -> Decimal | None:
    if revenue <= 0:
        return None
    return (margin * HUNDRED / revenue).quantize(PCT)


def revision_margin(revision: QuoteRevision, lines: list[QuoteLine] | None = None) -> Margin:
    """The margin per line and in total of a revision's current lines (sales view only)."""
    if lines is None:
        lines = list(revision.lines.order_by("position"))
    per_line: dict[int, LineMargin] = {}
    known_amount = cost = Decimal(0)
    unknown = 0
    for line in lines:
        amount = line_amount(line.quantity, line.unit_price, line.discount_pct)
        if line.cost_price is None:
            per_line[line.pk] = LineMargin(amount, None, None, None)
            unknown += 0 if line.optional else 1
            continue
        line_cost = to_cents(line.quantity * line.cost_price)
        per_line[line.pk] = LineMargin(
            amount, line_cost, amount - line_cost, _pct(amount - line_cost, amount)
        )
        if not line.optional:
            known_amount += amount
            cost += line_cost
    revenue = to_cents(known_amount * (HUNDRED - revision.discount_pct) / HUNDRED)
    floor = revision.quote.team.margin_floor_pct
    return Margin(
        revenue, cost, revenue - cost, _pct(revenue - cost, revenue), floor, unknown, per_line
    )


def pricing_fingerprint(revision: QuoteRevision, lines: list[QuoteLine] | None = None) -> str:
    """What an approval is given on: the quote discount and every line's price terms."""
    if lines is None:
        lines = list(revision.lines.order_by("position"))
    parts = [f"discount={revision.discount_pct}"]
    for line in sorted(lines, key=lambda line: line.pk):
        parts.append(
            f"{line.pk}|{line.catalog_key}|{line.quantity}|{line.unit_price}|"
            f"{line.discount_pct}|{line.cost_price}|{line.optional}"
        )
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def is_sales_manager(user: Any) -> bool:
    return bool(
        getattr(user, "is_authenticated", False)
        and user.groups.filter(name=SALES_MANAGER_GROUP).exists()
    )


def approval_refusal(*, revision: QuoteRevision, user: Any) -> str | None:
    """Why `user` may not decide on the draft's requested margin (None: they may).

    Four eyes: a sales manager of the quote's team (staff too must belong to it), or the
    manager or administrator the request was escalated to, and never the one who asked for
    the approval, so no one approves their own price.
    """
    asked = revision.approval_requested_by_id == user.pk
    if user.pk is not None and revision.approval_escalated_to_id == user.pk and not asked:
        return None  # the request was escalated to them (approval_request)
    if not is_sales_manager(user):
        return _("Only a sales manager can approve or reject a margin.")
    if asked:
        return _("You asked for this approval: another sales manager of the team decides.")
    if not revision.quote.team.members.filter(pk=user.pk).exists():
        return _("Only a sales manager of the quote's team can approve or reject its margin.")
    return None


@dataclass(frozen=True)
class ApprovalStatus:
    """Where a draft stands: does sending need an approval, and is there a valid one?"""

    margin: Margin
    needed: bool  # the margin is below the floor
    state: str  # ApprovalState, "stale" when given on other lines than the current ones
    blocks_sending: bool


def approval_status(
    revision: QuoteRevision, lines: list[QuoteLine] | None = None
) -> ApprovalStatus:
    if lines is None:
        lines = list(revision.lines.order_by("position"))
    margin = revision_margin(revision, lines)
    state = revision.approval_state
    if state != ApprovalState.NOT_NEEDED and revision.approval_fingerprint != pricing_fingerprint(
        revision, lines
    ):
        state = "stale"
    needed = margin.below_floor
    return ApprovalStatus(margin, needed, state, needed and state != ApprovalState.APPROVED)


def ensure_sending_allowed(revision: QuoteRevision) -> None:
    """Refuse (QuoteError) to send a draft below the margin floor without a valid approval."""
    status = approval_status(revision)
    if not status.blocks_sending:
        return
    values = {"margin": status.margin.pct, "floor": status.margin.floor}
    if status.state == ApprovalState.REQUESTED:
        raise QuoteError(
            _(
                "The margin (%(margin)s %%) is below the team's floor (%(floor)s %%): a sales "
                "manager has not decided on the approval yet."
            )
            % values
        )
    if status.state == ApprovalState.REJECTED:
        raise QuoteError(
            _("A sales manager rejected this margin: %(reason)s")
            % {"reason": revision.approval_reason}
        )
    raise QuoteError(
        _(
            "The margin (%(margin)s %%) is below the team's floor (%(floor)s %%): ask a sales "
            "manager for approval before sending."
        )
        % values
    )


def needs_escalation(revision: QuoteRevision, actor: Any) -> bool:
    """The quote's team has no sales manager but `actor` who can be asked (active, with an
    email address): only then does a request go past the team."""
    return not (
        get_user_model()
        .objects.filter(
            sales_teams=revision.quote.team, groups__name=SALES_MANAGER_GROUP, is_active=True
        )
        .exclude(email="")
        .exclude(pk=actor.pk)
        .exists()
    )


def escalation_candidates(revision: QuoteRevision, actor: Any) -> Any:
    """Who a request can be escalated to when the team has no one else to decide (its only
    manager asks): the sales managers of other teams and the administrators, active, with
    an email address, never the one who asks."""
    others = (
        get_user_model()
        .objects.filter(groups__name=SALES_MANAGER_GROUP)
        .exclude(sales_teams=revision.quote.team)
    )
    admins = get_user_model().objects.filter(is_superuser=True)
    return (
        (others | admins)
        .filter(is_active=True)
        .exclude(email="")
        .exclude(pk=actor.pk)
        .distinct()
        .order_by("first_name", "last_name", "username")
    )


@transaction.atomic
def approval_request(
    *, revision: QuoteRevision, actor: User, note: str = "", escalate_to: User | None = None
) -> QuoteRevision:
    """Ask a sales manager to approve the draft's margin as it is now: the team's managers,
    or (`escalate_to`) one of the escalation_candidates, who alone is then asked."""
    revision = locked_draft(revision)
    if escalate_to is not None and not needs_escalation(revision, actor):
        raise QuoteError(
            _("Team %(team)s has another sales manager: ask them, not someone outside it.")
            % {"team": revision.quote.team.name}
        )
    if escalate_to is not None and not escalation_candidates(revision, actor).filter(
        pk=escalate_to.pk
    ):
        raise QuoteError(
            _("Escalate to a sales manager of another team or an administrator, not yourself.")
        )
    lines = list(revision.lines.order_by("position"))
    status = approval_status(revision, lines)
    if not status.needed:
        raise QuoteError(_("The margin is not below the team's floor: no approval is needed."))
    if status.state == ApprovalState.APPROVED:
        raise QuoteError(_("This margin is already approved."))
    revision.approval_state = ApprovalState.REQUESTED
    revision.approval_requested_by = actor
    revision.approval_requested_at = timezone.now()
    revision.approval_escalated_to = escalate_to
    revision.approval_request_note = note.strip()[:2000]
    revision.approval_decided_by = None
    revision.approval_decided_at = None
    revision.approval_reason = ""
    revision.approval_margin_pct = status.margin.pct
    revision.approval_fingerprint = pricing_fingerprint(revision, lines)
    revision.save()
    _notify_managers(revision)
    return revision


def team_managers(revision: QuoteRevision) -> Any:
    """The sales managers of the quote's team who can be emailed (active, with an address),
    but not whoever asked: a margin is never approved by the one who asked for it. An
    escalated request is asked of the one it was escalated to only."""
    if revision.approval_escalated_to_id is not None:
        return (
            get_user_model()
            .objects.filter(pk=revision.approval_escalated_to_id, is_active=True)
            .exclude(email="")
        )
    managers = get_user_model().objects.filter(
        sales_teams=revision.quote.team,
        groups__name=SALES_MANAGER_GROUP,
        is_active=True,
    )
    if revision.approval_requested_by_id is not None:  # set whenever approval is asked
        managers = managers.exclude(pk=revision.approval_requested_by_id)
    return managers.exclude(email="").distinct().order_by("pk")


def _notify_managers(revision: QuoteRevision) -> int:
    """Email each manager of the quote's team that a margin waits for their decision."""
    quote = revision.quote
    stamp = revision.approval_requested_at.isoformat() if revision.approval_requested_at else ""
    requester = revision.approval_requested_by
    count = 0
    for manager in team_managers(revision):
        with translation.override(settings.LANGUAGE_CODE):
            subject = _("Approval requested: quote %(number)s (%(company)s)") % {
                "number": quote.number,
                "company": quote.customer.company,
            }
            body = render_to_string(
                "quotes/email/approval_request.txt",
                {
                    "revision": revision,
                    "quote": quote,
                    "requester": requester.get_full_name() or requester.get_username()
                    if requester
                    else "",
                    "url": quote_url(quote=revision.quote),
                },
            )
        key = f"approval-request:{revision.public_id}:{stamp}:{manager.pk}"
        count += email_once(
            key=key,
            kind=EmailKind.APPROVAL,
            to=manager.email,
            subject=subject,
            body=body,
            revision=revision,
        )
    return count


def _notify_requester(revision: QuoteRevision) -> bool:
    """Tell whoever asked what the manager decided."""
    requester = revision.approval_requested_by
    if requester is None or not requester.email:
        return False
    decider = revision.approval_decided_by
    with translation.override(settings.LANGUAGE_CODE):
        subject = _("Margin %(decision)s: quote %(number)s") % {
            "decision": ApprovalState(revision.approval_state).label,
            "number": revision.quote.number,
        }
        body = render_to_string(
            "quotes/email/approval_decision.txt",
            {
                "revision": revision,
                "quote": revision.quote,
                "approved": revision.approval_state == ApprovalState.APPROVED,
                "decider": decider.get_full_name() or decider.get_username() if decider else "",
                "url": quote_url(quote=revision.quote),
            },
        )
    stamp = revision.approval_decided_at.isoformat() if revision.approval_decided_at else ""
    return email_once(
        key=f"approval-decision:{revision.public_id}:{stamp}",
        kind=EmailKind.APPROVAL,
        to=requester.email,
        subject=subject,
        body=body,
        revision=revision,
    )


@transaction.atomic
def approval_decide(
    *, revision: QuoteRevision, actor: User, approve: bool, reason: str = ""
) -> QuoteRevision:
    """A sales manager of the quote's team, other than the requester, or the one the
    request was escalated to, approves or rejects the requested margin (a rejection needs
    a reason)."""
    revision = locked_draft(revision)
    if revision.approval_state != ApprovalState.REQUESTED:
        raise QuoteError(_("No approval has been requested for this revision."))
    refusal = approval_refusal(revision=revision, user=actor)
    if refusal:
        raise QuoteError(refusal)
    if revision.approval_fingerprint != pricing_fingerprint(revision):
        raise QuoteError(
            _("The lines changed after approval was requested; the request must be made again.")
        )
    reason = reason.strip()
    if not approve and not reason:
        raise QuoteError(_("Give a reason for the rejection."))
    revision.approval_state = ApprovalState.APPROVED if approve else ApprovalState.REJECTED
    revision.approval_decided_by = actor
    revision.approval_decided_at = timezone.now()
    revision.approval_reason = reason[:2000]
    revision.save(
        update_fields=[
            "approval_state",
            "approval_decided_by",
            "approval_decided_at",
            "approval_reason",
        ]
    )
    _notify_requester(revision)
    return revision
