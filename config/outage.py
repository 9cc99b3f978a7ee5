"""A database outage answers 503 with Retry-After on every page, not a 500.

While PostgreSQL is down (restarting, failing over, the network to it lost) every query
raises `OperationalError` or `InterfaceError`. The view path is answered by
`DatabaseBusyMiddleware.process_exception`; an error raised in a middleware (the session,
the signed-in user) reaches Django's 500 handler, which is `server_error` below. Both give
the same answer: the page `503.html`, rendered without a request so that no context
processor (the company profile in the layout) touches the database, in the reader's
language (cookie or Accept-Language, neither needs the database).

Recovery needs no restart: the answer closes the broken connections at once (Django would
at the end of the request too, `close_if_unusable_or_obsolete`, but not under every
server or test client), so the first request after the database's return opens a fresh one.
"""

from __future__ import annotations

import contextlib
import logging
import sys

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import defaults

from api.problems import problem

logger = logging.getLogger(__name__)

# Seconds a reader is asked to wait: a restart or a failover takes a few.
RETRY_AFTER_SECONDS = 5

DATABASE_DOWN = (OperationalError, InterfaceError)


def database_unavailable(request: HttpRequest) -> HttpResponse:
    """503 + Retry-After: problem details under /api/, a database-free page elsewhere."""
    logger.warning("database unavailable: %s %s answered 503", request.method, request.path)
    with contextlib.suppress(*DATABASE_DOWN):  # closing a lost connection may raise too
        connections.close_all()
    with translation.override(translation.get_language_from_request(request)):
        message = _("The service is briefly unavailable; please try again in a few seconds.")
        if request.path.startswith("/api/"):
            response = problem(503, message)
        else:
            page = render_to_string(
                "503.html",
                {"message": message, "retry_after": RETRY_AFTER_SECONDS},
            )
            response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler (config/urls.py): a database outage raised outside a view
    (in a middleware) is a 503 too; anything else is the usual 500 page."""
    if isinstance(sys.exc_info()[1], DATABASE_DOWN):
        return database_unavailable(request)
    return defaults.server_error(request)
