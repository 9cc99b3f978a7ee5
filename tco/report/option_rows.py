"""The options of the report: owning, owning and reselling, each cloud offering, the
hybrid and each hosted API, ranked by the verdict, cheapest first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tco.engine.scenario import HYBRID_NAME, RESELL_NAME
from tco.engine.serving import unit_costs
from tco.report import models as rm
from tco.report.capacity_blocks import option_time
from tco.report.rounding import figure
from tco.report.sizing_blocks import notes

if TYPE_CHECKING:
    from tco.engine import ScenarioResult
    from tco.engine.cashflow import CashFlow
    from tco.engine.hosted_api import ApiOptionResult
    from tco.engine.inputs import ApiOfferingSpec, CloudOfferingSpec
    from tco.engine.options import CloudOptionResult
    from tco.engine.verdict import RankedOption


def options(
    result: ScenarioResult, site_fit: rm.SiteFit | None, *, include_cashflows: bool
) -> list[rm.Option]:
    """Every option, cheapest first (an option whose total overflowed last)."""
    rows = [
        _onprem(result, site_fit, include_cashflows),
        *_clouds(result, include_cashflows),
        *_resell(result, site_fit),
        *_hybrid(result, site_fit),
        *(_api(result, api) for api in result.api_options),
    ]
    rows.sort(key=lambda o: (o.total_cost is None, o.total_cost or 0.0))
    return rows


# An option that owning is not compared with month by month (resell, the hybrid, a hosted
# API) has no break-even, no cost per GPU-hour and no energy of its own.
_NOT_COMPARED: dict[str, Any] = {
    "break_even_utilization": None,
    "break_even_note": "",
    "payback_month": None,
    "break_even_month": None,
    "cost_per_gpu_hour": None,
    "energy_kwh": None,
    "carbon_tonnes": None,
}


def _shared(
    result: ScenarioResult,
    name: str,
    ranked_total: float,
    ranked_npv: float,
    site_fit: rm.SiteFit | None = None,
) -> dict[str, Any]:
    """What every option has besides its own figures: its total and NPV as the verdict
    ranks them (``timed``) to the cent, the verdict's ranking, the unit costs of the total
    shown, its time to capacity and (owned options) the site fit."""
    total = figure(ranked_total, 2)
    plan = result.capacity
    timing = option_time(plan.timing(name) if plan is not None else None)
    owned = {"site_fit": site_fit} if site_fit is not None else {}
    return {
        "total_cost": total,
        "npv": figure(ranked_npv, 2),
        **ranking(result, name),
        **_unit_costs(total, result),
        **timing,
        **owned,
    }


def _where(spec: CloudOfferingSpec | ApiOfferingSpec) -> dict[str, str]:
    """Who rents a rented option out, under whose law and where its data is processed:
    what the constraints check (tco/engine/constraints.py ``violations``)."""
    return {
        "provider": spec.provider,
        "jurisdiction": spec.jurisdiction,
        "data_country": spec.data_country,
    }


def _ranked(result: ScenarioResult, name: str) -> RankedOption | None:
    return next((o for o in result.verdict.options if o.name == name), None)


def timed(result: ScenarioResult, name: str, total: float, npv: float) -> tuple[float, float]:
    """An option's total and NPV as the verdict ranks it: with its time to capacity (the
    bridge and any cost of delay, tco/engine/scenario.py ``_timed``) when it has one, so
    the row, the saving beside it and the verdict read one figure."""
    ranked = _ranked(result, name)
    return (ranked.total_cost, ranked.npv) if ranked is not None else (total, npv)


def ranking(result: ScenarioResult, name: str) -> dict[str, Any]:
    """How the verdict ranks an option (tco/engine/verdict.py); not ranked: not eligible."""
    o = _ranked(result, name)
    if o is None:
        return {"saving_vs_best": None, "recommended": False, "eligible": False, "violations": []}
    return {
        "saving_vs_best": figure(o.saving_vs_best, 2),
        "recommended": o.recommended,
        "eligible": o.eligible,
        "excluded_code": o.excluded_code,
        "violations": notes(o.violations),
    }


def _unit_costs(total: float | None, result: ScenarioResult) -> dict[str, float | None]:
    """Cost per request and per user-month (users and requests given), from the total as
    the report shows it (rounded to cents)."""
    serving = result.serving
    if serving is None or total is None:
        return {"cost_per_request": None, "cost_per_user_month": None}
    per_request, per_user = unit_costs(total, serving.demand, serving.load, serving.load_months)
    return {
        "cost_per_request": figure(per_request, 10),
        "cost_per_user_month": figure(per_user, 6),
    }


def _per_run(total: float, result: ScenarioResult) -> float | None:
    """The cost of one run: the total ÷ the runs over the horizon (None: no runs)."""
    runs = result.demand.runs or 0.0
    return figure(total / runs, 2) if runs > 0 else None


def _cashflow(frame: CashFlow, include: bool) -> dict[str, Any]:
    """The monthly table (``tco estimate --cashflows``): ``month`` and each column, to the
    cent; nothing unless asked for."""
    if not include:
        return {}
    columns: dict[str, list[int | float]] = {"month": frame.months.tolist()}
    for column in frame.columns:
        columns[column] = [round(float(v), 2) for v in frame[column]]
    return {"cashflow": columns}


def _onprem(
    result: ScenarioResult, site_fit: rm.SiteFit | None, include_cashflows: bool
) -> rm.Option:
    """Buy and keep."""
    on = result.onprem
    exact_total, exact_npv = timed(result, on.name, on.total_cost, on.npv)
    return rm.Option(
        name=on.name,
        kind="onprem",
        upfront_cost=figure(on.upfront_cost, 2),
        monthly_opex=figure(on.monthly_opex, 2),
        break_even_utilization=None,
        break_even_note="",
        payback_month=None,
        break_even_month=None,
        cost_per_gpu_hour=figure(on.cost_per_gpu_hour, 4),
        cost_per_million_tokens=figure(on.cost_per_million_tokens, 4),
        cost_per_million_tokens_at_target=figure(on.cost_per_million_tokens_at_target, 4),
        cost_of_run=_per_run(exact_total, result),
        energy_kwh=figure(result.energy_kwh, 1),
        carbon_tonnes=figure(result.carbon_tonnes, 3),
        **_cashflow(on.cashflow, include_cashflows),
        **_shared(result, on.name, exact_total, exact_npv, site_fit),
    )


def _clouds(result: ScenarioResult, include_cashflows: bool) -> list[rm.Option]:
    """Each cloud offering, with its energy where the provider's PUE is known."""
    energies = result.cloud_energy or tuple((None, None) for _ in result.cloud_options)
    return [
        _cloud(result, c, spec, runs_be, energy, include_cashflows)
        for c, spec, runs_be, energy in zip(
            result.cloud_options,
            result.scenario.cloud_offerings,
            result.break_even_runs_per_year,
            energies,
            strict=True,
        )
    ]


