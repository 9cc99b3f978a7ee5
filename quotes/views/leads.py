"""Leads (owner, status, "Start a quote") and onboarding a staff user into a sales team."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import selectors, services
from ..forms import LeadUpdateForm, TeamJoinForm
from ..models import Lead, LeadStatus
from .access import sales_required
from .actions import report, valid_data


def lead_for_user(*, user: Any, public_id: Any) -> Lead | None:
    """A lead the user may see (their teams' leads; staff: all), or None."""
    try:
        key = uuid.UUID(str(public_id))
    except (TypeError, ValueError):
        return None
    return selectors.lead_list(user=user).filter(public_id=key).first()


def quote_initial_from_lead(lead: Lead) -> dict[str, Any]:
    """The new-quote form, prefilled from a lead: the customer and the analysis."""
    initial: dict[str, Any] = {
        "company": lead.company,
        "contact_name": lead.name,
        "email": lead.email,
        "language": lead.language,
        "lead": lead.public_id,
        "calc": (lead.tco or {}).get("query", ""),
    }
    if lead.country:
        initial["country"] = lead.country
    return initial


def onboarding_context(user: Any) -> dict[str, Any]:
    """What the first page tells a user who is in no sales team yet."""
    if services.team_for(user=user) is not None:
        return {"needs_team": False}
    return {
        "needs_team": True,
        "team_form": TeamJoinForm() if user.is_staff else None,
        "can_admin_teams": user.is_staff and user.has_perm("quotes.change_team"),
    }


def lead_list_page(request: HttpRequest) -> HttpResponse:
    leads = list(
        selectors.lead_list(user=request.user)
        .select_related("team", "owner")
        .prefetch_related(
            Prefetch(
                "team__members",
                queryset=get_user_model().objects.filter(is_active=True).order_by("username"),
            )
        )[:200]
    )
    staff = get_user_model().objects.filter(is_active=True, is_staff=True).order_by("username")
    rows = []
    for lead in leads:
        owners = lead.team.members.all() if lead.team else staff
        form = LeadUpdateForm(
            owners=owners,
            initial={"owner": lead.owner_id, "status": lead.status},
            prefix=f"lead-{lead.public_id}",
        )
        rows.append({"lead": lead, "form": form, "owners": owners})
    return render(
        request,
        "quotes/leads.html",
        {"leads": leads, "rows": rows, "statuses": LeadStatus.choices},
    )


@require_POST
@sales_required
def lead_update(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    lead = lead_for_user(user=request.user, public_id=public_id)
    if lead is None:
        raise Http404
    form = LeadUpdateForm(
        request.POST,
        owners=services.lead_owner_choices(lead=lead),
        prefix=f"lead-{lead.public_id}",
    )

    def save() -> str:
        data = valid_data(form)
        services.lead_update(lead=lead, owner=data["owner"], status=data["status"])
        return _("Lead %(name)s saved.") % {"name": services.display_name(lead.name)}

    report(request, save)
    return redirect("quotes:leads")


@require_POST
@sales_required
def team_join(request: HttpRequest) -> HttpResponse:
    def join() -> str:
        data = valid_data(TeamJoinForm(request.POST))
        team = services.team_join(user=request.user, team=data["team"], new_name=data["new_name"])
        return _("You are in team %(team)s: you can quote now.") % {"team": team.name}

    report(request, join)
    return redirect("quotes:list")
