"""The sales desk's dead ends (issue 42, item 6; walk-through 6 Dec 2026, N16 and N17).

Before: a disabled "Send to buyer" was the same solid blue as "Preview PDF", its reason a
paragraph away; a sales manager alone in her team could ask for approval of her own
below-floor margin, but no one could give it ("ask one directly").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from quotes import services
from quotes.models import ApprovalState, EmailKind, OutboxEmail, Quote

from .conftest import send
from .test_four_eyes import _manager
from .test_sales_desk import _below_floor

pytestmark = pytest.mark.django_db


def _admin(make_sales_user: Callable[..., User]) -> Any:
    admin = make_sales_user("root", team=None, sales=False)
    admin.is_superuser = admin.is_staff = True
    admin.save()
    return admin


def test_a_blocked_send_looks_disabled_and_says_why_beside_it(
    client: Client, draft_quote: Quote, sales_user: User
) -> None:
    _below_floor(draft_quote.revisions.get())
    client.force_login(sales_user)
    page = client.get(reverse("quotes:detail", args=[draft_quote.public_id])).content.decode()
    row = re.search(r'<p class="action-row">(.*?)</p>', page, re.S)
    assert row is not None
    button, reason = row.group(1).split("</button>")
    assert 'disabled aria-disabled="true" aria-describedby="send-blocked-reason"' in button
    assert 'id="send-blocked-reason"' in reason
    assert "ask a sales manager for approval before sending" in reason
    # Greyed, not the solid blue of an action (static/css/app.css).
    css = finders.find("css/app.css")
    assert isinstance(css, str)
    assert 'button:disabled, button[aria-disabled="true"]' in Path(css).read_text()


def test_a_manager_alone_in_her_team_escalates_to_another_teams_manager(
    client: Client, draft_quote: Quote, make_sales_user: Callable[..., User]
) -> None:
    mia = _manager(make_sales_user, "mia")  # the only manager of Benelux
    nils = _manager(make_sales_user, "nils", team="Nordics")
    revision = _below_floor(draft_quote.revisions.get())
    client.force_login(mia)
    detail = reverse("quotes:detail", args=[draft_quote.public_id])
    page = client.get(detail).content.decode()
    assert "Team Benelux has no other sales manager: who decides?" in page
    assert f'<option value="{nils.pk}">nils (sales manager, another team)</option>' in page

    answer = client.post(
        reverse("quotes:approval_request", args=[revision.public_id]),
        {"note": "Reference customer", "escalate_to": nils.pk},
        follow=True,
    )
    assert "Approval requested from nils, who was emailed." in answer.content.decode()
    asked = OutboxEmail.objects.filter(kind=EmailKind.APPROVAL)
    assert [e.to_email for e in asked] == [nils.email]  # only the one escalated to
    revision.refresh_from_db()
    assert (revision.approval_state, revision.approval_escalated_to) == (
        ApprovalState.REQUESTED,
        nils,
    )
    with pytest.raises(services.QuoteError, match="another sales manager of the team decides"):
        services.approval_decide(revision=revision, actor=mia, approve=True)

    # Nils is not in Benelux, yet sees this draft and decides on it.
    client.force_login(nils)
    page = client.get(detail).content.decode()
    assert 'id="approve-button"' in page and "Escalated to nils, who decides." in page
    client.post(
        reverse("quotes:approval_decide", args=[revision.public_id]), {"decision": "approve"}
    )
    revision.refresh_from_db()
    assert (revision.approval_state, revision.approval_decided_by) == (
        ApprovalState.APPROVED,
        nils,
    )
    send(revision, mia)  # the approval holds: the quote goes out
    # Once sent, the escalation no longer opens Benelux's quote to him.
    assert client.get(detail).status_code == 404


def test_a_waiting_request_is_escalated_to_an_administrator(
    client: Client, draft_quote: Quote, make_sales_user: Callable[..., User]
) -> None:
    mia = _manager(make_sales_user, "mia")
    root = _admin(make_sales_user)
    revision = _below_floor(draft_quote.revisions.get())
    revision = services.approval_request(revision=revision, actor=mia)  # no one in the team
    assert services.team_managers(revision).count() == 0
    client.force_login(mia)
    page = client.get(reverse("quotes:detail", args=[draft_quote.public_id])).content.decode()
    assert 'id="escalate-button"' in page and "root (administrator)" in page
    client.post(
        reverse("quotes:approval_request", args=[revision.public_id]),
        {"note": "", "escalate_to": root.pk},
    )
    revision.refresh_from_db()
    assert revision.approval_escalated_to == root
    services.approval_decide(revision=revision, actor=root, approve=False, reason="Too low")
    revision.refresh_from_db()
    assert revision.approval_state == ApprovalState.REJECTED


def test_no_escalation_past_a_team_that_has_another_manager_nor_to_oneself(
    draft_quote: Quote, sales_user: User, make_sales_user: Callable[..., User]
) -> None:
    mia = _manager(make_sales_user, "mia")
    nils = _manager(make_sales_user, "nils", team="Nordics")
    revision = _below_floor(draft_quote.revisions.get())
    # Anna (engineer) has Mia in her team: she asks Mia, not someone outside it.
    assert not services.needs_escalation(revision, sales_user)
    with pytest.raises(services.QuoteError, match="has another sales manager"):
        services.approval_request(revision=revision, actor=sales_user, escalate_to=nils)
    # Mia alone: a plain engineer of the team is no one to escalate to, nor is she herself.
    assert list(services.escalation_candidates(revision, mia)) == [nils]
    for wrong in (mia, sales_user):
        with pytest.raises(services.QuoteError, match="another team or an administrator"):
            services.approval_request(revision=revision, actor=mia, escalate_to=wrong)
