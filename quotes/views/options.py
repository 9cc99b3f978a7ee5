"""Options of a draft (services.options): add one as a copy of another, rename, remove.
Each option's lines are edited on the quote page with ``?option=B``."""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import services
from ..models import QuoteRevision
from .access import sales_required
from .actions import ShowOption, revision_action


@require_POST
@sales_required
def option_add(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def add(revision: QuoteRevision) -> ShowOption:
        letter = request.POST.get("copy_of", "A")
        options = services.options_of(revision)
        source = next((o for o in options if o.option_letter == letter), None)
        option = services.option_add(
            revision=revision, name=request.POST.get("name", ""), copy_of=source
        )
        return ShowOption(
            option,
            _("Option %(letter)s added as a copy of option %(copy)s: change its lines below.")
            % {"letter": option.option_letter, "copy": source.option_letter if source else "A"},
        )

    return revision_action(request, public_id, add)


@require_POST
@sales_required
def option_rename(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def rename(revision: QuoteRevision) -> None:
        services.option_rename(revision=revision, name=request.POST.get("name", ""))

    return revision_action(request, public_id, rename)


@require_POST
@sales_required
def option_remove(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def remove(revision: QuoteRevision) -> ShowOption:
        main = services.option_remove(revision=revision)
        removed = _("Option %(letter)s removed.") % {"letter": revision.option_letter}
        return ShowOption(main, removed)

    return revision_action(request, public_id, remove)


@require_POST
@sales_required
def option_make_main(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def make_main(revision: QuoteRevision) -> ShowOption:
        main = services.option_make_main(revision=revision)
        made = _(
            "%(name)s is now option A, the main option; the other options show their difference."
        ) % {"name": services.option_label(revision)}
        return ShowOption(main, made)

    return revision_action(request, public_id, make_main)


@require_POST
@sales_required
def option_lease(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    """Lease the option's hardware over the chosen term, or buy it ("" for the term)."""

    def lease(revision: QuoteRevision) -> None:
        raw = request.POST.get("term_months", "")
        try:
            term = int(raw) if raw else None
        except ValueError:
            raise services.QuoteError(_("Choose a lease term.")) from None
        services.option_set_lease(revision=revision, term_months=term)

    return revision_action(request, public_id, lease)
