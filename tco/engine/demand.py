"""Demand over the horizon: how much of the owned fleet the buyer's work keeps busy.

A one-off or recurring training run implies the owned fleet's utilization:
demand GPU-hours ÷ owned GPU-hours over the horizon. It is derived, never an
input. Continuous work keeps the fleet busy at a stated utilization; a served
load may grow each year, and the owned fleet is then sized for the last year.
The monthly profile (server-equivalents busy each month) feeds the hybrid
optimiser. Without a demand, training is one run and serving runs around the clock.
See docs/methodology.md, "Demand".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tco.engine.errors import InvalidInput
from tco.engine.inputs import Demand, DemandPattern
from tco.engine.notes import Note
from tco.engine.units import HOURS_PER_MONTH, MONTHS_PER_YEAR, FloatArray

HOURS_PER_YEAR = HOURS_PER_MONTH * MONTHS_PER_YEAR  # 8,760
WHOLE_HORIZON = 1e9  # CostModel.active_months: the work runs in every month


@dataclass(frozen=True, slots=True)
class DemandPlan:
    """The demand turned into the cost model's terms."""

    pattern: DemandPattern
    runs_per_year: float | None
    runs: float | None  # runs over the horizon
    run_hours: float | None  # one run on the owned fleet, wall clock
    gpu_hours: float  # work over the horizon, in owned GPU-hours
    utilization: float  # owned fleet, average over the horizon
    # The work demanded ÷ the owned fleet's hours, not capped at 1: above 1 when the runs
    # do not fit on the fleet (renting is billed for all of it, owning does what it can).
    work_share: float
    active_months: float  # months the work runs in (WHOLE_HORIZON: every month)
    whole_terms: bool  # commitments must be bought whole for the active months
    profile: tuple[float, ...]  # server-equivalents busy per month, months 1..H
    load_factor_peak: float  # served load in its largest year ÷ first year
    tolerates_interruptions: bool
    varies: bool  # bursts, growth or a monthly profile: the hybrid optimiser applies
    notes: tuple[Note, ...]

    @property
    def rented_work_scale(self) -> float:
        """The work demanded ÷ the work the owned fleet does (1 unless the runs exceed the
        fleet): the factor that bills renting for the whole work, whatever is owned.

        >>> plan = plan_demand(Demand(DemandPattern.RECURRING, runs_per_year=3), servers=1,
        ...     gpus_per_server=8, run_hours=3650.0, horizon_months=60, utilization=0.7)
        >>> plan.utilization, round(plan.rented_work_scale, 4)  # 3 × 3,650 ÷ 8,760
        (1.0, 1.25)
        """
        if self.utilization <= 0 or self.work_share <= self.utilization:
            return 1.0
        return self.work_share / self.utilization


def growth_factors(growth_per_year: float, horizon_months: int) -> FloatArray:
    """Served load of each month relative to the first year, stepping up yearly.

    30 % a year over 36 months: 1.0 for months 1–12, 1.3 for 13–24, 1.69 for 25–36.

    >>> [round(x, 2) for x in growth_factors(0.3, 36)[::12].tolist()]
    [1.0, 1.3, 1.69]
    """
    years = np.arange(horizon_months) // MONTHS_PER_YEAR
    return np.power(1.0 + growth_per_year, years.astype(np.float64))


def peak_load_factor(demand: Demand | None, horizon_months: int) -> float:
    """The largest year's load ÷ the first year's (1.0 without growth)."""
    if demand is None or demand.pattern is not DemandPattern.CONTINUOUS:
        return 1.0
    return float(growth_factors(demand.growth_per_year, horizon_months).max())


