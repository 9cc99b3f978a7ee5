"""Building the report from the engine's result, once per evaluation."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from tco.report.models import Bridge, Capacity, Report, Timing

if TYPE_CHECKING:
    from tco.engine import ScenarioResult
    from tco.engine.capacity import Bridge as EngineBridge
    from tco.engine.capacity import OptionTiming


def build_report(result: ScenarioResult, *, include_cashflows: bool = False) -> Report:
    """The report of an evaluation: the engine's figures (rounded, NaN and infinities as
    None, by ``tco.engine.result_to_dict``) as typed models, and the time to capacity
    (each option's ready date, bridge and timing, the capacity block) from the engine's
    capacity plan (tco/engine/capacity.py). ``include_cashflows``: each option's monthly
    table too (``tco estimate --cashflows``)."""
    # Imported here: reading a stored report (the PDF, the API's schema) needs no engine.
    from tco.engine import result_to_dict

    data = result_to_dict(result, include_cashflows=include_cashflows)
    plan = result.capacity
    for option in data["options"]:
        option.update(option_time(plan.timing(option["name"]) if plan is not None else None))
    data["capacity"] = capacity(result)
    return Report.model_validate(data)


def _figure(x: float, digits: int) -> float | None:
    """An amount as the report carries it: rounded, None when not finite (absurd inputs
    may overflow)."""
    return round(float(x), digits) if math.isfinite(x) else None


def _round(x: float, digits: int) -> float:
    """A figure of validated, finite inputs (days, weeks), rounded as a float."""
    return round(float(x), digits)


def option_time(timing: OptionTiming | None) -> dict[str, Any]:
    """An option's ``ready_date``, ``ready_in_days``, ``bridge`` and ``time``; None
    throughout without a capacity block (every option ready on day one)."""
    if timing is None:
        return {"ready_date": None, "ready_in_days": None, "bridge": None, "time": None}
    return {
        "ready_date": timing.ready_date,
        "ready_in_days": _round(timing.ready_in_days, 1),
        "bridge": bridge(timing.bridge) if timing.bridge is not None else None,
        "time": Timing(
            code=timing.code,
            late_days=_round(timing.late_days, 1),
            delay_cost=_figure(timing.delay_cost, 2),
            extra_cost=_figure(timing.extra_cost, 2),
            ruled_out=timing.ruled_out,
        ),
    }


def bridge(b: EngineBridge) -> Bridge:
    """The rented capacity that covers a late fleet (days, hours and money rounded)."""
    return Bridge(
        option=b.option,
        instances=b.instances,
        start_in_days=_round(b.start_in_days, 1),
        days=_round(b.days, 1),
        hours=_round(b.hours, 2),
        price_per_instance_hour=_figure(b.price_per_instance_hour, 4),
        cost=_figure(b.cost, 2),
        obtained=b.code,
        gpus=b.gpus,
        minimum_days=_round(b.minimum_days, 1),
        risk=b.risk or None,
        on_demand_limit_gpus=_round(b.on_demand_limit_gpus, 1),
    )


def capacity(result: ScenarioResult) -> Capacity | None:
    """The scenario's capacity inputs, need date and the server's availability; None
    without a capacity block."""
    plan = result.capacity
    if plan is None:
        return None
    i = plan.inputs
    server = result.scenario.server
    return Capacity(
        as_of=i.as_of,
        needed_in_days=_round(i.needed_in_days, 1) if i.needed_in_days is not None else None,
        needed_date=plan.needed_date,
        if_late=i.if_late.value,
        cost_of_delay_per_week=_round(i.cost_of_delay_per_week, 2),
        site_readiness_weeks=_round(i.site_readiness_weeks, 2),
        install_days=_round(i.install_days, 1),
        lead_time_range=[_round(x, 4) for x in i.lead_time_range],
        units_in_stock=server.units_in_stock,
        lead_time_weeks=_round(server.lead_time_weeks, 1),
    )
