"""The series the charts draw, computed once from the engine's result: the typed block the
renderers read (the Plotly figures of tco/presentation/charts.py, drawn as SVG by
tco/presentation/chart_svg.py for the PDF and the page's first paint).

Values stay at the engine's precision (numpy arrays); the renderers round what they show.
Charts that would not compare what the headline compares are None, with the reason's code
in ``omitted`` (tco.presentation.charts.omitted_charts words it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from tco.engine import (
    ApiOptionResult,
    ScenarioResult,
    owning_carbon_tonnes,
    owning_cashflow,
    sweep,
)
from tco.engine.montecarlo import Confidence
from tco.engine.sensitivity import Tornado, TornadoBar

UTILIZATION_POINTS = 101
# The utilization chart's x values, the same for every result (made once).
UTILIZATION_GRID = np.linspace(0.0, 1.0, UTILIZATION_POINTS)
UTILIZATION_GRID.flags.writeable = False
CHARTED_CLOUD_OPTIONS = 4


@dataclass(frozen=True)
class OptionLine:
    """A rented option's values along a chart's x axis, under its engine name."""

    name: str
    values: Any  # numpy array of float


@dataclass(frozen=True)
class Cumulative:
    """Cumulative cost by month 0..N: the headline's owning option, each cloud option (with
    its payback month) and the hosted API the headline rents, if it does."""

    owning: Any  # numpy array of float
    clouds: tuple[OptionLine, ...]
    paybacks: tuple[int | None, ...]
    api: OptionLine | None


@dataclass(frozen=True)
class Breakdown:
    """The owning option's cost by year (month 0 counts in year 1), by cash-flow component;
    only the components with a month not zero."""

    components: tuple[str, ...]
    per_year: Any  # numpy array: years × components
    net: Any  # numpy array: the net total by year, of every component


@dataclass(frozen=True)
class BreakEven:
    """Where owning and a cloud option cost the same: its utilization and owning's total."""

    option: int  # the cloud option's index
    utilization: float
    total: float


@dataclass(frozen=True)
class ByUtilization:
    """Total cost over the horizon at each of UTILIZATION_POINTS utilizations (0-100 %)."""

    onprem: Any  # numpy array of float
    clouds: tuple[OptionLine, ...]
    api: OptionLine | None  # the same total at every utilization
    break_evens: tuple[BreakEven, ...]
    planned: float


@dataclass(frozen=True)
class Sensitivity:
    """The tornado: the NPV saving with each input at its low and high value."""

    reference_option: str
    base_value: float
    pct: float  # the swing, in per cent
    bars: tuple[TornadoBar, ...]  # largest swing first


@dataclass(frozen=True)
class Carbon:
    """Tonnes of CO₂ over the horizon: owning's, and each cloud option's (None unknown)."""

    owning: float | None
    clouds: tuple[tuple[str, float | None], ...]


@dataclass(frozen=True)
class ChartSeries:
    """Every chart's series of one result, for the cloud options drawn."""

    currency: str
    resells: bool  # the headline owns the fleet for one run and resells it
    option_names: tuple[str, ...]  # the options drawn, then the hosted API rented
    cumulative: Cumulative
    breakdown: Breakdown
    carbon: Carbon
    utilization: ByUtilization | None
    tornado: Sensitivity | None
    confidence: Confidence | None
    omitted: dict[str, str]


def rented_api(result: ScenarioResult) -> ApiOptionResult | None:
    """The hosted API the headline compares with, when it is one."""
    return next((a for a in result.api_options if a.name == result.verdict.renting), None)


def omitted(result: ScenarioResult) -> dict[str, str]:
    """The charts that would not compare what the headline compares, or would have no
    data, each with the reason's code (the page words it in place of the chart):

    - ``utilization``: ``resell`` when the headline owns the fleet for one run and resells
      it (its cost does not depend on how busy the fleet would be over the horizon);
    - ``tornado``: ``no_rented_option`` when the buyer's terms allow no rented option;
    - ``confidence``: ``api`` when the headline compares with a hosted API (the futures
      draw GPU clouds only), ``no_rented_option`` when no rented option is allowed.
    """
    left_out: dict[str, str] = {}
    if result.verdict.owning_kind == "own_resell":
        left_out["utilization"] = "resell"
    if result.verdict.renting is None:
        left_out["tornado"] = "no_rented_option"
    if result.confidence is None:
        left_out["confidence"] = "api" if rented_api(result) else "no_rented_option"
    return left_out


