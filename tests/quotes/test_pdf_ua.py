"""The proposal's cut-down user-agent stylesheet (quotes/pdf_ua.css) styles every element
exactly as WeasyPrint's own one does: English and Dutch proposals (with and without a
serving derivation list), a draft with its watermark and a lead's analysis."""

from __future__ import annotations

from typing import Any

import pytest
from weasyprint import HTML
from weasyprint.css import get_all_computed_styles
from weasyprint.css.properties import INITIAL_VALUES

from quotes import pdf, services
from quotes.models import Team

from .conftest import send

pytestmark = pytest.mark.django_db


def _proposal_html(render: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    """The HTML a render hands to WeasyPrint."""
    seen: list[str] = []
    monkeypatch.setattr(pdf, "_html_to_pdf", lambda html, charts, **kwargs: seen.append(html))
    render()
    monkeypatch.undo()
    assert len(seen) == 1
    return seen[0]


# What the dropped rules styled and no proposal element uses: footnotes and notes.
UNUSED_PSEUDO = {"footnote-call", "footnote-marker", "note-call", "note-marker", "note-callback"}


def _styles(html: str, ua: list[Any]) -> dict[tuple[int, str, str | None], dict[str, Any]]:
    """Every property of every element and pseudo-element, by position in the document."""
    document = HTML(string=html, base_url=pdf.INTERNAL_ORIGIN, url_fetcher=pdf.StaticOnlyFetcher())
    document._ua_stylesheets = lambda *args, **kwargs: ua  # type: ignore[method-assign]
    style_for = get_all_computed_styles(
        document, [pdf.proposal_stylesheet()], font_config=pdf.font_config()
    )
    position = {element: index for index, element in enumerate(document.etree_element.iter())}
    return {
        (position[element], element.tag, pseudo): {name: style[name] for name in INITIAL_VALUES}
        for (element, pseudo), style in style_for.get_computed_styles().items()
        if element in position and pseudo not in UNUSED_PSEUDO
    }


def test_every_element_is_styled_as_by_weasyprints_own_sheet(
    sales_user: Any, seed_catalog: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from weasyprint.html import UA_STYLESHEET

    team = Team.objects.get(name="Benelux")
    documents = []
    for language, query in (("en", "preset=pretrain-7b"), ("nl", "preset=customer-service")):
        buyer = services.customer_create(
            team=team,
            company=f"Koper {language} BV",
            contact_name="K. de Vries",
            email=f"k-{language}@buyer.example",
            country="NL",
            vat_number="",
            language=language,
        )
        revision = services.quote_create_from_calculator(
            customer=buyer, owner=sales_user, query=query
        ).revisions.get()
        draft = services.revision_snapshot(revision=revision)
        documents.append(
            _proposal_html(
                lambda d=draft, lang=language: pdf.render_revision(
                    d, language=lang, with_charts=False, draft=True
                ),
                monkeypatch,
            )
        )
        send(revision, sales_user)
        revision.refresh_from_db()
        documents.append(
            _proposal_html(
                lambda r=revision, lang=language: pdf.render_revision(
                    r.snapshot, language=lang, with_charts=False
                ),
                monkeypatch,
            )
        )
    lead = services.lead_request_pdf(
        name="Kim",
        company="Startup",
        email="kim@startup.example",
        query="preset=customer-service",
        language="en",
        ip_address="10.1.1.1",
        idempotency_key="ua-1",
    )
    snapshot = services.lead_snapshot(lead=lead)
    documents.append(
        _proposal_html(
            lambda: pdf.render_lead(snapshot, language="en", with_charts=False), monkeypatch
        )
    )
    assert any("<ol" in html for html in documents)  # the serving derivation
    assert any('class="watermark"' in html for html in documents)
    for html in documents:
        ours = _styles(html, [pdf._proposal_ua_stylesheet()])
        theirs = _styles(html, [UA_STYLESHEET])
        assert ours.keys() == theirs.keys()
        different = {key for key in theirs if ours[key] != theirs[key]}
        assert not different, sorted(different, key=str)[:5]


def test_proposals_are_rendered_with_the_cut_down_sheet(monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[bool] = []
    original = pdf.ProposalHTML._ua_stylesheets

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        used.append(True)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pdf.ProposalHTML, "_ua_stylesheets", spy)
    pdf._html_to_pdf("<html><body><p>Cost</p></body></html>", {}, proposal=True)
    assert used == [True]
