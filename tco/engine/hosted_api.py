"""Hosted model APIs as a way to serve: the same requests, paid per million tokens.

An API offering costs what the requests consume: each month, requests × (input
tokens × input price + output tokens × output price) ÷ 10⁶, growing with the served
load like the rest of the comparison. Nothing is bought and nothing is idle: the
price scales with the volume, which is why the break-even is a number of requests a
day (docs/methodology.md § 3g).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.engine.finance import discount_factor, monthly_discount_rate
from tco.engine.inputs import ApiOfferingSpec, ServingDemand
from tco.engine.serving import ServingLoad
from tco.engine.units import FloatArray, FxRates


@dataclass(frozen=True, slots=True, eq=False)
class ApiOptionResult:
    """One hosted API costed for the buyer's requests over the horizon."""

    name: str
    spec: ApiOfferingSpec
    total_cost: float
    npv: float
    monthly_cost: FloatArray  # months 0..H; month 0 is empty (nothing is bought)
    price_per_request: float  # reporting currency, first-year request
    # Owning the sized fleet costs less than this API from this many requests a day
    # (None: never, the API is cheaper per request than the fleet's running costs).
    break_even_requests_per_day: float | None
    # The break-even lies beyond what the owned fleet can serve.
    break_even_beyond_capacity: bool


def api_monthly_cost(
    price_per_request: float, requests_per_month: float, load_factors: FloatArray
) -> FloatArray:
    """The API bill of months 0..H: requests a month × the month's load × price a request.

    40,000 requests a day, five days a week, is 869,047.6 requests a month (730 h ÷ 168 h
    = 4.345 weeks); at $0.000906 a request that is $787.36 a month.

    >>> bill = api_monthly_cost(0.000906, 869_047.619, np.ones(12))
    >>> float(bill[0]), round(float(bill[1]), 2), round(float(bill.sum()), 2)
    (0.0, 787.36, 9448.29)
    """
    bill = np.zeros(len(load_factors) + 1)
    bill[1:] = requests_per_month * load_factors * price_per_request
    return bill


def break_even_requests_per_day(
    api_total: float,
    requests_per_day: float,
    owning_at_zero: float,
    owning_per_utilization: float,
    utilization: float,
) -> float | None:
    """Requests a day from which owning beats the API; None when it never does.

    The API's total grows in proportion to the requests: c·R with c = its total ÷ R.
    Owning costs A + B·u, and the owned fleet's utilization grows with the requests
    too: u = k·R with k = u ÷ R. They meet at R* = A ÷ (c − B·k).

    API $47,241 for 40,000 requests a day (c = 1.181), owning A = $1,000,000 plus
    B = $50,000 × u at u = 0.10 (k = 2.5e-6): R* = 1e6 ÷ (1.181 − 0.125) = 946,947.

    >>> round(break_even_requests_per_day(47_241.0, 40_000.0, 1e6, 50_000.0, 0.10))
    946947
    """
    if requests_per_day <= 0:
        return None
    per_request_day = api_total / requests_per_day
    owning_slope = owning_per_utilization * utilization / requests_per_day
    if per_request_day <= owning_slope:
        return None
    return owning_at_zero / (per_request_day - owning_slope)


def cost_api_offering(
    spec: ApiOfferingSpec,
    demand: ServingDemand,
    load: ServingLoad,
    *,
    fx: FxRates,
    currency: str,
    load_factors: FloatArray,
    discount_rate: float,
    owning_line: tuple[float, float],
    utilization: float,
    fleet_capacity_requests_per_day: float | None,
) -> ApiOptionResult:
    """Cost one API offering for the demand; ``owning_line`` is (A, B) of owning = A + B·u."""
    price = fx.convert(
        spec.price_per_request(demand.input_tokens_per_request, demand.output_tokens_per_request),
        spec.currency,
        currency,
    )
    bill = api_monthly_cost(price, load.requests_per_month, load_factors)
    months = np.arange(len(bill), dtype=np.float64)
    npv = float(bill @ discount_factor(monthly_discount_rate(discount_rate), months))
    total = float(bill.sum())
    r_star = break_even_requests_per_day(
        total, load.requests_per_day, owning_line[0], owning_line[1], utilization
    )
    beyond = (
        r_star is not None
        and fleet_capacity_requests_per_day is not None
        and r_star > fleet_capacity_requests_per_day
    )
    return ApiOptionResult(
        name=spec.name,
        spec=spec,
        total_cost=total,
        npv=npv,
        monthly_cost=bill,
        price_per_request=price,
        break_even_requests_per_day=r_star,
        break_even_beyond_capacity=beyond,
    )
