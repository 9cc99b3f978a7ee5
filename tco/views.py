"""The self-serve calculator: one GET view, so every result has a shareable URL.

A plain request renders the whole page (works with JavaScript off); an htmx request
renders only the results and swaps the field errors in out-of-band.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_GET

from tco.scenario_io import CatalogSnapshot

from .chart_context import chart_payloads
from .forms import PRESET_CHOICES, CalculatorForm
from .presets import DEFAULT_PRESET, preset_data
from .services import CalculatorOutcome, analyse_form


def form_data(query: QueryDict) -> QueryDict:
    """The submitted fields; or a preset's values when only a preset (or nothing) is given."""
    submitted = {key for key in query if key != "preset"}
    if submitted:
        return query
    values = preset_data(query.get("preset", "")) or preset_data(DEFAULT_PRESET.slug) or {}
    data = QueryDict(mutable=True)
    for key, value in values.items():
        if isinstance(value, list):
            data.setlist(key, [str(v) for v in value])
        else:
            data[key] = str(value)
    return data


@require_GET
def calculator(request: HttpRequest) -> HttpResponse:
    catalog = CatalogSnapshot.load()
    form = CalculatorForm(form_data(request.GET), catalog=catalog)
    outcome = analyse_form(form) if form.is_valid() else CalculatorOutcome()
    for name, message in outcome.field_errors.items():
        form.add_error(name, message)
    for message in outcome.non_field_errors:
        form.add_error(None, message)
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
