"""The front door to the analysis: a scenario document in, the evaluated and reported
analysis out, or one error that names the field at fault.

`analyse` parses the document (tco.scenario), resolves it against the catalog, evaluates
it (tco.engine) and builds its report (tco.report). The calculator, quotes, the API and the
command line all call it, so that they evaluate alike and meet the same errors: whatever
goes wrong (the document, the catalog, the engine's refusal, numbers no float holds) comes
out as an `AnalysisError` with a code, the document path at fault and a message; each
caller words it for its reader as before (a form field, a problem-details answer, a line on
the terminal, a quote's problem).

Other apps use the calculator through this package (a calculator result URL's query:
tco.analysis.calculator), the report (tco.report) and its wording (tco.presentation) only
(tests/test_architecture.py).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Any

import numpy as np
from django.conf import settings
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _

from catalog.audience import OWN_PRICE_SOURCE
from catalog.models import ServerModel
from tco.engine import (
    EngineError,
    InvalidInput,
    NoCompliantOption,
    Note,
    ScenarioResult,
    SizingMemo,
    evaluate,
)
from tco.engine.units import FxRates
from tco.report import Report, build_report
from tco.report.chart_series import ChartSeries, chart_series
from tco.scenario import ScenarioDocument, ScenarioError, parse_document
from tco.scenario.publish import json_schema as document_schema
from tco.scenario.resolve import (
    YOUR_INPUT,
    Assumption,
    BuiltScenario,
    CatalogSnapshot,
    build_scenario,
)

__all__ = [
    "OVERFLOW",
    "SCENARIO",
    "YOUR_INPUT",
    "Analysis",
    "AnalysisError",
    "AssumptionRow",
    "Candidate",
    "CatalogSnapshot",
    "FxRates",
    "ScenarioDocument",
    "analyse",
    "document_schema",
    "owning_components",
    "parse",
    "proposal_figures",
]

# AnalysisError codes besides the engine's own (InvalidInput's "invalid_input",
# "no_compliant_option", DoesNotFit's "does_not_fit", DeadlineInfeasible's
# "deadline_infeasible", …): the document or the catalog at fault, and numbers that
# overflowed.
SCENARIO = "scenario"
OVERFLOW = "overflow"
INVALID_INPUT = "invalid_input"
NO_COMPLIANT_OPTION = "no_compliant_option"
ENGINE_ERROR = "engine_error"

TOO_LARGE = "the result is too large to compute; check the size of the inputs"


class AnalysisError(Exception):
    """Why a scenario document has no analysis.

    ``code``: SCENARIO (the document or the catalog), OVERFLOW, or the engine's code.
    ``path``: the document path at fault (``workload.params_billion``), the engine's input
    name for an input it refused, an output's path for a result too large; None when no
    one field is at fault. ``message`` says what, for its reader; ``str()`` is
    ``"path: message"``, as a ScenarioError and the engine's InvalidInput read.
    ``errors``: every (path, message) the schema found. ``params``: the engine's parameters
    for wording it; ``site``: where a fleet that broke the buyer's terms was placed.

    >>> err = AnalysisError(SCENARIO, "workload.params_billion", "must be positive")
    >>> str(err), err.errors
    ('workload.params_billion: must be positive', [('workload.params_billion', 'must be positive')])
    >>> str(AnalysisError("does_not_fit", None, "Too big."))
    'Too big.'
    """

    def __init__(
        self,
        code: str,
        path: str | None,
        message: str,
        *,
        errors: Sequence[tuple[str, str]] = (),
        params: dict[str, object] | None = None,
        site: Note | None = None,
    ) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.code = code
        self.path = path
        self.message = message
        self.errors = list(errors) or ([(path, message)] if path else [])
        self.params: dict[str, object] = dict(params or {})
        self.site = site


def from_scenario_error(exc: ScenarioError) -> AnalysisError:
    return AnalysisError(SCENARIO, exc.field, exc.message, errors=exc.errors)


def from_engine_error(exc: EngineError) -> AnalysisError:
    """The engine's refusal: an input out of range names it, a coded error carries its code
    and parameters (tco/engine/errors.py)."""
    if isinstance(exc, NoCompliantOption):
        return AnalysisError(NO_COMPLIANT_OPTION, exc.field, exc.message, site=exc.site)
    if isinstance(exc, InvalidInput):
        return AnalysisError(INVALID_INPUT, exc.field, exc.message)
    code = getattr(exc, "code", ENGINE_ERROR)
    return AnalysisError(str(code), None, str(exc), params=getattr(exc, "params", None))


def parse(document: Any) -> ScenarioDocument:
    """A scenario document read by its schema (docs/scenario.md), or AnalysisError."""
    try:
        return parse_document(document)
    except ScenarioError as exc:
        raise from_scenario_error(exc) from exc


def analyse(
    document: ScenarioDocument | dict[str, Any],
    *,
    catalog: CatalogSnapshot | None = None,
    sizings: SizingMemo | None = None,
    finite: bool = False,
) -> Analysis:
    """A scenario document (parsed, or JSON-shaped data its schema reads) evaluated on
    ``catalog`` (today's when None) and reported; AnalysisError when it cannot be.

    Absurd inputs may overflow: an arithmetic error is an OVERFLOW error; otherwise the
    totals become infinite, which the report shows as null (the API's answer), or, with
    ``finite``, an OVERFLOW error naming the first such output (the command line, whose
    JSON has no infinity). ``sizings``: the calculator's memo of those its ranking did
    (engine.SizingMemo).
    """
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            built = build_scenario(document, catalog)
            result = evaluate(built.scenario, sizings)
            if finite:
                require_finite(result)
            return Analysis(built, result, build_report(result), [])
    except ScenarioError as exc:
        raise from_scenario_error(exc) from exc
    except EngineError as exc:
        raise from_engine_error(exc) from exc
    except (ArithmeticError, ValueError) as exc:
        # Inputs valid one by one whose combination no float holds (e.g. 1e300 GPUs).
        raise AnalysisError(OVERFLOW, None, str(exc) or type(exc).__name__) from exc


def require_finite(result: ScenarioResult) -> None:
    """AnalysisError (OVERFLOW) naming the first output that overflowed to infinity or NaN."""
    s = result.sizing
    values: list[tuple[str, float | None]] = [
        ("sizing.memory_per_gpu_gb", s.memory_per_gpu_gb),
        ("sizing.training_flops", s.training_flops),
        ("sizing.training_hours", s.training_hours),
        ("sizing.gpu_hours", s.gpu_hours),
        ("sizing.tokens_per_second_capacity", s.tokens_per_second_capacity),
        ("options[0].total_cost", result.onprem.total_cost),
        ("options[0].npv", result.onprem.npv),
        ("energy_kwh", result.energy_kwh),
    ]
    for i, option in enumerate(result.cloud_options, start=1):
        values += [(f"options[{i}].total_cost", option.total_cost)]
        values += [(f"options[{i}].npv", option.npv)]
    for i, api in enumerate(result.api_options, start=len(result.cloud_options) + 1):
        values += [(f"options[{i}].total_cost", api.total_cost), (f"options[{i}].npv", api.npv)]
    for path, value in values:
        if value is not None and not math.isfinite(value):
            raise AnalysisError(OVERFLOW, path, TOO_LARGE)


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
    def chart_series(self) -> ChartSeries:
        """The series the charts draw (tco/report/chart_series.py): the cheapest few cloud
        options'; the page draws every option's on request (tco/web/chart_context.py)."""
        return chart_series(self.result)

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


def proposal_figures(analysis: Analysis, language: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The charts ``names`` of an analysis as Plotly JSON, built in ``language`` by the same
    builders as the page (what a proposal freezes and draws later)."""
    from django.utils import translation

    from tco.presentation.chart_labels import SEPARATORS, chart_labels
    from tco.presentation.charts import all_charts, figure_payload

    with translation.override(language):
        series = analysis.chart_series
        figures = all_charts(series, chart_labels(series), SEPARATORS.get(language, ".,"))
        # A chart that would not compare what the headline compares is not drawn
        # (tco.presentation.charts.omitted_charts).
        return {name: figure_payload(figures[name]) for name in names if name in figures}


def owning_components(analysis: Analysis, language: str) -> list[dict[str, Any]]:
    """The cost of owning over the horizon by component (purchase, energy, colocation,
    support, staff, …, resale value negative), labelled in ``language`` as the breakdown
    chart labels them, and the time to capacity when there is one; the amounts add up to
    the on-prem option's total cost."""
    from django.utils import translation

    from tco.presentation.chart_labels import chart_labels

    cashflow = analysis.result.onprem.cashflow
    onprem = analysis.report.onprem
    # The bridge and any cost of delay are in the owning total (tco/report/option_rows.py
    # ``timed``), not in its monthly cash flow: their own component makes the sum add up.
    time_cost = onprem.time.extra_cost if onprem and onprem.time else None
    with translation.override(language):
        labels = chart_labels()  # the components' names only
        components = [
            {"key": column, "label": str(labels.component(column)), "amount": amount}
            for column in cashflow.components
            if (amount := round(float(cashflow[column].sum()), 2)) != 0
        ]
        if time_cost:
            label = _("Time to capacity (bridge and delay)")
            components.append({"key": "time_to_capacity", "label": str(label), "amount": time_cost})
        return components
