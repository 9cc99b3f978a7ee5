"""The buyer's page after an answer, and what counts as viewing it (issue 32, finding 16).

Before: the thank-you page was the answer to the POST (a refresh posted again and got a
400), and the GET of the link marked the revision "viewed", so mail link scanners did.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer

from quotes.models import Quote, Status
from tests.quotes.test_acceptance import BROWSER, _token, rendered_quote

__all__ = ["rendered_quote"]  # a fixture
pytestmark = pytest.mark.django_db


def test_accepting_redirects_to_a_thank_you_page_that_survives_a_reload(
    client: Client, rendered_quote: Quote
) -> None:
    token = _token(rendered_quote)
    done = reverse("quotes:buyer_done", args=[token])
    assert client.get(done)["Location"] == reverse("quotes:buyer", args=[token])  # not yet
    answer = client.post(
        reverse("quotes:buyer_accept", args=[token]),
        {"terms": "on", "name": "Jan de Vries", "role": "CTO"},
        HTTP_USER_AGENT=BROWSER,
    )
    assert answer.status_code == 302 and answer["Location"] == done
    for _reload in range(2):
        page = client.get(done)
        assert page.status_code == 200
        html = page.content.decode()
        assert "accepted by Jan de Vries" in html and 'id="acceptance-done"' in html
        assert reverse("quotes:buyer_acceptance_pdf", args=[token]) in html


def test_declining_redirects_to_the_thank_you_page_too(
    client: Client, rendered_quote: Quote
) -> None:
    token = _token(rendered_quote)
    answer = client.post(
        reverse("quotes:buyer_decide", args=[token]),
        {"decision": "decline", "name": "Jan", "reason": "price"},
    )
    assert answer.status_code == 302
    page = client.get(answer["Location"])
    assert page.status_code == 200 and "declined by Jan" in page.content.decode()
    assert client.get(answer["Location"]).status_code == 200


def _status(quote: Quote) -> str:
    return str(quote.revisions.get().status)


def test_fetching_the_link_does_not_mark_it_viewed_a_human_action_does(
    client: Client, rendered_quote: Quote
) -> None:
    token = _token(rendered_quote)
    scanner = Client(HTTP_USER_AGENT="Mail link scanner")
    for _ in range(3):
        assert scanner.get(reverse("quotes:buyer", args=[token])).status_code == 200
        assert scanner.head(reverse("quotes:buyer", args=[token])).status_code == 200
    assert _status(rendered_quote) == Status.SENT
    # The page's script reports the buyer's first interaction.
    assert client.get(reverse("quotes:buyer_viewed", args=[token])).status_code == 405
    assert client.post(reverse("quotes:buyer_viewed", args=[token])).status_code == 204
    assert _status(rendered_quote) == Status.VIEWED


def test_downloading_the_pdf_marks_it_viewed(client: Client, rendered_quote: Quote) -> None:
    token = _token(rendered_quote)
    assert client.get(reverse("quotes:buyer_pdf", args=[token])).status_code == 200
    assert _status(rendered_quote) == Status.VIEWED


def test_a_forged_link_cannot_mark_anything(client: Client, rendered_quote: Quote) -> None:
    assert client.post(reverse("quotes:buyer_viewed", args=["not-a-token"])).status_code == 404
    assert _status(rendered_quote) == Status.SENT


@pytest.mark.browser
def test_the_buyers_first_scroll_marks_the_proposal_viewed(
    live_server: LiveServer, page: Page, rendered_quote: Quote, transactional_db: None
) -> None:
    """In a real browser: loading the page leaves it "sent"; a scroll reports the view."""
    import time

    url = live_server.url + reverse("quotes:buyer", args=[_token(rendered_quote)])
    page.goto(url)
    page.wait_for_load_state("networkidle")
    assert _status(rendered_quote) == Status.SENT
    page.mouse.wheel(0, 400)
    deadline = time.monotonic() + 10
    while _status(rendered_quote) != Status.VIEWED and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _status(rendered_quote) == Status.VIEWED
