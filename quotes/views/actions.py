"""How a quote page runs a service and says how it went, shared by the page modules.

A service refuses with services.QuoteError, whose message is written for the user. Pages
that redirect put it in the next page's messages (revision_action, report); pages that
show their form again put it on the form (saved).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from .. import selectors, services
from ..models import QuoteRevision


def detail_url(revision: QuoteRevision) -> str:
    """The quote page showing `revision`'s option."""
    url = reverse("quotes:detail", kwargs={"public_id": revision.quote.public_id})
    return f"{url}?option={revision.option_letter}" if revision.is_alternative else url


@dataclass(frozen=True)
class ShowOption:
    """An action's message and the option the quote page shows after it (the option just
    added; option A once an option was removed or made the main one)."""

    option: QuoteRevision
    message: str


# What an action says when it succeeds: a message, or nothing (None or "").
Outcome = str | ShowOption | None


def report(request: HttpRequest, act: Callable[[], Outcome]) -> Outcome:
    """Run `act` and put how it went in the next page's messages: its message, or the
    service's refusal (then None)."""
    try:
        outcome = act()
    except services.QuoteError as exc:
        messages.error(request, str(exc))
        return None
    message = outcome.message if isinstance(outcome, ShowOption) else outcome
    if message:
        messages.success(request, message)
    return outcome


def revision_action(
    request: HttpRequest,
    public_id: uuid.UUID,
    act: Callable[[QuoteRevision], Outcome],
    *,
    anchor: str = "",
) -> HttpResponse:
    """Run `act` on a revision of the user's teams, then back to the quote page (at
    `anchor`), on the option the action shows or else on the revision's own."""
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    outcome = report(request, lambda: act(revision))
    shown = outcome.option if isinstance(outcome, ShowOption) else revision
    return redirect(f"{detail_url(shown)}{anchor}")


def valid_data(form: forms.Form) -> dict[str, Any]:
    """The form's data; an invalid form is refused with all its errors in one message (for
    pages that redirect, where no form is shown again)."""
    if not form.is_valid():
        message = " ".join(str(error) for errors in form.errors.values() for error in errors)
        raise services.QuoteError(message)
    return form.cleaned_data


def saved(
    form: forms.Form, save: Callable[[dict[str, Any]], object], *, field: str | None = None
) -> bool:
    """Whether `save` (a service call) took the valid form's data. A refusal becomes the
    form's error on `field` (None: above the form), for the page that shows it again."""
    if not form.is_valid():
        return False
    try:
        save(form.cleaned_data)
    except services.QuoteError as exc:
        form.add_error(field, str(exc))
        return False
    return True


def page_reload() -> HttpResponse:
    """Tell htmx to reload the whole page (the draft was sent meanwhile: its panels are
    frozen now and the page must show it so)."""
    response = HttpResponse(status=204)
    response["HX-Refresh"] = "true"
    return response
