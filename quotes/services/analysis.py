"""The TCO analysis attached to a quote or a lead: computed by the calculator's engine call,
worded in the buyer's language and frozen as plain JSON."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.http import QueryDict
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from .errors import QuoteError

PDF_CHARTS = ("cumulative", "breakdown", "utilization")


def executive_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """Buy or rent, in numbers and in words: the engine's verdict, worded in the active language.

    The decision itself comes from the engine (``summary["verdict"]``); this only words it,
    so the page, the quote and the PDF say the same thing.
    """
    from tco.wording import (
        break_even_sentence,
        cloud_label,
        owning_extras_sentence,
        verdict_headline,
    )

    options = summary.get("options") or []
    verdict = summary.get("verdict")
    onprem = next((o for o in options if o.get("kind") == "onprem"), None)
    if not verdict or onprem is None:
        return {"buy": None}
    reference = next((o for o in options if o.get("name") == verdict.get("reference_cloud")), None)
    params = verdict.get("params") or {}
    buy = verdict.get("action") in ("buy", "hybrid")
    return {
        "buy": buy,
        "action": verdict.get("action"),
        "headline": verdict_headline(verdict, summary.get("currency", "EUR")),
        "break_even": break_even_sentence(summary),
        "extras": owning_extras_sentence(summary),
        "best_cloud": cloud_label(verdict.get("reference_cloud") or ""),
        # The cheapest way to own (kept or resold), so the saving reconciles with it.
        "onprem_total": params.get("cost") if buy else params.get("owning_cost"),
        "cloud_total": reference["total_cost"] if reference else None,
        "saving": params.get("saving"),
        "saving_pct": params.get("saving_pct") if buy else None,
        "break_even_utilization": summary.get("break_even_utilization"),
        "break_even_month": summary.get("break_even_month"),
        "payback_month": summary.get("break_even_month"),
    }


def plain(value: Decimal) -> str:
    """A Decimal as plain digits without exponent or trailing zeros: 10.00 → "10"."""
    return format(value.normalize(), "f")


def tco_snapshot(*, analysis: Any, query: str, language: str) -> dict[str, Any]:
    """A JSON-safe copy of a calculator analysis, with the PDF's charts as Plotly JSON.

    The figures are built here, from the engine result, by the same builders as the web
    page (tco.charts) and in the buyer's language, so that a PDF rendered later shows the
    analysis as it was, whatever happens to the catalog in between.
    """
    from tco.chart_context import SEPARATORS, chart_labels
    from tco.charts import all_charts, figure_payload

    limit = settings.PRICE_STALE_AFTER_DAYS
    today = timezone.localdate()
    with translation.override(language):
        # Built in the buyer's language: labels, amounts in their number format, charts.
        figures = all_charts(
            analysis.result, chart_labels(analysis.result), SEPARATORS.get(language, ".,")
        )
        payloads = {name: figure_payload(figures[name]) for name in PDF_CHARTS}
        server = analysis.built.server_model
        summary = analysis.summary
        snapshot = {
            "query": query,
            "language": language,
            "computed_at": timezone.now().isoformat(),
            "summary": summary,
            "executive": executive_summary(summary),
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
                for a in analysis.built.assumptions
            ],
            "figures": payloads,
        }
        # Plain JSON now (lazy translations resolved in the buyer's language).
        return json.loads(json.dumps(snapshot, cls=DjangoJSONEncoder))


def analyse_calculator_query(*, query: str) -> Any:
    """The calculator's analysis for a result URL's query string, or QuoteError."""
    from tco.services import analyse_query

    _form, outcome = analyse_query(QueryDict(query))
    if outcome.analysis is None:
        raise QuoteError(
            outcome.problem
            or _("The calculator inputs are not valid; open the calculator and try again.")
        )
    return outcome.analysis


def calculator_analysis(*, query: str) -> tuple[Any, str]:
    """The analysis of a result URL's query and its canonical query (validated inputs only)."""
    from tco.canonical import canonical_query
    from tco.services import analyse_query

    form, outcome = analyse_query(QueryDict(query))
    if outcome.analysis is None:
        raise QuoteError(
            outcome.problem
            or _("The calculator inputs are not valid; open the calculator and try again.")
        )
    return outcome.analysis, canonical_query(form)
