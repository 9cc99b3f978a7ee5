"""The draft guard: a revision changes only while it is a draft, under a row lock."""

from __future__ import annotations

from django.utils.translation import gettext as _

from ..models import (
    QuoteRevision,
    Status,
)
from .errors import RevisionLocked


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
