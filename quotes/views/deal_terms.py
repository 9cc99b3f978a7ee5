"""The draft's deal terms (quotes/deal_forms.py): end customer, deal registration with its
registered prices, and price protection; a plain POST back to the quote page."""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import selectors, services
from ..deal_forms import DealTermsForm
from ..models import QuoteRevision
from .access import sales_required
from .actions import revision_action, valid_data


def deal_terms_form(revision: QuoteRevision, lines: list[Any]) -> DealTermsForm:
    """The panel's form with what the draft has now."""
    root = selectors.deal_root(revision)
    end = services.end_customer_of(revision.quote)
    initial: dict[str, Any] = {
        "registration": root.deal_registration,
        "registration_expires": root.deal_registration_expires,
        "protection_days": root.price_protection_days,
    }
    if end is not None:
        initial.update(
            end_company=end.company,
            end_country=end.country,
            end_contact=end.contact_name,
            end_email=end.contact_email,
        )
    for line in lines:
        initial[f"registered_{line.pk}"] = line.registered_price
    return DealTermsForm(initial=initial, lines=lines)


@require_POST
@sales_required
def deal_terms(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def save(revision: QuoteRevision) -> str:
        lines = list(revision.lines.order_by("position"))
        form = DealTermsForm(request.POST, lines=lines)
        data = valid_data(form)
        services.revision_set_deal_terms(
            revision=revision,
            terms=services.DealTerms(
                end_company=data["end_company"],
                end_country=data["end_country"],
                end_contact=data["end_contact"],
                end_email=data["end_email"],
                registration=data["registration"],
                registration_expires=data["registration_expires"],
                protection_days=data["protection_days"],
            ),
        )
        for line, _field in form.registered_fields():
            price = data[f"registered_{line.pk}"]
            if price != line.registered_price:
                services.line_set_registered_price(revision=revision, line_id=line.pk, price=price)
        return _("Deal terms saved.")

    return revision_action(request, public_id, save)
