"""Business rules of the calculator: pick the server, run the engine, explain failures.

Other apps use the calculator through this module and the report (tco.report) only: analyse
a result URL's query (`analyse_result_query`, no form to handle), rebuild its scenario
document for a server model (`calculator_document`), read a stored document
(`parse_document`) and evaluate it (`analyse_document`); `ScenarioError` names the input at
fault, `EngineError` what the engine refused. An analysis' report is worded by the functions
re-exported here from
tco.presentation.wording, and its charts for a proposal are `proposal_figures`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any

from django.conf import settings
from django.http import QueryDict
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _

from catalog.audience import OWN_PRICE_SOURCE
from catalog.models import ServerModel
from tco.engine import (
    DeadlineInfeasible,
    DoesNotFit,
    EngineError,
    InvalidInput,
    NoCompliantOption,
    OwningPlan,
    ScenarioResult,
    SizingMemo,
    costs_of_owning,
    evaluate,
    owning_plan,
)
from tco.engine.units import FxRates
from tco.presentation.wording import (
    break_even_sentence,
    cloud_label,
    owning_extras_sentence,
    verdict_headline,
)
from tco.presentation.wording_idle import idle_report_sentence
from tco.presentation.wording_site import placed_elsewhere, site_verdict
from tco.report import Report, build_report
from tco.scenario import ScenarioDocument, parse_document
from tco.scenario.resolve import (
    YOUR_INPUT,
    Assumption,
    BuiltScenario,
    CatalogSnapshot,
    ScenarioError,
    build_scenario,
    with_server,
)
from tco.web.forms import SERVING_DEMAND_FIELDS, CalculatorForm
from tco.web.presets import DEFAULT_PRESET, preset_data

__all__ = [
    "YOUR_INPUT",
    "Analysis",
    "AssumptionRow",
    "CalculatorOutcome",
    "Candidate",
    "CatalogSnapshot",
    "EngineError",
    "FxRates",
    "ResultAnalysis",
    "ScenarioDocument",
    "ScenarioError",
    "analyse_bound_form",
    "analyse_document",
    "analyse_form",
    "analyse_query",
    "analyse_result_query",
    "break_even_sentence",
    "calculator_document",
    "cloud_label",
    "form_data",
    "idle_report_sentence",
    "no_compliant_option_message",
    "owning_components",
    "owning_extras_sentence",
    "parse_document",
    "proposal_figures",
    "site_verdict",
    "verdict_headline",
]

# Scenario paths (docs/scenario.md) → the calculator field that sets them.
FORM_FIELD_FOR_PATH = {
    "workload.params_billion": "params_billion",
    "workload.tokens_billion": "tokens_billion",
    "workload.deadline_days": "deadline_days",
    "workload.target_tokens_per_second": "target_tokens_per_second",
    "workload.mfu": "mfu_pct",
    "workload.goodput": "goodput_pct",
    "workload.sequence_length": "sequence_length",
    "workload.context_tokens": "context_tokens",
    "workload.concurrent_sequences": "concurrency",
    "workload.serving_efficiency": "serving_efficiency_pct",
    "workload.serving_use": "serving_use",
    "site.pue": "pue",
    "site.electricity_price_per_kwh": "electricity_price",
    "site.colocation_per_kw_month": "colocation_price",
    "site.rack_power_limit_kw": "rack_power_limit",
    "site.available_it_kw": "available_it_kw",
    "site.grid_headroom_kw": "grid_headroom_kw",
    "site.pue_liquid": "pue_liquid",
    "site.cooling": "site_cooling",
    "finance.utilization": "utilization_pct",
    "finance.discount_rate": "discount_rate_pct",
    "finance.lease_annual_rate": "lease_rate_pct",
    "demand.pattern": "demand_pattern",
    "demand.runs_per_year": "runs_per_year",
    "demand.growth_per_year": "growth_pct",
    "demand.utilization": "utilization_pct",
    "demand.bursts_per_year": "bursts_per_year",
    "demand.burst_servers": "burst_servers",
    "demand.burst_days": "burst_days",
    "server.list_price": "server_price",
    "servers": "fleet_servers",
    "finance.staff_fte": "staff_fte",
    "finance.staff_annual_cost": "staff_cost",
    "finance.support_pct_per_year": "support_pct",
    "finance.service_life_months": "service_life_years",
    **{f"workload.serving_demand.{name}": name for name in SERVING_DEMAND_FIELDS},
    "api_offerings": "compare_apis",
}


def no_compliant_option_message() -> str:
    return _(
        "No option meets your terms: every option breaks at least one of them. Choose a site "
        "on your own premises, or relax a requirement."
    )


@dataclass(frozen=True)
class Candidate:
    """A server model the calculator considered, and why it was or was not chosen."""

    server: ServerModel
    onprem_total: float | None
    reason: str
    meets_latency_targets: bool = True  # serving: the sizing meets the latency targets


@dataclass
class Analysis:
    built: BuiltScenario
    result: ScenarioResult
    report: Report  # what every output renders (tco/report); its JSON form: report.to_json()
    candidates: list[Candidate]

    @cached_property
    def assumptions(self) -> tuple[Assumption, ...]:
        """The figures this result's costs used. A liquid-cooled fleet that does not fit the
        scenario's site is placed at the liquid-ready colocation: its electricity, PUE and
        colocation price are listed instead of the site's; a fleet that stays on its site
        lists the site's, not the colocation's."""
        fit = self.report.site_fit
        unused = "site" if fit is not None and fit.placed_at is not None else "fallback"
        return tuple(a for a in self.built.assumptions if a.site_role != unused)

    @cached_property
    def assumption_rows(self) -> list[tuple[Assumption, bool]]:
        """Each assumption with whether it is a price older than the freshness limit
        (specifications do not go stale)."""
        limit = settings.PRICE_STALE_AFTER_DAYS
        today = timezone.localdate()
        return [
            (a, bool(a.is_price and a.as_of and (today - a.as_of).days > limit))
            for a in self.assumptions
        ]

    @cached_property
    def stale_assumptions(self) -> list[Assumption]:
        return [a for a, stale in self.assumption_rows if stale]

    def assumption_table(self, *, internal: bool) -> list[AssumptionRow]:
        """The assumptions as a reader sees them: staff and sales (`internal`) read every
        source, date, estimate mark and staleness; everyone else reads the distributor's own
        list prices as "Our price list", without date or flags (catalog/audience.py), and
        third-party figures with theirs."""
        return [
            AssumptionRow(a.label, a.value, OWN_PRICE_SOURCE, None, False, False)
            if a.own_price and not internal
            else AssumptionRow(a.label, a.value, a.source, a.as_of, a.is_estimate, stale)
            for a, stale in self.assumption_rows
        ]


@dataclass(frozen=True)
class AssumptionRow:
    """One row of the assumptions table as its reader sees it (Analysis.assumption_table)."""

    label: str | Promise
    value: str
    source: str | Promise
    as_of: date | None
    is_estimate: bool
    stale: bool


@dataclass
class CalculatorOutcome:
    analysis: Analysis | None = None
    problem: str | None = None
    field_errors: dict[str, str] = field(default_factory=dict)
    non_field_errors: list[str] = field(default_factory=list)


def form_data(query: QueryDict) -> QueryDict:
    """The form's fields: a preset's values, then every field the URL gives.

    A full form submission (it carries ``full``) is taken as it is, so that an
    unticked box stays unticked. A shared link such as
    ``?preset=lora-70b&params_billion=13`` applies the preset (or the default
    one), then its own parameters.
    """
    if query.get("full"):
        return query
    values = preset_data(query.get("preset", "")) or preset_data(DEFAULT_PRESET.slug) or {}
    data = QueryDict(mutable=True)
    for key, value in values.items():
        if isinstance(value, list):
            data.setlist(key, [str(v) for v in value])
        elif isinstance(value, bool):
            if value:
                data.setlist(key, ["on"])
        else:
            data.setlist(key, [str(value)])
    for key, given in query.lists():
        if key != "preset":
            data.setlist(key, list(given))
    return data


def analyse_query(query: QueryDict) -> tuple[CalculatorForm, CalculatorOutcome]:
    """Run the calculator on URL parameters (a result URL's query string).

    The form comes back bound, with any engine-detected problems attached to its fields,
    so callers (the calculator page, quotes started from a result) render or store both.
    """
    return analyse_bound_form(CalculatorForm(form_data(query), catalog=CatalogSnapshot.current()))


@dataclass(frozen=True)
class ResultAnalysis:
    """A result URL's analysis for other apps: the analysis, or the problem that prevents
    it; and the canonical query of its validated inputs ("" when they are not valid)."""

    analysis: Analysis | None
    problem: str | None
    canonical_query: str


def analyse_result_query(query: str) -> ResultAnalysis:
    """`analyse_query` on a result URL's query string, without the form: what quotes and
    leads start from. ``problem``: why the engine could not answer, if it says (None with
    inputs the form refuses)."""
    from tco.web.canonical import canonical_query

    form, outcome = analyse_query(QueryDict(query))
    return ResultAnalysis(
        analysis=outcome.analysis,
        problem=outcome.problem,
        canonical_query=canonical_query(form) if form.is_valid() else "",
    )


def proposal_figures(analysis: Analysis, language: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The charts ``names`` of an analysis as Plotly JSON, built in ``language`` by the same
    builders as the page (what a proposal freezes and draws later)."""
    from django.utils import translation

    from tco.presentation.charts import all_charts, figure_payload
    from tco.web.chart_context import SEPARATORS, chart_labels

    with translation.override(language):
        figures = all_charts(
            analysis.result, chart_labels(analysis.result), SEPARATORS.get(language, ".,")
        )
        # A chart that would not compare what the headline compares is not drawn
        # (tco.presentation.charts.omitted_charts).
        return {name: figure_payload(figures[name]) for name in names if name in figures}


def owning_components(analysis: Analysis, language: str) -> list[dict[str, Any]]:
    """The cost of owning over the horizon by component (purchase, energy, colocation,
    support, staff, …, resale value negative), labelled in ``language`` as the breakdown
    chart labels them; the amounts add up to the on-prem option's total cost."""
    from django.utils import translation

    from tco.web.chart_context import chart_labels

    cashflow = analysis.result.onprem.cashflow
    with translation.override(language):
        labels = chart_labels(analysis.result)
        return [
            {"key": column, "label": str(labels.component(column)), "amount": amount}
            for column in cashflow.components
            if (amount := round(float(cashflow[column].sum()), 2)) != 0
        ]


def analyse_bound_form(form: CalculatorForm) -> tuple[CalculatorForm, CalculatorOutcome]:
    """`analyse_query` for a form already bound to the query (validated here if not yet)."""
    outcome = analyse_form(form) if form.is_valid() else CalculatorOutcome()
    for name, message in outcome.field_errors.items():
        form.add_error(name, message)
    for message in outcome.non_field_errors:
        form.add_error(None, message)
    return form, outcome


def analyse_form(form: CalculatorForm) -> CalculatorOutcome:
    """Evaluate a valid calculator form: the chosen server, or every catalog server on "auto".

    On "auto" each candidate is only sized and costed in closed form (no monthly tables,
    cloud comparison or tornado); the full evaluation runs once, for the cheapest.
    """
    chosen = form.cleaned_data["server"]
    keys = list(form.catalog.servers) if chosen == "auto" else [chosen]
    if not form.offering_keys():
        return CalculatorOutcome(
            field_errors={"providers": _("No cloud prices with the chosen providers and terms.")}
        )
    # One document for every candidate: only its "server" differs (form.server_reference),
    # so the form's document (its offerings sorted and filtered) is made once.
    try:
        document = form.to_document(keys[0])
    except ScenarioError as exc:
        return _field_problem(exc.field, exc.message)
    sizings: SizingMemo = {}  # this request's: servers of the same GPU board size alike
    ranking = _rank_servers(form, keys, document, sizings)
    if isinstance(ranking, CalculatorOutcome):
        return ranking
    candidates = [
        Candidate(form.catalog.servers[key], total, reason, meets)
        for key, total, reason, meets in ranking
    ]
    fitting = [c for c in candidates if c.onprem_total is not None]
    if not fitting:
        reasons = " ".join(dict.fromkeys(c.reason for c in candidates if c.reason))
        return CalculatorOutcome(
            problem=_("No server in the catalog can run this workload: ") + reasons
        )
    # The cheapest server that meets the latency targets (issue 29: fewer GPUs are never
    # bought by missing them); the cheapest of all when none does. The first of equals.
    best = min(fitting, key=lambda c: (not c.meets_latency_targets, c.onprem_total or 0.0))
    try:
        best_document = document.model_copy(
            update={"server": form.server_reference(best.server.key)}
        )
        analysis = analyse_document(best_document, form.catalog, sizings)
    except ScenarioError as exc:
        return _field_problem(exc.field, exc.message)
    except InvalidInput as exc:
        if exc.field == "constraints":
            return _no_compliant_option(exc)
        return CalculatorOutcome(problem=str(exc))
    except EngineError as exc:
        return CalculatorOutcome(problem=str(exc))
    candidates.sort(key=lambda c: (c.onprem_total is None, c.onprem_total or 0.0))
    analysis.candidates = candidates
    return CalculatorOutcome(analysis=analysis)


# A ranking: each candidate server's key with what owning it costs, or why it cannot do the
# work, and whether it meets the serving latency targets, in catalog order.
Ranking = tuple[tuple[str, float | None, str, bool], ...]


def _rank_servers(
    form: CalculatorForm, keys: list[str], document: ScenarioDocument, sizings: SizingMemo
) -> Ranking | CalculatorOutcome:
    """Each candidate server sized and costed in closed form (or why it cannot do the
    work); a CalculatorOutcome when the inputs are at fault. ``document``: the form's, for
    the first candidate."""
    # Ranking servers needs no cloud prices: one offering keeps the document valid.
    document = document.model_copy(update={"cloud_offerings": document.cloud_offerings[:1]})
    first: BuiltScenario | None = None
    ranked: list[tuple[str, OwningPlan | str]] = []
    for key in keys:
        try:
            if first is None:
                built = first = build_scenario(document, form.catalog, with_assumptions=False)
            else:  # only the server differs between candidates
                built = with_server(first, form.server_reference(key), form.catalog)
            ranked.append((key, owning_plan(built.scenario, sizings)))
        except ScenarioError as exc:
            return _field_problem(exc.field, exc.message)
        except (DoesNotFit, DeadlineInfeasible) as exc:
            ranked.append((key, str(exc)))
        except EngineError as exc:
            return CalculatorOutcome(problem=str(exc))
    # The fitting candidates are costed together (one vectorised pass).
    totals = iter(costs_of_owning([p for _k, p in ranked if isinstance(p, OwningPlan)]))
    return tuple(
        (key, None, plan, False)
        if isinstance(plan, str)
        else (key, next(totals), "", plan.meets_latency_targets)
        for key, plan in ranked
    )


def analyse_document(
    document: ScenarioDocument | dict[str, Any],
    catalog: CatalogSnapshot | None = None,
    sizings: SizingMemo | None = None,
) -> Analysis:
    """The calculator's engine call: a scenario document → the full evaluation.

    Used by the calculator for its result and by quotes for the analysis of the quoted
    deal (quotes/services/deal.py), so both go through the same code. ``document``: a
    parsed one, or JSON-shaped data its schema reads. Raises ScenarioError (an input the
    document got wrong) or EngineError. ``sizings``: those the request's ranking did
    (engine.SizingMemo).
    """
    built = build_scenario(document, catalog)
    result = evaluate(built.scenario, sizings)
    return Analysis(built, result, build_report(result), [])


def calculator_document(
    *, query: str, server_key: str, catalog: CatalogSnapshot | None = None
) -> ScenarioDocument | None:
    """The scenario document the calculator builds from a result URL's query string, for
    one server model of the catalog; None when the query's inputs are no longer valid (the
    calculator would show them with errors).

    What other apps use to analyse a calculator result again (a quote's deal, its
    workbook), without the calculator's form. ``catalog``: today's (in memory) when None.
    Raises ScenarioError when the catalog has no such server model, or when the inputs
    produce a document the schema refuses.
    """
    form = CalculatorForm(form_data(QueryDict(query)), catalog=catalog or CatalogSnapshot.current())
    if not form.is_valid():
        return None
    if server_key not in form.catalog.servers:
        raise ScenarioError("server", f"unknown server model {server_key!r}")
    return form.to_document(server_key)


def _no_compliant_option(exc: InvalidInput) -> CalculatorOutcome:
    """No option meets the buyer's terms; when the owned fleet left the buyer's site, why
    (often the reason owning breaks them), at the available-power field when the server
    room's assumed power sent it away: the form asks for the room's figure."""
    site = exc.site if isinstance(exc, NoCompliantOption) else None
    if site is None:
        return CalculatorOutcome(non_field_errors=[no_compliant_option_message()])
    said = f"{placed_elsewhere({'code': site.code, 'params': site.params})} "
    said += no_compliant_option_message()
    if site.params.get("reason") == "server_room_power":
        return CalculatorOutcome(field_errors={"available_it_kw": said})
    return CalculatorOutcome(non_field_errors=[said])


def _field_problem(path: str, message: str) -> CalculatorOutcome:
    form_field = FORM_FIELD_FOR_PATH.get(path)
    if form_field:
        return CalculatorOutcome(field_errors={form_field: message})
    return CalculatorOutcome(non_field_errors=[message])
