"""Proposal PDFs with WeasyPrint; charts as static SVG drawn from the web page's figures.

- The input is a snapshot (JSON, see services.revision_snapshot / lead_snapshot), never
  live catalog rows, so a PDF can be rendered again from a sent revision at any time and
  shows the same content.
- Charts: the figures stored in the snapshot (the web page's Plotly data,
  tco.presentation.charts) are drawn as SVG in Python (tco.presentation.chart_svg) in a few
  milliseconds, before WeasyPrint starts.
- WeasyPrint fetches only through :class:`StaticOnlyFetcher`: the app's own static files
  and the chart SVGs of this render; any other URL (http, file, data, ftp …) is refused,
  so nothing a user types can make the server fetch from the network or read a file.
- Text from customers reaches the template as plain strings and is auto-escaped.
"""

from __future__ import annotations

import functools
import logging
import mimetypes
import os
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.exceptions import SuspiciousFileOperation
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from weasyprint import CSS, HTML, Document
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from catalog.audience import OWN_PRICE_SOURCE
from tco.presentation.chart_svg import figure_svg, title_text
from tco.report import Report

from .decisions import analysis_decisions, decisions_frozen
from .models import LineUnit
from .money import HUNDRED, to_cents
from .proposal import boms, offer_context
from .vat import vat_note

logger = logging.getLogger(__name__)

# Resources in the document are addressed under this origin; it is never resolved.
INTERNAL_ORIGIN = "https://proposal.internal/"
CHART_PREFIX = INTERNAL_ORIGIN + "charts/"


# --- URL fetcher -------------------------------------------------------------------------


class FetchRefused(ValueError):
    pass


def static_file_path(relative: str) -> Path | None:
    """The file behind a static name as `{% static %}` wrote it, or None.

    The finders serve plain names (development, tests). In production `{% static %}` writes
    hashed names (`css/proposal.3f2a….css`, ManifestStaticFilesStorage) that exist only in
    STATIC_ROOT after `collectstatic`: the storage backend resolves those, and the manifest
    maps a hashed name back to its source file when the collected copy is missing.
    """
    if not relative or ".." in relative.split("/") or relative.startswith("/"):
        return None
    found = finders.find(relative)
    if isinstance(found, str) and os.path.isfile(found):
        return Path(found)
    try:
        if staticfiles_storage.exists(relative):
            path = Path(staticfiles_storage.path(relative))
            if path.is_file():
                return path
    except (NotImplementedError, SuspiciousFileOperation, ValueError):
        pass  # a storage without local paths, or a name outside STATIC_ROOT
    hashed_files = getattr(staticfiles_storage, "hashed_files", None) or {}
    for original, hashed in hashed_files.items():
        if hashed == relative:
            found = finders.find(original)
            if isinstance(found, str) and os.path.isfile(found):
                return Path(found)
    return None


def static_url_and_file(name: str) -> tuple[str, Path | None]:
    """The URL `{% static %}` writes for a static name (hashed in production) and the file
    behind it, or None. Raises ValueError for a name missing from the manifest."""
    from django.templatetags.static import static

    url = static(name)
    prefix = "/" + settings.STATIC_URL.lstrip("/")
    relative = url.removeprefix(prefix).removeprefix(settings.STATIC_URL).split("?")[0]
    return url, static_file_path(relative)


@functools.cache
def _unused_tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


# WeasyPrint ships no type information, so its URLFetcher is Any to mypy.
class StaticOnlyFetcher(URLFetcher):  # type: ignore[misc]
    """Serves ``<INTERNAL_ORIGIN>static/<path>`` from the app's static files and
    ``<INTERNAL_ORIGIN>charts/<name>.svg`` from this render's charts; refuses the rest."""

    def __init__(self, charts: Mapping[str, bytes] | None = None) -> None:
        # A shared TLS context: it is never used (nothing is fetched over the network), but
        # without one each fetcher builds its own, ~20 ms of every render.
        super().__init__(
            allowed_protocols=["https"], allow_redirects=False, ssl_context=_unused_tls_context()
        )
        self.charts = dict(charts or {})
        self.refused: list[str] = []

    def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
        static_prefix = INTERNAL_ORIGIN + settings.STATIC_URL.lstrip("/")
        if url.startswith(CHART_PREFIX):
            name = url.removeprefix(CHART_PREFIX).removesuffix(".svg")
            if name in self.charts:
                return URLFetcherResponse(url, self.charts[name], {"Content-Type": "image/svg+xml"})
        elif url.startswith(static_prefix):
            relative = url.removeprefix(static_prefix).split("?")[0].split("#")[0]
            found = static_file_path(relative)
            if found is not None:
                content_type = mimetypes.guess_type(found.name)[0] or "application/octet-stream"
                return URLFetcherResponse(url, found.read_bytes(), {"Content-Type": content_type})
        self.refused.append(url)
        raise FetchRefused(f"refused to fetch {url!r}: only the app's static files")

    def __call__(self, url: str) -> URLFetcherResponse:
        return self.fetch(url)


