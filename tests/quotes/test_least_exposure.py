"""Least exposure: public price history names no person or file; leads stay in their team."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pytest_django.fixtures import Settings

from catalog.services import import_price_file
from quotes import services
from quotes.models import Lead, Team
from tests.catalog.price_files import csv_bytes, exported_rows

pytestmark = pytest.mark.django_db
P5 = "aws-p5-48xlarge-od"


def test_public_price_history_shows_staff_and_no_file_names(
    client: Client, seed_catalog: object
) -> None:
    user = User.objects.create_user("pricing-lead-jo", is_staff=True)
    rows = exported_rows("cloud")
    rows[1][rows[0].index("price_per_hour")] = "49.5"
    import_price_file(
        kind="cloud",
        filename="secret-supplier-2026.csv",
        data=csv_bytes(rows),
        source="price import #7: secret-supplier-2026.csv",
        changed_by=user,
    )
    url = f"/catalog/prices/cloud/{rows[1][0]}/"
    public = client.get(url).content.decode()
    assert "pricing-lead-jo" not in public and "secret-supplier" not in public
    assert ">staff<" in public and "price list import" in public
    client.force_login(user)
    staff = client.get(url).content.decode()
    assert "pricing-lead-jo" in staff and "secret-supplier-2026.csv" in staff


def _lead(name: str) -> Lead:
    lead = services.lead_request_pdf(
        name=name,
        company="Co",
        email=f"{name.lower()}@example.com",
        query="preset=finetune-8b",
        language="en",
        ip_address=None,
        idempotency_key=str(uuid.uuid4()),
    )
    return services.lead_confirm(lead=lead)  # only confirmed leads reach the team


def test_leads_are_seen_only_by_their_team(
    seed_catalog: object, make_sales_user: Callable[..., Any], settings: Settings
) -> None:
    benelux = make_sales_user("anna", team="Benelux")
    dach = make_sales_user("dieter", team="DACH")
    staff = User.objects.create_user("boss", is_staff=True)
    leads = [_lead(f"Visitor{i}") for i in range(4)]
    # Round the teams: each gets two.
    assert sorted(lead.team.name for lead in leads if lead.team) == [
        "Benelux",
        "Benelux",
        "DACH",
        "DACH",
    ]
    settings.QUOTES_LEADS_TEAM = "DACH"
    assert _lead("Routed").team == Team.objects.get(name="DACH")

    def visible(user: Any) -> set[str]:
        client = Client()
        client.force_login(user)
        html = client.get("/quotes/leads/").content.decode()
        return {lead.name for lead in Lead.objects.all() if lead.email in html}

    assert visible(benelux) == {lead.name for lead in Lead.objects.filter(team__name="Benelux")}
    assert visible(dach) == {lead.name for lead in Lead.objects.filter(team__name="DACH")}
    assert visible(benelux).isdisjoint(visible(dach))
    assert visible(staff) == set(Lead.objects.values_list("name", flat=True))
