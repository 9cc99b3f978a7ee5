"""Sending through the outbox: freeze and queue, render the PDF once, deliver each email at
most once per claim, and re-enqueue what an outage left behind."""

from __future__ import annotations

import hashlib
import logging
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from common.text import one_line

from ..models import (
    EmailKind,
    OutboxEmail,
    OutboxStatus,
    ProposalRender,
    QuoteRevision,
    RenderStatus,
    Status,
)
from .analysis import summary_lines
from .approvals import ensure_sending_allowed
from .drafts import locked_draft, locked_revision
from .errors import QuoteError, TransientDeliveryError
from .jobs import lease_expired_before, render_heartbeat
from .links import buyer_url
from .options import check_alternatives, freeze_alternatives
from .presentation import ensure_analysis_presented
from .queue import PRIORITY_BATCH, email_once, enqueue
from .snapshots import lead_snapshot, revision_snapshot

logger = logging.getLogger(__name__)


def _proposal_email(*, revision: QuoteRevision, key: str) -> OutboxEmail:
    """The email of the revision's proposal to the buyer, with the PDF in their language."""
    customer = revision.quote.customer
    render, _created = ProposalRender.objects.get_or_create(
        revision=revision, language=customer.language
    )
    with translation.override(customer.language):
        subject = _("Proposal %(number)s (revision %(letter)s)") % {
            "number": revision.quote.number,
            "letter": revision.letter,
        }
        body = render_to_string(
            "quotes/email/proposal.txt",
            {
                "revision": revision,
                "snapshot": revision.snapshot,
                "customer": customer,
                "url": buyer_url(revision=revision),
                "summary": summary_lines(
                    (revision.snapshot or {}).get("tco"),
                    ((revision.snapshot or {}).get("analysis") or {}).get("headline"),
                ),
            },
        )
    email_once(
        key=key,
        kind=EmailKind.PROPOSAL,
        to=customer.email,
        subject=subject,
        body=body,
        render=render,
        revision=revision,
    )
    # This action's email, or the one the same action queued first when it raced in.
    return OutboxEmail.objects.get(idempotency_key=key)


@transaction.atomic
def quote_send(*, revision: QuoteRevision, actor: User, idempotency_key: str) -> OutboxEmail:
    """Freeze the revision and queue the PDF and the email to the buyer.

    Submitting the same send action twice (same key) returns the first outbox row.
    """
    key = f"send:{idempotency_key}"
    existing = OutboxEmail.objects.filter(idempotency_key=key).first()
    if existing is not None:
        return existing
    if revision.option_of is not None:  # an option is sent with its set, from option A
        revision = revision.option_of
    revision = locked_draft(revision)
    if not revision.lines.exists():
        raise QuoteError(_("Add at least one line before sending."))
    ensure_sending_allowed(revision)  # margin floor: a sales manager's approval
    ensure_analysis_presented(revision)  # an analysis that recommends renting is presented
    if revision.valid_until < timezone.localdate():
        raise QuoteError(_("The validity date lies in the past; change it before sending."))
    newer = revision.quote.revisions.filter(seq__gt=revision.seq, option_of__isnull=True).exists()
    if newer:
        raise QuoteError(_("A newer revision exists."))
    # The earlier revision stayed open while this one was drafted: the buyer may have
    # answered it meanwhile.
    accepted = revision.quote.revisions.filter(seq__lt=revision.seq, status=Status.ACCEPTED).first()
    if accepted is not None:
        raise QuoteError(
            _("The buyer accepted revision %(letter)s meanwhile; start a new quote instead.")
            % {"letter": accepted.letter}
        )
    alternatives = check_alternatives(revision)  # each option as sendable as option A
    revision.snapshot = revision_snapshot(revision=revision)
    revision.status = Status.SENT
    revision.sent_at = timezone.now()
    revision.sent_by = actor
    revision.save(update_fields=["snapshot", "status", "sent_at", "sent_by"])
    freeze_alternatives(revision, alternatives)
    return _proposal_email(revision=revision, key=key)


@transaction.atomic
def revision_resend(*, revision: QuoteRevision, actor: User, idempotency_key: str) -> OutboxEmail:
    """Email a sent revision again (same frozen PDF, no re-render)."""
    key = f"resend:{idempotency_key}"
    existing = OutboxEmail.objects.filter(idempotency_key=key).first()
    if existing is not None:
        return existing
    revision = locked_revision(revision)
    if revision.status not in (Status.SENT, Status.VIEWED):
        raise QuoteError(_("Only a sent revision that awaits an answer can be sent again."))
    return _proposal_email(revision=revision, key=key)


