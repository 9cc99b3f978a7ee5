"""Who may quote (sales teams) and the customers they quote for."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from catalog.models import PriceTier

from ..models import (
    Customer,
    Team,
)


def is_sales(user: Any) -> bool:
    """Sales engineers (members of the "sales" group) and staff reach the quote pages."""
    if not (user.is_authenticated and user.is_active):
        return False
    return bool(user.is_staff or user.groups.filter(name="sales").exists())


def team_for(*, user: User) -> Team | None:
    return Team.objects.filter(members=user).order_by("pk").first()


def customer_create(
    *,
    team: Team,
    company: str,
    contact_name: str,
    email: str,
    country: str,
    vat_number: str = "",
    language: str = "en",
) -> Customer:
    customer = Customer(
        team=team,
        company=company.strip(),
        contact_name=contact_name.strip(),
        email=email.strip(),
        country=country.upper(),
        vat_number=vat_number.strip().upper().replace(" ", ""),
        language=language,
    )
    customer.full_clean()
    customer.save()
    return customer


def customer_set_tier(*, customer: Customer, tier: PriceTier | None) -> Customer:
    """The tier the customer buys at (None: list price); new lines and re-pricing of its
    drafts follow it (docs/quotes.md, "Price books and tiers")."""
    customer.tier = tier
    customer.save(update_fields=["tier"])
    return customer
