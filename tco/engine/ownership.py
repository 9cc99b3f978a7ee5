"""Ways to own: buy and keep, buy-run-resell, lease; and the hybrid block.

All of them are the cost core (:mod:`tco.engine.costmodel`) with some fields
replaced, so their figures follow the same formulas as the main comparison.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tco.engine.costmodel import (
    NO_REFRESH,
    CostModel,
    OnPremMonthly,
    onprem_monthly,
    onprem_totals,
)
from tco.engine.demand import WHOLE_HORIZON
from tco.engine.finance import broadcast
from tco.engine.onprem import scalar
from tco.engine.units import HOURS_PER_MONTH, MONTHS_PER_YEAR


def resale_fraction(resale_by_year: Sequence[float], months: float) -> float:
    """Share of the hardware value a buyer gets back at an age, from the yearly curve.

    Linear between the yearly points (age 0, 1, 2, … years); the last value
    holds beyond the curve. With the default curve (85 %, 78 %, 60 %, 46 %,
    35 %, 27 %), after 1 month: 85 − 7 / 12 = 84.4 %; after 30 months: 53 %.

    >>> curve = (0.85, 0.78, 0.60, 0.46, 0.35, 0.27)
    >>> round(resale_fraction(curve, 1), 4), round(resale_fraction(curve, 30), 4)
    (0.8442, 0.53)
    >>> resale_fraction(curve, 120)
    0.27
    """
    years = max(months, 0.0) / MONTHS_PER_YEAR
    points = np.arange(len(resale_by_year), dtype=np.float64)
    return float(np.interp(years, points, np.asarray(resale_by_year, dtype=np.float64)))


@dataclass(frozen=True, slots=True)
class ResellResult:
    """Buy, run the one-off work, sell the servers when it is done."""

    months_owned: int
    resale_fraction: float
    resale_value: float
    total_cost: float
    npv: float


def run_months(run_hours: float) -> int:
    """The whole months a one-off run owns the fleet: at least one.

    >>> run_months(730.0), run_months(731.0), run_months(1.0)
    (1, 2, 1)
    """
    return max(1, math.ceil(run_hours / HOURS_PER_MONTH - 1e-9))


def owned_for_run(
    model: CostModel, months: int, run_hours: float, resale_by_year: Sequence[float]
) -> CostModel:
    """The model of a fleet owned for ``months`` only (the run's), then resold at the
    curve's value; the model's other fields, arrays of variants or not, stay."""
    return model.replace(
        horizon_months=float(months),
        utilization=min(1.0, run_hours / (months * HOURS_PER_MONTH)),
        residual_pct=resale_fraction(resale_by_year, months),
        active_months=WHOLE_HORIZON,
        leased=0.0,
        service_life_months=NO_REFRESH,  # sold after the run, never bought again
    )


def resold_model(
    model: CostModel, run_hours: float, resale_by_year: Sequence[float]
) -> tuple[CostModel, int, float] | None:
    """The fleet owned only for the run's months (the model, those months, the resale
    fraction), or None when the run takes the whole horizon."""
    months = run_months(run_hours)
    if months >= scalar(model.horizon_months, "horizon_months"):
        return None
    owned = owned_for_run(model, months, run_hours, resale_by_year)
    return owned, months, scalar(owned.residual_pct, "residual_pct")


def buy_run_resell(
    model: CostModel,
    run_hours: float,
    resale_by_year: Sequence[float],
) -> ResellResult | None:
    """Own the fleet only for the run's months, then resell it at the curve's value.

    None when the run takes the whole horizon (then buying and keeping is the
    same thing).
    """
    resold = resold_model(model, run_hours, resale_by_year)
    if resold is None:
        return None
    owned, months, fraction = resold
    monthly = onprem_monthly(owned)
    totals = onprem_totals(owned, monthly)
    return ResellResult(
        months_owned=months,
        resale_fraction=fraction,
        resale_value=scalar(monthly.residual, "residual"),
        total_cost=scalar(totals.total, "total"),
        npv=scalar(totals.npv, "npv"),
    )


@dataclass(frozen=True, slots=True)
class LeaseOption:
    term_months: int
    annual_rate: float
    monthly_payment: float
    total_cost: float
    npv: float


@dataclass(frozen=True, slots=True)
class Financing:
    """Cash purchase beside leases of each term, and the cloud's monthly bill."""

    upfront: float
    cash_total: float
    cash_npv: float
    leases: tuple[LeaseOption, ...]
    cloud_option: str | None
    cloud_monthly: float | None


def financing(
    model: CostModel,
    annual_rate: float,
    terms_months: Sequence[int],
    cloud_option: str | None = None,
    cloud_total: float | None = None,
    monthly: OnPremMonthly | None = None,
) -> Financing:
    """Lease vs buy: each term's monthly payment, total and NPV beside the cash price.

    The lease finances the upfront amount (servers, network, installation);
    a term longer than the horizon is paid off at the horizon. ``monthly``: the model's
    :func:`onprem_monthly`, when the caller has it already (the same with or without a
    lease: the monthly amounts do not depend on ``leased``).
    """
    cash = model.replace(leased=0.0)
    cash_monthly = monthly if monthly is not None else onprem_monthly(cash)
    cash_totals = onprem_totals(cash, cash_monthly)
    upfront = scalar(cash_monthly.upfront, "upfront")
    # Every term in one vectorised pass: the lease term is the only field that differs.
    terms = np.asarray(terms_months, dtype=np.float64)
    leased = model.replace(leased=1.0, lease_annual_rate=annual_rate, lease_term_months=terms)
    # The monthly amounts are the cash model's: only the lease payment (computed when read,
    # from the model) uses the lease's fields.
    leased_monthly = dataclasses.replace(cash_monthly, model=leased)
    totals = onprem_totals(leased, leased_monthly)
    shape = terms.shape
    payments = broadcast(leased_monthly.lease_payment, shape)
    leases = [
        LeaseOption(
            term_months=int(term),
            annual_rate=annual_rate,
            monthly_payment=float(payment),
            total_cost=float(total),
            npv=float(npv),
        )
        for term, payment, total, npv in zip(
            terms_months,
            payments,
            broadcast(totals.total, shape),
            broadcast(totals.npv, shape),
            strict=True,
        )
    ]
    horizon = scalar(model.horizon_months, "horizon_months")
    return Financing(
        upfront=upfront,
        cash_total=scalar(cash_totals.total, "total"),
        cash_npv=scalar(cash_totals.npv, "npv"),
        leases=tuple(leases),
        cloud_option=cloud_option,
        cloud_monthly=cloud_total / horizon if cloud_total is not None else None,
    )
