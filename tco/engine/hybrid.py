"""Hybrid: own N servers for the base load, burst the rest to a cloud offering."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from tco.engine.costmodel import (
    CloudCostParams,
    CostModel,
    cloud_billed_hours_per_month,
    energy_cost_per_month,
    onprem_monthly,
    onprem_totals,
)
from tco.engine.errors import InvalidInput
from tco.engine.finance import as_array, discount_factor, monthly_discount_rate
from tco.engine.onprem import scalar


@dataclass(frozen=True, slots=True)
class HybridResult:
    cloud_name: str
    owned_servers: int
    total_cost: float
    npv: float
    onprem_cost: float
    cloud_cost: float
    all_cloud_total: float  # owned_servers = 0
    all_onprem_total: float  # enough servers for the peak month
    total_by_owned_servers: tuple[float, ...]  # index = servers owned
    npv_by_owned_servers: tuple[float, ...]


def optimise_hybrid(
    model: CostModel,
    cloud: CloudCostParams,
    demand_servers: Sequence[float],
    objective: Literal["total", "npv"] = "total",
) -> HybridResult:
    """Choose how many servers to own for a monthly demand profile.

    ``demand_servers[m]`` is the busy capacity needed in month m + 1, in
    server-equivalents running all month. Owned servers run at
    min(demand, N) / N; the excess runs on ``cloud`` for every hour it is
    needed (GPU-count matched). Staff cost applies only when N > 0. Every
    candidate N = 0..ceil(peak) is evaluated in one vectorized pass.

    One $100k server vs $20/h instances over 12 months, no other costs, demand
    1 server for 6 months then 0: owning costs $100k, renting
    6 × 730 × 20 = $87.6k, so N = 0.

    >>> m = CostModel(servers=1, gpus_per_server=8, server_price=100_000.0,
    ...     idle_power_kw=0.0, max_power_kw=1.0, pue=1.0, electricity_price_per_kwh=0.0,
    ...     colocation_per_kw_month=0.0, utilization=0.5, horizon_months=12, discount_rate=0.0)
    >>> r = optimise_hybrid(m, CloudCostParams("od", 20.0, 8, 0.0), [1.0] * 6 + [0.0] * 6)
    >>> r.owned_servers, r.total_cost, r.total_by_owned_servers
    (0, 87600.0, (87600.0, 100000.0))
    """
    h = round(scalar(model.horizon_months, "horizon_months"))
    demand = np.asarray(demand_servers, dtype=np.float64)
    if demand.shape != (h,):
        raise InvalidInput(
            "demand_servers", f"Give one demand value per month of the horizon ({h} values)."
        )
    if not np.all(np.isfinite(demand)) or np.any(demand < 0):
        raise InvalidInput("demand_servers", "Monthly demand must be zero or more servers.")
    if scalar(cloud.committed, "committed") > 0:
        raise InvalidInput(
            "cloud", "Bursting needs a pay-per-use offering (on demand, spot or capacity block)."
        )
    peak = max(0, math.ceil(float(demand.max()) - 1e-9))
    owned = np.arange(peak + 1, dtype=np.float64)
    n_col = owned[:, None]

    # Everything but energy and staff comes from the shared on-prem totals at u = 0.
    fleet = model.replace(servers=owned, utilization=0.0)
    mo = onprem_monthly(fleet)
    base = onprem_totals(fleet, mo)
    i = monthly_discount_rate(scalar(model.discount_rate, "discount_rate"))
    months = np.arange(1, h + 1, dtype=np.float64)
    dfs = discount_factor(i, months)
    has_fleet = (owned > 0).astype(np.float64)
    idle_energy_and_staff = as_array(mo.energy_idle + mo.staff)
    onprem_total = base.total - idle_energy_and_staff * h
    onprem_npv = base.npv - idle_energy_and_staff * float(dfs.sum())
    staff = as_array(mo.staff) * has_fleet
    onprem_total = onprem_total + staff * h
    onprem_npv = onprem_npv + staff * float(dfs.sum())

    busy = np.minimum(demand[None, :], n_col)
    utilization = np.divide(busy, n_col, out=np.zeros_like(busy), where=n_col > 0)
    energy = energy_cost_per_month(
        n_col,
        model.idle_power_kw,
        model.max_power_kw,
        utilization,
        model.pue,
        model.electricity_price_per_kwh,
    )
    onprem_total = onprem_total + energy.sum(axis=1)
    onprem_npv = onprem_npv + energy @ dfs

    burst_instances = (
        np.maximum(demand[None, :] - n_col, 0.0)
        * scalar(model.gpus_per_server, "gpus_per_server")
        * scalar(cloud.work_ratio, "work_ratio")
        / scalar(cloud.gpus_per_instance, "gpus_per_instance")
    )
    hours = cloud_billed_hours_per_month(burst_instances, 1.0, 0.0, cloud.usage_multiplier)
    rate = (
        scalar(cloud.price_per_instance_hour, "price_per_instance_hour")
        * scalar(model.cloud_price_scale, "cloud_price_scale")
        * (1.0 + scalar(cloud.uplift_pct, "uplift_pct"))
    )
    # Owning nothing costs nothing on-prem (not even the site-level storage).
    onprem_total = onprem_total * has_fleet
    onprem_npv = onprem_npv * has_fleet
    cloud_monthly = hours * rate
    cloud_total = cloud_monthly.sum(axis=1)
    cloud_npv = cloud_monthly @ dfs

    total = onprem_total + cloud_total
    npv = onprem_npv + cloud_npv
    best = int(np.argmin(total if objective == "total" else npv))
    return HybridResult(
        cloud_name=cloud.name,
        owned_servers=best,
        total_cost=float(total[best]),
        npv=float(npv[best]),
        onprem_cost=float(onprem_total[best]),
        cloud_cost=float(cloud_total[best]),
        all_cloud_total=float(total[0]),
        all_onprem_total=float(total[-1]),
        total_by_owned_servers=tuple(float(x) for x in total),
        npv_by_owned_servers=tuple(float(x) for x in npv),
    )
