"""The line editor of a draft (inline edits with htmx, a plain POST without JavaScript),
free lines, the quote discount, and the margin approval.

An htmx request gets the draft's lines fragment (``quotes/_draft_lines.html``: lines with
amounts, totals, margin and approval) with any validation error next to its field; a
plain POST is redirected to the quote page, or, when invalid, gets a page with the form
and its errors (status 400). Rules live in quotes/services (lines, approvals).
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from common.http import AuthenticatedHttpRequest

from .. import selectors, services
from ..line_forms import (
    ApprovalDecisionForm,
    ApprovalRequestForm,
    FreeLineForm,
    LineDeliveryForm,
    LineEditForm,
    QuoteDiscountForm,
)
from ..models import QuoteLine, QuoteRevision
from .access import sales_required
from .actions import detail_url, page_reload, revision_action, saved, valid_data


def line_form(line: QuoteLine, data: Any = None) -> LineEditForm:
    initial = {
        "description": line.description,
        "quantity": line.quantity,
        "unit": line.unit,
        "unit_price": line.unit_price,
        "discount_pct": line.discount_pct,
        "cost_price": line.cost_price,
        "quantity_reason": line.quantity_reason,
    }
    return LineEditForm(
        data,
        initial=initial,
        prefix=f"line-{line.pk}",
        free=not line.catalog_key,
        child=line.parent_id is not None,
    )


def draft_context(
    revision: QuoteRevision,
    lines: list[QuoteLine] | None = None,
    *,
    bound: dict[int, LineEditForm] | None = None,
    discount_form: QuoteDiscountForm | None = None,
) -> dict[str, Any]:
    """What the draft's lines fragment needs: per line its form, amount and margin."""
    if lines is None:
        lines = list(revision.lines.order_by("position").select_related("parent"))
    lines = services.bom_order(lines)
    bound = bound or {}
    status = services.approval_status(revision, lines)
    # The analysis of the deal (cached by the lines): does it argue against the quote?
    deal = services.deal_analysis(revision=revision, lines=lines)
    past_sale_life = services.past_sale_life_lines(lines)
    price_notes = services.price_notes(revision, lines)
    rows = [
        {
            "line": line,
            "form": bound.get(line.pk) or line_form(line),
            "margin": status.margin.lines.get(line.pk),
            "past_sale_life": line.pk in past_sale_life,
            "price_note": price_notes.get(line.pk, ""),
        }
        for line in lines
    ]
    return {
        "current": revision,
        "lines": lines,
        "line_rows": rows,
        "totals": services.revision_totals(revision, lines),
        "approval": status,
        "argues_against": services.argues_against_itself(deal),
        "presentation_blocks": services.presentation_needed(revision, deal),
        "discount_form": discount_form
        or QuoteDiscountForm(initial={"discount_pct": revision.discount_pct}),
        "free_line_form": FreeLineForm(initial={"quantity": 1, "unit": "pcs", "kind": "other"}),
        "approval_request_form": ApprovalRequestForm(),
        "approval_decision_form": ApprovalDecisionForm(),
        "line_edit_key": uuid.uuid4(),
    }


def _fragment(request: HttpRequest, revision: QuoteRevision, **kwargs: Any) -> HttpResponse:
    revision = QuoteRevision.objects.select_related("quote__team", "quote__customer").get(
        pk=revision.pk
    )
    context = draft_context(revision, **kwargs)
    context["quote"] = revision.quote
    # The send form outside the fragment follows the approval (out of band).
    context.update(oob=True, action_key=uuid.uuid4())
    response = render(request, "quotes/_draft_lines.html", context)
    # Other parts of the page that follow the lines (the deal analysis, the preview) can
    # reload with hx-trigger="quote-lines-changed from:body".
    response["HX-Trigger"] = "quote-lines-changed"
    return response


def _back(revision: QuoteRevision) -> HttpResponse:
    return redirect(f"{detail_url(revision)}#draft-lines")


@require_POST
@sales_required
def line_edit(
    request: AuthenticatedHttpRequest, public_id: uuid.UUID, line_id: int
) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    line = QuoteLine.objects.filter(revision=revision, pk=line_id).first()
    if line is None:  # removed meanwhile (or never there): show the page as it is now
        messages.error(request, _("That line is not on this revision."))
        return page_reload() if request.htmx else _back(revision)
    form = line_form(line, request.POST)

    def save(data: dict[str, Any]) -> None:
        services.revision_update_line(
            revision=revision,
            line_id=line.pk,
            quantity=data["quantity"],
            unit_price=data["unit_price"],
            discount_pct=data["discount_pct"] or Decimal(0),
            unit=data["unit"],
            cost_price=data.get("cost_price"),
            description=data.get("description"),
            quantity_reason=data.get("quantity_reason") or "",
        )

    saved(form, save)
    if request.htmx:
        if not revision.is_draft:  # sent meanwhile: the page must reload to show it
            return page_reload()
        return _fragment(request, revision, bound={line.pk: form} if form.errors else None)
    if form.errors:
        return render(
            request,
            "quotes/line_edit.html",
            {"form": form, "line": line, "current": revision, "quote": revision.quote},
            status=400,
        )
    messages.success(request, _("Line %(position)s saved.") % {"position": line.position})
    return _back(revision)


