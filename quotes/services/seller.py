"""Who sells: the company profile and the sales engineer, as frozen into a sent snapshot."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from ..models import CompanyProfile, SalesProfile


def seller_snapshot() -> dict[str, Any]:
    """The company profile as plain JSON (empty strings when no profile exists yet)."""
    profile = CompanyProfile.current()
    fields = [
        "legal_name",
        "trade_name",
        "street",
        "postal_code",
        "city",
        "country",
        "kvk_number",
        "vat_id",
        "iban",
        "bic",
        "bank_name",
        "phone",
        "email",
        "website",
        "logo",
    ]
    return {name: str(getattr(profile, name, "") or "") for name in fields}


def owner_snapshot(user: User, language: str) -> dict[str, Any]:
    """The sales engineer on the cover: full name, role, phone and email."""
    profile = SalesProfile.objects.filter(user=user).first()
    get_full_name = getattr(user, "get_full_name", lambda: "")
    return {
        "name": get_full_name() or user.get_username(),
        "role": profile.role_for(language) if profile else "",
        "phone": profile.phone if profile else "",
        "email": getattr(user, "email", ""),
    }


def company_terms(language: str) -> str:
    """The company profile's default terms in a language ("" when none are set)."""
    profile = CompanyProfile.current()
    return profile.terms_for(language) if profile else ""
