"""The win/loss page of a team and period, and its CSV/XLSX export (quotes/winloss.py)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from .. import winloss
from ..forms import WinLossForm
from ..models import DeclineReason
from .access import sales_required
from .exports import table_response

# The chart's geometry (an inline SVG; it scales to the page's width).
BAR_WIDTH, BAR_HEIGHT, LABEL_WIDTH = 360, 28, 120


def _report(request: HttpRequest) -> tuple[WinLossForm, list[winloss.QuoteOutcome]]:
    teams = winloss.visible_teams(request.user)
    form = WinLossForm(request.GET, teams=teams)
    start, end, team_id = form.period(winloss.default_period(timezone.localdate()))
    team = next((t for t in teams if t.pk == team_id), None)
    rows = winloss.outcomes(user=request.user, start=start, end=end, team=team)
    # The form shows the period the figures are for (the defaults when none was given).
    shown = {"from": start.isoformat(), "to": end.isoformat(), "team": team.pk if team else ""}
    return WinLossForm(shown, teams=teams), rows


def chart_bars(summary: winloss.Summary) -> list[dict[str, Any]]:
    """One bar per outcome, as long as its share of the largest count."""
    largest = max(summary.counts.values(), default=0) or 1
    return [
        {
            "outcome": outcome,
            "label": winloss.outcome_label(outcome),
            "count": summary.counts[outcome],
            "width": round(BAR_WIDTH * summary.counts[outcome] / largest),
            "y": index * (BAR_HEIGHT + 8),
        }
        for index, outcome in enumerate(winloss.OUTCOMES)
    ]


@require_safe
@sales_required
def winloss_report(request: HttpRequest) -> HttpResponse:
    form, rows = _report(request)
    summary = winloss.summarise(rows)
    query = request.GET.urlencode()
    return render(
        request,
        "quotes/report.html",
        {
            "form": form,
            "rows": rows,
            "summary": summary,
            "bars": chart_bars(summary),
            "chart": {
                "width": LABEL_WIDTH + BAR_WIDTH + 60,
                "height": len(winloss.OUTCOMES) * (BAR_HEIGHT + 8),
                "label_width": LABEL_WIDTH,
                "bar_height": BAR_HEIGHT,
            },
            "query": query,
            "reasons": DeclineReason.choices,
            "outcome_labels": [(o, winloss.outcome_label(o)) for o in winloss.OUTCOMES],
        },
    )


@require_safe
@sales_required
def winloss_export(request: HttpRequest, fmt: str) -> HttpResponse:
    _form, rows = _report(request)
    return table_response(winloss.export_rows(rows), winloss.columns(), "win-loss", fmt)
