"""Issue 43 item 3: every decision the verdict states is in every summary.

The lead PDF's summary left out the site decision the page's verdict states (the liquid-ready
colocation and its fees). One function lists the decisions (wording_verdict.verdict_decisions);
the calculator page, the lead PDF and its email, the proposal and its email, the buyer page
and the sales engineer's analysis block each say every one of them.

The scenario states all four decisions, in Dutch:
- site: 70 B pre-training sizes 2 GB200 NVL72 racks, cooled by liquid; the default site
  (colocation Amsterdam) has air only, so they go to the liquid-ready colocation;
- time: the capacity is needed in 30 days and the racks ship in 20 weeks: a bridge;
- bridge-risk: the bridge is 17 × 8 = 136 GPUs on demand, above the 64 taken to be free;
- terms: "data must stay in the EU" rules out the US regions while owning, the cheapest
  option, meets the terms.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation

from quotes import pdf, services
from quotes.models import EmailKind, OutboxEmail, Team
from tco.presentation.wording_verdict import verdict_decisions

from ..tco.test_dutch_pages import english_fragments
from .conftest import send

pytestmark = pytest.mark.django_db

QUERY = "preset=pretrain-70b&needed_in_days=30&eu_data_only=on"
CODES = ["site", "time", "bridge-risk", "terms"]


def readable(markup: str) -> str:
    """Text as read: tags dropped, entities resolved, every run of spaces one space."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", markup))
    return " ".join(text.replace("\u00a0", " ").replace("\u202f", " ").split())


def decisions(tco: dict[str, Any] | None) -> list[str]:
    """The decisions of a frozen analysis, in Dutch, as read."""
    report = services.stored_report(tco)
    assert report is not None
    with translation.override("nl"):
        found = verdict_decisions(report)
    assert [d.code for d in found] == CODES
    return [readable(d.text) for d in found]


def missing(said: list[str], summary: str) -> list[str]:
    text = readable(summary)
    return [sentence for sentence in said if sentence not in text]


def test_every_summary_states_every_decision_of_the_verdict(
    client: Client, seed_catalog: object, sales_user: User
) -> None:
    page = client.get(f"/calculator/?{QUERY}", HTTP_ACCEPT_LANGUAGE="nl").content.decode()

    lead = services.lead_request_pdf(
        name="Kim",
        company="Acme AI",
        email="kim@acme.example",
        query=QUERY,
        language="nl",
        ip_address="10.1.1.3",
        idempotency_key="decisions-nl",
    )
    lead = services.lead_confirm(lead=lead)
    said = decisions(lead.tco)
    assert not missing(said, page)
    snapshot = services.lead_snapshot(lead=lead)
    lead_html, _charts = pdf.proposal_html(
        snapshot["tco"], lambda: pdf.lead_context(snapshot), language="nl", with_charts=False
    )
    assert not missing(said, lead_html)
    assert not missing(said, OutboxEmail.objects.get(lead=lead, kind=EmailKind.LEAD_PDF).body)

    customer = services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company="Rekenwerk BV",
        contact_name="Jan de Vries",
        email="jan@rekenwerk.example",
        country="NL",
        vat_number="NL123456789B01",
        language="nl",
    )
    quote = services.quote_create_from_calculator(customer=customer, owner=sales_user, query=QUERY)
    revision = quote.revisions.get()
    client.force_login(sales_user)
    # The sales engineer reads English; the analysis block is in the buyer's Dutch only.
    detail = client.get(
        reverse("quotes:detail", args=[quote.public_id]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "{#" not in detail  # a template comment over several lines is printed
    block = re.search(r'<div class="panel" id="deal-analysis".*?</details>', detail, re.S)
    assert block and 'lang="nl"' in block.group(0)
    assert not missing(decisions(services.deal_analysis(revision=revision)), block.group(0))
    english = [f for f in english_fragments() if f in readable(block.group(0))]
    assert not english, english

    send(revision, sales_user)
    revision.refresh_from_db()
    frozen = revision.snapshot
    assert frozen is not None
    said = decisions(frozen["tco"])
    proposal_html, _charts = pdf.proposal_html(
        frozen["tco"], lambda: pdf.revision_context(frozen), language="nl", with_charts=False
    )
    assert not missing(said, proposal_html)
    email = OutboxEmail.objects.get(revision=revision, kind=EmailKind.PROPOSAL)
    assert not missing(said, email.body)
    client.logout()
    token = services.buyer_link_token(revision=revision)
    buyer = client.get(reverse("quotes:buyer", args=[token]), HTTP_ACCEPT_LANGUAGE="nl")
    assert not missing(said, buyer.content.decode())
