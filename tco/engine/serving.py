"""Serving demand in business terms: users and requests → tokens per second.

Buyers know how many users they have, how many requests each makes a day and how
long the answers are; the sizing needs output tokens per second. This module turns
the one into the other and keeps every step of the derivation, so the page can show
it (docs/methodology.md § 1, "Serving demand in business terms").
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.engine.inputs import ServingDemand
from tco.engine.notes import Note
from tco.engine.units import HOURS_PER_DAY, HOURS_PER_MONTH, SECONDS_PER_HOUR, FloatArray

DAYS_PER_WEEK = 7.0
HOURS_PER_WEEK = DAYS_PER_WEEK * HOURS_PER_DAY  # 168
WEEKS_PER_MONTH = HOURS_PER_MONTH / HOURS_PER_WEEK  # 730 / 168 = 4.345: the engine's month


@dataclass(frozen=True, slots=True)
class ServingLoad:
    """The derivation, step by step (what the page and the JSON show)."""

    requests_per_day: float  # users × requests per user a day
    output_tokens_per_day: float  # requests a day × output tokens a request
    input_tokens_per_day: float
    working_seconds_per_day: float  # hours a day × 3,600
    average_tokens_per_second: float  # over the working day
    peak_tokens_per_second: float  # × the peak factor: what capacity is sized for
    average_tokens_per_second_all_hours: float  # over the whole week (the fleet's load)
    requests_per_month: float  # requests a day × days a week × 730 / 168
    concurrent_requests_at_peak: float | None  # peak tokens/s × time per token (Little's law)


def derive_load(demand: ServingDemand) -> ServingLoad:
    """Peak and average output tokens per second from users and requests.

    2,000 users × 20 requests a day × 400 output tokens = 16,000,000 tokens a day;
    over a 10-hour working day (36,000 s) 444.4 tokens/s on average, × peak factor 3 =
    1,333.3 tokens/s at the peak. Five working days a week average
    16e6 × 5 / 604,800 s = 132.3 tokens/s over every hour of the week.

    >>> load = derive_load(ServingDemand(2000, 20, 400, peak_factor=3, hours_per_day=10,
    ...     days_per_week=5))
    >>> load.requests_per_day, load.output_tokens_per_day
    (40000.0, 16000000.0)
    >>> round(load.average_tokens_per_second, 2), round(load.peak_tokens_per_second, 2)
    (444.44, 1333.33)
    >>> round(load.average_tokens_per_second_all_hours, 2), round(load.requests_per_month, 1)
    (132.28, 869047.6)
    """
    requests = float(demand.users) * demand.requests_per_user_per_day
    output = requests * demand.output_tokens_per_request
    seconds = demand.hours_per_day * SECONDS_PER_HOUR
    average = output / seconds
    peak = average * demand.peak_factor
    week_seconds = HOURS_PER_WEEK * SECONDS_PER_HOUR
    latency = demand.latency_ms_per_token
    return ServingLoad(
        requests_per_day=requests,
        output_tokens_per_day=output,
        input_tokens_per_day=requests * demand.input_tokens_per_request,
        working_seconds_per_day=seconds,
        average_tokens_per_second=average,
        peak_tokens_per_second=peak,
        average_tokens_per_second_all_hours=output * demand.days_per_week / week_seconds,
        requests_per_month=requests * demand.days_per_week * WEEKS_PER_MONTH,
        concurrent_requests_at_peak=peak * latency / 1000.0 if latency is not None else None,
    )


def unit_costs(
    total_cost: float, demand: ServingDemand, load: ServingLoad, load_months: float
) -> tuple[float, float]:
    """(cost per request, cost per user per month) of an option's total over the horizon.

    ``load_months`` is Σ of the monthly load factors (the horizon in months without
    growth): requests over the horizon = requests a month × load_months; user-months =
    users × load_months.

    $1,000,000 over 60 months for 869,047.6 requests a month and 2,000 users:
    $0.0192 a request, $8.33 a user a month.

    >>> load = derive_load(ServingDemand(2000, 20, 400, peak_factor=3, hours_per_day=10,
    ...     days_per_week=5))
    >>> per_request, per_user = unit_costs(1e6, ServingDemand(2000, 20, 400), load, 60.0)
    >>> round(per_request, 4), round(per_user, 2)
    (0.0192, 8.33)
    """
    return (
        total_cost / (load.requests_per_month * load_months),
        total_cost / (float(demand.users) * load_months),
    )


@dataclass(frozen=True, slots=True)
class ServingOutcome:
    """The derivation against the sized fleet: how busy it is and what each user sees."""

    demand: ServingDemand
    load: ServingLoad
    sized_tokens_per_second: float  # the peak × the largest year's growth: what was sized
    capacity_tokens_per_second: float  # what the owned fleet delivers
    utilization: float  # owned fleet in its busiest year: all-hours average ÷ capacity
    load_months: float  # Σ of the monthly load factors (the horizon without growth)
    fleet_capacity_requests_per_day: float  # first-year requests a day the fleet can take
    achieved_ms_per_token: float | None  # time per output token at the sized peak
    time_to_first_token_ms: float | None = None  # at the sized peak
    notes: tuple[Note, ...] = ()


def serving_outcome(
    demand: ServingDemand,
    load_factors: FloatArray,
    *,
    capacity_tokens_per_second: float,
    achieved_ms_per_token: float | None = None,
    time_to_first_token_ms: float | None = None,
) -> ServingOutcome:
    """Utilization and capacity in requests of the sized fleet, with what users see there.

    The latency itself comes from the sizing (tco/engine/decode.py), which also warns when
    it misses a target.

    The fleet is sized for the peak of the largest year; around the clock it serves the
    week's average, so it is busy average ÷ capacity of the time in that year. 132.3
    tokens/s on average on a fleet of 2,000 tokens/s: 6.6 %.

    >>> import numpy as np
    >>> out = serving_outcome(ServingDemand(2000, 20, 400, peak_factor=3, hours_per_day=10,
    ...     days_per_week=5), np.ones(60), capacity_tokens_per_second=2000.0)
    >>> round(out.utilization, 4), round(out.fleet_capacity_requests_per_day), out.load_months
    (0.0661, 60000, 60.0)
    """
    load = derive_load(demand)
    peak_year = float(load_factors.max()) if len(load_factors) else 1.0
    sized = load.peak_tokens_per_second * peak_year
    capacity = max(capacity_tokens_per_second, 1e-12)
    return ServingOutcome(
        demand=demand,
        load=load,
        sized_tokens_per_second=sized,
        capacity_tokens_per_second=capacity_tokens_per_second,
        utilization=min(1.0, load.average_tokens_per_second_all_hours * peak_year / capacity),
        load_months=float(load_factors.sum()),
        fleet_capacity_requests_per_day=load.requests_per_day
        * capacity_tokens_per_second
        / max(sized, 1e-12),
        achieved_ms_per_token=achieved_ms_per_token,
        time_to_first_token_ms=time_to_first_token_ms,
    )
