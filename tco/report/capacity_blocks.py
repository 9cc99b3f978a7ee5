"""The time to capacity in the report: each option's ready date, bridge and timing, and
the capacity block, from the engine's capacity plan (tco/engine/capacity.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tco.report import models as rm
from tco.report.rounding import figure, fixed

if TYPE_CHECKING:
    from tco.engine import ScenarioResult
    from tco.engine.capacity import Bridge, OptionTiming


def option_time(timing: OptionTiming | None) -> dict[str, Any]:
    """An option's ``ready_date``, ``ready_in_days``, ``bridge`` and ``time``; None
    throughout without a capacity block (every option ready on day one)."""
    if timing is None:
        return {"ready_date": None, "ready_in_days": None, "bridge": None, "time": None}
    return {
        "ready_date": timing.ready_date,
        "ready_in_days": fixed(timing.ready_in_days, 1),
        "bridge": bridge(timing.bridge) if timing.bridge is not None else None,
        "time": rm.Timing(
            code=timing.code,
            late_days=fixed(timing.late_days, 1),
            delay_cost=figure(timing.delay_cost, 2),
            extra_cost=figure(timing.extra_cost, 2),
            ruled_out=timing.ruled_out,
        ),
    }


def bridge(b: Bridge) -> rm.Bridge:
    """The rented capacity that covers a late fleet (days, hours and money rounded)."""
    return rm.Bridge(
        option=b.option,
        instances=b.instances,
        start_in_days=fixed(b.start_in_days, 1),
        days=fixed(b.days, 1),
        hours=fixed(b.hours, 2),
        price_per_instance_hour=figure(b.price_per_instance_hour, 4),
        cost=figure(b.cost, 2),
        obtained=b.code,
        gpus=b.gpus,
        minimum_days=fixed(b.minimum_days, 1),
        risk=b.risk or None,
        on_demand_limit_gpus=fixed(b.on_demand_limit_gpus, 1),
    )


def capacity(result: ScenarioResult) -> rm.Capacity | None:
    """The scenario's capacity inputs, need date and the server's availability; None
    without a capacity block."""
    plan = result.capacity
    if plan is None:
        return None
    i = plan.inputs
    server = result.scenario.server
    return rm.Capacity(
        as_of=i.as_of,
        needed_in_days=fixed(i.needed_in_days, 1) if i.needed_in_days is not None else None,
        needed_date=plan.needed_date,
        if_late=i.if_late.value,
        cost_of_delay_per_week=fixed(i.cost_of_delay_per_week, 2),
        site_readiness_weeks=fixed(i.site_readiness_weeks, 2),
        install_days=fixed(i.install_days, 1),
        lead_time_range=[fixed(x, 4) for x in i.lead_time_range],
        units_in_stock=server.units_in_stock,
        lead_time_weeks=fixed(server.lead_time_weeks, 1),
    )
