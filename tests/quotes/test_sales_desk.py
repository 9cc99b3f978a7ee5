"""The sales desk around a margin approval: the team's managers are told, the list finds the
drafts that wait, Send says why it is blocked, and every sales page has unique element ids."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from quotes import services
from quotes.models import Customer, EmailKind, LineKind, LineUnit, OutboxEmail, Quote

from .conftest import send

pytestmark = pytest.mark.django_db


def _manager(make_sales_user: Callable[..., User], name: str, team: str = "Benelux") -> Any:
    user = make_sales_user(name, team=team)
    user.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    return user


def _below_floor(revision: Any) -> Any:
    """A free line sold below its cost: the margin is negative, far below any floor."""
    services.revision_add_free_line(
        revision=revision,
        description="Rack integration",
        quantity=Decimal(1),
        unit=LineUnit.PCS,
        unit_price=Decimal("1000"),
        cost_price=Decimal("900000"),
        kind=LineKind.OTHER,
    )
    return revision


def test_an_approval_request_emails_the_teams_managers_and_the_decision_the_requester(
    draft_quote: Quote, sales_user: User, make_sales_user: Callable[..., User]
) -> None:
    marta = _manager(make_sales_user, "marta")
    _manager(make_sales_user, "nils", team="Nordics")  # another team's manager: not asked
    revision = _below_floor(draft_quote.revisions.get())
    services.approval_request(revision=revision, actor=sales_user, note="Strategic account")

    asked = OutboxEmail.objects.filter(kind=EmailKind.APPROVAL)
    assert [e.to_email for e in asked] == [marta.email]
    notice = asked.get()
    assert draft_quote.number in notice.subject and "Strategic account" in notice.body
    assert f"/quotes/{draft_quote.public_id}/" in notice.body

    services.approval_decide(revision=revision, actor=marta, approve=False, reason="Too low")
    decision = OutboxEmail.objects.filter(kind=EmailKind.APPROVAL, to_email=sales_user.email)
    assert decision.count() == 1
    assert "rejected" in decision.get().subject and "Too low" in decision.get().body


def test_a_manager_who_asks_is_not_asked_and_the_page_says_nobody_was(
    client: Client, draft_quote: Quote, make_sales_user: Callable[..., User]
) -> None:
    boss = _manager(make_sales_user, "boss")
    revision = _below_floor(draft_quote.revisions.get())
    client.force_login(boss)
    response = client.post(
        reverse("quotes:approval_request", args=[revision.public_id]), {"note": ""}, follow=True
    )
    assert OutboxEmail.objects.filter(kind=EmailKind.APPROVAL).count() == 0
    assert "has no other sales manager" in response.content.decode()


def test_the_list_filters_the_drafts_awaiting_approval(
    client: Client,
    seed_catalog: object,
    customer: Customer,
    sales_user: User,
    make_sales_user: Callable[..., User],
) -> None:
    _manager(make_sales_user, "marta")
    waiting = services.quote_create(customer=customer, owner=sales_user, currency="EUR")
    other = services.quote_create(customer=customer, owner=sales_user, currency="EUR")
    services.approval_request(revision=_below_floor(waiting.revisions.get()), actor=sales_user)
    _below_floor(other.revisions.get())  # below the floor, but nobody asked yet
    client.force_login(sales_user)
    page = client.get(reverse("quotes:list"), {"status": "awaiting_approval"}).content.decode()
    assert waiting.number in page and other.number not in page
    everything = client.get(reverse("quotes:list")).content.decode()
    assert waiting.number in everything and other.number in everything
    assert everything.count("awaiting approval</span>") == 1


def test_send_is_disabled_with_its_reason_below_the_floor_and_enabled_after_approval(
    client: Client, draft_quote: Quote, sales_user: User, make_sales_user: Callable[..., User]
) -> None:
    marta = _manager(make_sales_user, "marta")
    revision = _below_floor(draft_quote.revisions.get())
    client.force_login(sales_user)
    url = reverse("quotes:detail", args=[draft_quote.public_id])

    def button(html: str) -> str:
        match = re.search(r'<button type="submit" id="send-button"[^>]*>', html)
        assert match is not None
        return match.group(0)

    page = client.get(url).content.decode()
    assert "disabled" in button(page)
    assert "ask a sales manager for approval before sending" in page
    services.approval_request(revision=revision, actor=sales_user)
    page = client.get(url).content.decode()
    assert "disabled" in button(page) and "waits for a sales manager" in page
    services.approval_decide(revision=revision, actor=marta, approve=True)
    assert "disabled" not in button(client.get(url).content.decode())

    # An inline edit answers with the lines and, out of band, the send form that follows.
    line = revision.lines.get(kind=LineKind.SERVER)
    response = client.post(
        reverse("quotes:line_edit", args=[revision.public_id, line.pk]),
        {
            f"line-{line.pk}-quantity": str(line.quantity + 1),
            f"line-{line.pk}-unit": line.unit,
            f"line-{line.pk}-unit_price": str(line.unit_price),
            f"line-{line.pk}-discount_pct": "0",
        },
        HTTP_HX_REQUEST="true",
    )
    fragment = response.content.decode()
    assert 'id="send-form" hx-swap-oob="true"' in fragment
    assert "disabled" in button(fragment)  # the approval no longer holds for the new lines


def _duplicate_ids(html: str) -> list[str]:
    return [i for i, n in Counter(re.findall(r'\sid="([^"]+)"', html)).items() if n > 1]


def test_every_sales_page_has_unique_element_ids(
    client: Client, draft_quote: Quote, sales_user: User, customer: Customer
) -> None:
    sent = services.quote_create(customer=customer, owner=sales_user, currency="EUR")
    services.revision_add_line(
        revision=sent.revisions.get(),
        catalog_key="item:storage-parallel-fs-500tb",
        quantity=Decimal(1),
    )
    send(sent.revisions.get(), sales_user)
    client.force_login(sales_user)
    for url in (
        reverse("quotes:list"),
        reverse("quotes:detail", args=[draft_quote.public_id]),
        reverse("quotes:detail", args=[sent.public_id]),
        reverse("quotes:customers"),
        reverse("quotes:leads"),
        reverse("quotes:new"),
        reverse("quotes:report"),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert _duplicate_ids(response.content.decode()) == [], url
