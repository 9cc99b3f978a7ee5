"""The draft's payment terms (quotes/payment_forms.py): a panel of the quote page, saved
with htmx (the panel comes back, with any error next to what caused it) or a plain POST
(back to the quote page; an invalid form is shown again with its errors, status 400)."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.http import AuthenticatedHttpRequest

from .. import selectors, services
from ..billing import LineBilling, PaymentEvent
from ..models import LineKind, QuoteRevision
from ..payment_forms import PaymentTermsForm
from .access import sales_required
from .actions import page_reload, saved


def payment_context(
    revision: QuoteRevision, form: PaymentTermsForm | None = None
) -> dict[str, Any]:
    """What the payment panel needs: the form, the team's default and the shipping lines."""
    lines = list(revision.lines.order_by("position"))
    support = [line for line in lines if line.kind == LineKind.SUPPORT]
    team_default = revision.quote.team.payment_schedule
    return {
        "current": revision,
        "payment_form": form
        or PaymentTermsForm(
            support_lines=support, schedule=revision.payment_schedule or team_default
        ),
        "team_schedule": [
            {"pct": m["pct"], "label": PaymentEvent(m["event"]).label} for m in team_default
        ],
        "shipping_lines": [line for line in lines if line.kind == LineKind.SHIPPING],
        "yearly": LineBilling.YEARLY,
    }


@require_POST
@sales_required
def payment_terms(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    support = list(revision.lines.filter(kind=LineKind.SUPPORT).order_by("position"))
    form = PaymentTermsForm(request.POST, support_lines=support)

    def save(_data: dict[str, Any]) -> None:
        services.revision_set_payment_terms(
            revision=revision, schedule=form.milestones(), support_billing=form.billing()
        )

    saved(form, save)
    if request.htmx:
        if not revision.is_draft:  # sent meanwhile: reload to show the frozen revision
            return page_reload()
        context = payment_context(revision, form if form.errors else None)
        context["saved"] = not form.errors
        return render(request, "quotes/_payment_terms.html", context)
    if form.errors:
        context = {**payment_context(revision, form), "quote": revision.quote}
        return render(request, "quotes/payment_terms.html", context, status=400)
    messages.success(request, _("Payment terms saved."))
    url = reverse("quotes:detail", kwargs={"public_id": revision.quote.public_id})
    return redirect(f"{url}#payment-terms")
