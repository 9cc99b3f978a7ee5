"""Quote pages over HTTP: permissions, the builder, buyer links, the calculator's PDF form."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from django.core import signing
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_django.fixtures import DjangoCaptureOnCommitCallbacks, Settings

from quotes import services
from quotes.forms import lead_form_stamp
from quotes.models import Customer, Lead, OutboxEmail, ProposalRender, Quote, QuoteRevision, Status

from .conftest import send

pytestmark = pytest.mark.django_db


def sales_urls(quote: Quote) -> list[tuple[str, str]]:
    """Every sales-only URL for one quote, with its method."""
    revision = quote.revisions.order_by("-seq").first()
    assert revision is not None
    line = revision.lines.first()
    render = ProposalRender.objects.filter(revision=revision).first()
    rid = revision.public_id
    urls = [
        ("get", reverse("quotes:list")),
        ("get", reverse("quotes:new")),
        ("post", reverse("quotes:new")),
        ("get", reverse("quotes:customers")),
        ("get", reverse("quotes:customer_new")),
        ("post", reverse("quotes:customer_new")),
        ("get", reverse("quotes:leads")),
        ("get", reverse("quotes:detail", args=[quote.public_id])),
        ("post", reverse("quotes:line_add", args=[rid])),
        ("post", reverse("quotes:line_remove", args=[rid, line.pk if line else 1])),
        ("post", reverse("quotes:revision_edit", args=[rid])),
        ("post", reverse("quotes:send", args=[rid])),
        ("post", reverse("quotes:resend", args=[rid])),
        ("post", reverse("quotes:revise", args=[rid])),
        ("post", reverse("quotes:reprice", args=[rid])),
        ("get", reverse("quotes:status", args=[rid])),
        ("get", reverse("quotes:acceptance_pdf", args=[rid])),
    ]
    if render is not None:
        urls.append(("get", reverse("quotes:pdf", args=[render.public_id])))
    return urls


def fresh_ip() -> str:
    """A client address of its own: rate-limit counters live in the suite's shared cache."""
    value = uuid.uuid4().int
    return f"10.{value % 250}.{(value >> 8) % 250}.{(value >> 16) % 250 + 1}"


OBJECT_URL_NAMES = ("/quotes/revisions/", "/quotes/pdf/")


@pytest.fixture
def sent_quote(draft_quote: Quote, sales_user: User) -> Quote:
    send(draft_quote.revisions.get(), sales_user)
    return draft_quote


def test_anonymous_visitors_are_sent_to_login_or_refused_on_every_quote_url(
    client: Client, sent_quote: Quote
) -> None:
    for method, url in sales_urls(sent_quote):
        response = getattr(client, method)(url)
        if method == "get":  # a page: the login, and back to the page afterwards
            assert response.status_code == 302, (method, url)
            assert response["Location"] == f"{reverse('login')}?next={quote(url)}", url
        else:  # an action is refused, not replayed after login
            assert response.status_code == 403, (method, url)
    page = client.get(reverse("quotes:list"), follow=True)
    assert page.redirect_chain[-1][0].startswith(reverse("login"))
    assert "Log in" in page.content.decode()


def test_users_outside_sales_get_403(
    client: Client, sent_quote: Quote, make_sales_user: Callable[..., User]
) -> None:
    client.force_login(make_sales_user("bob", sales=False))
    for method, url in sales_urls(sent_quote):
        assert getattr(client, method)(url).status_code == 403, (method, url)


def test_another_teams_engineer_gets_404_and_sees_nothing(
    client: Client, sent_quote: Quote, make_sales_user: Callable[..., User]
) -> None:
    client.force_login(make_sales_user("olaf", team="Nordics"))
    for method, url in sales_urls(sent_quote):
        response = getattr(client, method)(url)
        if url.startswith(OBJECT_URL_NAMES) or "/quotes/" + str(sent_quote.public_id) in url:
            assert response.status_code == 404, (method, url)
        else:
            assert response.status_code in (200, 302, 400), (method, url)
    assert sent_quote.number not in client.get(reverse("quotes:list")).content.decode()
    assert "Deep Learning BV" not in client.get(reverse("quotes:customers")).content.decode()
    revision = sent_quote.revisions.get()
    assert revision.status == Status.SENT and revision.lines.count() > 0