def render_execute(*, render_id: int) -> ProposalRender | None:
    """Render a proposal PDF once; then enqueue the emails waiting for it.

    Safe to run twice (a redelivered task): the first finished render wins, the bytes of a
    DONE render are never replaced.
    """
    from .. import pdf

    render = (
        ProposalRender.objects.select_related("revision__quote", "lead")
        .filter(pk=render_id)
        .first()
    )
    if render is None:
        return None
    if render.status != RenderStatus.DONE:
        if not render_claim(render.pk):
            return render  # another process renders it and its lease is alive
        started = time.perf_counter()
        with render_heartbeat(render.pk):
            if render.revision is not None:
                snapshot = render.revision.snapshot
                assert snapshot is not None  # a revision is rendered once sent, with a snapshot
                document = pdf.render_revision(snapshot, language=render.language)
            else:
                assert render.lead is not None  # a render is of a revision or of a lead
                document = pdf.render_lead(
                    lead_snapshot(lead=render.lead), language=render.language
                )
        ProposalRender.objects.filter(pk=render.pk).exclude(status=RenderStatus.DONE).update(
            status=RenderStatus.DONE,
            pdf=document.pdf,
            sha256=hashlib.sha256(document.pdf).hexdigest(),
            pages=document.pages,
            rendered_at=timezone.now(),
            render_seconds=time.perf_counter() - started,
            last_error="",
        )
        render.refresh_from_db()
    for email_id in render.emails.filter(status=OutboxStatus.QUEUED).values_list("pk", flat=True):
        enqueue("send_email", email_id)
    return render


def render_claim(render_id: int) -> bool:
    """Take the render for this process: it is waiting, failed, or rendering under a lease
    nobody keeps alive (a duplicate task meets a live lease and leaves it alone)."""
    now = timezone.now()
    free = Q(status__in=[RenderStatus.PENDING, RenderStatus.FAILED]) | Q(
        status=RenderStatus.RENDERING
    ) & (Q(heartbeat_at__lt=lease_expired_before()) | Q(heartbeat_at__isnull=True))
    claimed = (
        ProposalRender.objects.filter(free, pk=render_id)
        .exclude(status=RenderStatus.DONE)
        .update(
            status=RenderStatus.RENDERING,
            attempts=F("attempts") + 1,
            started_at=now,
            heartbeat_at=now,
            updated_at=now,
        )
    )
    return bool(claimed)


def render_mark_retrying(*, render_id: int, error: str) -> None:
    """An attempt failed and the task retries: waiting again, with why (the sales page
    says "retrying")."""
    ProposalRender.objects.filter(pk=render_id, status=RenderStatus.RENDERING).update(
        status=RenderStatus.PENDING,
        heartbeat_at=None,
        last_error=error[:2000],
        updated_at=timezone.now(),
    )


def outbox_deliver(*, outbox_id: int) -> str:
    """Send one outbox email at most once per claim; returns what happened.

    The conditional UPDATE (queued → sending) lets exactly one worker claim the row; a
    redelivered or duplicated task finds it claimed or sent and does nothing.
    """
    email = (
        OutboxEmail.objects.select_related("render", "acceptance__revision__quote")
        .filter(pk=outbox_id)
        .first()
    )
    if email is None:
        return "missing"
    if email.render is not None and email.render.status != RenderStatus.DONE:
        return "waiting for render"
    claimed = OutboxEmail.objects.filter(pk=outbox_id, status=OutboxStatus.QUEUED).update(
        status=OutboxStatus.SENDING,
        attempts=F("attempts") + 1,
        sending_started_at=timezone.now(),
        updated_at=timezone.now(),
    )
    if not claimed:
        return email.status
    message = EmailMessage(
        # On one line whatever went into it (a buyer's or company's name): a line break
        # in a header makes the message unsendable.
        subject=one_line(email.subject),
        body=email.body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[email.to_email],
        headers={"Message-ID": email.message_id, "X-Outbox-Id": str(email.public_id)},
    )
    if email.render is not None:
        assert email.render.pdf is not None  # a DONE render has its bytes (checked above)
        message.attach(email.render.filename, bytes(email.render.pdf), "application/pdf")
    if email.acceptance is not None:
        record = email.acceptance
        message.attach(record.filename, bytes(record.pdf), "application/pdf")
    try:
        message.message()  # builds the headers: what cannot be built is never sent
    except ValueError as exc:  # BadHeaderError and other malformed headers: for good
        OutboxEmail.objects.filter(pk=outbox_id, status=OutboxStatus.SENDING).update(
            status=OutboxStatus.UNSENDABLE,
            last_error=_("This email cannot be sent: %(reason)s") % {"reason": exc},
            updated_at=timezone.now(),
        )
        logger.error("outbox email %s cannot be sent: %s", outbox_id, exc)
        return OutboxStatus.UNSENDABLE
    try:
        mailers.default.send_messages([message])
    except Exception as exc:  # SMTP refusals, timeouts, connection errors: try again later
        # updated_at too: the retry is scheduled now, so the periodic requeue must not
        # re-enqueue the row while that retry is pending.
        OutboxEmail.objects.filter(pk=outbox_id, status=OutboxStatus.SENDING).update(
            status=OutboxStatus.QUEUED,
            last_error=f"{type(exc).__name__}: {exc}"[:2000],
            updated_at=timezone.now(),
        )
        raise TransientDeliveryError(str(exc)) from exc
    OutboxEmail.objects.filter(pk=outbox_id).update(
        status=OutboxStatus.SENT, sent_at=timezone.now(), last_error=""
    )
    return OutboxStatus.SENT


