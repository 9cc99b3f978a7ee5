"""Horizon sensitivity: what each option costs over 3, 5, 7 and 10 years.

The same fleet and the same demand, costed over each horizon with the closed
-form totals of the cost core (tco/engine/costmodel.py), so a horizon beyond
the servers' service life includes the refresh purchase(s).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tco.engine.costmodel import (
    CostModel,
    cloud_total,
    onprem_monthly,
    onprem_total,
    stack_clouds,
    stack_models,
)
from tco.engine.finance import broadcast
from tco.engine.onprem import scalar

HORIZONS_MONTHS: tuple[int, ...] = (36, 60, 84, 120)


@dataclass(frozen=True, slots=True)
class HorizonView:
    """Totals per horizon: owning (buy and keep) and each cloud option, in model order."""

    months: tuple[int, ...]
    onprem: tuple[float, ...]
    clouds: tuple[tuple[float, ...], ...]  # one tuple per cloud option, one total per horizon
    refreshes: tuple[int, ...]  # fleet purchases after the first, per horizon
    service_life_months: int
    resell: tuple[float | None, ...] | None = None  # a one-off run: buy, run and resell
    # The hosted API the verdict compares with: (name, one total per horizon).
    apis: tuple[tuple[str, tuple[float, ...]], ...] = ()


def horizon_view(
    models: Sequence[CostModel],
    resell: Sequence[float | None] | None = None,
) -> HorizonView:
    """Cost every option of each model (one model per horizon, same offerings).

    ``resell``: the buy-run-resell totals per horizon, when the work is a one-off run
    (None where the run takes the whole horizon).

    >>> from tco.engine.costmodel import CloudCostParams
    >>> base = CostModel(servers=1, gpus_per_server=8, server_price=100_000.0,
    ...     idle_power_kw=0.0, max_power_kw=1.0, pue=1.0, electricity_price_per_kwh=0.0,
    ...     colocation_per_kw_month=0.0, utilization=1.0, horizon_months=36,
    ...     discount_rate=0.0, clouds=(CloudCostParams("od", 10.0, 8, 0.0),),
    ...     residual_pct=0.1, service_life_months=60)
    >>> v = horizon_view([base.replace(horizon_months=float(h)) for h in (36, 84)])
    >>> v.onprem, v.clouds, v.refreshes  # 7 years: 100k + (100k − 10k) − 64 % of 100k
    ((90000.0, 126000.0), ((262800.0, 613200.0),), (0, 1))
    """
    if not models:
        raise ValueError("horizon_view() needs at least one model")
    # One pass for all horizons (and all offerings): the same closed forms, element by element.
    # Nominal totals only: the view shows no NPV, so nothing is discounted.
    stacked = stack_models(models)
    shape = (len(models),)
    monthly = onprem_monthly(stacked)
    onprem = broadcast(onprem_total(stacked, monthly), shape)
    refreshes = broadcast(monthly.refresh.count, shape)
    clouds: tuple[tuple[float, ...], ...] = ()
    if stacked.clouds:
        offerings = stack_clouds(stacked.clouds, ndim=2)
        totals = broadcast(cloud_total(stacked, offerings), (len(stacked.clouds), *shape))
        clouds = tuple(map(tuple, totals.tolist()))  # tolist: each value as a float
    return HorizonView(
        months=tuple(round(scalar(m.horizon_months, "horizon_months")) for m in models),
        onprem=tuple(onprem.tolist()),
        clouds=clouds,
        refreshes=tuple(round(n) for n in refreshes.tolist()),
        service_life_months=round(scalar(models[0].service_life_months, "service_life_months")),
        resell=tuple(resell) if resell is not None else None,
    )
