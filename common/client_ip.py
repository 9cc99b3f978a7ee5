"""The address of the client behind our own reverse proxies.

`REMOTE_ADDR` is the peer of the app server: behind a proxy that is the proxy, the same for
every visitor, so a per-client limit keyed on it limits everyone at once. `X-Forwarded-For`
holds the chain of addresses each proxy saw, but any client can send that header with any
content, so only the entries appended by our own proxies can be believed:

    X-Forwarded-For: <spoofed?>, <spoofed?>, <client as seen by proxy 1>, …, <proxy N-1>
                                              ^ the N-th entry from the right

With `TRUSTED_PROXY_COUNT = N` (the number of proxies in front of the app that append to
the header; 0 when the app is reached directly) the client is the N-th entry from the right.
A header with fewer entries did not pass all our proxies, and a value that is not an IP
address is ignored: then `REMOTE_ADDR` is used.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _address(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def client_ip(request: HttpRequest) -> str | None:
    """The client's IP address, trusting exactly TRUSTED_PROXY_COUNT proxies."""
    remote = _address(request.META.get("REMOTE_ADDR", "") or "")
    trusted = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0))
    if trusted <= 0:
        return remote
    chain = [part for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    chain = [part.strip() for part in chain if part.strip()]
    if len(chain) < trusted:
        return remote
    return _address(chain[-trusted]) or remote
