"""Four eyes on a margin below the floor (issue 32, finding 8): the sales manager who asked
cannot decide, and the one who decides must belong to the quote's team (staff too).

Before: a sales manager requested approval of their own below-floor margin, approved it
and sent; a staff manager of another team could decide on any team's quote.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from quotes import services
from quotes.models import ApprovalState, Quote, Status
from tests.quotes.conftest import send
from tests.quotes.test_sales_desk import _below_floor

pytestmark = pytest.mark.django_db


def _manager(
    make_sales_user: Callable[..., User], name: str, team: str | None = "Benelux", **flags: Any
) -> Any:
    user = make_sales_user(name, team=team)
    user.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    for flag, value in flags.items():
        setattr(user, flag, value)
    user.save()
    return user


def test_the_manager_who_asked_cannot_approve_and_so_cannot_send(
    client: Client, draft_quote: Quote, make_sales_user: Callable[..., User]
) -> None:
    boss = _manager(make_sales_user, "boss")
    revision = _below_floor(draft_quote.revisions.get())
    services.approval_request(revision=revision, actor=boss)
    with pytest.raises(services.QuoteError, match="another sales manager of the team decides"):
        services.approval_decide(revision=revision, actor=boss, approve=True)
    # Through the page: the decision form is not offered, and posting it changes nothing.
    client.force_login(boss)
    detail = client.get(f"/quotes/{draft_quote.public_id}/").content.decode()
    assert 'id="approve-button"' not in detail
    answer = client.post(
        reverse("quotes:approval_decide", args=[revision.public_id]),
        {"decision": "approve"},
        follow=True,
    )
    assert "another sales manager of the team decides" in answer.content.decode()
    revision.refresh_from_db()
    assert revision.approval_state == ApprovalState.REQUESTED
    with pytest.raises(services.QuoteError, match="has not decided"):
        send(revision, boss)


def test_a_manager_outside_the_quotes_team_cannot_decide_even_as_staff(
    client: Client, draft_quote: Quote, sales_user: User, make_sales_user: Callable[..., User]
) -> None:
    outsider = _manager(make_sales_user, "nils", team="Nordics", is_staff=True)
    revision = _below_floor(draft_quote.revisions.get())
    services.approval_request(revision=revision, actor=sales_user)
    with pytest.raises(services.QuoteError, match="of the quote's team"):
        services.approval_decide(revision=revision, actor=outsider, approve=True)
    client.force_login(outsider)  # staff see every team's quotes, but not to approve them
    detail = client.get(f"/quotes/{draft_quote.public_id}/").content.decode()
    assert 'id="approve-button"' not in detail
    revision.refresh_from_db()
    assert revision.approval_state == ApprovalState.REQUESTED


def test_another_manager_of_the_team_approves_and_the_quote_goes_out(
    client: Client, draft_quote: Quote, make_sales_user: Callable[..., User]
) -> None:
    boss = _manager(make_sales_user, "boss")
    marta = _manager(make_sales_user, "marta")
    revision = _below_floor(draft_quote.revisions.get())
    services.approval_request(revision=revision, actor=boss)
    client.force_login(marta)
    detail = client.get(f"/quotes/{draft_quote.public_id}/").content.decode()
    assert 'id="approve-button"' in detail
    client.post(
        reverse("quotes:approval_decide", args=[revision.public_id]), {"decision": "approve"}
    )
    revision.refresh_from_db()
    assert (revision.approval_state, revision.approval_decided_by) == (
        ApprovalState.APPROVED,
        marta,
    )
    send(revision, boss)
    revision.refresh_from_db()
    assert revision.status == Status.SENT
