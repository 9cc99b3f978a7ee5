"""Lead notices and signed acceptances reach people: a real Celery worker, Redis and an
SMTP server on loopback (the rows are committed so the worker sees them)."""

from __future__ import annotations

import functools
import hashlib
import io
import uuid
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from quotes import services
from quotes.models import AcceptanceRecord, EmailKind, LeadRoute, OutboxEmail, Quote, Team

from .conftest import SmtpServer, Worker, pdf_attachment, send, wait_quiescent, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_lead_is_routed_by_country_and_its_team_is_emailed(
    celery_worker: Worker,
    smtp_server: SmtpServer,
    seed_catalog: object,
    make_sales_user: Callable[..., Any],
) -> None:
    smtp_server.recorder.reset()
    make_sales_user("anna", team="Benelux")
    make_sales_user("dieter", team="DACH")
    make_sales_user("dana", team="DACH")
    LeadRoute.objects.create(country="AT", team=Team.objects.get(name="DACH"))
    lead = services.lead_request_pdf(
        name="Ulrike",
        company="Wiener Rechenzentrum",
        email="ulrike@rz.example",
        query="preset=finetune-8b",
        language="en",
        ip_address=None,
        idempotency_key=str(uuid.uuid4()),
        country="AT",
    )
    lead = services.lead_confirm(lead=lead)  # the visitor followed the link in the email
    assert lead.team is not None and lead.team.name == "DACH"
    for member in ("dieter", "dana"):
        notices = wait_until(
            functools.partial(smtp_server.recorder.to, f"{member}@distributor.example"),
            timeout=90,
            what=f"the lead notice to {member}",
        )
        assert len(notices) == 1
        assert "Wiener Rechenzentrum" in str(notices[0]["Subject"])
        body = notices[0].get_body(preferencelist=("plain",))
        assert body is not None and "/quotes/leads/" in body.get_content()
    # The visitor's PDF arrives too; the other team hears nothing.
    wait_until(lambda: smtp_server.recorder.to("ulrike@rz.example"), timeout=120, what="PDF")
    wait_quiescent(smtp_server.recorder)
    assert smtp_server.recorder.to("anna@distributor.example") == []
    assert len(smtp_server.recorder.to("dieter@distributor.example")) == 1


def test_an_acceptance_emails_the_signed_copy_to_both_sides(
    celery_worker: Worker,
    smtp_server: SmtpServer,
    client: Client,
    draft_quote: Quote,
    sales_user: User,
) -> None:
    smtp_server.recorder.reset()
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    proposal = wait_until(
        lambda: smtp_server.recorder.to("jan@buyer.example"), timeout=120, what="the proposal"
    )[0]
    offered = pdf_attachment(proposal)
    token = services.buyer_link_token(revision=revision)
    response = client.post(
        reverse("quotes:buyer_accept", args=[token]),
        {
            "terms": "on",
            "name": "Jan de Vries",
            "role": "Head of IT",
            "po_number": "4500012345",
            "pdf_sha256": hashlib.sha256(offered).hexdigest(),
        },
        HTTP_USER_AGENT="Acceptance test browser",
    )
    assert response.status_code == 302  # to the thank-you page
    record = AcceptanceRecord.objects.get()
    # The hash in the evidence is the hash of the PDF the buyer was emailed.
    assert record.accepted_sha256 == hashlib.sha256(offered).hexdigest()
    for address in ("jan@buyer.example", "anna@distributor.example"):

        def accepted(a: str = address) -> list[EmailMessage]:
            return [m for m in smtp_server.recorder.to(a) if "accepted" in str(m["Subject"])]

        messages = wait_until(
            accepted,
            timeout=60,
            what=f"the acceptance to {address}",
        )
        assert len(messages) == 1
        copy = pdf_attachment(messages[0])
        assert hashlib.sha256(copy).hexdigest() == record.sha256
        pages = PdfReader(io.BytesIO(copy)).pages
        assert len(pages) == len(PdfReader(io.BytesIO(offered)).pages) + 1
        assert "4500012345" in pages[-1].extract_text()
    wait_quiescent(smtp_server.recorder)
    assert OutboxEmail.objects.filter(kind=EmailKind.ACCEPTANCE, status="sent").count() == 2