# --- warm start --------------------------------------------------------------------------


# A page with the proposal's stylesheet and a small chart: rendering it once loads what the
# first real proposal would otherwise load (fonts for the text and the charts, the stylesheet).
_WARM_UP_FIGURE = {
    "data": [
        {"type": "bar", "name": "a", "x": ["1", "2"], "y": [1, 2]},
        {"type": "scatter", "mode": "lines", "name": "b", "x": ["1", "2"], "y": [2, 1]},
    ],
    "layout": {"title": {"text": "Warm-up"}, "xaxis": {"title": {"text": "x"}}},
}
_WARM_UP_HTML = '<html><body><h1>Warm-up</h1><p>1.234,56 €</p><img src="{chart}"></body></html>'


def warm_up() -> float:
    """Render a small document once; returns the seconds taken.

    Called when a rendering worker process boots (quotes/tasks.py), so that the first
    proposal it renders costs what a warm one does. Failures are logged, not raised: the
    first proposal then loads what it needs itself.
    """
    from django.template.loader import get_template

    started = time.perf_counter()
    try:
        for language, _name in settings.LANGUAGES:  # loads each language's translations
            with translation.override(language):
                get_template("quotes/pdf/proposal.html")  # compiled once, then cached
        charts = {"warm-up": figure_svg(_WARM_UP_FIGURE)}
        chart = CHART_PREFIX + "warm-up.svg"
        html_to_pdf(_WARM_UP_HTML.format(chart=chart), charts, proposal=True)
    except Exception:
        logger.warning("PDF warm-up failed; the first proposal loads its fonts", exc_info=True)
    return time.perf_counter() - started


# --- documents ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedPdf:
    pdf: bytes
    pages: int


class _FontConfigs(threading.local):
    pid: int | None = None
    config: FontConfiguration | None = None
    # (file, mtime, size) of the proposal stylesheet and the stylesheet parsed from it
    stylesheet: tuple[tuple[Path, int, int], CSS] | None = None


_FONT_CONFIGS = _FontConfigs()


def font_config() -> FontConfiguration:
    """This process's and thread's WeasyPrint font configuration, made once.

    Without one WeasyPrint makes a new Pango font map per document, so every render
    matches and loads its fonts again (~6 % of a proposal's CPU). Kept per thread since a
    Pango font map is not safe to share between threads, and made again in a forked child.
    It holds fonts only (the proposals load no web fonts), nothing of a document.
    """
    local = _FONT_CONFIGS
    if local.config is None or local.pid != os.getpid():
        local.config, local.pid = FontConfiguration(), os.getpid()
        local.stylesheet = None  # parsed with the previous font configuration
    return local.config


PROPOSAL_CSS = "css/proposal.css"


def proposal_stylesheet() -> CSS:
    """static/css/proposal.css, parsed once per process and thread and again when the file
    changes (its modification time or size); parsing it cost ~10 ms of every render.

    The file is found as `{% static %}` names it (a hashed name after `collectstatic` in
    production) and read directly, not through the fetcher. It is parsed with this
    thread's font configuration, where a ``@font-face`` rule would register its font.
    """
    config = font_config()
    url, path = static_url_and_file(PROPOSAL_CSS)
    if path is None:
        raise FileNotFoundError(f"the proposal stylesheet {url} is not among the static files")
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    local = _FONT_CONFIGS
    if local.stylesheet is None or local.stylesheet[0] != key:
        css = CSS(
            string=path.read_text(encoding="utf-8"),
            base_url=INTERNAL_ORIGIN + url.lstrip("/"),
            url_fetcher=StaticOnlyFetcher(),
            font_config=config,
        )
        local.stylesheet = (key, css)
    return local.stylesheet[1]


def html_to_pdf(html: str, charts: Mapping[str, bytes], *, proposal: bool = False) -> RenderedPdf:
    """`proposal`: the HTML is the proposal template's; it comes with proposal.css parsed
    (once per process) instead of linking it, since WeasyPrint parses what a document
    links on every render. WeasyPrint ranks a stylesheet given this way as a user
    stylesheet: the template's own <style> (author) wins where both set a property,
    whatever the selectors, so that <style> sets only what proposal.css does not."""
    document = laid_out(html, charts, proposal=proposal)
    return RenderedPdf(document.write_pdf(), len(document.pages))


