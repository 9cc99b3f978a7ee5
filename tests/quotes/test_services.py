"""Quote rules in the service layer: numbers, VAT, money, freezing, revisions, links, outbox."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail, signing
from django.db import connection
from django.utils import timezone
from pytest_django.fixtures import DjangoCaptureOnCommitCallbacks, Settings

from catalog.models import InfrastructureItem, ServerModel
from quotes import services
from quotes.models import (
    Customer,
    LineKind,
    OutboxEmail,
    OutboxStatus,
    ProposalRender,
    Quote,
    QuoteRevision,
    RenderStatus,
    Status,
)
from quotes.money import line_amount, to_cents
from quotes.vat import vat_for

from .conftest import send

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("country", "vat_number", "rate", "kind"),
    [
        ("NL", "", "21", "standard"),
        ("NL", "NL123456789B01", "21", "standard"),
        ("DE", "DE136695976", "0", "reverse_charge"),
        ("BE", "BE0403019261", "0", "reverse_charge"),
        ("DE", "DE123456789", "21", "standard"),  # check digit wrong: no valid ID
        ("DE", "", "21", "standard"),  # EU business without ID: Dutch VAT
        ("FR", "", "21", "standard"),
        ("US", "", "0", "export"),
        ("CH", "CHE-123.456.789", "0", "export"),
    ],
)
def test_vat_rules(country: str, vat_number: str, rate: str, kind: str) -> None:
    treatment = vat_for(country=country, vat_number=vat_number)
    assert treatment.rate == Decimal(rate)
    assert treatment.kind == kind


def test_money_is_rounded_once_half_up() -> None:
    assert to_cents(Decimal("0.005")) == Decimal("0.01")
    assert to_cents(Decimal("0.0049999")) == Decimal("0.00")
    assert line_amount(Decimal("3"), Decimal("33.33"), Decimal("10")) == Decimal("89.99")
    totals = services.totals_for(
        lines=[
            {"amount": "89.99", "optional": False},
            {"amount": "10.01", "optional": False},
            {"amount": "5.00", "optional": True},
        ],
        vat_rate=Decimal("21"),
    )
    assert (totals.subtotal, totals.vat, totals.total) == (
        Decimal("100.00"),
        Decimal("21.00"),
        Decimal("121.00"),
    )
    assert totals.optional_subtotal == Decimal("5.00")
    assert all(isinstance(v, Decimal) for v in (totals.subtotal, totals.vat, totals.total))


def test_quote_numbers_are_sequential_per_year() -> None:
    assert services.next_quote_number(year=2031) == "Q-2031-0001"
    assert services.next_quote_number(year=2031) == "Q-2031-0002"
    assert services.next_quote_number(year=2032) == "Q-2032-0001"


@pytest.mark.django_db(transaction=True)
def test_quote_numbers_are_unique_under_concurrency() -> None:
    numbers: list[str] = []
    errors: list[BaseException] = []

    def allocate() -> None:
        try:
            for _ in range(5):
                numbers.append(services.next_quote_number(year=2040))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=allocate) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert sorted(numbers) == [f"Q-2040-{n:04d}" for n in range(1, 31)]


@pytest.mark.dates
def test_quote_from_calculator_fills_servers_and_attaches_analysis(draft_quote: Quote) -> None:
    revision = draft_quote.revisions.get()
    assert draft_quote.number.startswith(f"Q-{timezone.localdate().year}-")
    assert revision.letter == "A" and revision.status == Status.DRAFT
    assert revision.vat_rate == Decimal("21")  # NL customer
    lines = list(revision.lines.order_by("position"))
    kinds = [line.kind for line in lines]
    assert kinds[0] == LineKind.SERVER
    assert {LineKind.NETWORKING, LineKind.INSTALLATION, LineKind.SUPPORT} <= set(kinds)
    assert revision.tco is not None
    servers = revision.tco["summary"]["sizing"]["servers_required"]
    assert lines[0].quantity == servers
    assert revision.tco["query"] == "preset=serve-70b"
    assert set(revision.tco["figures"]) == set(services.PDF_CHARTS)
    assert revision.tco["executive"]["buy"] in (True, False)
    assert all(isinstance(line.unit_price, Decimal) for line in lines)


def test_unknown_calculator_input_is_a_quote_error(customer: Customer, sales_user: User) -> None:
    with pytest.raises(services.QuoteError):
        services.quote_create_from_calculator(
            customer=customer, owner=sales_user, query="params_billion=-5&kind=pretrain"
        )


def test_another_teams_engineer_cannot_quote_for_the_customer(
    customer: Customer, make_sales_user: Callable[..., User]
) -> None:
    outsider = make_sales_user("olaf", team="Nordics")
    with pytest.raises(services.QuoteError):
        services.quote_create(customer=customer, owner=outsider)


@pytest.mark.dates
def test_sending_freezes_the_revision(draft_quote: Quote, sales_user: User) -> None:
    revision = draft_quote.revisions.get()
    email = send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.status == Status.SENT and revision.sent_at is not None
    assert revision.snapshot is not None
    assert revision.snapshot["number"] == draft_quote.number
    assert revision.snapshot["totals"]["total"]
    assert email.status == OutboxStatus.QUEUED and email.render is not None
    assert email.to_email == "jan@buyer.example"
    line = revision.lines.first()
    assert line is not None
    with pytest.raises(services.RevisionLocked):
        services.revision_add_line(
            revision=revision, catalog_key="item:installation-per-server", quantity=Decimal(1)
        )
    with pytest.raises(services.RevisionLocked):
        services.revision_remove_line(revision=revision, line_id=line.pk)
    with pytest.raises(services.RevisionLocked):
        services.revision_update(
            revision=revision, valid_until=timezone.localdate() + timedelta(days=5), terms="x"
        )
    with pytest.raises(services.RevisionLocked):
        send(revision, sales_user)


def test_the_same_send_action_twice_sends_once(draft_quote: Quote, sales_user: User) -> None:
    revision = draft_quote.revisions.get()
    key = str(uuid.uuid4())
    first = services.quote_send(revision=revision, actor=sales_user, idempotency_key=key)
    again = services.quote_send(revision=revision, actor=sales_user, idempotency_key=key)
    assert first.pk == again.pk
    assert OutboxEmail.objects.filter(revision=revision).count() == 1


def test_catalog_price_changes_leave_a_sent_revision_unchanged(
    draft_quote: Quote, sales_user: User
) -> None:
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    frozen = revision.snapshot
    frozen_lines = list(revision.lines.values("unit_price", "quantity", "discount_pct"))

    ServerModel.objects.update(list_price=Decimal("1.00"))
    InfrastructureItem.objects.update(price=Decimal("2.00"))

    revision.refresh_from_db()
    assert revision.snapshot == frozen
    assert list(revision.lines.values("unit_price", "quantity", "discount_pct")) == frozen_lines
    # A revise copies the quoted prices; only new lines take today's catalog price.
    new = services.quote_revise(revision=revision, actor=sales_user)
    assert [line.unit_price for line in new.lines.order_by("position")] == [
        line["unit_price"] for line in frozen_lines
    ]


def test_revise_creates_the_next_draft(draft_quote: Quote, sales_user: User) -> None:
    revision = draft_quote.revisions.get()
    # Revising a draft gives the draft itself: there is one draft at a time.
    assert services.quote_revise(revision=revision, actor=sales_user).pk == revision.pk
    send(revision, sales_user)
    new = services.quote_revise(revision=revision, actor=sales_user)
    assert (new.letter, new.status, new.seq) == ("B", Status.DRAFT, 2)
    assert new.lines.count() == revision.lines.count()
    assert services.quote_revise(revision=revision, actor=sales_user).pk == new.pk
    new_line = services.revision_add_line(
        revision=new,
        catalog_key="item:storage-parallel-fs-500tb",
        quantity=Decimal(1),
        optional=True,
    )
    assert new_line.optional
    revision.refresh_from_db()
    assert revision.status == Status.SENT
    assert revision.snapshot is not None
    assert not any(line["optional"] for line in revision.snapshot["lines"])


def test_expiry_marks_open_revisions_past_their_date(draft_quote: Quote, sales_user: User) -> None:
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    assert services.quotes_expire(today=revision.valid_until) == 0
    assert services.quotes_expire(today=revision.valid_until + timedelta(days=1)) == 1
    revision.refresh_from_db()
    assert revision.status == Status.EXPIRED


@pytest.mark.dates
def test_buyer_links_are_signed_and_expire(
    draft_quote: Quote, sales_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    token = services.buyer_link_token(revision=revision)
    assert services.revision_from_token(token=token).pk == revision.pk
    with pytest.raises(services.BuyerLinkInvalid):
        services.revision_from_token(token=token[:-2] + ("AA" if token[-2:] != "AA" else "BB"))
    forged = signing.TimestampSigner(salt="another").sign_object({"r": str(revision.public_id)})
    with pytest.raises(services.BuyerLinkInvalid):
        services.revision_from_token(token=forged)
    later = timezone.now() + timedelta(days=400)
    monkeypatch.setattr("django.core.signing.time.time", lambda: later.timestamp())
    with pytest.raises(services.BuyerLinkExpired):
        services.revision_from_token(token=token)


def test_buyer_decision_is_recorded_and_the_owner_told(
    draft_quote: Quote, sales_user: User
) -> None:
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    services.revision_mark_viewed(revision=revision)
    revision.refresh_from_db()
    assert revision.status == Status.VIEWED
    services.revision_decide(revision=revision, accept=True, name="  Jan de Vries ")
    revision.refresh_from_db()
    assert revision.status == Status.ACCEPTED and revision.decided_by_name == "Jan de Vries"
    assert revision.decided_at is not None
    notice = OutboxEmail.objects.get(kind="decision", revision=revision)
    assert notice.to_email == sales_user.email and "accepted" in notice.subject
    with pytest.raises(services.QuoteError):
        services.revision_decide(revision=revision, accept=False, name="Someone else")


def _rendered(revision: QuoteRevision) -> ProposalRender:
    render = ProposalRender.objects.get(revision=revision)
    ProposalRender.objects.filter(pk=render.pk).update(
        status=RenderStatus.DONE, pdf=b"%PDF-1.7 test", sha256="x", pages=1
    )
    return render


def test_outbox_sends_once_and_records_attempts(draft_quote: Quote, sales_user: User) -> None:
    revision = draft_quote.revisions.get()
    email = send(revision, sales_user)
    assert services.outbox_deliver(outbox_id=email.pk) == "waiting for render"
    _rendered(revision)
    assert services.outbox_deliver(outbox_id=email.pk) == OutboxStatus.SENT
    assert services.outbox_deliver(outbox_id=email.pk) == OutboxStatus.SENT  # a redelivery
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.extra_headers["Message-ID"] == email.message_id
    assert sent.attachments[0].filename == f"{draft_quote.number}-A.pdf"
    email.refresh_from_db()
    assert (email.status, email.attempts) == (OutboxStatus.SENT, 1)


def test_smtp_failure_returns_the_email_to_the_queue(
    draft_quote: Quote, sales_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    revision = draft_quote.revisions.get()
    email = send(revision, sales_user)
    _rendered(revision)

    class Refusing:
        def send_messages(self, messages: list[Any]) -> int:
            raise ConnectionRefusedError("no SMTP server")

    monkeypatch.setattr(services.delivery, "mailers", type("M", (), {"default": Refusing()})())
    with pytest.raises(services.TransientDeliveryError):
        services.outbox_deliver(outbox_id=email.pk)
    email.refresh_from_db()
    assert email.status == OutboxStatus.QUEUED and email.attempts == 1
    assert "no SMTP server" in email.last_error
    services.outbox_mark_failed(outbox_id=email.pk, error="gave up")
    email.refresh_from_db()
    assert email.status == OutboxStatus.FAILED


@pytest.mark.dates
def test_requeue_finds_stuck_renders_and_emails(
    draft_quote: Quote,
    sales_user: User,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    revision = draft_quote.revisions.get()
    email = send(revision, sales_user)
    with django_capture_on_commit_callbacks() as callbacks:
        assert services.outbox_requeue_stuck(older_than=timedelta(0)) == 1  # the render
    assert len(callbacks) == 1
    _rendered(revision)
    OutboxEmail.objects.filter(pk=email.pk).update(
        status=OutboxStatus.SENDING, sending_started_at=timezone.now() - timedelta(hours=1)
    )
    with django_capture_on_commit_callbacks() as callbacks:
        assert services.outbox_requeue_stuck(older_than=timedelta(0)) == 1  # the email
    email.refresh_from_db()
    assert email.status == OutboxStatus.QUEUED


def test_lead_rate_limit(settings: Settings) -> None:
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR = 2
    tag = uuid.uuid4().hex[:8]
    address = f"a-{tag}@b.example"
    assert services.lead_rate_limit(email=address, ip=f"fd00::{tag[:4]}:1") is None
    assert services.lead_rate_limit(email=address, ip=f"fd00::{tag[:4]}:2") is None
    refused = services.lead_rate_limit(email=address.upper(), ip=f"fd00::{tag[:4]}:3")
    assert refused and refused.message.startswith("Too many requests for this address")
    ip = f"fd00::{tag[4:]}:9"
    assert services.lead_rate_limit(email=f"x-{tag}@c.example", ip=ip) is None
    assert services.lead_rate_limit(email=f"y-{tag}@c.example", ip=ip) is None
    refused = services.lead_rate_limit(email=f"z-{tag}@c.example", ip=ip)
    assert refused and refused.message.startswith("Too many requests from your network")
