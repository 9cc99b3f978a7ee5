"""Follow-up before a sent quote expires (docs/quotes.md, "Reminders before expiry").

QUOTES_REMINDER_DAYS before a sent revision's validity date, while the buyer has not
answered, its owner gets a reminder, and the buyer one with the link to the proposal when
the team asks for it (``Team.remind_buyers``). Each reminder goes through the outbox under
an idempotency key per revision and recipient, so the daily run sends it exactly once,
whichever day it first finds the revision. Alternatives (options B–D) share option A's
proposal and link: the reminder is for option A only.
"""

from __future__ import annotations

from datetime import date, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from ..models import EmailKind, QuoteRevision, Status
from .links import buyer_url, quote_url
from .queue import PRIORITY_BATCH, email_once


def revisions_to_remind(*, today: date) -> QuerySet[QuoteRevision]:
    """Option A revisions awaiting the buyer's answer whose validity ends within
    QUOTES_REMINDER_DAYS (today included), that no newer sent revision replaced."""
    last_day = today + timedelta(days=settings.QUOTES_REMINDER_DAYS)
    newer = QuoteRevision.objects.filter(
        quote_id=OuterRef("quote_id"), seq__gt=OuterRef("seq"), option_of__isnull=True
    ).exclude(status=Status.DRAFT)
    return (
        QuoteRevision.objects.filter(
            option_of__isnull=True,
            status__in=[Status.SENT, Status.VIEWED],
            valid_until__gte=today,
            valid_until__lte=last_day,
        )
        .exclude(Exists(newer))
        .select_related("quote__owner", "quote__customer", "quote__team")
        .order_by("pk")
    )


def _queue_reminder(
    revision: QuoteRevision, recipient: str, to: str, subject: str, body: str
) -> bool:
    """Queue a reminder once per revision and recipient ("owner" or "buyer"); False when
    it was queued before."""
    return email_once(
        key=f"reminder:{revision.public_id}:{recipient}",
        kind=EmailKind.REMINDER,
        to=to,
        subject=subject,
        body=body,
        priority=PRIORITY_BATCH,  # a reminder is never ahead of a proposal someone waits for
        revision=revision,
    )


def _owner_reminder(revision: QuoteRevision) -> bool:
    quote = revision.quote
    if not quote.owner.email:
        return False
    with translation.override(settings.LANGUAGE_CODE):  # the sales desk's language
        subject = _("%(number)s rev. %(letter)s expires on %(date)s without an answer") % {
            "number": quote.number,
            "letter": revision.letter,
            "date": date_format(revision.valid_until, "DATE_FORMAT"),
        }
        body = render_to_string(
            "quotes/email/reminder_owner.txt",
            {"revision": revision, "url": quote_url(quote=quote)},
        )
    return _queue_reminder(revision, "owner", quote.owner.email, subject, body)


def _buyer_reminder(revision: QuoteRevision) -> bool:
    customer = revision.quote.customer
    with translation.override(customer.language):
        subject = _("Reminder: proposal %(number)s is valid until %(date)s") % {
            "number": revision.quote.number,
            "date": date_format(revision.valid_until, "DATE_FORMAT"),
        }
        body = render_to_string(
            "quotes/email/reminder_buyer.txt",
            {
                "revision": revision,
                "customer": customer,
                "owner": (revision.snapshot or {}).get("owner") or {},
                "url": buyer_url(revision=revision),
            },
        )
    return _queue_reminder(revision, "buyer", customer.email, subject, body)


def quotes_remind(*, today: date | None = None) -> int:
    """Queue the reminders due today; returns how many were new (the daily beat task)."""
    today = today or timezone.localdate()
    queued = 0
    for revision in revisions_to_remind(today=today):
        queued += _owner_reminder(revision)
        if revision.quote.team.remind_buyers:
            queued += _buyer_reminder(revision)
    return queued
