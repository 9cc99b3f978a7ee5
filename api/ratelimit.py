"""Rate limits for /api/: per user (all of their tokens together), or per client address
without a token (in the Django cache).

The client address is the one our trusted proxies saw (common/client_ip.py), not the
proxy's own: keyed on REMOTE_ADDR, one client's requests spent every visitor's budget. A
user who mints more tokens gets no more requests.

A fixed window per client (common/throttle.py: `hit`). Past the limit the answer is 429
with ``Retry-After`` (seconds to the end of the window). The cache is Redis in production
and in the test suite, so every web process shares the counters; while Redis is away each
process counts on its own (weaker, never open: docs/security.md).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from common.client_ip import client_ip
from common.throttle import hit

from .problems import problem
from .services import bearer_token

API_PREFIX = "/api/v1/"


def client_key(request: HttpRequest) -> tuple[str, int]:
    """(cache key part, limit per window): the token's user's when it is a live token, else
    the client address's (made-up tokens do not get counters of their own)."""
    token = bearer_token(request)
    vars(request)["api_token"] = token  # spares TokenAuth a query
    if token is not None:
        return f"u:{token.user_id}", settings.API_RATE_LIMIT_TOKEN
    return "a:" + (client_ip(request) or "unknown"), settings.API_RATE_LIMIT_ANONYMOUS


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX) and settings.API_RATE_LIMIT_WINDOW > 0:
            key, limit = client_key(request)
            retry_after = hit(f"api:{key}", limit, settings.API_RATE_LIMIT_WINDOW)
            if retry_after is not None:
                return problem(
                    429,
                    f"More than {limit} requests in {settings.API_RATE_LIMIT_WINDOW} s; "
                    f"try again in {retry_after} s.",
                    headers={"Retry-After": str(retry_after)},
                )
        return self.get_response(request)