def _place(busy: FloatArray, start_hour: float, hours: float, servers: float) -> None:
    """Add ``servers`` busy for ``hours`` from ``start_hour`` to the monthly server-hours."""
    end = min(start_hour + hours, len(busy) * HOURS_PER_MONTH)
    first = int(start_hour // HOURS_PER_MONTH)
    for month in range(first, len(busy)):
        lo = max(start_hour, month * HOURS_PER_MONTH)
        hi = min(end, (month + 1) * HOURS_PER_MONTH)
        if hi <= lo:
            break
        busy[month] += servers * (hi - lo)


def _spread(busy: FloatArray, per_year: float, hours: float, servers: float, offset: float) -> None:
    """Place ``per_year`` equal jobs a year, evenly spaced, over the whole horizon."""
    if per_year <= 0 or hours <= 0 or servers <= 0:
        return
    count = math.floor(per_year * len(busy) / MONTHS_PER_YEAR + 1e-9)
    spacing = HOURS_PER_YEAR / per_year
    for k in range(count):
        _place(busy, offset * spacing + k * spacing, hours, servers)


def _assumed_demand(run_hours: float | None, utilization: float, notes: list[Note]) -> Demand:
    """No demand given: training runs once, serving runs around the clock at
    `utilization`; the note that says so is added to `notes`."""
    if run_hours is not None:  # training: one run
        notes.append(Note("demand_assumed_one_run"))
        return Demand(DemandPattern.ONE_OFF)
    notes.append(Note("demand_assumed_continuous", {"utilization": utilization}))
    return Demand()


def _place_runs(
    demand: Demand, run_hours: float, servers: int, busy: FloatArray, notes: list[Note]
) -> tuple[float | None, float, float]:
    """Place a one-off run or the recurring runs in `busy` (hours per month); their runs a
    year (None: one-off), runs over the horizon and active months. A run longer than the
    horizon, or more runs than the fleet manages, adds a warning to `notes`."""
    h = len(busy)
    if demand.pattern is DemandPattern.ONE_OFF:
        _place(busy, 0.0, run_hours, servers)
        active = float(min(max(1, math.ceil(run_hours / HOURS_PER_MONTH - 1e-9)), h))
        if run_hours > HOURS_PER_MONTH * h:
            notes.append(
                Note(
                    "run_exceeds_horizon",
                    {"run_days": run_hours / 24, "horizon_months": h},
                    warning=True,
                )
            )
        return None, 1.0, active
    runs_per_year = float(demand.runs_per_year or 0.0)
    runs = runs_per_year * h / MONTHS_PER_YEAR
    _spread(busy, runs_per_year, run_hours, servers, 0.0)
    max_runs = HOURS_PER_YEAR / run_hours
    if runs_per_year > max_runs * (1 + 1e-9):
        notes.append(
            Note(
                "demand_exceeds_fleet",
                {"runs_per_year": runs_per_year, "max_runs_per_year": max_runs},
                warning=True,
            )
        )
    return runs_per_year, runs, WHOLE_HORIZON


def _monthly_profile(demand: Demand, derived: FloatArray) -> FloatArray:
    """The fleet's busy share per month: the demand's own profile when it gives one (one
    year's 12 values repeat), else the one derived from its runs and bursts."""
    if demand.monthly_profile is None:
        return derived
    h = len(derived)
    given = np.asarray(demand.monthly_profile, dtype=np.float64)
    if len(given) == MONTHS_PER_YEAR and h != MONTHS_PER_YEAR:
        given = np.resize(given, h)  # one year's profile, repeated
    if len(given) != h:
        raise InvalidInput(
            "demand.monthly_profile",
            f"Give 12 values (one year, repeated) or one per month of the horizon ({h}).",
        )
    return given


def plan_demand(
    demand: Demand | None,
    *,
    servers: int,
    gpus_per_server: int,
    run_hours: float | None,
    horizon_months: int,
    utilization: float,
) -> DemandPlan:
    """Derive the owned fleet's utilization and monthly profile from the demand.

    ``run_hours`` is one training run on ``servers`` servers (None for serving).
    Without a demand, training is one run and serving continuous at ``utilization``,
    each with a note that says so (``demand_assumed_one_run``,
    ``demand_assumed_continuous``).
    A 26.4-hour run once in 60 months keeps the fleet busy 26.4 / (730 × 60)
    = 0.06 % of the time; four a year, 26.4 × 4 / 8,760 = 1.2 %.

    >>> one = plan_demand(Demand(DemandPattern.ONE_OFF), servers=1, gpus_per_server=8,
    ...     run_hours=26.4, horizon_months=60, utilization=0.7)
    >>> round(one.utilization, 6), one.active_months, one.gpu_hours
    (0.000603, 1.0, 211.2)
    >>> four = plan_demand(Demand(DemandPattern.RECURRING, runs_per_year=4), servers=1,
    ...     gpus_per_server=8, run_hours=26.4, horizon_months=60, utilization=0.7)
    >>> round(four.utilization, 6), four.runs
    (0.012055, 20.0)
    """
    notes: list[Note] = []
    if demand is None:  # never silently: the note, and the verdict's sentence, name it
        demand = _assumed_demand(run_hours, utilization, notes)
    h = horizon_months
    fleet_hours = servers * HOURS_PER_MONTH * h
    busy = np.zeros(h)
    pattern = demand.pattern
    runs_per_year: float | None = None
    runs: float | None = None
    active: float = WHOLE_HORIZON
    load_peak = 1.0
    if pattern is DemandPattern.CONTINUOUS:
        u = demand.utilization if demand.utilization is not None else utilization
        factors = growth_factors(demand.growth_per_year, h)
        load_peak = float(factors.max())
        if demand.growth_per_year and run_hours is not None:
            raise InvalidInput(
                "demand.growth_per_year",
                "Yearly growth applies to a served load; training runs grow by runs a year.",
            )
        monthly = servers * u * factors / load_peak
        busy += monthly * HOURS_PER_MONTH
        derived = u * float(factors.mean()) / load_peak
        demanded = derived
    else:
        if run_hours is None:
            raise InvalidInput(
                "demand.pattern", "Serving is continuous work: choose 'continuous' demand."
            )
        runs_per_year, runs, active = _place_runs(demand, run_hours, servers, busy, notes)
        demanded = (runs or 0.0) * run_hours * servers / fleet_hours
        derived = min(1.0, demanded)
    _spread(busy, demand.bursts_per_year, demand.burst_days * 24.0, demand.burst_servers, 0.5)
    profile = _monthly_profile(demand, busy / HOURS_PER_MONTH)
    return DemandPlan(
        pattern=pattern,
        runs_per_year=runs_per_year,
        runs=runs,
        run_hours=run_hours,
        gpu_hours=derived * fleet_hours * gpus_per_server,
        utilization=derived,
        work_share=demanded,
        active_months=active,
        whole_terms=pattern is DemandPattern.ONE_OFF,
        profile=tuple(profile.tolist()),  # Python floats
        load_factor_peak=load_peak,
        tolerates_interruptions=demand.tolerates_interruptions,
        varies=bool(
            demand.monthly_profile is not None
            or (demand.bursts_per_year and demand.burst_days and demand.burst_servers)
            or (pattern is DemandPattern.CONTINUOUS and demand.growth_per_year)
        ),
        notes=tuple(notes),
    )
