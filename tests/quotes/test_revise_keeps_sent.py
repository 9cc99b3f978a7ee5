"""Revising a sent proposal does not withdraw it until the new revision is sent (issue 32,
finding 11).

Before: as soon as a draft revision existed, the buyer's open link refused acceptance
("A newer revision of this proposal exists"), before anything new was sent; an abandoned
draft blocked the deal.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from quotes import services
from quotes.models import AcceptanceRecord, Quote, Status
from tests.quotes.conftest import send
from tests.quotes.test_acceptance import BROWSER, _token, finish_render, rendered_quote

__all__ = ["rendered_quote"]  # a fixture
pytestmark = pytest.mark.django_db


def _accept(client: Client, token: str) -> Any:
    return client.post(
        reverse("quotes:buyer_accept", args=[token]),
        {"terms": "on", "name": "Jan de Vries", "role": "CTO"},
        HTTP_USER_AGENT=BROWSER,
    )


def test_the_buyer_can_accept_the_sent_revision_while_a_new_one_is_drafted(
    client: Client, rendered_quote: Quote, sales_user: User
) -> None:
    sent = rendered_quote.revisions.get()
    token = _token(rendered_quote)
    draft = services.quote_revise(revision=sent, actor=sales_user)
    assert draft.status == Status.DRAFT
    page = client.get(reverse("quotes:buyer", args=[token])).content.decode()
    assert "A newer revision" not in page and 'name="terms"' in page
    seller = Client()
    seller.force_login(sales_user)
    detail = seller.get(f"/quotes/{rendered_quote.public_id}/").content.decode()
    assert 'id="still-open"' in detail and "Revision A stays open to the buyer" in detail

    assert _accept(client, token).status_code in (200, 302)
    sent.refresh_from_db()
    assert sent.status == Status.ACCEPTED and AcceptanceRecord.objects.filter(revision=sent)
    # The draft cannot go out on top of an accepted revision.
    with pytest.raises(services.QuoteError, match="accepted revision A meanwhile"):
        send(draft, sales_user)


def test_sending_the_new_revision_is_what_closes_the_old_one(
    client: Client, rendered_quote: Quote, sales_user: User
) -> None:
    sent = rendered_quote.revisions.get()
    token = _token(rendered_quote)
    draft = services.quote_revise(revision=sent, actor=sales_user)
    send(draft, sales_user)
    finish_render(draft)
    page = client.get(reverse("quotes:buyer", args=[token])).content.decode()
    assert 'name="terms"' not in page  # the form is gone
    assert _accept(client, token).status_code == 400
    sent.refresh_from_db()
    assert sent.status != Status.ACCEPTED and not AcceptanceRecord.objects.exists()
    seller = Client()
    seller.force_login(sales_user)
    detail = seller.get(f"/quotes/{rendered_quote.public_id}/").content.decode()
    assert 'id="still-open"' not in detail
