"""Leads from the calculator's "email me this as PDF": rate limits, routing to a team, the PDF."""

from __future__ import annotations

import hashlib
import re
import time

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ..models import (
    EmailKind,
    Lead,
    OutboxEmail,
    ProposalRender,
    Team,
)
from .analysis import calculator_analysis, tco_snapshot
from .delivery import _enqueue
from .errors import RateLimited


def lead_rate_limited(*, email: str, ip: str | None) -> bool:
    """Per-hour limits per recipient address, per client address and for everyone together.

    Counters live in the shared cache (Redis in production, so every web process counts
    together); each request counts against every limit, refused ones included.
    """
    per_hour = settings.QUOTES_LEAD_REQUESTS_PER_HOUR
    hour = int(time.time() // 3600)
    limits = [
        (
            f"quotes:lead:email:{hashlib.sha256(email.lower().encode()).hexdigest()}:{hour}",
            per_hour,
        ),
        (f"quotes:lead:all:{hour}", settings.QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL),
    ]
    if ip:
        limits.append((f"quotes:lead:ip:{ip}:{hour}", per_hour))
    limited = False
    for key, limit in limits:
        cache.add(key, 0, timeout=3700)
        try:
            count = cache.incr(key)
        except ValueError:
            count = 1
        limited = limited or count > limit
    return limited


def display_name(name: str) -> str:
    """A visitor's name as it may appear in an email we send: letters, spaces and . ' -
    only (no links, addresses or markup), at most 60 characters.

    >>> display_name("Ann-Marie O'Neil"), display_name("Win $$$ at http://spam.example <b>")
    ("Ann-Marie O'Neil", 'Win at http spam.example b')
    """
    kept = "".join(ch if ch.isalpha() or ch in " .'-" else " " for ch in name)
    kept = re.sub(r"\.{2,}", ".", " ".join(kept.split()))
    return kept[:60].strip()


def lead_team() -> Team | None:
    """The sales team a new calculator lead goes to.

    QUOTES_LEADS_TEAM names it when set; otherwise leads go round the teams (the team with
    the fewest leads, by name on a tie). Without any team the lead is seen by staff only.
    """
    if settings.QUOTES_LEADS_TEAM:
        named = Team.objects.filter(name=settings.QUOTES_LEADS_TEAM).first()
        if named is not None:
            return named
    return Team.objects.annotate(lead_count=Count("leads")).order_by("lead_count", "name").first()


@transaction.atomic
def lead_request_pdf(
    *,
    name: str,
    company: str,
    email: str,
    query: str,
    language: str,
    ip_address: str | None,
    idempotency_key: str,
) -> Lead:
    key = f"lead:{idempotency_key}"
    existing = OutboxEmail.objects.filter(idempotency_key=key).select_related("lead").first()
    if existing is not None and existing.lead is not None:
        return existing.lead
    if lead_rate_limited(email=email, ip=ip_address):
        raise RateLimited(_("Too many requests for this address; please try again in an hour."))
    # Only the validated calculator inputs, re-serialised, go further: never the raw query.
    analysis, canonical = calculator_analysis(query=query)
    lead = Lead.objects.create(
        name=name.strip(),
        company=company.strip(),
        email=email.strip(),
        consent_at=timezone.now(),
        language=language,
        ip_address=ip_address,
        team=lead_team(),
        tco=tco_snapshot(analysis=analysis, query=canonical, language=language),
    )
    render = ProposalRender.objects.create(lead=lead, language=language)
    with translation.override(language):
        subject = _("Your GPU cost analysis")
        # A fixed template: the only visitor text in it is the sanitised name.
        body = render_to_string(
            "quotes/email/lead.txt",
            {
                "name": display_name(lead.name),
                "calculator_url": settings.SITE_URL.rstrip("/")
                + reverse("tco:calculator")
                + "?"
                + canonical,
            },
        )
    OutboxEmail.objects.create(
        idempotency_key=key,
        kind=EmailKind.LEAD_PDF,
        to_email=lead.email,
        subject=subject,
        body=body,
        render=render,
        lead=lead,
    )
    _enqueue("render_proposal", render.pk)
    return lead
