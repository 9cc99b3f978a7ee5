"""Fixtures for the API tests: sales users in two teams, their customers and quotes, tokens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from tests.quotes.conftest import customer, draft_quote, make_sales_user, sales_user

__all__ = ["customer", "draft_quote", "make_sales_user", "sales_user"]


@pytest.fixture
def make_token(db: None) -> Callable[..., str]:
    from api.services import token_create

    def make(user: Any, scope: str = "read_write", name: str = "test") -> str:
        _token, raw = token_create(user=user, name=name, scope=scope)
        return raw

    return make


@pytest.fixture
def api() -> Client:
    return Client()


def bearer(raw: str) -> dict[str, Any]:
    """WSGI environ entries for the test client's `**extra` (typed Any by Django)."""
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


@pytest.fixture
def other_team_quote(seed_catalog: object, make_sales_user: Callable[..., Any]) -> Any:
    """A draft quote of another team (Nordics), owned by bert."""
    from quotes import services
    from quotes.models import Team

    bert = make_sales_user("bert", team="Nordics")
    customer = services.customer_create(
        team=Team.objects.get(name="Nordics"),
        company='=HYPERLINK("http://evil.example")',
        contact_name="Nils",
        email="nils@buyer.example",
        country="SE",
    )
    return services.quote_create_from_calculator(
        customer=customer, owner=bert, query="preset=serve-70b"
    )
