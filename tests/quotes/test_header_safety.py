"""Names with line breaks never break an email (issue 32, finding 9), and an email that
cannot be sent says why on the quote page.

Before: a buyer's name or role with CR/LF went raw into the decision and signed-copy
subjects; Django refused the header, and the outbox row was retried and failed forever
with nothing on the quote to say so.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation

from quotes import services
from quotes.models import AcceptanceRecord, EmailKind, OutboxEmail, OutboxStatus, Quote
from tests.quotes.test_acceptance import BROWSER, _token, rendered_quote

__all__ = ["rendered_quote"]  # a fixture
pytestmark = pytest.mark.django_db

HOSTILE_NAME = "Jan\r\nBcc: everyone@evil.example"
HOSTILE_ROLE = "CTO\nX-Priority: 1\u2028"


def _deliver_all(kind: str) -> list[str]:
    return [
        services.outbox_deliver(outbox_id=pk)
        for pk in OutboxEmail.objects.filter(kind=kind).values_list("pk", flat=True)
    ]


def test_a_name_and_role_with_line_breaks_are_kept_on_one_line_and_the_copies_go_out(
    client: Client, rendered_quote: Quote
) -> None:
    response = client.post(
        reverse("quotes:buyer_accept", args=[_token(rendered_quote)]),
        {"terms": "on", "name": HOSTILE_NAME, "role": HOSTILE_ROLE, "po_number": "PO\r\n1"},
        HTTP_USER_AGENT=BROWSER,
    )
    assert response.status_code in (200, 302)
    record = AcceptanceRecord.objects.get()
    assert (record.name, record.role, record.po_number) == (
        "Jan Bcc: everyone@evil.example",
        "CTO X-Priority: 1",
        "PO 1",
    )
    mail.outbox.clear()
    assert _deliver_all(EmailKind.ACCEPTANCE) == [OutboxStatus.SENT, OutboxStatus.SENT]
    for message in mail.outbox:
        assert "\r" not in message.subject and "\n" not in message.subject
        assert message.to in (["jan@buyer.example"], ["anna@distributor.example"])
        assert message.bcc == []


def test_a_decline_with_a_line_break_in_the_name_reaches_the_owner(
    client: Client, rendered_quote: Quote
) -> None:
    client.post(
        reverse("quotes:buyer_decide", args=[_token(rendered_quote)]),
        {"decision": "decline", "name": HOSTILE_NAME, "reason": "timing"},
    )
    revision = rendered_quote.revisions.get()
    assert revision.decided_by_name == "Jan Bcc: everyone@evil.example"
    mail.outbox.clear()
    assert _deliver_all(EmailKind.DECISION) == [OutboxStatus.SENT]
    assert "declined by Jan Bcc" in mail.outbox[0].subject


def test_a_row_stored_with_a_broken_subject_is_sent_on_one_line(rendered_quote: Quote) -> None:
    """Rows queued before names were cleaned still go out."""
    revision = rendered_quote.revisions.get()
    row = OutboxEmail.objects.create(
        idempotency_key="old-row",
        kind=EmailKind.DECISION,
        to_email="anna@distributor.example",
        subject=f"Q-1 rev. A declined by {HOSTILE_NAME}",
        body="…",
        revision=revision,
    )
    mail.outbox.clear()
    assert services.outbox_deliver(outbox_id=row.pk) == OutboxStatus.SENT
    assert mail.outbox[0].subject == "Q-1 rev. A declined by Jan Bcc: everyone@evil.example"


def test_an_email_that_cannot_be_built_is_marked_with_why_and_shown_on_the_quote(
    client: Client, rendered_quote: Quote, sales_user: User
) -> None:
    revision = rendered_quote.revisions.get()
    row = OutboxEmail.objects.create(
        idempotency_key="bad-address",
        kind=EmailKind.DECISION,
        to_email="anna@distributor.example\nBcc: x@evil.example",
        subject="Decision",
        body="…",
        revision=revision,
    )
    mail.outbox.clear()
    assert services.outbox_deliver(outbox_id=row.pk) == OutboxStatus.UNSENDABLE
    assert mail.outbox == []
    row.refresh_from_db()
    assert row.status == OutboxStatus.UNSENDABLE
    assert row.last_error.startswith("This email cannot be sent:")
    # Never retried: not by the task, not by the periodic requeue.
    services.outbox_requeue_stuck(older_than=timedelta(0))
    row.refresh_from_db()
    assert row.status == OutboxStatus.UNSENDABLE
    client.force_login(sales_user)
    page = client.get(f"/quotes/{rendered_quote.public_id}/").content.decode()
    assert 'id="undelivered"' in page
    assert "decision notice to owner to anna@distributor.example" in page
    assert "This email cannot be sent:" in page


def test_the_owner_reads_a_decision_in_the_sales_desks_language(rendered_quote: Quote) -> None:
    """A buyer on the Dutch page declines: the owner's email (subject and text) is in the
    desk's language (English here), not half Dutch: the subject was worded outside it."""
    revision = rendered_quote.revisions.get()
    with translation.override("nl"):
        services.revision_decide(revision=revision, accept=False, name="Jan", reason="timing")
    row = OutboxEmail.objects.get(kind=EmailKind.DECISION)
    assert row.subject == f"{rendered_quote.number} rev. A declined by Jan"
    assert "afgewezen" not in row.body