@require_http_methods(["GET", "POST"])
@sales_required
def line_delivery(request: HttpRequest, public_id: uuid.UUID, line_id: int) -> HttpResponse:
    """A server line's delivery: set by hand with a reason, or given back the catalog's."""
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    line = QuoteLine.objects.filter(revision=revision, pk=line_id).first()
    if line is None:
        messages.error(request, _("That line is not on this revision."))
        return _back(revision)
    if request.method == "GET":
        initial = {"lead_time_weeks": line.lead_time_weeks, "reason": line.delivery_reason}
        form = LineDeliveryForm(initial=initial)
    else:
        form = LineDeliveryForm(request.POST)

        def save(data: dict[str, Any]) -> None:
            services.revision_set_line_delivery(
                revision=revision,
                line_id=line.pk,
                lead_time_weeks=data["lead_time_weeks"],
                reason=data["reason"],
            )

        if saved(form, save):
            messages.success(request, _("Line %(position)s saved.") % {"position": line.position})
            return _back(revision)
    context = {"form": form, "line": line, "current": revision, "quote": revision.quote}
    return render(
        request,
        "quotes/line_delivery.html",
        context,
        status=400 if form.is_bound and form.errors else 200,
    )


@require_POST
@sales_required
def free_line_add(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    form = FreeLineForm(request.POST)

    def add(data: dict[str, Any]) -> None:
        services.revision_add_free_line(
            revision=revision,
            description=data["description"],
            kind=data["kind"],
            quantity=data["quantity"],
            unit=data["unit"],
            unit_price=data["unit_price"],
            cost_price=data["cost_price"],
            discount_pct=data["discount_pct"] or Decimal(0),
            optional=data["optional"],
        )

    if not saved(form, add):
        return render(
            request,
            "quotes/free_line.html",
            {"form": form, "current": revision, "quote": revision.quote},
            status=400,
        )
    messages.success(request, _("Line added."))
    return _back(revision)


@require_POST
@sales_required
def discount_set(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    form = QuoteDiscountForm(request.POST)

    def save(data: dict[str, Any]) -> None:
        services.revision_set_discount(revision=revision, discount_pct=data["discount_pct"])

    saved(form, save, field="discount_pct")
    if request.htmx:
        if not revision.is_draft:
            return page_reload()
        return _fragment(request, revision, discount_form=form if form.errors else None)
    if form.errors:
        for error in form.errors.get("discount_pct", []) + form.non_field_errors():
            messages.error(request, f"{_('Quote discount %')}: {error}")
    else:
        messages.success(request, _("Quote discount saved."))
    return _back(revision)


def _escalation_target(revision: QuoteRevision, user: Any, data: dict[str, Any]) -> Any:
    """The person chosen to decide past the team (None: ask the team's managers)."""
    if not data.get("escalate_to"):
        return None
    chosen = services.escalation_candidates(revision, user).filter(pk=data["escalate_to"]).first()
    if chosen is None:
        raise services.QuoteError(
            _("Escalate to a sales manager of another team or an administrator, not yourself.")
        )
    return chosen


@require_POST
@sales_required
def approval_request(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    form = ApprovalRequestForm(request.POST)
    try:
        data = valid_data(form)
        revision = services.approval_request(
            revision=revision,
            actor=request.user,
            note=data["note"],
            escalate_to=_escalation_target(revision, request.user, data),
        )
    except services.QuoteError as exc:
        messages.error(request, str(exc))
    else:
        team = revision.quote.team.name
        notified = services.team_managers(revision).count()
        escalated = revision.approval_escalated_to
        if escalated is not None:
            messages.success(
                request,
                _("Approval requested from %(name)s, who was emailed.")
                % {"name": escalated.get_full_name() or escalated.get_username()},
            )
        elif notified:
            messages.success(
                request,
                ngettext(
                    "Approval requested: %(n)s sales manager of team %(team)s was emailed.",
                    "Approval requested: %(n)s sales managers of team %(team)s were emailed.",
                    notified,
                )
                % {"n": notified, "team": team},
            )
        else:
            messages.warning(
                request,
                _(
                    "Approval requested, but team %(team)s has no other sales manager with "
                    "an email address: escalate it to a manager of another team or an "
                    "administrator below."
                )
                % {"team": team},
            )
    return _back(revision)


@require_POST
@sales_required
def approval_decide(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    escalated_to_them = revision.approval_escalated_to_id == request.user.pk
    if not services.is_sales_manager(request.user) and not escalated_to_them:
        return render(request, "quotes/forbidden.html", status=403)
    form = ApprovalDecisionForm(request.POST)
    try:
        if not form.is_valid():
            raise services.QuoteError(_("Choose approve or reject."))
        approve = form.cleaned_data["decision"] == "approve"
        services.approval_decide(
            revision=revision,
            actor=request.user,
            approve=approve,
            reason=form.cleaned_data["reason"],
        )
    except services.QuoteError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Margin approved.") if approve else _("Margin rejected."))
    return _back(revision)


@require_POST
@sales_required
def presentation_set(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    """How the proposal presents an analysis that recommends renting."""

    def present(revision: QuoteRevision) -> str:
        services.revision_set_presentation(
            revision=revision,
            presentation=request.POST.get("presentation", ""),
            reason=request.POST.get("reason", ""),
        )
        return _("Saved: how the proposal presents the analysis.")

    return revision_action(request, public_id, present, anchor="#draft-lines")
