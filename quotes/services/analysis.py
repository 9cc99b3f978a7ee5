"""The TCO analysis attached to a quote or a lead: computed by the calculator's engine call,
worded in the buyer's language and frozen as plain JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from tco.report import Report

from ..decisions import analysis_decisions
from .errors import QuoteError

PDF_CHARTS = ("cumulative", "breakdown", "utilization")


def stored_report(tco: Mapping[str, Any] | None) -> Report | None:
    """The report a frozen analysis (a quote's, a revision's or a lead's ``tco``) holds in
    its ``summary``, read back from its JSON form; None when it holds none."""
    summary = (tco or {}).get("summary")
    return Report.from_json(summary) if summary else None


def executive_summary(report: Report) -> dict[str, Any]:
    """Buy or rent, in numbers and in words: the engine's verdict, worded in the active language.

    The decision itself comes from the engine (``report.verdict``); this only words it,
    so the page, the quote and the PDF say the same thing.
    """
    from tco.presentation.wording import (
        break_even_sentence,
        cloud_label,
        owning_extras_sentence,
        verdict_headline,
    )
    from tco.presentation.wording_idle import idle_report_sentence
    from tco.presentation.wording_verdict import verdict_decisions

    verdict = report.verdict
    if report.onprem is None:
        return {"buy": None}
    reference = report.reference
    params = verdict.params
    buy = verdict.action in ("buy", "hybrid")
    return {
        "buy": buy,
        "action": verdict.action,
        "headline": verdict_headline(verdict, report.currency),
        "break_even": break_even_sentence(report),
        "extras": owning_extras_sentence(report),
        "idle": idle_report_sentence(report),  # an owned fleet that would stand idle
        # The decisions the page's verdict states beside its headline (where the site put
        # the servers, when the capacity is ready and the bridge, what the terms ruled out).
        "decisions": [decision.text for decision in verdict_decisions(report)],
        "best_cloud": cloud_label(verdict.reference_cloud or ""),
        # The cheapest way to own (kept or resold), so the saving reconciles with it.
        "onprem_total": params.get("cost") if buy else params.get("owning_cost"),
        "cloud_total": reference.total_cost if reference else None,
        "saving": params.get("saving"),
        "saving_pct": params.get("saving_pct") if buy else None,
        "break_even_utilization": report.break_even_utilization,
        "break_even_month": report.break_even_month,
        "payback_month": report.break_even_month,
    }


def summary_lines(tco: Mapping[str, Any] | None, headline: str | None = None) -> list[str]:
    """A frozen analysis' verdict for a summary without the page around it (the emails):
    the headline (or the one a like-for-like proposal states instead) and the decisions the
    page states beside it. Empty when the analysis holds no verdict."""
    from tco.presentation.wording import verdict_headline

    report = stored_report(tco)
    if report is None or report.onprem is None:
        return []
    executive = (tco or {}).get("executive") or {}
    first = headline or executive.get("headline")
    if not first:
        first = verdict_headline(report.verdict, report.currency)
    return [str(first), *analysis_decisions(tco)]


def plain(value: Decimal) -> str:
    """A Decimal as plain digits without exponent or trailing zeros: 10.00 → "10"."""
    return format(value.normalize(), "f")


def tco_snapshot(*, analysis: Any, query: str, language: str) -> dict[str, Any]:
    """A JSON-safe copy of a calculator analysis, with the PDF's charts as Plotly JSON.

    The figures are built here, from the engine result, by the same builders as the web
    page (tco.presentation.charts) and in the buyer's language, so that a PDF rendered later
    shows the analysis as it was, whatever happens to the catalog in between.
    """
    from tco.analysis import proposal_figures

    limit = settings.PRICE_STALE_AFTER_DAYS
    today = timezone.localdate()
    with translation.override(language):
        # Built in the buyer's language: labels, amounts in their number format, charts.
        payloads = proposal_figures(analysis, language, PDF_CHARTS)
        server = analysis.built.server_model
        report: Report = analysis.report
        snapshot = {
            "query": query,
            "language": language,
            "computed_at": timezone.now().isoformat(),
            "summary": report.to_json(),  # the report's JSON form (stored_report reads it)
            "executive": executive_summary(report),
            "server": {
                "key": server.key,
                "vendor": server.vendor,
                "sku": server.sku,
                "name": server.name,
                "gpu": server.gpu.name,
                "gpu_count": server.gpu_count,
            },
            "assumptions": [
                {
                    "label": a.label,
                    "value": a.value,
                    "source": a.source,
                    "as_of": a.as_of.isoformat() if a.as_of else None,
                    "is_estimate": a.is_estimate,
                    "stale": bool(a.is_price and a.as_of and (today - a.as_of).days > limit),
                    "own_price": a.own_price,
                }
                for a in analysis.assumptions
            ],
            "figures": payloads,
        }
        # Plain JSON now (lazy translations resolved in the buyer's language).
        plain_snapshot: dict[str, Any] = json.loads(json.dumps(snapshot, cls=DjangoJSONEncoder))
        return plain_snapshot


def analyse_calculator_query(*, query: str) -> Any:
    """The calculator's analysis for a result URL's query string, or QuoteError."""
    return calculator_analysis(query=query)[0]


def calculator_analysis(*, query: str) -> tuple[Any, str]:
    """The analysis of a result URL's query and its canonical query (validated inputs only)."""
    from tco.analysis.calculator import analyse_result_query

    found = analyse_result_query(query)
    if found.analysis is None:
        raise QuoteError(
            found.problem
            or _("The calculator inputs are not valid; open the calculator and try again.")
        )
    return found.analysis, found.canonical_query
