"""The proposal a buyer receives: seller identity, reconciled totals, clean buyer-facing
text in the buyer's language, an acceptance block, the draft preview and the company
profile's admin."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pypdf import PdfReader

from catalog.models import InfrastructureItem, ServerModel, Site
from quotes import pdf, services
from quotes.models import CompanyProfile, ProposalRender, Quote, SalesProfile, Team

from .conftest import send

pytestmark = pytest.mark.django_db

INTERNAL_MARKS = ("estimate", "schatting", "stale", "verouderd")


def _pages(data: bytes) -> list[str]:
    reader = PdfReader(io.BytesIO(data))
    return [
        re.sub(r"\s+", " ", page.extract_text().replace("\u00a0", " ")) for page in reader.pages
    ]


def _sent(sales_user: User, *, language: str, country: str, vat_number: str) -> Any:
    sales_user.first_name, sales_user.last_name = "Anna", "de Boer"
    sales_user.save()
    SalesProfile.objects.update_or_create(
        user=sales_user,
        defaults={
            "role": "Sales engineer",
            "role_nl": "Verkoopadviseur",
            "phone": "+31 6 1234 5678",
        },
    )
    customer = services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company="Rekenlab BV" if language == "nl" else "Tensor GmbH",
        contact_name="Jan de Vries",
        email="jan@buyer.example",
        country=country,
        vat_number=vat_number,
        language=language,
    )
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b"
    )
    revision = quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    return revision


@pytest.fixture
def dutch(seed_catalog: object, sales_user: User) -> Any:
    return _sent(sales_user, language="nl", country="NL", vat_number="NL123456789B01")


@pytest.fixture
def english_reverse_charge(seed_catalog: object, sales_user: User) -> Any:
    return _sent(sales_user, language="en", country="DE", vat_number="DE136695976")


def _dutch_money(value: Decimal) -> str:
    return "€ " + f"{value:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")


def test_dutch_proposal_is_dutch_clean_and_carries_the_seller_on_every_page(dutch: Any) -> None:
    snapshot = dutch.snapshot
    pages = _pages(pdf.render_revision(snapshot, language="nl", with_charts=False).pdf)
    text = " ".join(pages)
    lowered = text.lower()
    for mark in INTERNAL_MARKS:
        assert mark not in lowered, mark
    # No English catalog description: every item and server name (a server name its Dutch
    # name contains, "NVIDIA DGX H100", is a product name, not English wording).
    english = [i.name for i in InfrastructureItem.objects.all()]
    english += [s.name for s in ServerModel.objects.all() if s.name not in s.name_nl]
    english += [site.name for site in Site.objects.all()]  # site names in the appendix
    for name in english:
        assert name not in text, name
    assert "of hardware per year" not in text
    seller = CompanyProfile.current()
    assert seller is not None
    for number, page in enumerate(pages, start=1):
        assert seller.legal_name in page, number
        assert f"KvK {seller.kvk_number}" in page, number
        assert seller.vat_id in page and seller.iban in page, number
        assert f"pagina {number} van {len(pages)}" in page
    # The engineer, with role and phone, on the cover; quantities without decimals.
    assert "Anna de Boer" in pages[0] and "Verkoopadviseur" in pages[0]
    assert "+31 6 1234 5678" in pages[0]
    assert "Prijzen geldig tot" in pages[0]
    servers = snapshot["lines"][0]
    assert Decimal(servers["quantity"]) == int(Decimal(servers["quantity"]))
    assert re.search(rf" {int(Decimal(servers['quantity']))} st\. ", text)
    assert not re.search(r"\b\d+,00 st\.", text)
    # Issue 43: utilization to one decimal for people ("73,99 %" was shown).
    assert re.search(r"Geplande benutting \d+(,\d)? %", text)
    assert not re.search(r"Geplande benutting \d+,\d\d", text)
    # Acceptance block.
    for words in ("Akkoordverklaring", "Naam", "Functie", "Datum", "Inkoopordernummer"):
        assert words in text, words
    assert "Handtekening" in text


def test_the_pdf_reconciles_hardware_upfront_and_totals(dutch: Any) -> None:
    snapshot = dutch.snapshot
    deal = snapshot["tco"]["deal"]
    hardware = Decimal(deal["hardware_net"])
    onprem = next(o for o in snapshot["tco"]["summary"]["options"] if o["kind"] == "onprem")
    assert Decimal(str(onprem["upfront_cost"])).quantize(Decimal("0.01")) == hardware
    text = " ".join(_pages(pdf.render_revision(snapshot, language="nl", with_charts=False).pdf))
    assert f"Hardware nu (servers, netwerk, opslag, installatie) {_dutch_money(hardware)}" in text
    assert f"Hiervan is {_dutch_money(hardware)} excl. btw hardware" in text
    total = Decimal(snapshot["totals"]["total"])
    assert f"Totaal incl. btw {_dutch_money(total)}" in text
    assert "Kosten van kopen en houden over 5 jaar" in text


def test_reverse_charge_wording_and_a_clean_english_proposal(english_reverse_charge: Any) -> None:
    snapshot = english_reverse_charge.snapshot
    text = " ".join(_pages(pdf.render_revision(snapshot, language="en", with_charts=False).pdf))
    assert "VAT reverse charged" in text and "Article 138" in text and "2006/112/EC" in text
    for mark in INTERNAL_MARKS:
        assert mark not in text.lower(), mark
    assert "Appendix: assumptions and sources" in text
    assert "Acceptance" in text and "Purchase order number" in text
    dutch = pdf.render_revision(snapshot, language="nl", with_charts=False)
    assert "Btw verlegd" in " ".join(_pages(dutch.pdf))


def test_the_buyer_page_shows_no_internal_marks(
    english_reverse_charge: Any, client: Client
) -> None:
    token = services.buyer_link_token(revision=english_reverse_charge)
    response = client.get(f"/quotes/p/{token}/")
    assert response.status_code == 200
    html = response.content.decode()
    for mark in INTERNAL_MARKS:
        assert mark not in html.lower(), mark
    assert "Prices valid until" in html and "VAT reverse charged" in html
    seller = CompanyProfile.current()
    assert seller is not None and seller.vat_id in html


def test_preview_pdf_is_watermarked_and_never_stored(
    draft_quote: Quote, sales_user: User, client: Client
) -> None:
    revision = draft_quote.revisions.get()
    client.force_login(sales_user)
    response = client.get(f"/quotes/revisions/{revision.public_id}/preview.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    pages = _pages(response.content)
    assert all("DRAFT" in page for page in pages)
    assert ProposalRender.objects.count() == 0
    revision.refresh_from_db()
    draft_snapshot = revision.snapshot
    assert revision.is_draft and draft_snapshot is None
    # The sent PDF has no watermark; a sent revision has no preview.
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    sent = _pages(pdf.render_revision(revision.snapshot, language="en", with_charts=False).pdf)
    assert not any("DRAFT" in page for page in sent)
    again = client.get(f"/quotes/revisions/{revision.public_id}/preview.pdf")
    assert again.status_code == 302


def test_preview_is_for_the_team_only(
    draft_quote: Quote, make_sales_user: Callable[..., User], client: Client
) -> None:
    outsider = make_sales_user("otto", team="Nordics")
    client.force_login(outsider)
    revision = draft_quote.revisions.get()
    assert client.get(f"/quotes/revisions/{revision.public_id}/preview.pdf").status_code == 404


def test_company_profile_is_edited_by_staff_only(
    db: None, sales_user: User, client: Client, django_user_model: Any
) -> None:
    profile = CompanyProfile.current()
    assert (
        profile is not None and profile.vat_id.startswith("NL") and profile.vat_id.endswith("B01")
    )
    url = f"/admin/quotes/companyprofile/{profile.pk}/change/"
    client.force_login(sales_user)  # a sales engineer, not staff
    assert client.get(url).status_code == 302
    data = {
        field.name: getattr(profile, field.name)
        for field in CompanyProfile._meta.fields
        if field.editable and field.name != "id"
    }
    client.post(url, {**data, "phone": "+31 20 000 00 00"})
    profile.refresh_from_db()
    assert profile.phone != "+31 20 000 00 00"

    staff = django_user_model.objects.create_user("petra", "petra@x.example", "pw", is_staff=True)
    client.force_login(staff)
    assert client.get(url).status_code == 200
    response = client.post(url, {**data, "phone": "+31 20 000 00 00"})
    assert response.status_code == 302, response.content.decode()[:2000]
    profile.refresh_from_db()
    assert profile.phone == "+31 20 000 00 00"
    assert client.get("/admin/quotes/companyprofile/add/").status_code == 403
