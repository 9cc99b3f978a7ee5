"""Signed links: a buyer's link to a sent revision (expires with its validity) and a lead's."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from common.site import site_url

from ..models import (
    Lead,
    Quote,
    QuoteRevision,
    Status,
)
from .errors import BuyerLinkExpired, BuyerLinkInvalid

BUYER_LINK_SALT = "quotes.buyer-link"
LEAD_LINK_SALT = "quotes.lead-pdf"
# The link in the confirmation email: only the mailbox gets it (the status link above is
# shown to whoever posted the form), valid for a week.
LEAD_CONFIRM_SALT = "quotes.lead-confirm"
LEAD_CONFIRM_DAYS = 7


def buyer_link_token(*, revision: QuoteRevision) -> str:
    """A signed token naming the revision; it expires at the end of the validity date."""
    end = timezone.make_aware(datetime.combine(revision.valid_until, datetime.max.time()))
    max_age = max(0, int((end - timezone.now()).total_seconds()))
    return signing.TimestampSigner(salt=BUYER_LINK_SALT).sign_object(
        {"r": str(revision.public_id), "a": max_age}
    )


def revision_from_token(*, token: str) -> QuoteRevision:
    signer = signing.TimestampSigner(salt=BUYER_LINK_SALT)
    try:
        payload = signer.unsign_object(token)
        signer.unsign_object(token, max_age=int(payload["a"]))
    except signing.SignatureExpired as exc:
        raise BuyerLinkExpired(_("This link has expired.")) from exc
    except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
        raise BuyerLinkInvalid(_("This link is not valid.")) from exc
    revision = (
        QuoteRevision.objects.select_related("quote__customer", "quote__owner")
        .filter(public_id=payload.get("r"))
        .first()
    )
    if revision is None or revision.status == Status.DRAFT:
        raise BuyerLinkInvalid(_("This link is not valid."))
    if revision.status == Status.EXPIRED:
        raise BuyerLinkExpired(_("This link has expired."))
    return revision


def buyer_url(*, revision: QuoteRevision) -> str:
    path = reverse("quotes:buyer", kwargs={"token": buyer_link_token(revision=revision)})
    return site_url(path)


def quote_url(*, quote: Quote) -> str:
    """The full web address of a quote's sales page (the sales desk's emails link to it)."""
    return site_url(reverse("quotes:detail", kwargs={"public_id": quote.public_id}))


def lead_token(*, lead: Lead) -> str:
    return signing.TimestampSigner(salt=LEAD_LINK_SALT).sign(str(lead.public_id))


def lead_from_token(*, token: str) -> Lead:
    try:
        public_id = signing.TimestampSigner(salt=LEAD_LINK_SALT).unsign(
            token, max_age=timedelta(days=settings.QUOTE_VALIDITY_DAYS)
        )
        return Lead.objects.get(public_id=public_id)
    except (signing.BadSignature, Lead.DoesNotExist, ValueError) as exc:
        raise BuyerLinkInvalid(_("This link is not valid.")) from exc


def lead_confirm_url(*, lead: Lead) -> str:
    token = signing.TimestampSigner(salt=LEAD_CONFIRM_SALT).sign(str(lead.public_id))
    return reverse("quotes:lead_confirm", kwargs={"token": token})


def lead_from_confirm_token(*, token: str) -> Lead:
    try:
        public_id = signing.TimestampSigner(salt=LEAD_CONFIRM_SALT).unsign(
            token, max_age=timedelta(days=LEAD_CONFIRM_DAYS)
        )
        return Lead.objects.get(public_id=public_id)
    except (signing.BadSignature, Lead.DoesNotExist, ValueError) as exc:
        raise BuyerLinkInvalid(_("This link is not valid.")) from exc
