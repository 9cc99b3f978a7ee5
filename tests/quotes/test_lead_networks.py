"""The lead form holds against many addresses and many networks (issue 44, item 1).

Before: 41 addresses (or one IPv6 /64) spent the form's global budget of 200 an hour in
22 s, and every visitor was then refused for the rest of the hour. Now the limits count per
address and per network (IPv4 /24, IPv6 /64); past its network's share a request needs a
solved proof of work (common/challenge.py); and past the global budget a network that had
no request through this hour still gets one, so a burst slows the form down but never
closes it for a new visitor.
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from common import challenge
from quotes import services
from quotes.forms import lead_form_stamp
from quotes.models import Lead

pytestmark = pytest.mark.django_db
URL = "/quotes/analysis-pdf/"
PROXY = "10.0.0.2"
BUSY = "We are sending too many analyses just now"
CHECK = "Your browser is finishing a quick check"


def solve(issued: str) -> str:
    """What static/js/site.js does in the visitor's browser: the smallest counter whose
    SHA-256 with the challenge begins with the challenge's bits of zeros."""
    bits = challenge.bits_of(issued)
    assert bits is not None
    for n in itertools.count():
        if challenge.zero_bits(challenge.proof_digest(issued, str(n))) >= bits:
            return str(n)
    raise AssertionError("unreachable")


@pytest.fixture
def limits(settings: Settings, seed_catalog: object) -> Settings:
    settings.TRUSTED_PROXY_COUNT = 1
    settings.QUOTES_LEAD_MIN_FILL_SECONDS = 0
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR = 5
    settings.QUOTES_LEAD_NETWORK_SHARE_PER_HOUR = 3
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR_PER_NETWORK = 8
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL = 100
    settings.PUBLIC_FORM_CHALLENGE_BITS = 8  # 256 hashes on average: cheap to solve here
    return settings


def post(client: Client, ip: str, *, solved: bool = False, htmx: bool = True) -> Any:
    """Send the form as the calculator page does (htmx), from `ip` behind the proxy."""
    issued = challenge.issue(8)
    data = {
        "name": "Kim",
        "company": "Startup",
        "email": f"kim-{uuid.uuid4().hex[:8]}@startup.example",
        "consent": "on",
        "query": "preset=finetune-8b",
        "idempotency_key": str(uuid.uuid4()),
        "started": lead_form_stamp(),
        "challenge": issued if solved else "",
        "proof": solve(issued) if solved else "",
    }
    headers: dict[str, Any] = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": ip}
    if htmx:
        headers["HTTP_HX_REQUEST"] = "true"
    return client.post(URL, data, **headers)


def test_a_burst_from_50_networks_leaves_the_form_open_to_a_new_visitor(
    client: Client, limits: Settings
) -> None:
    """50 networks, no proofs (a bot that runs no script): the first 3 spend the global
    budget of 3; each of the 47 other networks is then asked for a proof it does not
    bring, so it spends nothing. A visitor of a 51st network gets in."""
    limits.QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL = 3  # small: each lead admitted costs ~0.1 s
    codes = [post(client, f"203.{n}.113.1").status_code for n in range(50)]
    assert codes == [200] * 3 + [429] * 47
    assert Lead.objects.count() == 3
    # A new visitor's browser solved the page's challenge: through.
    assert post(client, "198.51.100.7", solved=True).status_code == 200
    # The networks that had their requests this hour wait, proof or not.
    again = post(client, "203.0.113.9", solved=True)
    assert again.status_code == 429 and BUSY in again.content.decode()
    # A bot that does solve proofs: one request per new network, then refused.
    codes = [
        post(client, f"192.0.{n}.{k}", solved=True).status_code for n in range(2) for k in (1, 2)
    ]
    assert codes == [200, 429] * 2
    # And still a fresh visitor gets through.
    assert post(client, "198.18.0.1", solved=True).status_code == 200
    assert Lead.objects.count() == 3 + 1 + 2 + 1


def test_past_its_share_a_network_needs_a_proof_up_to_its_limit(
    client: Client, limits: Settings
) -> None:
    """Share 3, limit 8 an hour per /24; each address 5 an hour."""
    codes = [post(client, f"198.51.100.{k}").status_code for k in range(1, 5)]
    assert codes == [200, 200, 200, 429]  # the 4th of the network needs a proof
    refused = post(client, "198.51.100.9")
    assert CHECK in refused.content.decode()
    # The answer carries a fresh challenge for the form, for the page to solve.
    assert 'id="lead-challenge"' in refused.content.decode()
    assert 'hx-swap-oob="true"' in refused.content.decode()
    codes = [post(client, f"198.51.100.{k}", solved=True).status_code for k in range(10, 13)]
    assert codes == [200, 200, 200]  # the 6th to 8th of the network, with proofs
    over = post(client, "198.51.100.99", solved=True, htmx=False)  # the 9th: over the limit
    assert over.status_code == 429
    assert "Too many requests from your network" in over.content.decode()
    assert Lead.objects.count() == 6


def test_one_ipv6_64_is_one_network(client: Client, limits: Settings) -> None:
    codes = [post(client, f"2001:db8:7:1::{k:x}").status_code for k in range(1, 5)]
    assert codes == [200, 200, 200, 429]
    # Another /64 of the same /48 is another network.
    assert post(client, "2001:db8:7:2::1").status_code == 200


def test_a_proof_is_taken_once(limits: Settings) -> None:
    """Past the share, one solved challenge lets one request through, not two."""
    for k in range(1, 4):
        assert services.lead_rate_limit(email=f"a{k}@x.example", ip=f"198.51.100.{k}") is None
    issued = challenge.issue(8)
    proof = solve(issued)
    assert (
        services.lead_rate_limit(
            email="b@x.example", ip="198.51.100.20", challenge=issued, proof=proof
        )
        is None
    )
    replayed = services.lead_rate_limit(
        email="c@x.example", ip="198.51.100.21", challenge=issued, proof=proof
    )
    assert replayed is not None and replayed.challenge
    wrong = services.lead_rate_limit(
        email="d@x.example", ip="198.51.100.22", challenge=challenge.issue(8), proof="1"
    )
    forged = services.lead_rate_limit(
        email="e@x.example", ip="198.51.100.23", challenge="8.abc:forged:sig", proof="0"
    )
    # A proof of 1 meets 8 zero bits by chance once in 256 challenges: not here, as the
    # refusal shows; the forged challenge has no valid signature at all.
    assert wrong is not None and wrong.challenge
    assert forged is not None and forged.challenge


def test_the_served_form_carries_a_challenge(client: Client, settings: Settings) -> None:
    settings.PUBLIC_FORM_CHALLENGE_BITS = 16
    html = client.get("/quotes/analysis-pdf/form/?preset=finetune-8b").content.decode()
    assert 'name="challenge"' in html and 'data-challenge-bits="16"' in html
    assert 'name="proof" value=""' in html
