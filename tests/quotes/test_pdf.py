"""The proposal PDF: content, language, escaping, the URL fetcher, stored renders."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from pypdf import PdfReader
from weasyprint import HTML

from catalog.models import InfrastructureItem, ServerModel
from quotes import pdf, services
from quotes.models import Customer, ProposalRender, Quote, QuoteRevision, RenderStatus

from .conftest import pdf_text, send

pytestmark = pytest.mark.django_db


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u00a0", " "))


@pytest.fixture
def sent_revision(draft_quote: Quote, sales_user: User) -> QuoteRevision:
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    return revision


def test_proposal_pdf_holds_number_customer_totals_and_page_numbers(
    sent_revision: QuoteRevision,
) -> None:
    render = services.render_execute(render_id=ProposalRender.objects.get().pk)
    assert render is not None and render.status == RenderStatus.DONE
    assert render.pdf is not None
    text, pages = pdf_text(bytes(render.pdf))
    flat = _flat(text)
    snapshot = sent_revision.snapshot
    assert snapshot is not None
    assert snapshot["number"] in flat
    assert "Deep Learning BV" in flat and "Jan de Vries" in flat
    total = Decimal(snapshot["totals"]["total"])
    assert f"€{total:,.2f}" in flat  # English formatting: €1,234,567.89
    assert "Executive summary" in flat and "Appendix: assumptions and sources" in flat
    # Every fitting cloud option of every GPU is listed, so the table may take a page more.
    assert 5 <= pages <= 13 and render.pages == pages
    for page in range(1, pages + 1):
        assert f"page {page} of {pages}" in flat
    assert "1 of " in flat
    assert render.sha256 and len(render.sha256) == 64


def test_dutch_customers_get_a_dutch_proposal(
    sent_revision: QuoteRevision, customer: Customer
) -> None:
    assert sent_revision.snapshot is not None
    document = pdf.render_revision(sent_revision.snapshot, language="nl", with_charts=False)
    text, pages = pdf_text(document.pdf)
    flat = _flat(text)
    assert f"pagina 1 van {pages}" in flat
    assert "Voorstel" in flat and "Prijzen geldig tot" in flat
    total = Decimal(sent_revision.snapshot["totals"]["total"])
    dutch = f"{total:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")
    assert f"€ {dutch}" in flat


def test_customer_text_is_escaped_and_never_fetched(
    seed_catalog: object, sales_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quotes.models import Team

    hostile = services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company="<img src=http://example.com/x>",
        contact_name='<link rel=stylesheet href="file:///etc/passwd">',
        email="evil@buyer.example",
        country="DE",
        vat_number="DE136695976",
    )
    quote = services.quote_create_from_calculator(
        customer=hostile, owner=sales_user, query="preset=serve-70b"
    )
    revision = quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()

    fetched: list[str] = []
    original = pdf.StaticOnlyFetcher.fetch

    def spy(self: pdf.StaticOnlyFetcher, url: str, headers: Any = None) -> Any:
        fetched.append(url)
        return original(self, url, headers)

    monkeypatch.setattr(pdf.StaticOnlyFetcher, "fetch", spy)
    assert revision.snapshot is not None
    document = pdf.render_revision(revision.snapshot, language="en", with_charts=False)
    flat = _flat(pdf_text(document.pdf)[0])
    assert "<img src=http://example.com/x>" in flat  # printed as text, not an image
    assert "VAT reverse charged — intra-Community supply, Article 138" in flat
    assert not [u for u in fetched if "example.com" in u or u.startswith("file:")]
    assert any(u.endswith("img/seller-logo.svg") for u in fetched)


def test_url_fetcher_serves_only_static_files_and_charts() -> None:
    fetcher = pdf.StaticOnlyFetcher({"cumulative": b"<svg/>"})
    css = fetcher.fetch(pdf.INTERNAL_ORIGIN + "static/css/proposal.css")
    assert b"@page" in css.read()
    assert fetcher.fetch(pdf.CHART_PREFIX + "cumulative.svg").read() == b"<svg/>"
    for url in (
        "http://example.com/x",
        "https://example.com/static/css/proposal.css",
        "file:///etc/passwd",
        "ftp://example.com/x",
        "data:text/plain,hello",
        pdf.INTERNAL_ORIGIN + "static/../config/settings/base.py",
        pdf.INTERNAL_ORIGIN + "static/does-not-exist.css",
        pdf.INTERNAL_ORIGIN + "admin/",
        pdf.CHART_PREFIX + "other.svg",
        "http://169.254.169.254/latest/meta-data/",
    ):
        with pytest.raises(pdf.FetchRefused):
            fetcher.fetch(url)
    assert len(fetcher.refused) == 10


def test_weasyprint_never_reaches_the_network_through_the_fetcher() -> None:
    fetcher = pdf.StaticOnlyFetcher()
    html = (
        '<link rel="stylesheet" href="http://127.0.0.1:9/evil.css">'
        '<img src="https://example.com/x.png"><img src="file:///etc/hostname">'
        '<p style="background: url(http://example.com/bg.png)">x</p>'
    )
    HTML(string=html, base_url=pdf.INTERNAL_ORIGIN, url_fetcher=fetcher).write_pdf()
    assert set(fetcher.refused) == {
        "http://127.0.0.1:9/evil.css",
        "https://example.com/x.png",
        "file:///etc/hostname",
        "http://example.com/bg.png",
    }


def test_a_stored_pdf_never_changes_after_catalog_price_changes(
    sent_revision: QuoteRevision,
) -> None:
    render_id = ProposalRender.objects.get().pk
    first = services.render_execute(render_id=render_id)
    assert first is not None
    assert first.pdf is not None
    stored, digest = bytes(first.pdf), first.sha256

    ServerModel.objects.update(list_price=Decimal("1.00"))
    InfrastructureItem.objects.update(price=Decimal("1.00"))

    again = services.render_execute(render_id=render_id)  # a redelivered render task
    assert again is not None
    assert again.pdf is not None
    assert bytes(again.pdf) == stored and again.sha256 == digest
    sent_revision.refresh_from_db()
    # A fresh render from the frozen snapshot shows the same prices and totals.
    assert sent_revision.snapshot is not None
    fresh = _flat(
        pdf_text(pdf.render_revision(sent_revision.snapshot, language="en", with_charts=False).pdf)[
            0
        ]
    )
    old = _flat(pdf_text(stored)[0])
    for line in sent_revision.snapshot["lines"]:
        amount = f"€{Decimal(line['amount']):,.2f}"
        assert amount in fresh and amount in old
    assert "€1.00" not in fresh


def test_lead_analysis_pdf_has_no_prices(seed_catalog: object) -> None:
    lead = services.lead_request_pdf(
        name="Kim",
        company="<b>Startup</b>",
        email="kim@startup.example",
        query="preset=serve-70b",
        language="en",
        ip_address="10.1.1.1",
        idempotency_key="k1",
    )
    document = pdf.render_lead(services.lead_snapshot(lead=lead), language="en", with_charts=False)
    flat = _flat(pdf_text(document.pdf)[0])
    # The company as typed is cleaned for the cover: no markup, just its words.
    assert "GPU cost analysis" in flat and "b Startup b" in flat and "<b>" not in flat
    assert "Subtotal" not in flat and "page 1 of" in flat


def test_a_quote_built_by_hand_has_no_analysis_pages(
    seed_catalog: object, customer: Customer, sales_user: User, make_sales_user: Callable[..., User]
) -> None:
    from django.contrib.auth.models import Group

    quote = services.quote_create(customer=customer, owner=sales_user, currency="USD")
    revision = quote.revisions.get()
    services.revision_add_line(
        revision=revision,
        catalog_key="item:storage-parallel-fs-500tb",
        quantity=Decimal(2),
        discount_pct=Decimal("10"),
    )
    # A 10 % discount on an item costed at 85 % is below the 10 % margin floor: approved.
    manager = make_sales_user("marta")
    manager.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    services.approval_request(revision=revision, actor=sales_user)
    services.approval_decide(revision=revision, actor=manager, approve=True)
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    document = pdf.render_revision(revision.snapshot, language="en")
    flat = _flat(pdf_text(document.pdf)[0])
    assert quote.number in flat and "$450,000.00" in flat  # 2 × 250,000 less 10 %
    assert "$544,500.00" in flat  # with 21 % VAT
    assert "Executive summary" not in flat and f"page 1 of {document.pages}" in flat


@pytest.fixture
def dutch_calculator_quote(seed_catalog: object, sales_user: User) -> Any:
    """A quote started from the calculator for a Dutch-speaking buyer."""
    from quotes.models import Team

    buyer = services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company="Voorbeeld AI B.V.",
        contact_name="Anna de Vries",
        email="anna@example.nl",
        country="NL",
        language="nl",
    )
    return services.quote_create_from_calculator(
        customer=buyer, owner=sales_user, query="preset=serve-70b"
    )


def test_dutch_buyers_get_dutch_numbers_in_the_frozen_analysis(dutch_calculator_quote: Any) -> None:
    revision = dutch_calculator_quote.revisions.get()
    values = [a["value"] for a in revision.tco["assumptions"]]
    assert "0,1800\u00a0EUR/kWh" in values  # the Amsterdam site's price, decimal comma
    support = revision.lines.get(catalog_key="item:support-10pct")
    # The line is worded in the buyer's language, from the catalog's Dutch name.
    assert support.description.endswith("10 % van de hardware per jaar")
    assert "E+" not in support.description


def test_a_chart_the_pdf_cannot_draw_fails_the_render(sent_revision: QuoteRevision) -> None:
    """WeasyPrint would draw a missing image as nothing: a figure that cannot be drawn
    fails the render (the task retries and then reports it) instead of a proposal
    without its chart."""
    from tco.presentation.chart_svg import UnsupportedFigure

    assert sent_revision.snapshot is not None
    snapshot = dict(sent_revision.snapshot)
    snapshot["tco"] = {
        **snapshot["tco"],
        "figures": {"cumulative": {"data": [{"type": "pie", "values": [1]}], "layout": {}}},
    }
    with pytest.raises(UnsupportedFigure):
        pdf.render_revision(snapshot, language="en")


def test_the_charts_are_in_the_pdf_as_text_in_the_buyers_language(
    dutch_calculator_quote: Any, sales_user: User
) -> None:
    revision = dutch_calculator_quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    document = pdf.render_revision(revision.snapshot, language="nl")
    flat = _flat(pdf_text(document.pdf)[0])
    for figure in revision.snapshot["tco"]["figures"].values():
        assert figure["layout"]["title"]["text"] in flat  # e.g. "Cumulatieve kosten in de tijd"
    assert "Cumulative cost" not in flat and "Utilization" not in flat
    assert re.search(r"\b\d{1,3}\.000\.000\b", flat)  # an axis in Dutch thousands


def test_the_stylesheet_is_parsed_once_and_again_when_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """proposal.css is parsed once per process and thread, not on every render; an edited
    file (another modification time or size) is parsed again and used."""
    css = tmp_path / "proposal.css"
    css.write_text("@page { size: A4 }", encoding="utf-8")
    monkeypatch.setattr(pdf, "static_url_and_file", lambda name: (f"/static/{name}", css))
    html = "<html><body><p>Cost</p></body></html>"

    def page_width() -> float:
        rendered = pdf.html_to_pdf(html, {}, proposal=True)
        return float(PdfReader(io.BytesIO(rendered.pdf)).pages[0].mediabox.width)

    first = pdf.proposal_stylesheet()
    assert pdf.proposal_stylesheet() is first
    assert round(page_width()) == 595  # A4 portrait, in points
    css.write_text("@page { size: A4 landscape }", encoding="utf-8")
    os.utime(css, ns=(css.stat().st_atime_ns, css.stat().st_mtime_ns + 1_000_000_000))
    assert pdf.proposal_stylesheet() is not first
    assert round(page_width()) == 842


def test_the_proposal_links_no_stylesheet_of_its_own(sent_revision: QuoteRevision) -> None:
    """The render brings the parsed proposal.css; a <link> in the template would be fetched
    and parsed again on every render."""
    from django.template import Engine

    source = Engine.get_default().get_template("quotes/pdf/proposal.html").source
    assert "<link" not in source
    assert sent_revision.snapshot is not None
    _text, pages = pdf_text(
        pdf.render_revision(sent_revision.snapshot, language="en", with_charts=False).pdf
    )
    assert pages >= 5  # styled: the cover and the charts begin pages of their own
