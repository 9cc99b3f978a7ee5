"""Who may see a page: the sales group (sales_required), a buyer's signed link
(buyer_revision, buyer_link) or a visitor's link to their analysis (lead_of_link). Shared by
every page module of quotes/views/."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .. import services

View = Callable[..., HttpResponse]


def sales_required(view: View) -> View:
    """Sales pages: a signed-out visitor who asks for a page is sent to the login (and back);
    a signed-out action (POST) and a signed-in user outside sales get 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated and request.method in ("GET", "HEAD"):
            return redirect_to_login(request.get_full_path())
        if not services.is_sales(request.user):
            return render(request, "quotes/forbidden.html", status=403)
        return view(request, *args, **kwargs)

    return wrapper


def buyer_revision(request: HttpRequest, token: str) -> tuple[Any, HttpResponse | None]:
    """The revision of a buyer's signed link, or the page that says why the link is not
    good (expired: 410; invalid: 404)."""
    try:
        return services.revision_from_token(token=token), None
    except services.BuyerLinkExpired as exc:
        return None, render(
            request, "quotes/buyer_invalid.html", {"reason": str(exc), "expired": True}, status=410
        )
    except services.BuyerLinkInvalid as exc:
        return None, render(request, "quotes/buyer_invalid.html", {"reason": str(exc)}, status=404)


def buyer_link(view: Callable[[HttpRequest, Any, str], HttpResponse]) -> View:
    """Buyer pages: the view gets the revision of the signed link in the URL; a link that is
    not good gets the page that says why (buyer_revision)."""

    @wraps(view)
    def wrapper(request: HttpRequest, token: str) -> HttpResponse:
        revision, problem = buyer_revision(request, token)
        if problem:
            return problem
        return view(request, revision, token)

    return wrapper


def lead_of_link(
    request: HttpRequest, token: str, read: Callable[..., Any] = services.lead_from_token
) -> tuple[Any, HttpResponse | None]:
    """The lead of a visitor's signed link (`read`: the status link's reader, or the
    confirmation link's), or the page that says the link is not good (404)."""
    try:
        return read(token=token), None
    except services.BuyerLinkInvalid as exc:
        return None, render(request, "quotes/buyer_invalid.html", {"reason": str(exc)}, status=404)


def buyer_language(revision: Any) -> str:
    """The language the buyer's pages speak: the one the proposal was sent in."""
    language: str = revision.snapshot.get("language", "en")
    return language
