"""Tornado sensitivity on the vectorized core: one sweep call for all bars."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tco.engine.costmodel import CostModel, cloud_npv, onprem_npv, stack_clouds
from tco.engine.errors import InvalidInput
from tco.engine.finance import broadcast
from tco.engine.onprem import scalar
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


def tornado(
    model: CostModel,
    pct: float = 0.20,
    reference_cloud: int | None = None,
    inputs: Sequence[tuple[str, str]] = TORNADO_INPUTS,
) -> Tornado:
    """NPV saving of buying vs renting (cloud NPV − on-prem NPV) with each input ±``pct``.

    The reference offering defaults to the cloud option with the lowest NPV.
    All 1 + 2k variants are evaluated in a single vectorized pass.
    """
    if not model.clouds:
        raise InvalidInput("cloud_offerings", "The tornado needs at least one cloud offering.")
    if not 0 < pct < 1:
        raise InvalidInput("tornado_pct", f"The swing must be between 0 and 1, got {pct}.")
    if reference_cloud is None:
        # Every offering's NPV in one vectorised call (stack_clouds); the first lowest wins.
        npvs = broadcast(cloud_npv(model, stack_clouds(model.clouds)), (len(model.clouds),))
        reference_cloud = int(np.argmin(npvs))
    cloud = model.clouds[reference_cloud]
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
    saving = (cloud_npv(varied, cloud) - onprem_npv(varied)).tolist()
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
        metric=f"NPV saving of on-prem vs {cloud.name} (positive: buying is cheaper)",
        reference_option=cloud.name,
        base_value=saving[0],
        bars=tuple(bars),
    )