def outbox_mark_failed(*, outbox_id: int, error: str) -> None:
    """The retry budget is spent: mark the email failed, for now.

    It stays recoverable: `outbox_requeue_stuck` queues it again after
    QUOTES_FAILED_RETRY_AFTER_SECONDS (for QUOTES_FAILED_GIVE_UP_AFTER_SECONDS after it
    was created), and "Send again" works at any time. Staff are told: the quote page's
    delivery badge shows "failed" with the error and the next automatic attempt, and the
    failure is logged as an error.
    """
    updated = (
        OutboxEmail.objects.filter(pk=outbox_id)
        .exclude(status=OutboxStatus.SENT)
        .update(
            status=OutboxStatus.FAILED,
            last_error=f"{error} (retried automatically later)"[:2000],
            updated_at=timezone.now(),
        )
    )
    if updated:
        logger.error("outbox email %s failed after its retries: %s", outbox_id, error)


def outbox_requeue_stuck(*, older_than: timedelta | None = None) -> int:
    """Re-enqueue work a broker or worker outage left behind; returns how many tasks.

    - queued emails whose PDF is ready and that nobody sent for a while → send task;
    - renders still pending after a while (their task lost with a Redis restart) → render
      task;
    - emails stuck in "sending" past the SMTP lease (the worker died mid-send) go back to
      queued: the one place where a message can go out twice (see docs/quotes.md).
    """
    now = timezone.now()
    cutoff = now - (
        older_than
        if older_than is not None
        else timedelta(seconds=settings.QUOTES_REQUEUE_AFTER_SECONDS)
    )
    lease = now - timedelta(seconds=settings.QUOTES_SENDING_LEASE_SECONDS)
    OutboxEmail.objects.filter(status=OutboxStatus.SENDING, sending_started_at__lt=lease).update(
        status=OutboxStatus.QUEUED, updated_at=now, last_error="requeued after sending lease"
    )
    # Emails that spent their retry budget (an outage longer than it) get another one,
    # as long as they are not too old to be worth sending.
    retry_failed_before = now - timedelta(seconds=settings.QUOTES_FAILED_RETRY_AFTER_SECONDS)
    give_up_before = now - timedelta(seconds=settings.QUOTES_FAILED_GIVE_UP_AFTER_SECONDS)
    OutboxEmail.objects.filter(
        status=OutboxStatus.FAILED,
        updated_at__lte=retry_failed_before,
        created_at__gte=give_up_before,
    ).filter(Q(render__isnull=True) | Q(render__status=RenderStatus.DONE)).update(
        status=OutboxStatus.QUEUED, updated_at=cutoff
    )
    count = 0
    # A render being rendered keeps a lease (services/jobs.py); `jobs_recover` takes up one
    # whose worker died, within seconds. Here: renders whose task was lost (a Redis restart).
    stale_renders = ProposalRender.objects.filter(
        status=RenderStatus.PENDING, updated_at__lte=cutoff
    )
    for render_id in stale_renders.values_list("pk", flat=True):
        ProposalRender.objects.filter(pk=render_id).update(updated_at=now)
        enqueue("render_proposal", render_id, priority=PRIORITY_BATCH)
        count += 1
    stuck = OutboxEmail.objects.filter(status=OutboxStatus.QUEUED, updated_at__lte=cutoff).filter(
        Q(render__isnull=True) | Q(render__status=RenderStatus.DONE)
    )
    for email_id in stuck.values_list("pk", flat=True):
        OutboxEmail.objects.filter(pk=email_id).update(updated_at=now)
        enqueue("send_email", email_id, priority=PRIORITY_BATCH)
        count += 1
    return count
