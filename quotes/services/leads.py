"""Leads from the calculator's "email me this as PDF": rate limits, routing to a team (LeadRoute),
the team's notice, the PDF; who follows a lead up and its status."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from common.challenge import solved, spend
from common.client_ip import client_network
from common.site import site_url
from common.throttle import count, digest, hit, peek, wait_text

from ..models import (
    EmailKind,
    Lead,
    LeadRoute,
    LeadStatus,
    OutboxEmail,
    ProposalRender,
    Team,
)
from .analysis import calculator_analysis, summary_lines, tco_snapshot
from .errors import QuoteError, RateLimited
from .links import lead_confirm_url
from .queue import PRIORITY_BATCH, email_once


@dataclass(frozen=True)
class LeadRefusal:
    message: str  # for the visitor
    challenge: bool  # a solved challenge would let the request through


def _wait_message(text: str, wait: int) -> str:
    return text % {"wait": wait_text(wait)}


def _per_client(*, email: str, ip: str | None) -> tuple[LeadRefusal | None, str | None]:
    """The per-address, per-network and per-recipient limits: (a refusal or None, the
    client's network). Counted in that order; a request refused by one spends none of
    the next."""
    per_hour = settings.QUOTES_LEAD_REQUESTS_PER_HOUR
    busy = _("Too many requests from your network; please try again in %(wait)s.")
    network = client_network(ip) if ip else None
    if ip and network:
        wait = hit(f"lead:a:{ip}", per_hour, 3600)
        if wait is not None:
            return LeadRefusal(_wait_message(busy, wait), challenge=False), network
        wait = hit(f"lead:n:{network}", settings.QUOTES_LEAD_REQUESTS_PER_HOUR_PER_NETWORK, 3600)
        if wait is not None:
            return LeadRefusal(_wait_message(busy, wait), challenge=False), network
    wait = hit(f"lead:e:{digest(email)}", per_hour, 3600)
    if wait is not None:
        text = _("Too many requests for this address; please try again in %(wait)s.")
        return LeadRefusal(_wait_message(text, wait), challenge=False), network
    return None, network


def lead_rate_limit(
    *, email: str, ip: str | None, challenge: str = "", proof: str = ""
) -> LeadRefusal | None:
    """Why this request for the PDF is refused now, or None (docs/security.md).

    1. Per hour, QUOTES_LEAD_REQUESTS_PER_HOUR per client address and per recipient,
       QUOTES_LEAD_REQUESTS_PER_HOUR_PER_NETWORK per network (IPv4 /24, IPv6 /64).
    2. Past QUOTES_LEAD_NETWORK_SHARE_PER_HOUR requests of its network this hour, a
       request needs a solved challenge (common/challenge.py), each taken once.
    3. QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL for everyone together. Past it, a network
       that already had a request through this hour is refused, but a network that had
       none keeps its first one (with a solved challenge): a burst from many networks
       slows the form down and never closes it for a new visitor.
    A request refused by one step spends nothing of the later ones.
    """
    refusal, network = _per_client(email=email, ip=ip)
    if refusal is not None:
        return refusal
    now = time.time()
    over_budget = peek("lead:all", 3600, now) >= settings.QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL
    admitted_key = f"lead:in:{network or 'unknown'}"
    if over_budget and peek(admitted_key, 3600, now) > 0:
        text = _("We are sending too many analyses just now; please try again in %(wait)s.")
        return LeadRefusal(_wait_message(text, 3600 - int(now) % 3600), challenge=False)
    seen = peek(f"lead:n:{network}", 3600, now) if network else 0
    needs_proof = over_budget or seen > settings.QUOTES_LEAD_NETWORK_SHARE_PER_HOUR
    if needs_proof and not (solved(challenge, proof) and spend(challenge)):
        text = _("Your browser is finishing a quick check; please send the form again.")
        return LeadRefusal(text, challenge=True)
    count("lead:all", 3600, now)
    count(admitted_key, 3600, now)
    return None


def _safe_text(text: str, allowed: Callable[[str], bool], limit: int) -> str:
    """`text` with each character not `allowed` made a space, white space and runs of
    dots folded to one, cut to `limit` characters: what a visitor typed, made safe to
    show in an email or on a cover."""
    kept = "".join(ch if allowed(ch) else " " for ch in text)
    kept = re.sub(r"\.{2,}", ".", " ".join(kept.split()))
    return kept[:limit].strip()


def display_name(name: str) -> str:
    """A visitor's name as it may appear in an email we send: letters, spaces and . ' -
    only (no links, addresses or markup), at most 60 characters.

    >>> display_name("Ann-Marie O'Neil"), display_name("Win $$$ at http://spam.example <b>")
    ("Ann-Marie O'Neil", 'Win at http spam.example b')
    """
    return _safe_text(name, lambda ch: ch.isalpha() or ch in " .'-", 60)


def display_company(company: str) -> str:
    """A visitor's company as it may appear on the analysis' cover and in our emails:
    letters, digits, spaces and . , & ' ( ) - only (no links, addresses, markup or
    line breaks), at most 80 characters.

    >>> display_company("3M Nederland B.V."), display_company("Acme & Co\\r\\n<b>http://x.example")
    ('3M Nederland B.V.', 'Acme & Co b http x.example')
    """
    return _safe_text(company, lambda ch: ch.isalnum() or ch in " .,&'()-", 80)


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
    leads_url = site_url(reverse("quotes:leads"))
    count = 0
    for member in lead.team.members.filter(is_active=True).exclude(email="").order_by("pk"):
        with translation.override(settings.LANGUAGE_CODE):
            subject = _("New lead for %(team)s: %(company)s") % {
                "team": lead.team.name,
                "company": display_company(lead.company) or "-",
            }
            body = render_to_string(
                "quotes/email/lead_notice.txt",
                {
                    "lead": lead,
                    "name": display_name(lead.name),
                    "company": display_company(lead.company),
                    "url": leads_url,
                },
            )
        count += email_once(
            key=f"lead-notice:{lead.public_id}:{member.pk}",
            kind=EmailKind.LEAD_NOTICE,
            to=member.email,
            subject=subject,
            body=body,
            priority=PRIORITY_BATCH,  # for the team, not the visitor: behind what buyers wait for
            lead=lead,
        )
    return count


def lead_update(*, lead: Lead, owner: Any, status: str) -> Lead:
    """Set who follows a lead up and how far it got. The owner is a member of the lead's
    team (any active staff user for a lead without a team), or nobody."""
    if status not in LeadStatus.values:
        raise QuoteError(_("Unknown lead status."))
    if owner is not None:
        allowed = (
            lead.team.members.filter(pk=owner.pk, is_active=True).exists()
            if lead.team is not None
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
    challenge: str = "",
    proof: str = "",
) -> Lead:
    """A lead for the calculator analysis, and an email asking to confirm the address.

    Nothing seller-branded goes to an address before its owner asks for it: the PDF is
    rendered and sent, and the sales team told, only once the link in that email has
    been followed and confirmed (lead_confirm). The confirmation email is a fixed text
    with no word of the visitor's in it, so the form relays nothing.
    """
    key = f"lead:{idempotency_key}"
    existing = OutboxEmail.objects.filter(idempotency_key=key).select_related("lead").first()
    if existing is not None and existing.lead is not None:
        return existing.lead
    refusal = lead_rate_limit(email=email, ip=ip_address, challenge=challenge, proof=proof)
    if refusal is not None:
        raise RateLimited(refusal.message, challenge=refusal.challenge)
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
    with translation.override(language):
        subject = _("Please confirm your address for the GPU cost analysis")
        body = render_to_string(
            "quotes/email/lead_confirm.txt",
            {"url": site_url(lead_confirm_url(lead=lead))},
        )
    email_once(
        key=key, kind=EmailKind.LEAD_CONFIRM, to=lead.email, subject=subject, body=body, lead=lead
    )
    return lead


@transaction.atomic
def lead_confirm(*, lead: Lead) -> Lead:
    """The visitor confirmed the address: render and send the PDF, tell the team (once)."""
    lead = Lead.objects.select_for_update().get(pk=lead.pk)
    if lead.confirmed_at is not None:
        return lead
    lead.confirmed_at = timezone.now()
    lead.save(update_fields=["confirmed_at"])
    render = ProposalRender.objects.create(lead=lead, language=lead.language)
    with translation.override(lead.language):
        subject = _("Your GPU cost analysis")
        # A fixed template: the only visitor text in it is the sanitised name.
        body = render_to_string(
            "quotes/email/lead.txt",
            {
                "name": display_name(lead.name),
                "summary": summary_lines(lead.tco),
                "calculator_url": site_url(
                    reverse("tco:calculator") + "?" + (lead.tco or {}).get("query", "")
                ),
            },
        )
    email_once(
        key=f"lead-pdf:{lead.public_id}",
        kind=EmailKind.LEAD_PDF,
        to=lead.email,
        subject=subject,
        body=body,
        render=render,
        lead=lead,
    )
    lead_notify_team(lead=lead)
    return lead
