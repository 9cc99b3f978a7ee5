"""Leads: routing to a team (by country or in turn), the team's notice, owner and status,
"Start a quote" prefilled from the lead; a staff user without a team is told what to do."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import DjangoCaptureOnCommitCallbacks

from quotes import services
from quotes.models import EmailKind, Lead, LeadRoute, LeadStatus, OutboxEmail, Quote, Team

pytestmark = pytest.mark.django_db


def _lead(name: str, country: str = "", language: str = "en") -> Lead:
    """A lead whose visitor confirmed the address (tests/quotes/test_lead_confirmation.py)."""
    return services.lead_confirm(lead=_requested(name, country, language))


def _requested(name: str, country: str = "", language: str = "en") -> Lead:
    return services.lead_request_pdf(
        name=name,
        company=f"{name} GmbH",
        email=f"{name.lower()}@example.com",
        query="preset=finetune-8b",
        language=language,
        ip_address=None,
        idempotency_key=str(uuid.uuid4()),
        country=country,
    )


@pytest.fixture
def teams(seed_catalog: object, make_sales_user: Callable[..., Any]) -> dict[str, Any]:
    return {
        "anna": make_sales_user("anna", team="Benelux"),
        "bram": make_sales_user("bram", team="Benelux"),
        "dieter": make_sales_user("dieter", team="DACH"),
        "nora": make_sales_user("nora", team="Nordics"),
    }


def test_a_country_route_wins_and_the_other_leads_go_round_the_pool(teams: Any) -> None:
    dach, benelux, nordics = (Team.objects.get(name=n) for n in ("DACH", "Benelux", "Nordics"))
    LeadRoute.objects.create(country="DE", team=dach)
    LeadRoute.objects.create(country="AT", team=dach)
    LeadRoute.objects.create(country="", team=benelux)
    LeadRoute.objects.create(country="", team=nordics)
    assert _lead("Uwe", "DE").team == dach
    assert _lead("Vera", "AT").team == dach
    # No route for FR, none for an unknown country: the pool (Benelux, Nordics) takes turns.
    assert [_lead(n, c).team for n, c in [("Ann", "FR"), ("Bob", ""), ("Cor", "NL")]] == [
        benelux,
        nordics,
        benelux,
    ]


def test_without_routes_every_team_takes_its_turn(teams: Any) -> None:
    teams_seen = [_lead(f"V{i}").team for i in range(6)]
    names = [team.name for team in teams_seen if team is not None]
    assert names == ["Benelux", "DACH", "Nordics", "Benelux", "DACH", "Nordics"]


def test_the_team_is_notified_once_per_member(
    teams: Any, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    LeadRoute.objects.create(country="NL", team=Team.objects.get(name="Benelux"))
    with django_capture_on_commit_callbacks() as callbacks:
        lead = _lead("Henk", "NL")
    notices = OutboxEmail.objects.filter(lead=lead, kind=EmailKind.LEAD_NOTICE)
    assert sorted(n.to_email for n in notices) == [
        "anna@distributor.example",
        "bram@distributor.example",
    ]
    assert all("Henk GmbH" in n.subject and "/quotes/leads/" in n.body for n in notices)
    assert len(callbacks) == 4  # the confirmation email, the PDF render and two notices
    assert services.lead_notify_team(lead=lead) == 0  # never twice
    assert notices.count() == 2


def test_owner_and_status_are_edited_by_the_team_only(client: Client, teams: Any) -> None:
    LeadRoute.objects.create(country="NL", team=Team.objects.get(name="Benelux"))
    lead = _lead("Henk", "NL")
    prefix = f"lead-{lead.public_id}"
    url = reverse("quotes:lead_update", args=[lead.public_id])
    client.force_login(teams["anna"])
    page = client.get(reverse("quotes:leads")).content.decode()
    assert "Henk GmbH" in page and f"?lead={lead.public_id}" in page
    response = client.post(
        url, {f"{prefix}-owner": teams["bram"].pk, f"{prefix}-status": "contacted"}
    )
    assert response.status_code == 302
    lead.refresh_from_db()
    assert (lead.owner, lead.status) == (teams["bram"], LeadStatus.CONTACTED)
    # Someone of another team as owner: refused, nothing changes.
    client.post(url, {f"{prefix}-owner": teams["dieter"].pk, f"{prefix}-status": "lost"})
    lead.refresh_from_db()
    assert (lead.owner, lead.status) == (teams["bram"], LeadStatus.CONTACTED)
    # Another team's engineer neither sees nor edits the lead.
    client.force_login(teams["dieter"])
    assert "Henk GmbH" not in client.get(reverse("quotes:leads")).content.decode()
    assert client.post(url, {f"{prefix}-status": "lost"}).status_code == 404
    assert client.post(url, {"nonsense": "x"}).status_code == 404


def test_start_a_quote_prefills_the_customer_and_marks_the_lead_quoted(
    client: Client, teams: Any
) -> None:
    LeadRoute.objects.create(country="DE", team=Team.objects.get(name="DACH"))
    lead = _lead("Lena", "DE", language="nl")
    client.force_login(teams["dieter"])
    form = client.get(reverse("quotes:new"), {"lead": str(lead.public_id)}).content.decode()
    for value in ("Lena GmbH", "lena@example.com", 'value="Lena"', str(lead.public_id)):
        assert value in form
    assert '<option value="DE" selected>' in form and '<option value="nl" selected>' in form
    response = client.post(
        reverse("quotes:new"),
        {
            "lead": str(lead.public_id),
            "calc": lead.tco["query"],
            "company": "Lena GmbH",
            "contact_name": "Lena",
            "email": "lena@example.com",
            "country": "DE",
            "vat_number": "",
            "language": "nl",
        },
    )
    assert response.status_code == 302
    quote = Quote.objects.get(customer__company="Lena GmbH")
    assert quote.customer.language == "nl" and quote.revisions.get().tco is not None
    lead.refresh_from_db()
    assert lead.status == LeadStatus.QUOTED and lead.owner == teams["dieter"]


def test_a_staff_user_without_a_team_is_told_on_the_first_page_and_joins(
    client: Client, seed_catalog: object
) -> None:
    Team.objects.create(name="Benelux")
    boss = User.objects.create_superuser("boss", "boss@distributor.example", "pw")
    client.force_login(boss)
    page = client.get(reverse("quotes:list")).content.decode()
    assert 'id="onboarding"' in page and "You are not in a sales team yet." in page
    assert reverse("quotes:team_join") in page and "/admin/quotes/team/" in page
    response = client.post(reverse("quotes:team_join"), {"new_name": "  Deal   desk "})
    assert response.status_code == 302
    assert Team.objects.get(name="Deal desk").members.filter(pk=boss.pk).exists()
    assert 'id="onboarding"' not in client.get(reverse("quotes:list")).content.decode()


def test_a_sales_engineer_without_a_team_is_told_whom_to_ask(
    client: Client, make_sales_user: Callable[..., Any]
) -> None:
    loner = make_sales_user("loner", team=None)
    client.force_login(loner)
    page = client.get(reverse("quotes:list")).content.decode()
    assert "Ask an administrator to add you to a sales team" in page
    assert 'id="team-join-form"' not in page
    response = client.post(reverse("quotes:team_join"), {"new_name": "Mine"})
    assert response.status_code == 302 and not Team.objects.filter(name="Mine").exists()


def test_joining_needs_a_team_or_a_name(client: Client, seed_catalog: object) -> None:
    boss = User.objects.create_superuser("boss", "boss@distributor.example", "pw")
    client.force_login(boss)
    response = client.post(reverse("quotes:team_join"), {"team": "999999"}, follow=True)
    assert response.status_code == 200 and not Team.objects.exists()
    response = client.post(reverse("quotes:team_join"), {}, follow=True)
    assert "Pick a team or type the name of a new one." in response.content.decode()
