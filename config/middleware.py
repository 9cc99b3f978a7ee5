"""Request hardening that applies to every URL, in one place.

`DatabaseBusyMiddleware` answers 503 with Retry-After when SQLite's write lock stayed
taken past its busy timeout; `RequestTimeBudgetMiddleware` stops a request that ran past
its time budget with a 503 (both below).

`RejectControlCharactersMiddleware` answers 400 to any request whose path, query string
keys or values, form field names or values, or uploaded file names contain a NUL or another
control character, before a view (and so the database) sees them. PostgreSQL cannot store
NUL in a text column and raises `DataError` (a 500) when one reaches a query; the other
control characters have no meaning in any of our inputs. Form fields may contain tab and
line breaks (text areas); paths and query strings may not contain any control character.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils import translation
from django.utils.translation import gettext as _

from api.problems import problem
from common.time_budget import OverTimeBudget, time_budget
from config.outage import DATABASE_DOWN, database_unavailable

logger = logging.getLogger(__name__)

# C0 controls, DEL and C1 controls.
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# The same, but tab, line feed and carriage return are allowed (text areas).
_CONTROL_EXCEPT_WHITESPACE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Unpaired surrogates cannot be encoded as UTF-8 and make PostgreSQL drivers raise.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def has_control_characters(value: str, *, allow_whitespace: bool = False) -> bool:
    """True if `value` holds a character no input of ours may contain.

    >>> has_control_characters("aws\\x00")
    True
    >>> has_control_characters("line one\\nline two", allow_whitespace=True)
    False
    >>> has_control_characters("tab\\there")
    True
    """
    pattern = _CONTROL_EXCEPT_WHITESPACE if allow_whitespace else _ANY_CONTROL
    return bool(pattern.search(value) or _SURROGATE.search(value))


def _bad_pairs(pairs: Iterable[tuple[str, list[str]]], *, allow_whitespace: bool) -> str | None:
    for key, values in pairs:
        if has_control_characters(key):
            return key
        for value in values:
            if has_control_characters(value, allow_whitespace=allow_whitespace):
                return key
    return None


def _printable(name: str) -> str:
    return name.encode("unicode_escape").decode("ascii")[:60]


def _reject(request: HttpRequest, where: str) -> HttpResponse:
    message = _("The request was refused: %(where)s contains a control character.") % {
        "where": where
    }
    if request.path.startswith("/api/"):
        # The API answers every error as RFC 9457 problem details.
        return problem(400, message)
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


class RejectControlCharactersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # This runs before LocaleMiddleware, so the visitor's language (cookie or
        # Accept-Language) is not active yet: a refusal is worded in it here.
        with translation.override(translation.get_language_from_request(request)):
            problem = self.problem(request)
            if problem:
                return _reject(request, problem)
        return self.get_response(request)

    @staticmethod
    def problem(request: HttpRequest) -> str | None:
        if has_control_characters(request.path):
            return _("the address")
        key = _bad_pairs(request.GET.lists(), allow_whitespace=False)
        if key is not None:
            return _("the query parameter “%(name)s”") % {"name": _printable(key)}
        if request.method == "POST":
            key = _bad_pairs(request.POST.lists(), allow_whitespace=True)
            if key is not None:
                return _("the form field “%(name)s”") % {"name": _printable(key)}
            for field, uploads in request.FILES.lists():
                if has_control_characters(field) or any(
                    has_control_characters(upload.name or "") for upload in uploads
                ):
                    return _("the uploaded file name")
        return None


class PermissionsPolicyMiddleware:
    """Adds `Permissions-Policy` (settings.PERMISSIONS_POLICY): features no page uses are off."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = getattr(settings, "PERMISSIONS_POLICY", "")
        if policy and "Permissions-Policy" not in response:
            response["Permissions-Policy"] = policy
        return response


def _unavailable(request: HttpRequest, message: str, retry_after: int) -> HttpResponse:
    """503 with Retry-After: problem details under /api/, plain text elsewhere."""
    if request.path.startswith("/api/"):
        response = problem(503, message)
    else:
        response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(retry_after)
    return response


class DatabaseBusyMiddleware:
    """A request that waited the whole busy timeout for SQLite's write lock (local mode,
    SQLITE_BUSY_TIMEOUT_SECONDS) answers 503 with Retry-After instead of a 500: the
    database is busy, not broken, and the same request a few seconds later will go
    through. A database that cannot be reached at all answers 503 too (config/outage.py)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DATABASE_DOWN):
            return None
        if "database is locked" not in str(exception):
            # PostgreSQL unreachable (or the connection lost): config/outage.py.
            return database_unavailable(request)
        logger.warning("database busy: %s %s answered 503", request.method, request.path)
        return _unavailable(
            request, _("The database is busy; please try again in a few seconds."), 5
        )


class RequestTimeBudgetMiddleware:
    """A request gets REQUEST_TIME_BUDGET_SECONDS (default 25, below gunicorn's 30 s
    timeout); past it, it stops and answers 503 with Retry-After, instead of its worker
    being killed (which answers nothing and restarts the worker).

    Every input is bounded so that no request should come near the budget; this is the
    net under those bounds. The budget (common/time_budget.py) raises a `BaseException`,
    which no view's or middleware's `except Exception` can catch and Django does not turn
    into a 500: it comes back up to here, the outermost middleware. It applies where
    requests run on the main thread: gunicorn's sync workers (the Procfile's) and the test
    client. Threaded servers (runserver, gthread workers) serve without a budget.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        budget = float(getattr(settings, "REQUEST_TIME_BUDGET_SECONDS", 0))
        try:
            with time_budget(budget):
                return self.get_response(request)
        except OverTimeBudget:
            return self._answer(request, budget)

    @staticmethod
    def _answer(request: HttpRequest, budget: float) -> HttpResponse:
        logger.error("request over its %.0f s budget: %s %s", budget, request.method, request.path)
        # Stopped perhaps in the middle of a query: the next request gets fresh connections.
        connections.close_all()
        return _unavailable(
            request, _("The request took too long and was stopped; please try again."), 30
        )
