"""Options of a draft (services.options): add one as a copy of another, rename, remove.
Each option's lines are edited on the quote page with ``?option=B``."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import selectors, services
from ..models import QuoteRevision
from .access import sales_required


def detail_url(revision: QuoteRevision) -> str:
    """The quote page showing `revision`'s option."""
    url = reverse("quotes:detail", kwargs={"public_id": revision.quote.public_id})
    return f"{url}?option={revision.option_letter}" if revision.is_alternative else url


@require_POST
@sales_required
def option_add(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    letter = request.POST.get("copy_of", "A")
    source = next((o for o in services.options_of(revision) if o.option_letter == letter), None)
    try:
        option = services.option_add(
            revision=revision, name=request.POST.get("name", ""), copy_of=source
        )
    except services.QuoteError as exc:
        messages.error(request, str(exc))
        return redirect(detail_url(revision))
    messages.success(
        request,
        _("Option %(letter)s added as a copy of option %(copy)s: change its lines below.")
        % {"letter": option.option_letter, "copy": source.option_letter if source else "A"},
    )
    return redirect(detail_url(option))


@require_POST
@sales_required
def option_rename(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    try:
        services.option_rename(revision=revision, name=request.POST.get("name", ""))
    except services.QuoteError as exc:
        messages.error(request, str(exc))
    return redirect(detail_url(revision))


@require_POST
@sales_required
def option_remove(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    try:
        main = services.option_remove(revision=revision)
    except services.QuoteError as exc:
        messages.error(request, str(exc))
        return redirect(detail_url(revision))
    messages.success(request, _("Option %(letter)s removed.") % {"letter": revision.option_letter})
    return redirect(detail_url(main))


@require_POST
@sales_required
def option_make_main(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    try:
        main = services.option_make_main(revision=revision)
    except services.QuoteError as exc:
        messages.error(request, str(exc))
        return redirect(detail_url(revision))
    messages.success(
        request,
        _("%(name)s is now option A, the main option; the other options show their difference.")
        % {"name": services.option_label(revision)},
    )
    return redirect(detail_url(main))


@require_POST
@sales_required
def option_lease(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    """Lease the option's hardware over the chosen term, or buy it ("" for the term)."""
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    raw = request.POST.get("term_months", "")
    try:
        term = int(raw) if raw else None
        services.option_set_lease(revision=revision, term_months=term)
    except ValueError:
        messages.error(request, _("Choose a lease term."))
    except services.QuoteError as exc:
        messages.error(request, str(exc))
    return redirect(detail_url(revision))
