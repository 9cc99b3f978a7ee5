"""A draft's commercial terms beside its lines: the payment schedule (deposit and
milestones) and how each support line is billed (up front or yearly)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from ..billing import LineBilling, ScheduleError, clean_schedule
from ..models import LineKind, QuoteLine, QuoteRevision
from .drafts import locked_draft
from .errors import QuoteError


@transaction.atomic
def revision_set_payment_terms(
    *,
    revision: QuoteRevision,
    schedule: Sequence[Mapping[str, Any]],
    support_billing: Mapping[int, str] | None = None,
) -> QuoteRevision:
    """Set a draft's payment schedule (milestones that add up to 100 %) and the billing of
    its support lines (line id → "upfront" or "yearly"). All or nothing: a bad milestone or
    billing changes neither."""
    revision = locked_draft(revision)
    try:
        cleaned = clean_schedule(schedule)
    except ScheduleError as exc:
        raise QuoteError(str(exc)) from exc
    support = {
        line.pk: line for line in QuoteLine.objects.filter(revision=revision, kind=LineKind.SUPPORT)
    }
    changed: list[QuoteLine] = []
    for line_id, billing in (support_billing or {}).items():
        line = support.get(line_id)
        if line is None:
            raise QuoteError(_("That support line is not on this revision."))
        if billing not in LineBilling.values:
            raise QuoteError(_("Choose up front or yearly billing."))
        if line.billing != billing:
            line.billing = billing
            changed.append(line)
    QuoteLine.objects.bulk_update(changed, ["billing"])
    revision.payment_schedule = cleaned
    revision.save(update_fields=["payment_schedule"])
    return revision