def laid_out(html: str, charts: Mapping[str, bytes], *, proposal: bool = False) -> Document:
    """The HTML laid out in pages by WeasyPrint (what `html_to_pdf` writes as a PDF); the
    renderer logs what it cannot use (an invalid CSS value, a missing image) as warnings
    of the "weasyprint" logger."""
    fetcher = StaticOnlyFetcher(charts)
    config = font_config()
    source = HTML(string=html, base_url=INTERNAL_ORIGIN, url_fetcher=fetcher)
    stylesheets = [proposal_stylesheet()] if proposal else None
    document = source.render(font_config=config, stylesheets=stylesheets)
    if fetcher.refused:
        logger.warning("PDF render refused %d URL(s): %s", len(fetcher.refused), fetcher.refused)
    return document


def _dec(value: Any) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def public_source(assumption: Mapping[str, Any], seller: Mapping[str, Any] | None = None) -> str:
    """The source of a figure as a buyer reads it: the publication's name without our
    remarks (text in parentheses or after ";"), and our own market research instead of
    an internal estimate note."""
    source = str(assumption.get("source") or "")
    if assumption.get("quoted"):
        return source
    if assumption.get("own_price"):  # our list price: its note and flags are internal
        return str(OWN_PRICE_SOURCE)
    name = source.split(";")[0].split(" (")[0].strip()
    estimate = any(word in name.lower() for word in ("estimat", "schatting"))  # en, nl
    if assumption.get("is_estimate") or estimate or not name:
        who = (seller or {}).get("trade_name") or (seller or {}).get("legal_name") or ""
        return (
            str(_("Market research by %(seller)s") % {"seller": who})
            if who
            else str(_("Market research"))
        )
    return name


def stored_report(tco: Mapping[str, Any] | None) -> Report | None:
    """The report a frozen analysis holds (its ``summary``, the report's JSON form), as
    quotes.services.stored_report reads it (not imported: services import this module)."""
    summary = (tco or {}).get("summary")
    return Report.from_json(summary) if summary else None


