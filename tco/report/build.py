"""Building the report from the engine's result, once per evaluation, block by block.

Each block has one short function that reads the engine's typed result and returns the
report's model (tco/report/*_blocks.py, option_rows.py); the figures are rounded there,
once (tco/report/rounding.py). The engine keeps full precision and knows no JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.report.models import Report
from tco.report.rounding import figure

if TYPE_CHECKING:
    from tco.engine import ScenarioResult


def build_report(result: ScenarioResult, *, include_cashflows: bool = False) -> Report:
    """The report of an evaluation: every block of the engine's result as typed models,
    and the time to capacity (each option's ready date, bridge and timing, the capacity
    block) from the engine's capacity plan. ``include_cashflows``: each option's monthly
    table too (``tco estimate --cashflows``)."""
    # Imported here: reading a stored report (the PDF, the API's schema) needs no engine.
    from tco.report import capacity_blocks, decision_blocks, demand_blocks, site_blocks
    from tco.report.option_rows import options
    from tco.report.sizing_blocks import racks, sizing

    site_fit = site_blocks.own_site_fit(result)
    finance = result.scenario.finance
    return Report(
        scenario=result.scenario.name,
        currency=result.currency,
        horizon_months=finance.horizon_months,
        utilization=finance.utilization,
        sizing=sizing(result.sizing),
        racks=racks(result.rack_plan),
        energy_kwh=figure(result.energy_kwh, 1),
        carbon_tonnes=figure(result.carbon_tonnes, 3),
        options=options(result, site_fit, include_cashflows=include_cashflows),
        demand=demand_blocks.demand(result),
        serving=demand_blocks.serving(result.serving, result.sizing.serving),
        verdict=decision_blocks.verdict(result),
        **decision_blocks.reference_figures(result),
        hybrid=decision_blocks.hybrid(result),
        lease=decision_blocks.lease(result),
        confidence=decision_blocks.confidence(result),
        warnings=decision_blocks.warnings(result),
        excluded_offerings=decision_blocks.excluded_offerings(result),
        constraints=decision_blocks.constraints(result),
        owning_extras=demand_blocks.owning_extras(result),
        horizons=decision_blocks.horizons(result),
        tornado=decision_blocks.tornado(result),
        site_fit=site_fit,
        site_duties=site_blocks.site_duties(result),
        capacity=capacity_blocks.capacity(result),
    )
