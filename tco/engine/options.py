"""Single-scenario comparison: the on-prem option against each cloud offering."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tco.engine.cashflow import CashFlow
from tco.engine.cloud import cloud_cashflows
from tco.engine.costmodel import (
    CostModel,
    OnPremMonthly,
    cloud_instances,
    delivered_gpu_hours,
    offering_lines,
    onprem_monthly,
    stack_clouds,
)
from tco.engine.finance import (
    as_array,
    break_even_utilization,
    crossing_months,
    discount_factor,
    monthly_discount_rate,
)
from tco.engine.onprem import onprem_cashflow, scalar
from tco.engine.units import HOURS_PER_MONTH, SECONDS_PER_HOUR


@dataclass(frozen=True, slots=True, eq=False)
class OnPremResult:
    name: str
    total_cost: float
    npv: float
    upfront_cost: float
    monthly_opex: float
    cost_per_gpu_hour: float | None
    cost_per_million_tokens: float | None
    cashflow: CashFlow
    cost_per_million_tokens_at_target: float | None = None


@dataclass(frozen=True, slots=True, eq=False)
class CloudOptionResult:
    name: str
    instances: int
    total_cost: float
    npv: float
    break_even_utilization: float | None
    break_even_note: str
    payback_month: int | None
    cost_per_gpu_hour: float | None
    cost_per_million_tokens: float | None
    cashflow: CashFlow
    break_even_month: float | None = None
    owning_wins_above: bool | None = None  # True: owning cheaper above u*; False: below
    price_per_gpu_hour: float | None = None
    cost_per_million_tokens_at_target: float | None = None
    committed: bool = False


def table_npv(cashflow: CashFlow, annual_rate: float) -> float:
    """NPV of a table's ``total`` column, month m discounted by (1 + i)^−m."""
    months = np.arange(len(cashflow), dtype=np.float64)
    factors = discount_factor(monthly_discount_rate(annual_rate), months)
    return float(cashflow["total"] @ factors)


def describe_break_even(
    u_star: float, onprem_slope_minus_cloud_slope: float, onprem_minus_cloud_at_zero: float
) -> str:
    """Plain-English meaning of a break-even utilization.

    >>> describe_break_even(0.43, -1.0, 1.0)
    'On-prem is cheaper above 43 % utilization.'
    >>> describe_break_even(1.4, -1.0, 1.0)
    'Cloud is cheaper at every utilization up to 100 % (break-even would be 140 %).'
    >>> describe_break_even(-0.2, -1.0, -1.0)
    'On-prem is cheaper at every utilization.'
    """
    if math.isnan(u_star):
        return (
            "On-prem is cheaper at every utilization."
            if onprem_minus_cloud_at_zero < 0
            else "Cloud is cheaper or equal at every utilization."
        )
    pct = f"{u_star * 100:,.0f} %"
    if onprem_slope_minus_cloud_slope < 0:  # cloud cost grows faster with use
        if u_star <= 0:
            return "On-prem is cheaper at every utilization."
        if u_star >= 1:
            return f"Cloud is cheaper at every utilization up to 100 % (break-even would be {pct})."
        return f"On-prem is cheaper above {pct} utilization."
    # Committed cloud: flat bill, on-prem energy grows with use.
    if u_star >= 1:
        return "On-prem is cheaper at every utilization."
    if u_star <= 0:
        return "Cloud is cheaper at every utilization."
    return f"On-prem is cheaper below {pct} utilization."


def _per_unit(total: float, units: float, scale: float) -> float | None:
    return total / units * scale if units > 0 else None


def _million_tokens(
    model: CostModel, tokens_per_second: float | None, target_tokens_per_second: float | None
) -> tuple[float, float]:
    """Millions of tokens over the horizon at full capacity (× utilization) and at the
    served target load (every hour); 0 where the rate is not given."""
    tokens_millions = (
        tokens_per_second
        * SECONDS_PER_HOUR
        * HOURS_PER_MONTH
        * scalar(model.horizon_months, "horizon_months")
        * scalar(model.utilization, "utilization")
        / 1e6
        if tokens_per_second
        else 0.0
    )
    horizon = scalar(model.horizon_months, "horizon_months")
    target_millions = (
        target_tokens_per_second * SECONDS_PER_HOUR * HOURS_PER_MONTH * horizon / 1e6
        if target_tokens_per_second
        else 0.0
    )
    return tokens_millions, target_millions


