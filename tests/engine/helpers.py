"""Shared test data that is easy to check by hand."""

from __future__ import annotations

from typing import Any

from tco.engine import CloudCostParams, CostModel


def simple_model(**changes: Any) -> CostModel:
    """A small model whose numbers are easy to check by hand."""
    base = CostModel(
        servers=2.0,
        gpus_per_server=8.0,
        server_price=100_000.0,
        idle_power_kw=2.0,
        max_power_kw=10.0,
        pue=1.5,
        electricity_price_per_kwh=0.10,
        colocation_per_kw_month=100.0,
        utilization=0.5,
        horizon_months=12.0,
        discount_rate=0.0,
        clouds=(
            CloudCostParams("on demand", 20.0, 8.0, 0.0),
            CloudCostParams("committed", 12.0, 8.0, 1.0),
            CloudCostParams("spot", 10.0, 8.0, 0.0, usage_multiplier=1.15, uplift_pct=0.1),
        ),
        support_pct_per_year=0.12,
        staff_fte=0.5,
        staff_annual_cost=120_000.0,
        insurance_pct_per_year=0.006,
        residual_pct=0.1,
    )
    return base.replace(**changes)