def _tco_context(
    tco: Mapping[str, Any] | None, seller: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    if not tco:
        return {"tco": None}
    assumptions = [
        {
            "label": a["label"],
            "value": a["value"],
            "source": public_source(a, seller),
            # An own list price's date is internal (catalog/audience.py).
            "as_of": (
                date.fromisoformat(a["as_of"])
                if a.get("as_of") and not a.get("own_price")
                else None
            ),
        }
        for a in tco.get("assumptions", [])
    ]
    report = stored_report(tco)  # the report as it was frozen (tco.report)
    return {
        "tco": tco,
        "s": report,
        "cur": report.currency if report else "EUR",
        "executive": tco.get("executive") or {},
        "decisions": analysis_decisions(tco),  # beside the headline, as the page says them
        "decisions_frozen": decisions_frozen(tco),
        "assumptions": assumptions,
    }


def _charts_for(
    tco: Mapping[str, Any] | None, with_charts: bool
) -> tuple[list[tuple[str, str]], dict[str, bytes]]:
    """(name, title) of the snapshot's charts, the title for the image's alt text, in the
    buyer's language; and their SVGs."""
    if not with_charts or not tco or not tco.get("figures"):
        return [], {}
    figures = tco["figures"]
    svgs = {name: figure_svg(figure) for name, figure in figures.items()}
    titles = [(name, title_text(figures[name].get("layout") or {}) or name) for name in svgs]
    return titles, svgs


def _placeholders(tco: Mapping[str, Any] | None, charts: list[Any]) -> list[str]:
    """Without charts (the benchmark's baseline), boxes of the same size keep the length."""
    if charts or not tco:
        return []
    return list((tco.get("figures") or {}).keys())


def logo_url(seller: Mapping[str, Any]) -> str:
    """The seller's logo as a static URL the fetcher serves, or "" (a wrong path in the
    company profile must not break a proposal)."""
    path = str(seller.get("logo") or "")
    try:
        url, found = static_url_and_file(path) if path else ("", None)
    except ValueError:  # not in the manifest
        return ""
    return url if found is not None else ""


def unit_label(line: Mapping[str, Any]) -> str:
    """The unit a line's quantity counts, in the active language: the line's own `unit`
    when it has one, else by kind (lines sent before units existed: support per year,
    the rest per piece)."""
    unit = line.get("unit") or (LineUnit.YEARS if line.get("kind") == "support" else LineUnit.PCS)
    return LineUnit.label_for(unit)


def legal_vat_text(vat: Mapping[str, Any]) -> str:
    """The legal VAT wording under the totals, in the language the document is rendered in,
    from the frozen VAT kind and buyer's VAT ID (in the buyer's language this is the
    snapshot's ``legal_text``)."""
    return vat_note(str(vat.get("kind", "")), str(vat.get("buyer_vat_id", "")))


def proposal_totals(frozen: Mapping[str, str]) -> dict[str, Decimal]:
    """A snapshot's totals as amounts, with the net total excl. VAT (subtotal less the quote
    discount) the document prints everywhere it says "excl. VAT". Revisions sent before quote
    discounts existed froze no ``net`` and no ``discount``: their net is the subtotal."""
    totals = {key: Decimal(value) for key, value in frozen.items() if value not in (None, "None")}
    totals.setdefault("discount", Decimal("0.00"))
    totals.setdefault("discount_pct", Decimal(0))
    totals.setdefault("net", totals["subtotal"] - totals["discount"])
    return totals


def reconciliation(
    snapshot: Mapping[str, Any], totals: Mapping[str, Decimal]
) -> dict[str, Any] | None:
    """How the price table, the cover total and the TCO's cost of owning relate.

    Hardware now is the quoted hardware net total (servers, networking, storage,
    installation), which is the analysis' upfront amount; the subtotal adds support and
    other lines; the cost of owning adds power, space, support, staff … over the horizon
    and subtracts the resale value.
    """
    tco = snapshot.get("tco") or {}
    deal = tco.get("deal") or {}
    if not deal.get("hardware_net") or deal.get("problem"):
        return None
    report = stored_report(tco)
    onprem = report.onprem if report else None
    if report is None or onprem is None:
        return None
    hardware = Decimal(deal["hardware_net"])
    rate = Decimal(snapshot["vat"]["rate"])
    months = report.horizon_months
    return {
        "hardware": hardware,
        "hardware_vat": hardware + to_cents(hardware * rate / HUNDRED),
        "upfront": _dec(onprem.upfront_cost),
        # The deal's hardware is net of the quote discount, so the rest is the other lines'
        # net after their share of it: hardware + rest = the proposal's net total.
        "rest": totals["net"] - hardware,
        "owning": _dec(onprem.total_cost),
        "years": months // 12 if months % 12 == 0 else None,
        "months": months,
        "components": [
            {**c, "amount": Decimal(str(c["amount"]))}
            for c in deal.get("owning", [])
            if c.get("key") != "hardware"
        ],
    }


def _lines(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            **line,
            "quantity": Decimal(line["quantity"]),
            "unit_price": Decimal(line["unit_price"]),
            "discount_pct": Decimal(line["discount_pct"]),
            "amount": Decimal(line["amount"]),
            "unit_label": unit_label(line),
        }
        for line in snapshot["lines"]
    ]


