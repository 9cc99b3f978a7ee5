"""The buyer's acceptance with evidence: terms, name, role and PO; time, IP, browser and the
SHA-256 of the exact PDF; a signed copy with an acceptance page; both sides emailed."""

from __future__ import annotations

import hashlib
import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader
from pytest_django.fixtures import DjangoCaptureOnCommitCallbacks

from quotes import pdf, services
from quotes.models import (
    AcceptanceRecord,
    EmailKind,
    OutboxEmail,
    ProposalRender,
    Quote,
    RenderStatus,
    Status,
)

from .conftest import send

pytestmark = pytest.mark.django_db

BROWSER = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Mobile/15E148"


def finish_render(revision: Any) -> ProposalRender:
    """Render the sent revision's proposal PDF here (without charts, for speed) and store
    it as render_execute does."""
    render = ProposalRender.objects.get(revision=revision)
    revision.refresh_from_db()
    document = pdf.render_revision(revision.snapshot, language=render.language, with_charts=False)
    ProposalRender.objects.filter(pk=render.pk).update(
        status=RenderStatus.DONE,
        pdf=document.pdf,
        sha256=hashlib.sha256(document.pdf).hexdigest(),
        pages=document.pages,
    )
    render.refresh_from_db()
    return render


@pytest.fixture
def rendered_quote(draft_quote: Quote, sales_user: User) -> Quote:
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    finish_render(revision)
    return draft_quote


def _token(quote: Quote) -> str:
    return services.buyer_link_token(revision=quote.revisions.get())


def _accept(client: Client, token: str, **fields: str) -> Any:
    data = {"terms": "on", "name": "Jan de Vries", "role": "CTO", "po_number": "PO-2026-118"}
    data.update(fields)
    return client.post(
        reverse("quotes:buyer_accept", args=[token]),
        {k: v for k, v in data.items() if v is not None},
        HTTP_USER_AGENT=BROWSER,
        REMOTE_ADDR="203.0.113.7",
        follow=True,  # an acceptance redirects to the thank-you page (post/redirect/get)
    )


