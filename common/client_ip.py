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

Limits also count per network (`client_network`): an IPv4 /24 or an IPv6 /64. One party
easily holds many addresses of one network (a /64 is what a single home or server gets),
so a limit per address alone is a limit per attacker only for the patient ones.
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


def client_network(ip: str) -> str:
    """The network an address belongs to for rate limits: its IPv4 /24 or IPv6 /64
    (an IPv4-mapped IPv6 address counts as the IPv4 one).

    >>> client_network("198.51.100.7"), client_network("2001:db8:1:2:aa::1")
    ('198.51.100.0/24', '2001:db8:1:2::/64')
    >>> client_network("::ffff:203.0.113.9")
    '203.0.113.0/24'
    """
    address = ipaddress.ip_address(ip)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = 24 if address.version == 4 else 64
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))