def compare_options(
    model: CostModel,
    tokens_per_second: float | None = None,
    onprem_name: str = "On-prem",
    target_tokens_per_second: float | None = None,
    monthly: OnPremMonthly | None = None,
) -> tuple[OnPremResult, tuple[CloudOptionResult, ...]]:
    """Cash-flow tables, totals, NPV, break-even and payback for one scenario.

    Totals and NPV come from the monthly tables; break-even from the shared
    closed-form core (tests check the two agree). Cost per million tokens is
    given at full capacity (``tokens_per_second`` × utilization) and at the
    served target load (``target_tokens_per_second``, every hour of the horizon).
    ``monthly``: the model's :func:`onprem_monthly`, when the caller has it already.
    """
    rate = scalar(model.discount_rate, "discount_rate")
    gpu_hours = scalar(delivered_gpu_hours(model), "gpu_hours")
    tokens_millions, target_millions = _million_tokens(
        model, tokens_per_second, target_tokens_per_second
    )
    if monthly is None:
        monthly = onprem_monthly(model)
    on_df = onprem_cashflow(model, monthly)
    # Month m's discount factor, shared by every option's table.
    factors = discount_factor(monthly_discount_rate(rate), np.arange(len(on_df), dtype=np.float64))
    on_total = float(on_df["total"].sum())
    onprem = OnPremResult(
        name=onprem_name,
        total_cost=on_total,
        npv=float(on_df["total"] @ factors),
        upfront_cost=float(on_df["hardware"][0]),
        monthly_opex=scalar(monthly.opex, "opex"),
        cost_per_gpu_hour=_per_unit(on_total, gpu_hours, 1.0),
        cost_per_million_tokens=_per_unit(on_total, tokens_millions, 1.0),
        cashflow=on_df,
        cost_per_million_tokens_at_target=_per_unit(on_total, target_millions, 1.0),
    )
    if not model.clouds:
        return onprem, ()
    on_cum = on_df["cumulative"]
    # Break-even lines and instances of every offering in one vectorised pass (one value
    # per offering, in model order).
    offerings = stack_clouds(model.clouds)
    a, b, c, d = offering_lines(model, offerings)
    u_stars = break_even_utilization(a, b, c, d)
    slope_gaps, gaps0 = as_array(b - d), as_array(a - c)
    instances = cloud_instances(
        model.servers, model.gpus_per_server, offerings.gpus_per_instance, offerings.fleet_ratio
    )
    results = []
    tables = cloud_cashflows(model, model.clouds)
    # When owning has caught up with each offering, all offerings in one pass.
    crossings = crossing_months(on_cum, np.array([df["cumulative"] for df in tables]))
    # Each offering's figures as floats, read from the arrays at once (tolist).
    figures = zip(
        u_stars.tolist(), slope_gaps.tolist(), gaps0.tolist(), instances.tolist(), strict=True
    )
    for k, (cloud, df) in enumerate(zip(model.clouds, tables, strict=True)):
        monthly_totals = df["total"]
        total = float(monthly_totals.sum())
        payback, break_even = crossings[k]
        u_star, slope_gap, gap0, count = next(figures)
        results.append(
            CloudOptionResult(
                name=cloud.name,
                instances=round(count),
                total_cost=total,
                npv=float(monthly_totals @ factors),
                break_even_utilization=None if math.isnan(u_star) else u_star,
                break_even_note=describe_break_even(u_star, slope_gap, gap0),
                owning_wins_above=None if slope_gap == 0 else slope_gap < 0,
                payback_month=payback,
                cost_per_gpu_hour=_per_unit(total, gpu_hours, 1.0),
                cost_per_million_tokens=_per_unit(total, tokens_millions, 1.0),
                cashflow=df,
                break_even_month=break_even,
                price_per_gpu_hour=scalar(cloud.price_per_instance_hour, "price")
                * scalar(model.cloud_price_scale, "cloud_price_scale")
                / scalar(cloud.gpus_per_instance, "gpus_per_instance"),
                cost_per_million_tokens_at_target=_per_unit(total, target_millions, 1.0),
                committed=scalar(cloud.committed, "committed") > 0,
            )
        )
    return onprem, tuple(results)