def test_team_mates_and_staff_see_the_quote(
    client: Client, sent_quote: Quote, make_sales_user: Callable[..., User], admin_user: Any
) -> None:
    client.force_login(make_sales_user("bea"))  # same team
    assert client.get(reverse("quotes:detail", args=[sent_quote.public_id])).status_code == 200
    client.force_login(admin_user)
    assert client.get(reverse("quotes:detail", args=[sent_quote.public_id])).status_code == 200


def test_quote_urls_use_random_ids(sent_quote: Quote) -> None:
    revision = sent_quote.revisions.get()
    for url in (
        reverse("quotes:detail", args=[sent_quote.public_id]),
        reverse("quotes:send", args=[revision.public_id]),
    ):
        assert str(sent_quote.pk) not in url.split("/") and re.search(r"[0-9a-f-]{36}", url)
    assert sent_quote.public_id.version == 4


def test_list_search_and_status_filter(
    client: Client, sales_user: User, draft_quote: Quote, customer: Customer
) -> None:
    other = services.quote_create(customer=customer, owner=sales_user)
    send(draft_quote.revisions.get(), sales_user)
    client.force_login(sales_user)
    html = client.get(reverse("quotes:list"), {"status": "sent"}).content.decode()
    assert draft_quote.number in html and other.number not in html
    html = client.get(reverse("quotes:list"), {"q": other.number}).content.decode()
    assert other.number in html and draft_quote.number not in html
    html = client.get(reverse("quotes:list"), {"q": "deep learning"}).content.decode()
    assert other.number in html and draft_quote.number in html


def test_list_query_count_does_not_grow_with_quotes(
    client: Client, sales_user: User, customer: Customer
) -> None:
    client.force_login(sales_user)
    services.quote_create(customer=customer, owner=sales_user)
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("quotes:list"))
    for _ in range(5):
        services.quote_create(customer=customer, owner=sales_user)
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("quotes:list"))
    assert len(many) == len(few)


def test_start_a_quote_from_a_calculator_result(
    client: Client, seed_catalog: object, sales_user: User
) -> None:
    client.force_login(sales_user)
    page = client.get("/calculator/", {"preset": "pretrain-7b"}).content.decode()
    assert 'id="start-quote"' in page and 'id="email-pdf-link"' in page
    assert 'id="save-scenario"' in page  # saved scenarios: for sales too
    form = client.get(reverse("quotes:new"), {"calc": "preset=serve-70b"})
    assert form.status_code == 200 and 'value="preset=serve-70b"' in form.content.decode()
    response = client.post(
        reverse("quotes:new"),
        {
            "calc": "preset=serve-70b",
            "company": "Tensor GmbH",
            "contact_name": "Lena",
            "email": "lena@tensor.example",
            "country": "DE",
            "vat_number": "DE136695976",
            "language": "en",
        },
    )
    assert response.status_code == 302
    quote = Quote.objects.get(customer__company="Tensor GmbH")
    revision = quote.revisions.get()
    assert revision.tco is not None
    assert revision.vat_kind == "reverse_charge" and revision.tco["query"] == "preset=serve-70b"
    detail = client.get(response["Location"]).content.decode()
    assert quote.number in detail and "intra-Community supply" in detail
    assert "Send to buyer" in detail


def test_anonymous_calculator_pages_stay_cacheable(client: Client, seed_catalog: object) -> None:
    page = client.get("/calculator/", {"preset": "pretrain-7b"})
    html = page.content.decode()
    assert 'id="email-pdf-link"' in html and 'id="start-quote"' not in html
    assert 'id="save-scenario"' not in html
    assert "csrfmiddlewaretoken" not in html and not page.cookies


