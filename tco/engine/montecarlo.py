"""How sure the verdict is: a seeded Monte Carlo over the inputs nobody knows exactly.

Every draw changes several inputs at once (cloud price trend, electricity,
demand, server price, resale value, PUE) within documented ranges and
recomputes the nominal cost of owning and of the cheapest eligible cloud
options in one vectorized pass of the cost core (the same closed forms as
every other figure). A discount rate range is drawn too, but nominal totals do
not read it. See docs/methodology.md, "Confidence".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tco.engine.capacity import LateDraws
from tco.engine.costmodel import (
    NO_REFRESH,
    CostModel,
    active_months,
    cloud_total,
    onprem_total,
    stack_clouds,
)
from tco.engine.errors import InvalidInput
from tco.engine.finance import as_array, broadcast
from tco.engine.inputs import UncertaintyRanges
from tco.engine.onprem import scalar
from tco.engine.ownership import resale_fraction
from tco.engine.units import HOURS_PER_MONTH, FloatArray


@dataclass(frozen=True, slots=True)
class Confidence:
    favours: str  # "own" or "rent": the verdict's side
    probability: float  # share of draws in which the verdict's side is cheaper
    draws: int
    saving_p10: float  # the verdict side's saving over the other side, percentiles
    saving_p50: float
    saving_p90: float
    saving_mean: float
    histogram_edges: tuple[float, ...]
    histogram_counts: tuple[int, ...]


def _uniform(rng: np.random.Generator, bounds: tuple[float, float], n: int) -> FloatArray:
    """``n`` draws within ``bounds``; a zero-width range is its value and takes no draws."""
    low, high = bounds
    return as_array(rng.uniform(low, high, n)) if high > low else np.full(n, low)


def late_cost_draws(late: LateDraws, rng: np.random.Generator, n: int) -> FloatArray:
    """What owning pays for lateness in each of ``n`` draws of the lead times.

    The fleet's supply and then a booked bridge's lead (none for on demand, which takes no
    draw) are drawn as nominal × U(lead_time_range); LateDraws says what the days cost. A
    fleet in stock draws nothing that moves it: its cost is fixed.

    >>> d = LateDraws(supply_days=70.0, site_days=0.0, install_days=0.0, needed_day=30.0,
    ...               per_late_day=100.0, lead_time_range=(1.0, 1.0), bridge_lead_days=0.0)
    >>> late_cost_draws(d, np.random.default_rng(1), 3).tolist()  # 40 days × 100
    [4000.0, 4000.0, 4000.0]
    >>> booked = LateDraws(supply_days=70.0, site_days=0.0, install_days=0.0,
    ...     needed_day=30.0, per_late_day=100.0, lead_time_range=(1.0, 1.0),
    ...     bridge_lead_days=44.0, minimum_days=30.0, delay_per_day=10.0)
    >>> late_cost_draws(booked, np.random.default_rng(1), 1).tolist()  # 14 × 10 + 30 × 100
    [3140.0]
    """
    supply = late.supply_days * _uniform(rng, late.lead_time_range, n)
    ready = np.maximum(supply, late.site_days) + late.install_days
    lead: float | FloatArray = late.bridge_lead_days
    if 0 < late.bridge_lead_days < np.inf:
        lead = late.bridge_lead_days * _uniform(rng, late.lead_time_range, n)
    start = np.maximum(late.needed_day, lead)
    held = np.clip(ready - start, 0.0, late.max_late_days)
    billed = np.where(held > 0, np.maximum(held, late.minimum_days), 0.0)
    waiting = np.clip(np.minimum(ready, start) - late.needed_day, 0.0, None)
    return as_array(billed * late.per_late_day + waiting * late.delay_per_day)


def monte_carlo(
    model: CostModel,
    ranges: UncertaintyRanges,
    *,
    favours: str,
    clouds: Sequence[int],
    run_hours: float | None = None,
    resale_by_year: Sequence[float] = (),
    resell_months: int | None = None,
    bins: int = 30,
    late: LateDraws | None = None,
    cloud_extra: Sequence[float] = (),
) -> Confidence | None:
    """Share of plausible futures in which the verdict's side (own or rent) is cheaper.

    ``clouds`` are the indices of the eligible cloud offerings in ``model``;
    renting costs the cheapest of them in each draw. Owning costs the
    cheaper of keeping and (with ``resell_months``) buy-run-resell. None when
    the amounts overflow.

    With ``late`` (tco/engine/capacity.py), each draw also redraws the fleet's lead time
    as nominal × U(lead_time_range) and owning pays for the days the fleet is then late
    (a bridge's rent or the cost of delay); ``cloud_extra`` adds each cloud's fixed cost
    of delay (same order as ``clouds``). These draws come after every other, so the other
    inputs' draws stay those of a result without them.
    """
    if favours not in ("own", "rent"):
        raise InvalidInput("favours", "The verdict favours 'own' or 'rent'.")
    if not clouds:
        raise InvalidInput("cloud_offerings", "The confidence needs an eligible cloud option.")
    n = ranges.draws
    rng = np.random.default_rng(ranges.seed)
    trend = _uniform(rng, ranges.cloud_price_trend, n)
    demand = _uniform(rng, ranges.demand, n)
    resale = _uniform(rng, ranges.resale, n)
    electricity = _uniform(rng, ranges.electricity, n)
    server_price = _uniform(rng, ranges.server_price, n)
    # The totals compared are nominal: no drawn discount rate changes them. It is drawn all
    # the same, so that the PUE's draws after it stay those every result has shown.
    _uniform(rng, ranges.discount_rate, n)
    pue = _uniform(rng, ranges.pue, n)
    horizon = scalar(model.horizon_months, "horizon_months")
    # Prices move along a straight line to the trend's end value; the work pays the
    # average over the months it runs.
    runs_share = scalar(active_months(model), "active_months") / horizon
    varied = model.replace(
        cloud_price_scale=as_array(model.cloud_price_scale) * (1.0 + trend * runs_share / 2.0),
        electricity_price_per_kwh=as_array(model.electricity_price_per_kwh) * electricity,
        utilization=np.clip(as_array(model.utilization) * demand, 0.0, 1.0),
        server_price=as_array(model.server_price) * server_price,
        residual_pct=np.clip(as_array(model.residual_pct) * resale, 0.0, 1.0),
        pue=np.maximum(as_array(model.pue) + pue, 1.0),
    )
    own = onprem_total(varied)
    if resell_months is not None and run_hours:
        fraction = resale_fraction(resale_by_year, resell_months)
        resold = varied.replace(
            horizon_months=float(resell_months),
            utilization=np.clip(run_hours * demand / (resell_months * HOURS_PER_MONTH), 0, 1),
            residual_pct=np.clip(fraction * resale, 0.0, 1.0),
            active_months=1e9,
            leased=0.0,
            service_life_months=NO_REFRESH,  # sold after the run, never bought again
        )
        own = np.minimum(own, onprem_total(resold))
    # The offerings stacked along a first axis (offerings × draws): one pass of the closed
    # form for all of them, element by element the arithmetic of each offering's own.
    totals = cloud_total(varied, stack_clouds([model.clouds[k] for k in clouds], ndim=2))
    if cloud_extra:
        totals = totals + np.asarray(cloud_extra, dtype=np.float64)[:, None]
    rent = broadcast(np.min(totals, axis=0), (n,))
    own = broadcast(own, (n,))
    if late is not None:
        own = own + late_cost_draws(late, rng, n)
    favour = (rent - own) if favours == "own" else (own - rent)
    if not np.all(np.isfinite(favour)):
        return None  # amounts beyond what a float holds: no distribution to speak of
    counts, edges = np.histogram(favour, bins=bins)
    p10, p50, p90 = np.percentile(favour, [10, 50, 90])
    return Confidence(
        favours=favours,
        probability=float(np.mean(favour > 0)),
        draws=n,
        saving_p10=float(p10),
        saving_p50=float(p50),
        saving_p90=float(p90),
        saving_mean=float(np.mean(favour)),
        histogram_edges=tuple(edges.tolist()),
        histogram_counts=tuple(counts.tolist()),
    )