def _cloud(
    result: ScenarioResult,
    c: CloudOptionResult,
    spec: CloudOfferingSpec,
    runs_break_even: float | None,
    energy: tuple[float | None, float | None],
    include_cashflows: bool,
) -> rm.Option:
    """One cloud offering: its price, break-evens against owning, energy."""
    kwh, co2 = energy
    exact_total, exact_npv = timed(result, c.name, c.total_cost, c.npv)
    return rm.Option(
        name=c.name,
        kind="cloud",
        instances=c.instances,
        committed=c.committed,
        break_even_utilization=figure(c.break_even_utilization, 4),
        break_even_note=c.break_even_note,
        payback_month=c.payback_month,
        break_even_month=figure(c.break_even_month, 2),
        owning_wins_above=c.owning_wins_above,
        break_even_runs_per_year=figure(runs_break_even, 2),
        price_per_gpu_hour=figure(c.price_per_gpu_hour, 4),
        cost_per_gpu_hour=figure(c.cost_per_gpu_hour, 4),
        cost_per_million_tokens=figure(c.cost_per_million_tokens, 4),
        cost_per_million_tokens_at_target=figure(c.cost_per_million_tokens_at_target, 4),
        cost_of_run=_per_run(exact_total, result),
        energy_kwh=figure(kwh, 1),
        carbon_tonnes=figure(co2, 3),
        **_cashflow(c.cashflow, include_cashflows),
        **_where(spec),
        **_shared(result, c.name, exact_total, exact_npv),
    )


def _resell(result: ScenarioResult, site_fit: rm.SiteFit | None) -> list[rm.Option]:
    """Buy, run and resell (a one-off run): its cost is the cost of the run."""
    rs = result.resell
    if rs is None:
        return []
    exact_total, exact_npv = timed(result, RESELL_NAME, rs.total_cost, rs.npv)
    shared = _shared(result, RESELL_NAME, exact_total, exact_npv, site_fit)
    option = rm.Option(
        name=RESELL_NAME,
        kind="onprem_resell",
        months_owned=rs.months_owned,
        resale_fraction=figure(rs.resale_fraction, 4),
        resale_value=figure(rs.resale_value, 2),
        cost_of_run=shared["total_cost"],  # the one run is all it is bought for
        **_NOT_COMPARED,
        **shared,
    )
    return [option]


def _hybrid(result: ScenarioResult, site_fit: rm.SiteFit | None) -> list[rm.Option]:
    """Own part, rent the rest: an option when the verdict ranked it."""
    ranked = _ranked(result, HYBRID_NAME)
    if ranked is None:
        return []
    option = rm.Option(
        name=HYBRID_NAME,
        kind="hybrid",
        **_NOT_COMPARED,
        **_shared(result, HYBRID_NAME, ranked.total_cost, ranked.npv, site_fit),
    )
    return [option]


def _api(result: ScenarioResult, api: ApiOptionResult) -> rm.Option:
    """A hosted API, costed per request."""
    spec = api.spec
    exact_total, exact_npv = timed(result, api.name, api.total_cost, api.npv)
    return rm.Option(
        name=api.name,
        kind="api",
        model=spec.model,
        region=spec.region,
        currency_of_prices=spec.currency,
        price_input_per_million=figure(spec.price_input_per_million, 4),
        price_output_per_million=figure(spec.price_output_per_million, 4),
        price_per_request=figure(api.price_per_request, 10),
        break_even_requests_per_day=figure(api.break_even_requests_per_day, 1),
        break_even_beyond_capacity=api.break_even_beyond_capacity,
        **_NOT_COMPARED,
        **_where(spec),
        **_shared(result, api.name, exact_total, exact_npv),
    )
