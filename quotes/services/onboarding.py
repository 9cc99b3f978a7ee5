"""Getting a new sales engineer into a team: staff join or create one in one click."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from ..models import Team
from .errors import QuoteError


@transaction.atomic
def team_join(*, user: Any, team: Team | None = None, new_name: str = "") -> Team:
    """Staff only: add ``user`` to ``team``, or to a new team called ``new_name``."""
    if not (user.is_authenticated and user.is_active and user.is_staff):
        raise QuoteError(
            _("Only staff can join or create a sales team here; ask an administrator.")
        )
    if team is None:
        name = " ".join(new_name.split())
        if not name:
            raise QuoteError(_("Pick a team or type the name of a new one."))
        if len(name) > 100:
            raise QuoteError(_("A team name has at most 100 characters."))
        team = Team.objects.filter(name__iexact=name).first() or Team.objects.create(name=name)
    team.members.add(user)
    return team
