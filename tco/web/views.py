"""The self-serve calculator: one GET view, so every result has a shareable URL.

A plain request renders the whole page (works with JavaScript off); an htmx request
renders only the results and swaps the field errors in out-of-band.

The form, the engine and the charts (numpy, ~150 ms to import) are imported inside the
views: loading the URLs, which every web process does at start-up, must not pay for them
(issue 15; tests/test_startup.py).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from catalog.audience import sees_internal_prices
from common.downloads import attachment
from common.http import HtmxHttpRequest
from tco.inputs.canonical import canonical_query
from tco.presentation.downloads import XLSX_CONTENT_TYPE, workbook_filename
from tco.web.page_cache import cache_anonymous_page

if TYPE_CHECKING:
    from tco.inputs.forms import CalculatorForm


def _bound_form(request: HttpRequest) -> CalculatorForm:
    """The request's calculator form, bound and validated once (the page-cache key and
    the view both need it)."""
    form: CalculatorForm | None = getattr(request, "_calculator_form", None)
    if form is None:
        from tco.analysis.calculator import form_data
        from tco.inputs.forms import CalculatorForm
        from tco.scenario.resolve import CatalogSnapshot

        form = CalculatorForm(form_data(request.GET), catalog=CatalogSnapshot.current())
        form.is_valid()
        vars(request)["_calculator_form"] = form
    return form


def canonical_inputs(request: HttpRequest) -> str | None:
    """The canonical query of what the page depends on: the validated calculator inputs,
    and the chart option (`charts=all`) that is not a form field; None when invalid."""
    form = _bound_form(request)
    if not form.is_valid():
        return None
    query = canonical_query(form)
    return query + "&charts=all" if request.GET.get("charts") == "all" else query


def _charts_toggle_query(request: HttpRequest, all_options: bool) -> str:
    """The page's query with `charts=all` added or taken out (the link between the cheapest
    few options and all of them)."""
    toggle = request.GET.copy()
    if all_options:
        toggle.pop("charts")
    else:
        toggle["charts"] = "all"
    return toggle.urlencode()


# The default configurations, read once per catalog generation like the catalog itself
# (tco.scenario.resolve.CatalogSnapshot.current): {"all": (generation, read at, by server)}.
_DEFAULTS: dict[str, tuple[int, float, dict[int, list[Any]]]] = {}


def default_parts() -> dict[int, list[Any]]:
    """Every chassis's default configuration (ChassisDefault rows with their component),
    by server id, held in memory while the catalog generation is unchanged."""
    from catalog.generation import catalog_generation
    from catalog.models import ChassisDefault
    from tco.scenario.resolve import CATALOG_MEMORY_SECONDS

    generation, now = catalog_generation(), time.monotonic()
    held = _DEFAULTS.get("all")
    if held is not None and held[0] == generation and now - held[1] < CATALOG_MEMORY_SECONDS:
        return held[2]
    by_server: dict[int, list[Any]] = {}
    rows = ChassisDefault.objects.select_related("component").order_by("server_id", "position")
    for row in rows:
        by_server.setdefault(row.server_id, []).append(row)
    _DEFAULTS["all"] = (generation, now, by_server)
    return by_server


def what_is_in_it(server: Any) -> list[dict[str, Any]]:
    """The sized server's default configuration, read-only: part number, role and name in
    the reader's language and quantity per server (docs/configure.md). Nothing internal:
    no prices, sources or estimate flags."""
    from catalog.models import ComponentRole

    dutch = translation.get_language() == "nl"
    return [
        {
            "part_number": row.component.part_number,
            "role": str(ComponentRole(row.component.role).label).capitalize(),
            "name": row.component.name_nl
            if dutch and row.component.name_nl
            else row.component.name,
            "quantity": row.quantity,
        }
        for row in default_parts().get(server.pk, [])
    ]


@require_safe
@cache_anonymous_page(canonical_inputs)
def calculator(request: HtmxHttpRequest) -> HttpResponse:
    from tco.analysis.calculator import analyse_bound_form
    from tco.inputs.forms import PRESET_CHOICES
    from tco.inputs.presets import KIND_DEFAULTS
    from tco.presentation.charts import CHARTED_CLOUD_OPTIONS
    from tco.web.chart_context import page_charts

    form, outcome = analyse_bound_form(_bound_form(request))
    all_options = request.GET.get("charts") == "all"
    context: dict[str, Any] = {
        "form": form,
        "outcome": outcome,
        "presets": PRESET_CHOICES,
        "active_preset": request.GET.get("preset", ""),
        "charts": (
            page_charts(outcome.analysis.result, translation.get_language(), all_options)
            if outcome.analysis
            else None
        ),
        "charts_all": all_options,
        "charts_toggle_query": _charts_toggle_query(request, all_options),
        "charted_options": CHARTED_CLOUD_OPTIONS,
        "kind_defaults": KIND_DEFAULTS,
        # Staff and sales read the internal flags of own prices (catalog/audience.py);
        # anonymous pages, the cached ones, never carry them.
        "internal": sees_internal_prices(request.user),
        "what_is_in_it": what_is_in_it(outcome.analysis.built.server_model)
        if outcome.analysis
        else [],
    }
    # Jinja2 (config/jinja.py): the form and the results are most of the page's rendering
    # work; the layout around them is Django's (base.html, shared with every other page).
    if request.htmx:
        response = HttpResponse(
            render_to_string("tco/results.jinja", context, request, using="jinja2")
        )
        if form.errors and outcome.analysis is None and not outcome.problem:
            # A field is wrong: its message goes next to it (out of band) and the previous
            # result stays, marked as such, at the URL of the inputs that gave it.
            response["HX-Reswap"] = "none"
            response["HX-Push-Url"] = "false"
        return response
    body = render_to_string("tco/calculator_body.jinja", context, request, using="jinja2")
    return render(request, "tco/calculator.html", {"body": mark_safe(body)})


@require_safe
def calculator_workbook(request: HttpRequest) -> HttpResponse:
    """The result's TCO model as an Excel workbook with live formulas
    (tco.presentation.workbook)."""
    from tco.analysis.calculator import analyse_query
    from tco.presentation.workbook import analysis_workbook

    _form, outcome = analyse_query(request.GET)
    if outcome.analysis is None:  # invalid inputs: the page says what is wrong
        return redirect(f"{reverse('tco:calculator')}?{request.GET.urlencode()}")
    analysis = outcome.analysis
    response = HttpResponse(
        analysis_workbook(analysis, internal=sees_internal_prices(request.user)),
        content_type=XLSX_CONTENT_TYPE,
    )
    response["Content-Disposition"] = attachment(workbook_filename(analysis.report.scenario))
    return response
