"""The draft guard: a revision changes only while it is a draft, under a row lock; the
line of a revision that a change is about, and where a new line goes."""

from __future__ import annotations

from django.db.models import Max
from django.utils.translation import gettext as _

from ..models import (
    QuoteLine,
    QuoteRevision,
    Status,
)
from .errors import QuoteError, RevisionLocked


def ensure_draft(revision: QuoteRevision) -> None:
    if revision.status != Status.DRAFT:
        raise RevisionLocked(
            _("Revision %(letter)s has been sent and cannot change; revise the quote instead.")
            % {"letter": revision.letter}
        )


def locked_revision(revision: QuoteRevision) -> QuoteRevision:
    """Re-read the revision under a row lock (the caller's copy may be stale)."""
    return (
        QuoteRevision.objects.select_for_update()
        .select_related("quote__customer")
        .get(pk=revision.pk)
    )


def locked_draft(revision: QuoteRevision) -> QuoteRevision:
    """The revision re-read under a row lock, refused (RevisionLocked) unless it is still
    a draft: how every change to a draft starts."""
    locked = locked_revision(revision)
    ensure_draft(locked)
    return locked


def revision_line(revision: QuoteRevision, line_id: int) -> QuoteLine:
    """The revision's line `line_id`; QuoteError when it is not on it (another revision's
    line, or one removed meanwhile in another tab)."""
    line = QuoteLine.objects.filter(revision=revision, pk=line_id).first()
    if line is None:
        raise QuoteError(_("That line is not on this revision."))
    return line


def next_position(revision: QuoteRevision) -> int:
    """The position after the revision's last line: a new line goes at the end."""
    return (revision.lines.aggregate(m=Max("position"))["m"] or 0) + 1
