"""Leads from the calculator's "email me this as PDF": rate limits, routing to a team (LeadRoute),
the team's notice, the PDF; who follows a lead up and its status."""

from __future__ import annotations

import hashlib
import re
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ..models import (
    EmailKind,
    Lead,
    LeadRoute,
    LeadStatus,
    OutboxEmail,
    ProposalRender,
    Team,
)
from .analysis import calculator_analysis, tco_snapshot
from .errors import QuoteError, RateLimited
from .queue import PRIORITY_BATCH, enqueue


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


def lead_team(country: str = "") -> Team | None:
    """The sales team a new calculator lead goes to (rules edited by staff: LeadRoute).

    1. a route for the lead's country names its team;
    2. QUOTES_LEADS_TEAM names one (the setting from before routes);
    3. round robin: the team after the one that got the last routed lead, in name order,
       among the teams of the routes without a country (none: among all teams).
    Without any team the lead is seen by staff only.
    """
    if country:
        route = LeadRoute.objects.filter(country=country.upper()).select_related("team").first()
        if route is not None:
            return route.team
    if settings.QUOTES_LEADS_TEAM:
        named = Team.objects.filter(name=settings.QUOTES_LEADS_TEAM).first()
        if named is not None:
            return named
    pool_ids = list(LeadRoute.objects.filter(country="").values_list("team_id", flat=True))
    pool = Team.objects.filter(pk__in=pool_ids) if pool_ids else Team.objects.all()
    with transaction.atomic():
        # The pool's rows stay locked until the lead is saved (the caller's transaction),
        # so two leads arriving together see each other and go to two teams.
        teams = list(pool.select_for_update().order_by("name"))
        if not teams:
            return None
        last = (
            Lead.objects.filter(team__in=teams)
            .order_by("-created_at", "-pk")
            .values_list("team_id", flat=True)
            .first()
        )
    ids = [team.pk for team in teams]
    if last is None or last not in ids:
        return teams[0]
    return teams[(ids.index(last) + 1) % len(teams)]


def lead_notify_team(*, lead: Lead) -> int:
    """Email each member of the lead's team (with an address) that a lead arrived.

    Through the outbox, once per member (the key names lead and member); returns how many.
    """
    if lead.team is None:
        return 0
    leads_url = settings.SITE_URL.rstrip("/") + reverse("quotes:leads")
    count = 0
    for member in lead.team.members.filter(is_active=True).exclude(email="").order_by("pk"):
        with translation.override(settings.LANGUAGE_CODE):
            subject = _("New lead for %(team)s: %(company)s") % {
                "team": lead.team.name,
                "company": display_name(lead.company) or "-",
            }
            body = render_to_string(
                "quotes/email/lead_notice.txt",
                {
                    "lead": lead,
                    "name": display_name(lead.name),
                    "company": display_name(lead.company),
                    "url": leads_url,
                },
            )
        email, created = OutboxEmail.objects.get_or_create(
            idempotency_key=f"lead-notice:{lead.public_id}:{member.pk}",
            defaults={
                "kind": EmailKind.LEAD_NOTICE,
                "to_email": member.email,
                "subject": subject[:300],
                "body": body,
                "lead": lead,
            },
        )
        if created:  # for the team, not the visitor: behind what buyers wait for
            enqueue("send_email", email.pk, priority=PRIORITY_BATCH)
            count += 1
    return count


def lead_update(*, lead: Lead, owner: Any, status: str) -> Lead:
    """Set who follows a lead up and how far it got. The owner is a member of the lead's
    team (any active staff user for a lead without a team), or nobody."""
    if status not in LeadStatus.values:
        raise QuoteError(_("Unknown lead status."))
    if owner is not None:
        allowed = (
            lead.team.members.filter(pk=owner.pk, is_active=True).exists()
            if lead.team_id
            else owner.is_staff and owner.is_active
        )
        if not allowed:
            raise QuoteError(_("The owner must be a member of the lead's team."))
    lead.owner = owner
    lead.status = status
    lead.save(update_fields=["owner", "status"])
    return lead


def lead_owner_choices(*, lead: Lead) -> Any:
    """Who may own a lead: its team's active members (staff for a lead without a team)."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.filter(is_active=True)
    if lead.team_id:
        return users.filter(sales_teams=lead.team_id).order_by("username")
    return users.filter(is_staff=True).order_by("username")


def lead_mark_quoted(*, lead: Lead, owner: Any) -> None:
    """A quote was started from the lead: it is quoted, and owned by whoever quoted it
    when nobody owned it yet."""
    Lead.objects.filter(pk=lead.pk).update(status=LeadStatus.QUOTED)
    Lead.objects.filter(pk=lead.pk, owner__isnull=True).update(owner=owner)


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
    country: str = "",
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
        country=country.upper(),
        team=lead_team(country),
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
    enqueue("render_proposal", render.pk)
    lead_notify_team(lead=lead)
    return lead
