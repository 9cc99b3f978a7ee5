"""The buyer's acceptance with evidence: terms ticked, name and role typed, the exact PDF.

Accepting records the time, the client's IP address and browser, and the SHA-256 of the
proposal PDF the buyer was offered (and checks that it is the one on record); it appends an
acceptance page to a new copy of that PDF, stores the copy with its own SHA-256 and emails
it to the buyer and to the quote's owner through the outbox.
"""

from __future__ import annotations

import hashlib
import io
from typing import Any

from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from common.text import one_line

from ..models import (
    AcceptanceRecord,
    EmailKind,
    ProposalRender,
    QuoteRevision,
    RenderStatus,
    Status,
)
from .drafts import locked_revision
from .errors import QuoteError
from .options import answer_alternatives, chosen_option
from .queue import email_once
from .revisions import ensure_answerable


def _accepted(option: dict[str, Any]) -> dict[str, Any]:
    """What the signed page takes from the accepted option's snapshot."""
    return {key: option[key] for key in ("lines", "totals", "vat") if key in option}


def accepted_render(*, revision: QuoteRevision) -> ProposalRender | None:
    """The proposal PDF a buyer accepts: the finished render in the buyer's language
    (another finished one when that is missing)."""
    language = (revision.snapshot or {}).get("language", "en")
    done = revision.renders.filter(status=RenderStatus.DONE)
    return done.filter(language=language).first() or done.order_by("pk").first()


def acceptance_page_pdf(*, record: AcceptanceRecord, snapshot: dict[str, Any]) -> bytes:
    """The one-page acceptance statement, in the buyer's language, with the proposal's
    letterhead: what was accepted (the quoted lines, the total) and the evidence."""
    from ..pdf import html_to_pdf, revision_context

    with translation.override(record.language):
        context = {**revision_context(snapshot), "record": record}
        html = render_to_string("quotes/pdf/acceptance.html", context)
    return html_to_pdf(html, {}).pdf


def append_pages(original: bytes, extra: bytes) -> tuple[bytes, int]:
    """A new PDF: every page of ``original``, then every page of ``extra``."""
    from pypdf import PdfReader, PdfWriter  # loads with the first acceptance, not at start-up

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(original)))
    writer.append(PdfReader(io.BytesIO(extra)))
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue(), len(writer.pages)


def _acceptance_email(*, record: AcceptanceRecord, to: str, language: str, key: str) -> None:
    revision = record.revision
    with translation.override(language):
        subject = _("%(number)s rev. %(letter)s accepted by %(name)s") % {
            "number": revision.quote.number,
            "letter": revision.letter,
            "name": record.name,
        }
        body = render_to_string(
            "quotes/email/acceptance.txt", {"record": record, "revision": revision}
        )
    email_once(
        key=key,
        kind=EmailKind.ACCEPTANCE,
        to=to,
        subject=subject,
        body=body,
        revision=revision,
        acceptance=record,
    )


@transaction.atomic
def revision_accept(
    *,
    revision: QuoteRevision,
    name: str,
    role: str,
    po_number: str = "",
    terms_accepted: bool,
    ip_address: str | None,
    user_agent: str,
    offered_sha256: str = "",
    option: str = "",
) -> AcceptanceRecord:
    """Accept a sent revision with evidence (see the module docstring).

    ``offered_sha256`` is the hash of the PDF shown to the buyer when the page was
    loaded; a different one (another PDF was shown) is refused. A proposal with options
    needs ``option``, the letter of the one accepted; the signed page states it.
    """
    revision = locked_revision(revision)
    ensure_answerable(revision)
    if not terms_accepted:
        raise QuoteError(_("Please tick that you accept the terms."))
    # On one line: the name goes into email subjects, all three onto the signed page.
    name, role, po_number = one_line(name), one_line(role), one_line(po_number)
    if not name:
        raise QuoteError(_("Please type your name."))
    if not role:
        raise QuoteError(_("Please type your role."))
    render = accepted_render(revision=revision)
    if render is None or not render.pdf:
        raise QuoteError(
            _("The proposal PDF is still being prepared; please try again in a minute.")
        )
    original = bytes(render.pdf)
    accepted_sha256 = hashlib.sha256(original).hexdigest()
    if offered_sha256 and offered_sha256 != accepted_sha256:
        raise QuoteError(_("The proposal shown to you is out of date; please reload the page."))
    snapshot = revision.snapshot or {}
    letter, option_name, accepted = chosen_option(revision, option)
    now = timezone.now()
    record = AcceptanceRecord(
        revision=revision,
        render=render,
        name=name[:200],
        role=role[:200],
        po_number=po_number[:100],
        terms_accepted=True,
        accepted_at=now,
        ip_address=ip_address,
        user_agent=user_agent[:500],
        language=snapshot.get("language", render.language),
        accepted_sha256=accepted_sha256,
        option_letter=letter,
        option_name=option_name[:120],
    )
    # The signed page lists what was accepted: the chosen option's lines and totals.
    page = acceptance_page_pdf(record=record, snapshot={**snapshot, **_accepted(accepted)})
    copy, pages = append_pages(original, page)
    record.pdf = copy
    record.sha256 = hashlib.sha256(copy).hexdigest()
    record.pages = pages
    record.save()
    revision.status = Status.ACCEPTED
    revision.decided_at = now
    revision.decided_by_name = name[:200]
    revision.save(update_fields=["status", "decided_at", "decided_by_name"])
    answer_alternatives(revision, status=Status.ACCEPTED, chosen=letter)
    buyer_email = snapshot.get("customer", {}).get("email") or revision.quote.customer.email
    _acceptance_email(
        record=record,
        to=buyer_email,
        language=record.language,
        key=f"accept:{revision.public_id}:buyer",
    )
    owner = revision.quote.owner
    if owner.email:
        _acceptance_email(
            record=record,
            to=owner.email,
            language=settings.LANGUAGE_CODE,
            key=f"accept:{revision.public_id}:owner",
        )
    return record
