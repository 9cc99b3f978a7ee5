"""The public "Email me this as PDF" form cannot be used to mail arbitrary text or to flood.

- Only the validated calculator inputs, re-serialised, reach the lead and the email (never
  the raw `query`); the name is length-limited, refused when it holds a link or markup, and
  reduced to letters in the fixed email template.
- A honeypot field and a minimum fill time stop naive bots.
- Rate limits per recipient, per client and for everyone, in Redis; the client address is
  taken from X-Forwarded-For only through TRUSTED_PROXY_COUNT trusted proxies.
"""

from __future__ import annotations

import time
import uuid
from typing import Any
from urllib.parse import urlencode

import pytest
from django.test import Client, RequestFactory
from pytest_django.fixtures import Settings

from common.client_ip import client_ip
from quotes import services
from quotes.forms import lead_form_stamp
from quotes.models import EmailKind, Lead, OutboxEmail
from tco.inputs.presets import preset_data

pytestmark = pytest.mark.django_db
URL = "/quotes/analysis-pdf/"


def _data(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Kim",
        "company": "Startup",
        "email": f"kim-{uuid.uuid4().hex[:8]}@startup.example",
        "consent": "on",
        "query": "preset=finetune-8b",
        "idempotency_key": str(uuid.uuid4()),
        "started": lead_form_stamp(),
        **extra,
    }


def _post(client: Client, ip: str = "", **extra: Any) -> Any:
    headers: dict[str, Any] = {
        "REMOTE_ADDR": ip or f"10.1.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
    }
    return client.post(URL, _data(**extra), **headers)


def test_the_email_holds_only_validated_inputs_and_a_clean_name(
    client: Client, seed_catalog: object
) -> None:
    values = preset_data("finetune-8b")
    assert values is not None
    values = {**values, "params_billion": "8.000"}
    hostile = (
        urlencode(values, doseq=True)
        + "&spam=Buy+now+http://evil.example&preset=Cheap+pills+at+evil.example"
        + "&note=%3Cscript%3E"
    )
    response = _post(client, name="Ann $$$ O'Neil", query=hostile)
    assert response.status_code == 200, response.content.decode()
    # First a fixed text asking to confirm the address: no word of the visitor's in it.
    confirmation = OutboxEmail.objects.get()
    assert "Ann" not in confirmation.body and "evil" not in confirmation.body
    lead = services.lead_confirm(lead=Lead.objects.get())
    email = OutboxEmail.objects.get(kind=EmailKind.LEAD_PDF)
    assert "evil" not in email.body and "spam" not in email.body and "script" not in email.body
    assert "Dear Ann O'Neil," in email.body
    assert "evil" not in lead.tco["query"] and "params_billion=8&" in lead.tco["query"]
    assert lead.tco["query"] in email.body


@pytest.mark.parametrize(
    "name",
    ["Visit http://evil.example", "Kim <b>", "www.evil.example", "kim@evil.example", "x" * 101],
)
def test_names_with_links_markup_or_too_long_are_refused(
    client: Client, seed_catalog: object, name: str
) -> None:
    response = _post(client, name=name)
    assert response.status_code == 400
    assert not Lead.objects.exists() and not OutboxEmail.objects.exists()


def test_a_filled_honeypot_sends_nothing(client: Client, seed_catalog: object) -> None:
    response = _post(client, website="http://evil.example")
    assert response.status_code == 400 and "looks automated" in response.content.decode()
    assert not Lead.objects.exists()


def test_the_form_must_have_been_open_for_a_moment(
    client: Client, seed_catalog: object, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.QUOTES_LEAD_MIN_FILL_SECONDS = 3
    fresh = _post(client)
    assert fresh.status_code == 400 and "That was quick" in fresh.content.decode()
    missing = _post(client, started="")
    assert missing.status_code == 400
    forged = _post(client, started="lead-form:1:forged")
    assert forged.status_code == 400 and "expired" in forged.content.decode()
    earlier = time.time() - 5
    monkeypatch.setattr("django.core.signing.time.time", lambda: earlier)
    stamp = lead_form_stamp()
    monkeypatch.undo()
    assert _post(client, started=stamp).status_code == 200
    assert Lead.objects.count() == 1


def test_the_served_form_carries_the_stamp_and_the_honeypot(client: Client) -> None:
    html = client.get("/quotes/analysis-pdf/form/?preset=finetune-8b").content.decode()
    assert 'name="started" value="lead-form:' in html and 'name="website"' in html


def test_per_client_limit_behind_a_trusted_proxy(
    client: Client, seed_catalog: object, settings: Settings
) -> None:
    """Everyone reaches the app from the proxy's address; the client is what it appended."""
    settings.TRUSTED_PROXY_COUNT = 1
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR = 2
    proxy: dict[str, Any] = {"REMOTE_ADDR": "10.0.0.2"}

    def post(forwarded: str) -> int:
        return int(client.post(URL, _data(), HTTP_X_FORWARDED_FOR=forwarded, **proxy).status_code)

    # Two visitors behind the same proxy are counted apart.
    assert [post("203.0.113.7"), post("203.0.113.7")] == [200, 200]
    assert [post("198.51.100.9"), post("198.51.100.9")] == [200, 200]
    # A client that invents earlier entries is still itself (the proxy's entry is last).
    assert post("1.1.1.1, 203.0.113.7") == 429
    assert post(f"{uuid.uuid4().int % 250}.2.3.4, 203.0.113.7") == 429
    assert Lead.objects.count() == 4
    assert set(Lead.objects.values_list("ip_address", flat=True)) == {
        "203.0.113.7",
        "198.51.100.9",
    }


def test_per_recipient_and_global_limits(
    client: Client, seed_catalog: object, settings: Settings
) -> None:
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR = 2
    address = "target@victim.example"
    codes = [_post(client, email=address).status_code for _ in range(3)]
    assert codes == [200, 200, 429]  # different clients, one recipient
    # The refused request spent nobody else's budget: 2 counted for everyone above.
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL = 4
    codes = [_post(client).status_code for _ in range(3)]
    # Different clients and recipients: the global brake. Past it, a network new this
    # hour still gets in, but with a solved challenge (tests/quotes/test_lead_networks.py).
    assert codes == [200, 200, 429]


@pytest.mark.parametrize(
    ("trusted", "remote", "forwarded", "expected"),
    [
        (0, "192.0.2.1", "203.0.113.7", "192.0.2.1"),  # no proxy: the header is ignored
        (1, "10.0.0.2", "203.0.113.7", "203.0.113.7"),
        (1, "10.0.0.2", "6.6.6.6, 203.0.113.7", "203.0.113.7"),
        (2, "10.0.0.3", "6.6.6.6, 203.0.113.7, 10.0.0.2", "203.0.113.7"),
        (2, "10.0.0.3", "203.0.113.7", "10.0.0.3"),  # did not pass both proxies
        (1, "10.0.0.2", "not-an-address", "10.0.0.2"),
        (1, "10.0.0.2", "", "10.0.0.2"),
        (1, "10.0.0.2", "2001:db8::1", "2001:db8::1"),
    ],
)
def test_client_ip_trusts_exactly_the_configured_proxies(
    settings: Settings, trusted: int, remote: str, forwarded: str, expected: str
) -> None:
    settings.TRUSTED_PROXY_COUNT = trusted
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected
