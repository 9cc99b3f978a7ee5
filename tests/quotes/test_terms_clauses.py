"""Terms that agree with the proposal, and the clauses a GPU distributor states (issue 42,
items 4 and 5; walk-through 6 Dec 2026, N12 and N15).

Before: the terms said "hardware lead times are confirmed at order" and "manufacturer
warranty" two pages after the proposal's own delivery schedule and its 3 years' RMA per
line, named the general terms twice in a row, and had no export-control or cancellation
clause; the buyer page had neither the delivery nor the payment schedule nor the terms
link, and "Decline" asked only for a name.
"""

from __future__ import annotations

import copy
import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.template import Context, Template
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import translation

from common.formatting import money
from quotes import clauses, pdf, services
from quotes.models import CompanyProfile, EmailKind, OutboxEmail, QuoteRevision, Status

from .conftest import send
from .test_vendor_proposal import _pages, _server_quote

pytestmark = pytest.mark.django_db


def _sent(sales_user: User, language: str) -> QuoteRevision:
    """4 servers with installation and 3 years' support (test_vendor_proposal), sent."""
    revision = _server_quote(sales_user, language)
    send(revision, sales_user)
    revision.refresh_from_db()
    return revision


def _html(snapshot: dict[str, Any], language: str) -> str:
    """The proposal's HTML as the PDF renderer gets it (no WeasyPrint: cheap)."""
    with translation.override(language):
        return render_to_string("quotes/pdf/proposal.html", pdf.revision_context(snapshot))


def _flat(html: str) -> str:
    """HTML with its layout whitespace dropped (between tags, and runs of it)."""
    return re.sub(r">\s+<", "><", " ".join(html.split())).strip()


def _terms_section(html: str) -> str:
    match = re.search(r'<section class="terms">(.*?)</section>', html, re.S)
    assert match is not None
    return _flat(match.group(1))


def test_the_seeded_terms_refer_to_the_proposal_not_to_the_order(
    seed_catalog: object, sales_user: User
) -> None:
    profile = CompanyProfile.current()
    assert profile is not None  # seeded by migration 0007, its terms replaced by 0017
    assert (profile.terms_en, profile.terms_nl) == (clauses.TERMS_EN, clauses.TERMS_NL)
    for text in (profile.terms_en, profile.terms_nl):
        for stale in ("confirmed at order", "manufacturer", "bij de order", "fabrieksgarantie"):
            assert stale not in text
        assert "NLdigital" not in text  # the general terms are named by the proposal, once
    assert _server_quote(sales_user, "nl").terms == clauses.TERMS_NL
    # Without a profile, the built-in wording says neither.
    CompanyProfile.objects.all().delete()
    built_in = services.default_terms("en")
    assert "confirmed at order" not in built_in and "warranty" not in built_in.lower()


def test_the_pdf_terms_refer_to_the_schedule_and_the_warranty_per_line(
    seed_catalog: object, sales_user: User
) -> None:
    revision = _sent(sales_user, "en")
    snapshot = revision.snapshot
    assert snapshot is not None
    assert snapshot["clauses"] == {
        "delivery": "schedule",  # the server line has a lead time and a date
        "warranty": "per_line",  # the server line states 3 years
        "export_control": clauses.EXPORT_CONTROL_EN,
        "cancellation": clauses.CANCELLATION_EN,
    }
    pages = _pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf)
    found = re.search(r"Terms (Prices are in the stated currency.*?) Acceptance ", " ".join(pages))
    assert found is not None
    terms = found.group(1)
    for words in (
        "Delivery schedule",  # the schedule the terms refer to
        "Delivery: on the dates of the delivery schedule in this proposal",
        "Warranty: the warranty stated per line of this proposal",
        "Export control and end use. NVIDIA data-centre GPUs",
        "ECCN 3A090 and 4A090",
        "dual-use regulation (EU) 2021/821",
        "Cancellation and returns. Custom-configured systems",
        "restocking fee of 15 %",
        "other terms and conditions are rejected",
    ):
        assert words in " ".join(pages), words
    for stale in ("confirmed at order", "manufacturer warranty", "NLdigital"):
        assert stale not in terms, stale
    assert terms.count("general terms of sale") == 1  # named once


def test_a_buyer_without_server_lines_reads_the_general_delivery_and_warranty(
    seed_catalog: object, customer: Any, sales_user: User
) -> None:
    quote = services.quote_create(customer=customer, owner=sales_user)
    revision = quote.revisions.get()
    services.revision_add_line(
        revision=revision, catalog_key="item:storage-parallel-fs-500tb", quantity=Decimal(1)
    )
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    section = _terms_section(_html(revision.snapshot, "en"))
    assert "Delivery: hardware lead times are confirmed at order" in section
    assert "Warranty: the manufacturer's warranty" in section


def test_the_clauses_are_the_companys_wording_frozen_at_send(
    seed_catalog: object, sales_user: User
) -> None:
    profile = CompanyProfile.current()
    assert profile is not None
    profile.cancellation_nl = ""  # no Dutch wording: the English one is stated
    profile.save()
    revision = _sent(sales_user, "nl")
    assert revision.snapshot is not None
    frozen = copy.deepcopy(revision.snapshot)
    assert frozen["clauses"]["export_control"] == clauses.EXPORT_CONTROL_NL
    assert frozen["clauses"]["cancellation"] == clauses.CANCELLATION_EN

    profile.export_control_nl = "Nieuwe tekst."
    profile.save()
    revision.refresh_from_db()
    assert revision.snapshot == frozen  # a sent proposal never changes
    section = re.sub(r"<[^>]+>", "", _terms_section(_html(frozen, "nl")))
    assert "Exportcontrole en eindgebruik. NVIDIA-datacenter-GPU" in section
    assert "Levering: op de data in het leverschema van dit voorstel" in section
    assert "Garantie: de garantie die per regel van dit voorstel is vermeld" in section
    assert "Nieuwe tekst." not in section


# The terms section as the template printed it before the clauses (commit c3728dd): a
# snapshot frozen then has no "clauses" and must print exactly this.
TERMS_BEFORE = (
    "{% load i18n %}"
    '<p class="terms-text">{{ doc.terms|linebreaksbr }}</p>'
    "{% if general_terms %}<p>{% if general_terms_paragraphs %}{% translate "
    '"Our general terms of sale apply and are attached to this proposal (appendix '
    '“General terms of sale”)." %}{% else %}{% blocktranslate with url=general_terms.url %}'
    'Our general terms of sale apply; you can read and download them at <span class="url">'
    "{{ url }}</span>.{% endblocktranslate %}{% endif %}</p>{% endif %}"
    '<p>{% blocktranslate with date=valid_until|date:"DATE_FORMAT" %}This proposal is valid '
    "until {{ date }}. You can accept it online through the link in our email, or sign below "
    "and return it to us.{% endblocktranslate %}</p>"
)


@pytest.mark.parametrize("language", ["en", "nl"])
def test_a_snapshot_frozen_before_the_clauses_prints_its_terms_as_before(
    seed_catalog: object, sales_user: User, language: str
) -> None:
    snapshot = copy.deepcopy(_sent(sales_user, language).snapshot)
    assert snapshot is not None
    del snapshot["clauses"]
    snapshot["terms"] = clauses.OLD_TERMS_NL if language == "nl" else clauses.OLD_TERMS_EN
    with translation.override(language):
        context = pdf.revision_context(snapshot)
        before = Template(TERMS_BEFORE).render(Context(context))
    now = _terms_section(_html(snapshot, language))
    heading = "Voorwaarden" if language == "nl" else "Terms"
    assert now == f"<h2>{heading}</h2>{_flat(before)}"


def test_the_dutch_buyer_page_has_the_schedules_the_terms_link_and_the_clauses(
    seed_catalog: object, sales_user: User, client: Client
) -> None:
    revision = _sent(sales_user, "nl")
    snapshot = revision.snapshot
    assert snapshot is not None
    token = services.buyer_link_token(revision=revision)
    page = client.get(reverse("quotes:buyer", args=[token])).content.decode()
    assert 'id="delivery-schedule">Leverschema</h2>' in page
    server = next(line for line in snapshot["lines"] if line["delivery"])
    weeks = server["delivery"]["lead_time_weeks"]
    assert f"{weeks} weken" in page
    # The team's schedule: 30 % on order confirmation, 70 % on delivery, of the net.
    net = Decimal(snapshot["totals"]["net"])
    assert 'id="payment-schedule">Betaling</h2>' in page
    assert "Bij orderbevestiging (aanbetaling)" in page
    with translation.override("nl"):
        assert money((net * Decimal("0.30")).quantize(Decimal("0.01")), "EUR") in page
    assert 'id="general-terms-link"' in page
    profile = CompanyProfile.current()
    assert profile is not None and f'href="{profile.general_terms_url}"' in page
    assert "Exportcontrole en eindgebruik." in page and "Annulering en retouren." in page
    assert "Waarom wijst u het voorstel af?" in page
    assert 'value="other_supplier"' in page and "We kiezen een andere leverancier" in page


def test_a_decline_needs_a_reason_and_the_engineer_reads_it(
    seed_catalog: object, sales_user: User, client: Client
) -> None:
    revision = _sent(sales_user, "nl")
    token = services.buyer_link_token(revision=revision)
    url = reverse("quotes:buyer_decide", args=[token])
    with pytest.raises(services.QuoteError, match="choose why you decline"):
        services.revision_decide(revision=revision, accept=False, name="Jan", reason="bored")
    refused = client.post(url, {"decision": "decline", "name": "Jan"})
    assert refused.status_code == 400
    assert "Kies waarom u het voorstel afwijst." in refused.content.decode()
    revision.refresh_from_db()
    assert revision.status == Status.SENT

    answer = client.post(
        url,
        {
            "decision": "decline",
            "name": "Jan",
            "reason": "cloud",
            "note": "Wij huren voorlopig bij een Europese cloud.",
        },
    )
    assert answer.status_code == 302
    revision.refresh_from_db()
    assert (revision.status, revision.decline_reason, revision.decline_note) == (
        Status.DECLINED,
        "cloud",
        "Wij huren voorlopig bij een Europese cloud.",
    )
    notice = OutboxEmail.objects.get(kind=EmailKind.DECISION, revision=revision)
    assert "Wij huren voorlopig bij een Europese cloud." in notice.body
    # In the sales desk's language, like the rest of the notice's text.
    assert "Reason: we chose renting or the cloud" in notice.body
    client.force_login(sales_user)
    detail = client.get(reverse("quotes:detail", args=[revision.quote.public_id]))
    html = detail.content.decode()
    assert 'id="decline-reason"' in html
    assert "Reason: we chose renting or the cloud" in html
    assert "Wij huren voorlopig bij een Europese cloud." in html
    assert mail.outbox == []  # the notice goes through the outbox, not inline


def test_staff_edit_the_clauses_in_the_admin(
    db: None, client: Client, django_user_model: Any
) -> None:
    staff = django_user_model.objects.create_user("petra", "petra@x.example", "pw", is_staff=True)
    client.force_login(staff)
    page = client.get("/admin/quotes/companyprofile/1/change/").content.decode()
    for field in ("export_control_en", "export_control_nl", "cancellation_en", "cancellation_nl"):
        assert f'name="{field}"' in page, field