def option_sections(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each alternative option (B, C, D) as its section of the proposal prints it: its
    lines, totals, how it is paid (a lease's instalments) and the summary of its own
    analysis."""
    from .services.lease import lease_term
    from .services.options import analysis_figures

    sections = []
    for section in snapshot.get("options") or []:
        frozen = section["snapshot"]
        tco = frozen.get("tco") or {}
        figures = analysis_figures(tco, lease_term(frozen))
        sections.append(
            {
                "lease": frozen.get("lease"),
                # With the analysis: owning with the lease against the best rental.
                "lease_owning": figures["owning"] if figures["lease"] else None,
                "rental_total": figures["rental_total"],
                "best_rental": figures["best_rental"],
                "letter": section["letter"],
                "name": section["name"],
                "lines": _lines(frozen),
                "boms": boms(frozen["lines"]) if frozen.get("bill_of_materials") else [],
                "totals": proposal_totals(frozen["totals"]),
                "executive": tco.get("executive") or {},
                "report": stored_report(tco) if tco else None,
                "has_analysis": bool(tco),
            }
        )
    return sections


def _lease_context(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The frozen lease of option A's revision and, with its analysis, its cost of owning
    with the lease against the best rental (as the comparison computes them)."""
    from .services.lease import lease_term
    from .services.options import analysis_figures

    lease = snapshot.get("lease")
    if not lease:
        return {"lease": None}
    figures = analysis_figures(snapshot.get("tco"), lease_term(dict(snapshot)))
    return {
        "lease": lease,
        "lease_owning": figures["owning"] if figures["lease"] else None,
        "lease_rental": figures["rental_total"],
        "lease_best": figures["best_rental"],
    }


def revision_context(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    from .services.options import comparison

    lines = _lines(snapshot)
    totals = proposal_totals(snapshot["totals"])
    offer = offer_context(snapshot, lines)
    for line, details in zip(lines, offer["details"], strict=True):
        line["details"] = details
    return {
        **offer,
        "doc": snapshot,
        "kind": "proposal",
        "number": snapshot["number"],
        "customer": snapshot["customer"],
        "seller": snapshot.get("seller") or {},
        "logo_url": logo_url(snapshot.get("seller") or {}),
        "owner": snapshot.get("owner") or {},
        "lines": lines,
        # Frozen before the bill of materials: the parts print under their line instead.
        "system_boms": boms(lines) if snapshot.get("bill_of_materials") else [],
        "has_optional": any(line["optional"] for line in lines),
        "has_discount": any(line["discount_pct"] for line in lines),
        "totals": totals,
        "currency": snapshot["currency"],
        "vat_rate": Decimal(snapshot["vat"]["rate"]),
        "legal_text": legal_vat_text(snapshot["vat"]),
        "valid_until": date.fromisoformat(snapshot["valid_until"]),
        "issued": date.fromisoformat(snapshot["issued"]),
        **_deal_terms(snapshot),
        "reconcile": reconciliation(snapshot, totals),
        # Options (services.options): the comparison on page 1 and a section per option.
        "option_a": (snapshot.get("option") or {}) if snapshot.get("options") else None,
        "options": comparison(dict(snapshot)),
        "option_sections": option_sections(snapshot),
        # A leased option A (or a lone leased revision): its instalments beside its price.
        **_lease_context(snapshot),
        **_presented(_tco_context(snapshot.get("tco"), snapshot.get("seller")), snapshot),
    }


def _deal_terms(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The end customer, deal registration and price protection a snapshot states (none
    in revisions frozen before them)."""
    registration = snapshot.get("deal_registration")
    until = snapshot.get("protected_until")
    return {
        "end_customer": snapshot.get("end_customer"),
        "deal_registration": registration,
        "registration_expires": (
            date.fromisoformat(registration["expires"])
            if registration and registration.get("expires")
            else None
        ),
        "protected_until": date.fromisoformat(until) if until else None,
    }


def _presented(context: dict[str, Any], snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """A like-for-like comparison states the buyer's reason instead of recommending renting
    (services.presentation): its frozen headline replaces the recommendation."""
    headline = (snapshot.get("analysis") or {}).get("headline")
    if headline and context.get("executive"):
        context["executive"] = {**context["executive"], "headline": headline}
    return context


def proposal_html(
    tco: Mapping[str, Any] | None,
    context_of: Callable[[], dict[str, Any]],
    *,
    language: str,
    with_charts: bool,
    draft: bool = False,
) -> tuple[str, dict[str, bytes]]:
    """The proposal template's HTML in `language` and the chart images it links."""
    names, charts = _charts_for(tco, with_charts)
    with translation.override(language):
        context = context_of()
        context["draft"] = draft
        context["charts"] = names
        context["placeholders"] = _placeholders(tco, names)
        html = render_to_string("quotes/pdf/proposal.html", context)
    return html, dict(charts)


def render_revision(
    snapshot: Mapping[str, Any], *, language: str, with_charts: bool = True, draft: bool = False
) -> RenderedPdf:
    """The proposal of a sent revision, in the buyer's language (``draft``: the preview of
    a draft, watermarked on every page)."""
    html, charts = proposal_html(
        snapshot.get("tco"),
        lambda: revision_context(snapshot),
        language=language,
        with_charts=with_charts,
        draft=draft,
    )
    return html_to_pdf(html, charts, proposal=True)


def render_lead(
    snapshot: Mapping[str, Any], *, language: str, with_charts: bool = True
) -> RenderedPdf:
    """The calculator analysis for a lead: the same document without priced lines."""
    html, charts = proposal_html(
        snapshot.get("tco"),
        lambda: lead_context(snapshot),
        language=language,
        with_charts=with_charts,
    )
    return html_to_pdf(html, charts, proposal=True)


def lead_context(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The proposal template's context for a lead's analysis (no priced lines)."""
    return {
        "doc": snapshot,
        "kind": "analysis",
        "seller": snapshot.get("seller") or {},
        "logo_url": logo_url(snapshot.get("seller") or {}),
        "customer": {
            "company": snapshot["lead"]["company"],
            "contact_name": snapshot["lead"]["name"],
        },
        "issued": date.fromisoformat(snapshot["issued"]),
        "lines": [],
        **_tco_context(snapshot.get("tco"), snapshot.get("seller")),
    }
