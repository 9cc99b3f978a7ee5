""" "Email me this as PDF" sends nothing seller-branded before the address is confirmed, and
one client cannot use up everyone's budget (issue 32, findings 12 and 4).

Before: any address typed into the form got a seller-branded PDF with the visitor's
company text on its cover (a mail relay); a client's refused requests still counted
against the global budget, so 201 posts in 3.7 s disabled the form for an hour for
everyone, and the message then said "for this address".
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import resolve, reverse
from pytest_django.fixtures import Settings

from quotes import services
from quotes.forms import lead_form_stamp
from quotes.models import EmailKind, Lead, OutboxEmail, ProposalRender

pytestmark = pytest.mark.django_db
URL = "/quotes/analysis-pdf/"


def _form(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Kim",
        "company": "Startup",
        "email": "kim@startup.example",
        "consent": "on",
        "query": "preset=finetune-8b",
        "idempotency_key": str(uuid.uuid4()),
        "started": lead_form_stamp(),
        **extra,
    }


def _confirm_path(email: OutboxEmail) -> str:
    match = re.search(r"https?://[^/\s]+(/quotes/analysis-pdf/confirm/[^\s]+/)", email.body)
    assert match, email.body
    return match.group(1)


def _status_lead(location: str) -> Lead:
    """The lead whose status page `location` is. Its signed token carries the second it was
    made, so it is read back rather than compared with one made a moment later."""
    match = resolve(location)
    assert match.view_name == "quotes:lead_status", location
    return services.lead_from_token(token=match.kwargs["token"])


def test_the_form_sends_only_a_confirmation_link_and_the_click_sends_the_pdf(
    client: Client, seed_catalog: object, make_sales_user: Callable[..., User]
) -> None:
    anna = make_sales_user("anna")
    response = client.post(URL, _form())
    assert response.status_code == 200
    assert "We sent a link to kim@startup.example" in response.content.decode()
    (email,) = OutboxEmail.objects.all()
    assert email.kind == EmailKind.LEAD_CONFIRM and email.to_email == "kim@startup.example"
    assert email.render is None  # no PDF yet, no attachment
    for visitor_text in ("Kim", "Startup", "finetune"):
        assert visitor_text not in email.body and visitor_text not in email.subject
    assert not ProposalRender.objects.exists()
    lead = Lead.objects.get()
    assert lead.confirmed_at is None
    sales = Client()
    sales.force_login(anna)
    assert "kim@startup.example" not in sales.get("/quotes/leads/").content.decode()

    # Opening the link (as a mail scanner does) confirms nothing: it asks for a click.
    confirm = _confirm_path(email)
    page = client.get(confirm)
    assert page.status_code == 200 and 'id="lead-confirm-button"' in page.content.decode()
    lead.refresh_from_db()
    assert lead.confirmed_at is None and not ProposalRender.objects.exists()

    clicked = client.post(confirm)
    assert clicked.status_code == 302
    assert _status_lead(clicked["Location"]) == lead
    lead.refresh_from_db()
    assert lead.confirmed_at is not None
    pdf_email = OutboxEmail.objects.get(kind=EmailKind.LEAD_PDF)
    assert pdf_email.render is not None and pdf_email.to_email == "kim@startup.example"
    assert OutboxEmail.objects.filter(kind=EmailKind.LEAD_NOTICE, to_email=anna.email).exists()
    assert "kim@startup.example" in sales.get("/quotes/leads/").content.decode()
    # A second click (or a reload) sends nothing twice.
    assert _status_lead(client.post(confirm)["Location"]) == lead
    assert OutboxEmail.objects.filter(kind=EmailKind.LEAD_PDF).count() == 1
    assert ProposalRender.objects.count() == 1


def test_the_status_link_shown_to_the_poster_cannot_confirm(
    client: Client, seed_catalog: object
) -> None:
    client.post(URL, _form(email="victim@elsewhere.example"))
    lead = Lead.objects.get()
    status_token = services.lead_token(lead=lead)  # what the poster's page links to
    forged = reverse("quotes:lead_confirm", args=[status_token])
    assert client.get(forged).status_code == 404
    assert client.post(forged).status_code == 404
    assert client.get(reverse("quotes:lead_pdf", args=[status_token])).status_code == 404
    lead.refresh_from_db()
    assert lead.confirmed_at is None
    assert not OutboxEmail.objects.filter(kind=EmailKind.LEAD_PDF).exists()


@pytest.mark.parametrize(
    "company",
    [
        "Your account is suspended, call http://evil.example",
        "Acme <b>Corp</b>",
        "support@evil.example",
        "www.evil.example",
    ],
)
def test_a_company_with_links_markup_or_addresses_is_refused(
    client: Client, seed_catalog: object, company: str
) -> None:
    response = client.post(URL, _form(company=company))
    assert response.status_code == 400
    assert "just the name of your company" in response.content.decode()
    assert not Lead.objects.exists() and not OutboxEmail.objects.exists()


def test_the_cover_gets_the_company_cleaned_like_the_name(seed_catalog: object) -> None:
    lead = services.lead_request_pdf(
        name="Kim\r\nvan Dijk 2000",
        company="3M Nederland B.V.\r\n\u2014 CALL +1 (800) 555-0100!!",
        email="kim@startup.example",
        query="preset=finetune-8b",
        language="en",
        ip_address=None,
        idempotency_key=str(uuid.uuid4()),
    )
    snapshot = services.lead_snapshot(lead=lead)
    assert snapshot["lead"]["company"] == "3M Nederland B.V. CALL 1 (800) 555-0100"
    assert snapshot["lead"]["name"] == "Kim van Dijk"


def test_one_clients_refused_requests_spend_nobody_elses_budget(
    seed_catalog: object, settings: Settings
) -> None:
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR = 2
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL = 5
    client = Client()

    def post(ip: str, email: str) -> Any:
        return client.post(URL, _form(email=email), REMOTE_ADDR=ip)

    codes = [post("192.0.2.66", f"x{i}@spam.example").status_code for i in range(50)]
    assert codes == [200, 200] + [429] * 48
    refused = post("192.0.2.66", "x@spam.example").content.decode()
    assert "Too many requests from your network" in refused
    # Others still get through: the flood spent its own share only.
    assert [post(f"198.51.100.{i}", f"v{i}@buyer.example").status_code for i in range(3)] == [
        200,
        200,
        200,
    ]
    everyone = post("198.51.100.99", "late@buyer.example")
    assert everyone.status_code == 429
    assert "We are sending too many analyses just now" in everyone.content.decode()
