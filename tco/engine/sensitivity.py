"""Tornado sensitivity on the vectorized core: one sweep call for all bars."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tco.engine.costmodel import CostModel, cloud_npv, onprem_npv, stack_clouds
from tco.engine.errors import InvalidInput
from tco.engine.finance import as_array, broadcast, monthly_discount_rate
from tco.engine.onprem import scalar
from tco.engine.ownership import owned_for_run, run_months
from tco.engine.units import FloatArray

TORNADO_INPUTS: tuple[tuple[str, str], ...] = (
    ("electricity_price_per_kwh", "Electricity price"),
    ("pue", "PUE"),
    ("utilization", "Utilization"),
    ("server_price", "Server price"),
    ("cloud_price_scale", "Cloud prices"),
    ("support_pct_per_year", "Support % per year"),
    ("horizon_months", "Horizon"),
    ("discount_rate", "Discount rate"),
    ("colocation_per_kw_month", "Colocation price"),
    ("staff_annual_cost", "Staff cost"),
)
"""The ten inputs varied by default (field of CostModel, label)."""


@dataclass(frozen=True, slots=True)
class TornadoBar:
    input_name: str
    label: str
    base_input: float
    low_input: float
    high_input: float
    low_value: float  # metric with the input at its low value
    high_value: float

    @property
    def swing(self) -> float:
        return abs(self.high_value - self.low_value)


@dataclass(frozen=True, slots=True)
class Tornado:
    metric: str
    reference_option: str
    base_value: float
    bars: tuple[TornadoBar, ...]  # largest swing first


def _clip(name: str, values: FloatArray) -> FloatArray:
    # Keep varied inputs physically meaningful.
    if name == "utilization":
        return np.clip(values, 0.0, 1.0)
    if name == "pue":
        return np.maximum(values, 1.0)
    if name == "horizon_months":
        return np.clip(np.round(values), 12.0, 120.0)
    return values


def bill_npv(bill: FloatArray, annual_rate: FloatArray, horizon_months: FloatArray) -> FloatArray:
    """NPV of a fixed monthly bill (months 0..H, e.g. a hosted API's) at each rate and
    over each horizon; a horizon beyond the bill's repeats its last month.

    $100 a month for 12 months at 0 %: $1,200; over 24 months: $2,400.

    >>> b = np.array([0.0] + [100.0] * 12)
    >>> bill_npv(b, np.array([0.0, 0.0]), np.array([12.0, 24.0])).tolist()
    [1200.0, 2400.0]
    """
    rates = np.atleast_1d(np.asarray(annual_rate, dtype=np.float64))
    horizons = np.atleast_1d(np.asarray(horizon_months, dtype=np.float64))
    rates, horizons = np.broadcast_arrays(rates, horizons)
    longest = int(horizons.max())
    extended = np.concatenate([bill, np.full(max(0, longest + 1 - len(bill)), bill[-1])])
    months = np.arange(longest + 1, dtype=np.float64)
    factors = np.power(1.0 + monthly_discount_rate(rates)[:, None], -months[None, :])
    paid = months[None, :] <= horizons[:, None]
    return np.asarray((extended[None, : longest + 1] * factors * paid).sum(axis=1))


def tornado(
    model: CostModel,
    pct: float = 0.20,
    reference_cloud: int | None = None,
    inputs: Sequence[tuple[str, str]] = TORNADO_INPUTS,
    *,
    rent_bill: FloatArray | None = None,
    rent_name: str | None = None,
    resell: tuple[float, Sequence[float]] | None = None,
) -> Tornado:
    """NPV saving of buying vs renting (rent NPV − own NPV) with each input ±``pct``.

    The rented side is ``model.clouds[reference_cloud]`` (by default the cloud option with
    the lowest NPV), or a fixed monthly bill ``rent_bill`` named ``rent_name`` (a hosted
    API: only the discount rate and the horizon move its NPV, :func:`bill_npv`). The owned
    side keeps the fleet for the horizon, or with ``resell`` (the run's hours, the resale
    curve) buys, runs and resells it (:func:`~tco.engine.ownership.buy_run_resell`'s
    formulas). All 1 + 2k variants are evaluated in one vectorized pass.
    """
    if not model.clouds and rent_bill is None:
        raise InvalidInput("cloud_offerings", "The tornado needs at least one cloud offering.")
    if not 0 < pct < 1:
        raise InvalidInput("tornado_pct", f"The swing must be between 0 and 1, got {pct}.")
    if rent_bill is None and reference_cloud is None:
        # Every offering's NPV in one vectorised call (stack_clouds); the first lowest wins.
        npvs = broadcast(cloud_npv(model, stack_clouds(model.clouds)), (len(model.clouds),))
        reference_cloud = int(np.argmin(npvs))
    k = len(inputs)
    n = 1 + 2 * k
    bases = [scalar(getattr(model, name), name) for name, _label in inputs]
    # Row j: input j in each variant, its base value but in variants 1 + 2j and 2 + 2j.
    grid = np.repeat(np.array(bases, dtype=np.float64)[:, None], n, axis=1)
    for j, base in enumerate(bases):
        grid[j, 1 + 2 * j] = base * (1.0 - pct)
        grid[j, 2 + 2 * j] = base * (1.0 + pct)
    arrays = {name: _clip(name, grid[j]) for j, (name, _label) in enumerate(inputs)}
    varied = model.replace(**arrays)
    if rent_bill is not None:
        name = rent_name or "API"
        rent = bill_npv(rent_bill, as_array(varied.discount_rate), as_array(varied.horizon_months))
        rent = broadcast(rent, (n,))
    else:
        assert reference_cloud is not None
        cloud = model.clouds[reference_cloud]
        name = cloud.name
        rent = broadcast(cloud_npv(varied, cloud), (n,))
    own = broadcast(onprem_npv(varied), (n,)) if resell is None else _resell_npv(varied, n, *resell)
    saving = (rent - own).tolist()
    bars = [
        TornadoBar(
            input_name=name,
            label=label,
            base_input=bases[j],
            low_input=arrays[name].item(1 + 2 * j),
            high_input=arrays[name].item(2 + 2 * j),
            low_value=saving[1 + 2 * j],
            high_value=saving[2 + 2 * j],
        )
        for j, (name, label) in enumerate(inputs)
    ]
    bars.sort(key=lambda bar: bar.swing, reverse=True)
    return Tornado(
        metric=f"NPV saving of on-prem vs {name} (positive: buying is cheaper)",
        reference_option=name,
        base_value=saving[0],
        bars=tuple(bars),
    )


def _resell_npv(
    varied: CostModel, n: int, run_hours: float, resale_by_year: Sequence[float]
) -> FloatArray:
    """The NPV of buying, running and reselling in each of the ``n`` variants of the
    tornado, in one vectorised pass (:func:`~tco.engine.ownership.buy_run_resell`'s
    formulas); keeping the fleet's in a variant whose horizon is no longer than the run."""
    months = run_months(run_hours)
    resold = broadcast(onprem_npv(owned_for_run(varied, months, run_hours, resale_by_year)), (n,))
    kept = broadcast(onprem_npv(varied), (n,))
    horizon = broadcast(as_array(varied.horizon_months), (n,))
    return np.where(months < horizon, resold, kept)
