"""Reads of quotes, scoped to the user's team, with the joins each page needs."""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, Prefetch, Q, QuerySet, Subquery
from django.shortcuts import get_object_or_404

from .models import Customer, Lead, OutboxEmail, ProposalRender, Quote, QuoteLine, QuoteRevision


def _team_filter(user: Any, prefix: str = "") -> Q:
    """Staff see every team's rows; a sales engineer those of their teams."""
    if user.is_staff:
        return Q()
    return Q(**{f"{prefix}team__members": user})


def _latest(field: str) -> Subquery:
    return Subquery(
        QuoteRevision.objects.filter(quote=OuterRef("pk")).order_by("-seq").values(field)[:1]
    )


def quote_list(*, user: Any, search: str = "", status: str = "") -> QuerySet[Quote]:
    quotes = (
        Quote.objects.filter(_team_filter(user))
        .select_related("customer", "owner")
        .annotate(current_status=_latest("status"), current_letter=_latest("letter"))
        .distinct()
        .order_by("-created_at")
    )
    search = search.strip()
    if search:
        quotes = quotes.filter(
            Q(number__icontains=search)
            | Q(customer__company__icontains=search)
            | Q(customer__contact_name__icontains=search)
            | Q(customer__email__icontains=search)
        )
    if status:
        quotes = quotes.filter(current_status=status)
    return quotes


def quote_detail(*, user: Any, public_id: Any) -> Quote:
    """The quote with revisions, lines, renders and emails (404 outside the user's team)."""
    queryset = (
        Quote.objects.filter(_team_filter(user))
        .select_related("customer", "owner", "team")
        .prefetch_related(
            Prefetch(
                "revisions",
                queryset=QuoteRevision.objects.order_by("-seq").prefetch_related(
                    Prefetch("lines", queryset=QuoteLine.objects.order_by("position")),
                    Prefetch("emails", queryset=OutboxEmail.objects.order_by("-created_at")),
                    Prefetch(
                        "renders", queryset=ProposalRender.objects.defer("pdf").order_by("pk")
                    ),
                ),
            )
        )
        .distinct()
    )
    return get_object_or_404(queryset, public_id=public_id)


def revision_for_user(*, user: Any, public_id: Any) -> QuoteRevision:
    queryset = QuoteRevision.objects.filter(_team_filter(user, "quote__")).select_related(
        "quote__customer", "quote__owner", "quote__team"
    )
    return get_object_or_404(queryset.distinct(), public_id=public_id)


def render_for_user(*, user: Any, public_id: Any) -> ProposalRender:
    queryset = ProposalRender.objects.filter(
        _team_filter(user, "revision__quote__")
    ).select_related("revision__quote")
    return get_object_or_404(queryset.distinct(), public_id=public_id)


def customer_list(*, user: Any) -> QuerySet[Customer]:
    return Customer.objects.filter(_team_filter(user)).select_related("team").distinct()


def lead_list() -> QuerySet[Lead]:
    return Lead.objects.prefetch_related(
        Prefetch("emails", queryset=OutboxEmail.objects.order_by("-created_at"))
    ).order_by("-created_at")


def delivery_state(*, revision: QuoteRevision) -> dict[str, Any]:
    """The newest proposal email of a revision and its PDF, for the progress badge."""
    email = (
        OutboxEmail.objects.filter(revision=revision, kind="proposal")
        .select_related("render")
        .defer("render__pdf", "body")
        .order_by("-created_at")
        .first()
    )
    return _state(email)


def lead_delivery_state(*, lead: Lead) -> dict[str, Any]:
    email = (
        OutboxEmail.objects.filter(lead=lead)
        .select_related("render")
        .defer("render__pdf", "body")
        .order_by("-created_at")
        .first()
    )
    return _state(email)


def _state(email: OutboxEmail | None) -> dict[str, Any]:
    if email is None:
        return {"email": None, "render": None, "state": "none", "done": True}
    render = email.render
    if email.status in ("sent", "failed"):
        state = email.status
    elif render is not None and render.status in ("pending", "rendering"):
        state = "rendering"
    elif render is not None and render.status == "failed":
        state = "failed"
    else:
        state = email.status  # queued or sending
    return {
        "email": email,
        "render": render,
        "state": state,
        "done": state in ("sent", "failed"),
        "pdf_ready": render is not None and render.status == "done",
    }
