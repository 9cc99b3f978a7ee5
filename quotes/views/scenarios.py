"""Saved scenarios (services.scenarios): save a calculator result to a customer, the
customer's page that lists them, the side-by-side comparison, "re-price today" and "start
a quote with these as options". Sales only; every row scoped to the user's teams (another
team's customer or scenario is 404)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from common.http import AuthenticatedHttpRequest

from .. import selectors, services
from ..models import Customer, SavedScenario
from ..scenario_forms import ScenarioSaveForm
from .access import sales_required


def customer_url(customer: Customer) -> str:
    return reverse("quotes:customer", kwargs={"public_id": customer.public_id})


@require_safe
@sales_required
def customer_detail(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    customer = selectors.customer_for_user(user=request.user, public_id=public_id)
    rows = [_column(s) for s in selectors.customer_scenarios(customer=customer)]
    context = {"customer": customer, "rows": rows, "max_compared": services.MAX_COMPARED}
    return render(request, "quotes/customer.html", context)


@require_http_methods(["GET", "POST"])
@sales_required
def scenario_save(request: AuthenticatedHttpRequest) -> HttpResponse:
    customers = selectors.customer_list(user=request.user)
    initial = {"calc": request.GET.get("calc", ""), "customer": request.GET.get("customer")}
    form = ScenarioSaveForm(request.POST or None, customers=customers, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            scenario = services.scenario_save(
                customer=data["customer"],
                owner=request.user,
                query=data["calc"],
                name=data["name"],
                note=data["note"],
            )
        except services.QuoteError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                _("Scenario “%(name)s” saved for %(company)s.")
                % {"name": scenario.name, "company": scenario.customer.company},
            )
            return redirect(customer_url(scenario.customer))
    context = {"form": form, "has_customers": customers.exists()}
    return render(request, "quotes/scenario_save.html", context, status=_status(request, form))


def _status(request: HttpRequest, form: ScenarioSaveForm) -> int:
    return 400 if request.method == "POST" and form.errors else 200


def _chosen(request: HttpRequest, customer: Customer) -> list[SavedScenario]:
    ids = request.GET.getlist("s") if request.method == "GET" else request.POST.getlist("s")
    return selectors.customer_scenarios_by_id(customer=customer, public_ids=ids)


@require_safe
@sales_required
def scenario_compare(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    customer = selectors.customer_for_user(user=request.user, public_id=public_id)
    scenarios = _chosen(request, customer)
    if not 1 <= len(scenarios) <= services.MAX_COMPARED:
        messages.error(request, _("Choose one to four scenarios to compare."))
        return redirect(customer_url(customer))
    return render(request, "quotes/scenario_compare.html", compare_context(customer, scenarios))


def comparison_chart(scenarios: Sequence[SavedScenario], language: str) -> dict[str, Any]:
    """One cumulative-cost chart of the scenarios' owned options (tco.presentation.charts),
    each line named by its scenario, in `language`: those priced in the first one's
    currency (`charted_scenarios`)."""
    from tco.presentation.chart_labels import SEPARATORS, chart_labels
    from tco.presentation.charts import figure_payload, scenarios_cumulative_chart

    drawn = services.charted_scenarios(scenarios)
    with translation.override(language):
        lines = [(s.name, s.summary["owning_cumulative"]) for s in drawn]
        currency = services.scenario_figures(drawn[0].summary).currency
        figure = scenarios_cumulative_chart(
            lines, currency, chart_labels(), SEPARATORS.get(language, ".,")
        )
        return figure_payload(figure)


def compare_context(customer: Customer, scenarios: list[SavedScenario]) -> dict[str, Any]:
    """The comparison page: each scenario's figures, the inputs (those that differ
    flagged) and the combined cumulative-cost chart, drawn on the server and as Plotly
    data for the page's script."""
    from tco.presentation.chart_svg import UnsupportedFigure, figure_svg
    from tco.presentation.charts import charts_json

    language = translation.get_language() or "en"
    figure = comparison_chart(scenarios, language)
    rows = services.input_rows([s.document for s in scenarios])
    drawn = services.charted_scenarios(scenarios)
    try:
        title = _("Cumulative cost of owning, by scenario")
        svg = figure_svg(figure, 950, 400, clip_id="chart-clip-scenarios", label=title, fluid=True)
    except UnsupportedFigure:
        svg = b""
    return {
        "customer": customer,
        "columns": [_column(s) for s in scenarios],
        "differing": [row for row in rows if row.differs],
        "inputs": rows,
        "chart_svg": svg.decode(),
        "not_charted": [s.name for s in scenarios if s not in drawn],
        "chart_json": charts_json({"scenarios": figure}),
    }


def _column(scenario: SavedScenario) -> dict[str, Any]:
    return {"scenario": scenario, "figures": services.scenario_figures(scenario.summary)}


@require_safe
@sales_required
def scenario_reprice(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    scenario = selectors.scenario_for_user(user=request.user, public_id=public_id)
    try:
        repriced = services.scenario_reprice(scenario)
    except services.QuoteError as exc:
        messages.error(request, str(exc))
        return redirect(customer_url(scenario.customer))
    context = {"scenario": scenario, "repriced": repriced, "today": repriced.today}
    return render(request, "quotes/scenario_reprice.html", context)


@require_POST
@sales_required
def scenario_quote(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    customer = selectors.customer_for_user(user=request.user, public_id=public_id)
    scenarios = _chosen(request, customer)
    try:
        quote = services.quote_from_scenarios(scenarios=scenarios, owner=request.user)
    except services.QuoteError as exc:
        messages.error(request, str(exc))
        return redirect(customer_url(customer))
    messages.success(
        request,
        _("Quote %(number)s created with %(count)s options.")
        % {"number": quote.number, "count": len(scenarios)},
    )
    return redirect("quotes:detail", public_id=quote.public_id)