def test_send_view_freezes_and_enqueues_on_commit(
    client: Client,
    draft_quote: Quote,
    sales_user: User,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    client.force_login(sales_user)
    revision = draft_quote.revisions.get()
    key = str(uuid.uuid4())
    url = reverse("quotes:send", args=[revision.public_id])
    with django_capture_on_commit_callbacks() as callbacks:
        assert client.post(url, {"idempotency_key": key}).status_code == 302
        assert client.post(url, {"idempotency_key": key}).status_code == 302  # double click
    assert len(callbacks) == 1
    revision.refresh_from_db()
    assert revision.status == Status.SENT
    assert OutboxEmail.objects.filter(revision=revision).count() == 1
    status = client.get(reverse("quotes:status", args=[revision.public_id])).content.decode()
    assert 'data-state="queued"' in status and 'hx-trigger="every 1s"' in status


def test_sent_revisions_refuse_edits_through_the_views(
    client: Client, sent_quote: Quote, sales_user: User
) -> None:
    client.force_login(sales_user)
    revision = sent_quote.revisions.get()
    before = list(revision.lines.values_list("pk", "unit_price"))
    response = client.post(
        reverse("quotes:line_add", args=[revision.public_id]),
        {"catalog_key": "item:installation-per-server", "quantity": "1", "discount_pct": "0"},
        follow=True,
    )
    assert "cannot change" in response.content.decode()
    assert list(revision.lines.values_list("pk", "unit_price")) == before
    client.post(reverse("quotes:revise", args=[revision.public_id]))
    assert sent_quote.revisions.count() == 2


def test_buyer_page_decline_and_notify(
    client: Client,
    sent_quote: Quote,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    revision = sent_quote.revisions.get()
    token = services.buyer_link_token(revision=revision)
    page = client.get(reverse("quotes:buyer", args=[token]))
    assert page.status_code == 200 and sent_quote.number in page.content.decode()
    revision.refresh_from_db()
    assert revision.status == Status.SENT  # fetching the link is not reading it
    client.post(reverse("quotes:buyer_viewed", args=[token]))  # the page's script
    revision.refresh_from_db()
    assert revision.status == Status.VIEWED
    with django_capture_on_commit_callbacks() as callbacks:
        done = client.post(
            reverse("quotes:buyer_decide", args=[token]),
            {"name": "Jan", "decision": "decline", "reason": "cloud"},
            follow=True,
        )
    assert done.status_code == 200 and "declined by Jan" in done.content.decode()
    assert len(callbacks) == 1  # the owner's notice
    revision.refresh_from_db()
    assert revision.status == Status.DECLINED and revision.decided_by_name == "Jan"
    # Accepting needs the acceptance form's evidence (tests/quotes/test_acceptance.py).
    again = client.post(
        reverse("quotes:buyer_accept", args=[token]),
        {"terms": "on", "name": "Eve", "role": "CFO"},
    )
    assert again.status_code == 400
    revision.refresh_from_db()
    assert revision.status == Status.DECLINED


@pytest.mark.dates
def test_tampered_and_expired_buyer_links_are_refused(
    client: Client, sent_quote: Quote, monkeypatch: pytest.MonkeyPatch
) -> None:
    revision = sent_quote.revisions.get()
    token = services.buyer_link_token(revision=revision)
    payload, signature = token.rsplit(":", 1)
    tampered = [
        payload + ":" + signature[::-1],
        ("B" if payload[0] == "A" else "A") + payload[1:] + ":" + signature,
        "nonsense",
        signing.dumps({"r": str(revision.public_id), "a": 10**9}),
    ]
    for bad in tampered:
        for name in ("quotes:buyer", "quotes:buyer_pdf"):
            response = client.get(reverse(name, args=[bad]))
            assert response.status_code == 404, bad
            assert "not valid" in response.content.decode()
        post = client.post(
            reverse("quotes:buyer_decide", args=[bad]), {"name": "x", "decision": "accept"}
        )
        assert post.status_code == 404
        post = client.post(
            reverse("quotes:buyer_accept", args=[bad]), {"terms": "on", "name": "x", "role": "y"}
        )
        assert post.status_code == 404
    later = timezone.now() + timedelta(days=365)
    monkeypatch.setattr("django.core.signing.time.time", lambda: later.timestamp())
    expired = client.get(reverse("quotes:buyer", args=[token]))
    assert expired.status_code == 410 and "expired" in expired.content.decode()
    revision.refresh_from_db()
    assert revision.status == Status.SENT


def test_email_me_this_as_pdf_creates_a_lead(
    client: Client,
    seed_catalog: object,
    sales_user: User,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    form = client.get(reverse("quotes:lead_form"), {"preset": "lora-70b"}, HTTP_HX_REQUEST="true")
    html = form.content.decode()
    assert "csrfmiddlewaretoken" in html and 'value="preset=lora-70b"' in html
    key = re.search(r'name="idempotency_key" value="([^"]+)"', html)
    started = re.search(r'name="started" value="([^"]+)"', html)
    assert key and started
    data = {
        "name": "Kim",
        "company": "Startup",
        "email": "kim@startup.example",
        "consent": "on",
        "query": "preset=lora-70b",
        "idempotency_key": key.group(1),
        "started": started.group(1),
    }
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(
            reverse("quotes:lead_request"), data, HTTP_HX_REQUEST="true", REMOTE_ADDR=fresh_ip()
        )
        repeat = client.post(
            reverse("quotes:lead_request"), data, HTTP_HX_REQUEST="true", REMOTE_ADDR=fresh_ip()
        )
    assert response.status_code == 200 and repeat.status_code == 200
    assert "We sent a link to kim@startup.example" in response.content.decode()
    # The confirmation email, once for both posts (tests/quotes/test_lead_confirmation.py).
    assert len(callbacks) == 1 and Lead.objects.count() == 1
    lead = services.lead_confirm(lead=Lead.objects.get())
    # The validated inputs, re-serialised (the preset's values), never the raw query.
    assert lead.tco["query"].startswith("preset=lora-70b&")
    assert "full=1" in lead.tco["query"] and "kind=" in lead.tco["query"]
    assert "params_billion=70" in lead.tco["query"]
    client.force_login(sales_user)
    assert "kim@startup.example" in client.get(reverse("quotes:leads")).content.decode()


def test_email_me_this_as_pdf_explains_problems(
    client: Client, seed_catalog: object, settings: Settings
) -> None:
    address = f"kim-{uuid.uuid4().hex[:8]}@startup.example"
    base = {
        "name": "Kim",
        "company": "Startup",
        "email": address,
        "query": "preset=lora-70b",
        "started": lead_form_stamp(),
    }
    url = reverse("quotes:lead_request")

    def post(**extra: Any) -> Any:
        return client.post(
            url, {**base, "idempotency_key": uuid.uuid4(), **extra}, REMOTE_ADDR=fresh_ip()
        )

    no_consent = post()
    assert no_consent.status_code == 400 and "Please agree" in no_consent.content.decode()
    bad_query = post(consent="on", query="kind=pretrain&params_billion=-1")
    assert bad_query.status_code == 400 and "form-errors" in bad_query.content.decode()
    settings.QUOTES_LEAD_REQUESTS_PER_HOUR = 2  # the refused request above counted
    assert post(consent="on").status_code == 200
    limited = post(consent="on")
    assert limited.status_code == 429
    assert "Too many requests for this address; please try again in" in limited.content.decode()


# --- nothing a browser can post gives a 500 -----------------------------------------------

browser_text = st.one_of(
    st.text(max_size=60),
    st.sampled_from(
        [
            "",
            " ",
            "-1",
            "0",
            "1e9",
            "NaN",
            "Infinity",
            "1,5",
            "101",
            "2026-02-30",
            "server:does-not-exist",
            "item:support-10pct",
            "accept",
            "decline",
            "<script>alert(1)</script>",
            "\x00",
            "💥" * 300,
            str(uuid.uuid4()),
        ]
    ),
)


def _form(fields: list[str]) -> st.SearchStrategy[dict[str, str]]:
    return st.dictionaries(st.sampled_from(fields), browser_text, max_size=len(fields))


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    target=st.sampled_from(
        ["new", "line_add", "revision_edit", "send", "resend", "revise", "line_remove"]
    ),
    data=_form(
        [
            "calc",
            "customer",
            "company",
            "contact_name",
            "email",
            "country",
            "vat_number",
            "language",
            "currency",
            "catalog_key",
            "quantity",
            "discount_pct",
            "optional",
            "valid_until",
            "terms",
            "idempotency_key",
        ]
    ),
)
def test_nothing_posted_to_the_quote_builder_gives_a_500(
    client: Client, draft_quote: Quote, sales_user: User, target: str, data: dict[str, str]
) -> None:
    client.force_login(sales_user)
    revision = draft_quote.revisions.order_by("-seq").first()
    assert revision is not None
    if target == "new":
        url = reverse("quotes:new")
    elif target == "line_remove":
        url = reverse("quotes:line_remove", args=[revision.public_id, 999999])
    else:
        url = reverse(f"quotes:{target}", args=[revision.public_id])
    response = client.post(url, data)
    assert response.status_code < 500


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    buyer=_form(["name", "decision"]),
    accept=_form(["terms", "name", "role", "po_number", "pdf_sha256"]),
    lead=_form(["name", "company", "email", "consent", "query", "idempotency_key"]),
)
def test_nothing_posted_by_buyers_or_visitors_gives_a_500(
    client: Client,
    sent_quote: Quote,
    buyer: dict[str, str],
    accept: dict[str, str],
    lead: dict[str, str],
) -> None:
    revision = QuoteRevision.objects.get(quote=sent_quote)
    token = services.buyer_link_token(revision=revision)
    response = client.post(reverse("quotes:buyer_decide", args=[token]), buyer)
    assert response.status_code < 500
    response = client.post(reverse("quotes:buyer_accept", args=[token]), accept)
    assert response.status_code < 500
    response = client.post(reverse("quotes:lead_request"), lead)
    assert response.status_code < 500


def test_send_and_send_again_through_the_views_queue_one_email_per_key(
    client: Client, draft_quote: Quote, sales_user: User
) -> None:
    revision = draft_quote.revisions.get()
    client.force_login(sales_user)
    key = {"idempotency_key": "4b0f6a2e-5d1c-4f3e-9a7b-2c8d1e0f3a6b"}
    sent = client.post(reverse("quotes:send", args=[revision.public_id]), key, follow=True)
    assert "Revision sent to jan@buyer.example" in sent.content.decode()
    again = {"idempotency_key": "9e2d7c1b-3a4f-4b5e-8c6d-1f0a2b3c4d5e"}
    for _ in range(2):  # a double submit: the same key queues the email once
        resent = client.post(
            reverse("quotes:resend", args=[revision.public_id]), again, follow=True
        )
        assert "Sent again to jan@buyer.example." in resent.content.decode()
    assert (
        OutboxEmail.objects.filter(idempotency_key=f"resend:{again['idempotency_key']}").count()
        == 1
    )
    expired = client.post(reverse("quotes:resend", args=[revision.public_id]), {}, follow=True)
    assert "The form has expired" in expired.content.decode()


def test_tampered_lead_links_are_refused(client: Client) -> None:
    for name in ("quotes:lead_status", "quotes:lead_pdf", "quotes:lead_confirm"):
        response = client.get(reverse(name, args=["nonsense:signature"]))
        assert response.status_code == 404, name
        assert "not valid" in response.content.decode(), name