def charted(result: ScenarioResult, limit: int = CHARTED_CLOUD_OPTIONS) -> ScenarioResult:
    """The result with only the cloud options worth drawing: the cheapest eligible first.

    Ten or twenty lines make a chart unreadable; the table lists every option.
    """
    clouds = result.cloud_options
    if len(clouds) <= limit:
        return result
    eligible = {o.name for o in result.verdict.options if o.eligible}
    order = sorted(
        range(len(clouds)), key=lambda k: (clouds[k].name not in eligible, clouds[k].total_cost)
    )
    keep = sorted(order[:limit])
    model = result.cost_model.replace(clouds=tuple(result.cost_model.clouds[k] for k in keep))
    energy = result.cloud_energy
    return dataclasses.replace(
        result,
        cloud_options=tuple(clouds[k] for k in keep),
        cost_model=model,
        cloud_energy=tuple(energy[k] for k in keep) if energy else (),
    )


def chart_series(result: ScenarioResult, limit: int | None = CHARTED_CLOUD_OPTIONS) -> ChartSeries:
    """The series of ``result``'s charts; lines for the cheapest ``limit`` cloud options
    (:func:`charted`), every one with None."""
    if limit is not None:
        result = charted(result, limit)
    left_out = omitted(result)
    api = rented_api(result)
    return ChartSeries(
        currency=result.currency,
        resells=result.verdict.owning_kind == "own_resell",
        option_names=(
            *(o.name for o in result.cloud_options),
            *((api.name,) if api is not None else ()),
        ),
        cumulative=cumulative(result, api),
        breakdown=breakdown(result),
        carbon=carbon(result),
        utilization=None if "utilization" in left_out else by_utilization(result, api),
        tornado=None if "tornado" in left_out else sensitivity(result),
        confidence=result.confidence,
        omitted=left_out,
    )


def cumulative(result: ScenarioResult, api: ApiOptionResult | None) -> Cumulative:
    owning = owning_cashflow(result)["cumulative"]
    months = len(owning)
    return Cumulative(
        owning=owning,
        clouds=tuple(OptionLine(o.name, o.cashflow["cumulative"]) for o in result.cloud_options),
        paybacks=tuple(o.payback_month for o in result.cloud_options),
        api=None if api is None else OptionLine(api.name, np.cumsum(api.monthly_cost)[:months]),
    )


def breakdown(result: ScenarioResult) -> Breakdown:
    cf = owning_cashflow(result)
    years = np.maximum(1, np.ceil(cf.months / 12.0)).astype(np.int64)
    values = cf.component_values()
    per_year = np.zeros((int(years.max()), len(cf.components)))
    np.add.at(per_year, years - 1, values)
    # Which columns have a month that is not zero, in one reduction (np.any per column
    # cost ~25,000 instructions each, nine a page).
    drawn = values.any(axis=0).tolist()
    keep = [j for j, column_drawn in enumerate(drawn) if column_drawn]
    return Breakdown(
        components=tuple(cf.components[j] for j in keep),
        per_year=per_year[:, keep],
        net=per_year.sum(axis=1),
    )


def by_utilization(result: ScenarioResult, api: ApiOptionResult | None) -> ByUtilization:
    """The curves from one vectorized :func:`tco.engine.sweep` call over the 101
    utilizations plus each break-even point within 0-100 %."""
    crossings = [
        (k, float(o.break_even_utilization))
        for k, o in enumerate(result.cloud_options)
        if o.break_even_utilization is not None and 0.0 <= o.break_even_utilization <= 1.0
    ]
    points = np.concatenate([UTILIZATION_GRID, [u for _, u in crossings]])
    swept = sweep(result.cost_model, {"utilization": points}, break_evens=False, npvs=False)
    n = UTILIZATION_POINTS
    return ByUtilization(
        onprem=swept.onprem_total[:n],
        clouds=tuple(
            OptionLine(o.name, swept.cloud_total[k, :n]) for k, o in enumerate(result.cloud_options)
        ),
        api=None if api is None else OptionLine(api.name, np.full(n, api.total_cost)),
        break_evens=tuple(
            BreakEven(k, u, float(swept.onprem_total[n + i])) for i, (k, u) in enumerate(crossings)
        ),
        planned=float(np.asarray(result.cost_model.utilization, dtype=np.float64).reshape(())),
    )


def sensitivity(result: ScenarioResult) -> Sensitivity:
    t: Tornado = result.tornado
    return Sensitivity(
        reference_option=t.reference_option,
        base_value=t.base_value,
        pct=result.scenario.finance.tornado_pct * 100,
        bars=tuple(sorted(t.bars, key=lambda b: b.swing, reverse=True)),
    )


def carbon(result: ScenarioResult) -> Carbon:
    energy = dict(zip((o.name for o in result.cloud_options), result.cloud_energy, strict=False))
    return Carbon(
        owning=owning_carbon_tonnes(result),
        clouds=tuple((o.name, energy.get(o.name, (None, None))[1]) for o in result.cloud_options),
    )