def test_acceptance_records_the_evidence_and_the_hash_of_the_exact_pdf(
    client: Client,
    rendered_quote: Quote,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    token = _token(rendered_quote)
    page = client.get(reverse("quotes:buyer", args=[token])).content.decode()
    offered = client.get(reverse("quotes:buyer_pdf", args=[token]))
    offered_bytes = offered.getvalue()  # the streamed content, or the content
    offered_sha = hashlib.sha256(offered_bytes).hexdigest()
    assert offered_sha in page  # the page names the document the buyer accepts
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = _accept(client, token, pdf_sha256=offered_sha)
    assert response.status_code == 200, response.content.decode()[:2000]
    assert "accepted by Jan de Vries" in response.content.decode()

    record = AcceptanceRecord.objects.get()
    assert record.accepted_sha256 == offered_sha
    assert record.render.pdf is not None
    assert record.accepted_sha256 == hashlib.sha256(bytes(record.render.pdf)).hexdigest()
    assert (record.name, record.role, record.po_number) == ("Jan de Vries", "CTO", "PO-2026-118")
    assert record.ip_address == "203.0.113.7" and record.user_agent == BROWSER
    assert record.terms_accepted and record.accepted_at is not None
    revision = record.revision
    assert revision.status == Status.ACCEPTED and revision.decided_by_name == "Jan de Vries"

    # The signed copy: the accepted PDF page for page, then the acceptance page.
    copy = bytes(record.pdf)
    assert record.sha256 == hashlib.sha256(copy).hexdigest()
    original = PdfReader(io.BytesIO(offered_bytes))
    signed = PdfReader(io.BytesIO(copy))
    assert len(signed.pages) == len(original.pages) + 1 == record.pages
    for before, after in zip(original.pages, signed.pages, strict=False):
        assert before.extract_text() == after.extract_text()
    last = " ".join(signed.pages[-1].extract_text().split())
    for text in ("Acceptance", "Jan de Vries", "CTO", "PO-2026-118", "203.0.113.7"):
        assert text in last
    assert offered_sha in last.replace(" ", "")

    # Both sides are emailed the signed copy, queued once each after the commit.
    emails = OutboxEmail.objects.filter(kind=EmailKind.ACCEPTANCE).order_by("to_email")
    assert sorted(e.to_email for e in emails) == ["anna@distributor.example", "jan@buyer.example"]
    assert all(e.acceptance_id == record.pk for e in emails)
    assert len(callbacks) == 2


def test_the_internal_quote_page_shows_the_acceptance(
    client: Client, rendered_quote: Quote, sales_user: User
) -> None:
    assert _accept(client, _token(rendered_quote)).status_code == 200
    record = AcceptanceRecord.objects.get()
    client.force_login(sales_user)
    page = client.get(reverse("quotes:detail", args=[rendered_quote.public_id])).content.decode()
    for text in ('id="acceptance"', "Jan de Vries", "CTO", "PO-2026-118", record.accepted_sha256):
        assert text in page
    copy = client.get(reverse("quotes:acceptance_pdf", args=[record.revision.public_id]))
    assert copy.status_code == 200 and copy["X-Content-SHA256"] == record.sha256
    assert hashlib.sha256(copy.content).hexdigest() == record.sha256


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"terms": None}, "Please tick that you accept the terms."),
        ({"name": "   "}, "This field is required."),
        ({"role": ""}, "This field is required."),
        ({"pdf_sha256": "0" * 64}, "out of date"),
        ({"pdf_sha256": "not-a-hash"}, "out of date"),
    ],
)
def test_acceptance_without_its_evidence_is_refused(
    client: Client, rendered_quote: Quote, fields: dict[str, Any], message: str
) -> None:
    response = _accept(client, _token(rendered_quote), **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not AcceptanceRecord.objects.exists()
    assert rendered_quote.revisions.get().status != Status.ACCEPTED


def test_accepting_through_the_old_decision_form_is_refused(
    client: Client, rendered_quote: Quote
) -> None:
    response = client.post(
        reverse("quotes:buyer_decide", args=[_token(rendered_quote)]),
        {"name": "Jan", "decision": "accept"},
    )
    assert response.status_code == 400
    assert "tick the terms" in response.content.decode()
    assert rendered_quote.revisions.get().status != Status.ACCEPTED


def test_acceptance_waits_for_the_pdf(client: Client, draft_quote: Quote, sales_user: User) -> None:
    send(draft_quote.revisions.get(), sales_user)  # the render is still pending
    response = _accept(client, _token(draft_quote))
    assert response.status_code == 400 and "still being prepared" in response.content.decode()
    assert not AcceptanceRecord.objects.exists()


def test_a_second_acceptance_is_refused_and_the_first_stands(
    client: Client, rendered_quote: Quote
) -> None:
    token = _token(rendered_quote)
    assert _accept(client, token).status_code == 200
    again = _accept(client, token, name="Eve", role="Intern")
    assert again.status_code == 400
    page = client.get(reverse("quotes:buyer", args=[token])).content.decode()
    assert 'id="signed-copy-link"' in page and 'id="accept-form"' not in page
    copy = client.get(reverse("quotes:buyer_acceptance_pdf", args=[token]))
    assert hashlib.sha256(copy.content).hexdigest() == AcceptanceRecord.objects.get().sha256
    assert AcceptanceRecord.objects.get().name == "Jan de Vries"
    assert OutboxEmail.objects.filter(kind=EmailKind.ACCEPTANCE).count() == 2


def test_the_acceptance_page_is_in_the_buyers_language(
    client: Client, rendered_quote: Quote
) -> None:
    customer = rendered_quote.customer
    customer.language = "nl"
    customer.save()
    revision = rendered_quote.revisions.get()
    assert revision.snapshot is not None
    revision.snapshot["language"] = "nl"  # as if it had been sent to a Dutch buyer
    revision.save(update_fields=["snapshot"])
    ProposalRender.objects.filter(revision=revision).update(language="nl")
    assert _accept(client, _token(rendered_quote)).status_code == 200
    record = AcceptanceRecord.objects.get()
    last = " ".join(PdfReader(io.BytesIO(bytes(record.pdf))).pages[-1].extract_text().split())
    assert "Akkoordverklaring" in last and "Inkoopordernummer" in last
    buyer_mail = OutboxEmail.objects.get(kind=EmailKind.ACCEPTANCE, to_email=customer.email)
    assert "geaccepteerd" in buyer_mail.subject
