"""The self-serve calculator: one GET view, so every result has a shareable URL.

A plain request renders the whole page (works with JavaScript off); an htmx request
renders only the results and swaps the field errors in out-of-band.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_safe

from .canonical import canonical_query
from .chart_context import chart_payloads
from .forms import PRESET_CHOICES, CalculatorForm
from .page_cache import cache_anonymous_page
from .scenario_io import CatalogSnapshot
from .services import analyse_query, form_data


def canonical_inputs(request: HttpRequest) -> str | None:
    """The canonical query of the request's calculator inputs; None when they are invalid."""
    form = CalculatorForm(form_data(request.GET), catalog=CatalogSnapshot.load())
    return canonical_query(form) if form.is_valid() else None


@require_safe
@cache_anonymous_page(canonical_inputs)
def calculator(request: HttpRequest) -> HttpResponse:
    form, outcome = analyse_query(request.GET)
    context: dict[str, Any] = {
        "form": form,
        "outcome": outcome,
        "presets": PRESET_CHOICES,
        "active_preset": request.GET.get("preset", ""),
        "charts": (
            chart_payloads(outcome.analysis.result, translation.get_language())
            if outcome.analysis
            else {}
        ),
    }
    template = "tco/_results.html" if request.htmx else "tco/calculator.html"
    return render(request, template, context)
