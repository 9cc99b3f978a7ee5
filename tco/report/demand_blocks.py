"""The demand, serving and owning-extras blocks of the report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.engine.inputs import DemandPattern
from tco.report import models as rm
from tco.report.rounding import figure, fixed
from tco.report.sizing_blocks import notes

if TYPE_CHECKING:
    from tco.engine import ScenarioResult
    from tco.engine.serving import ServingOutcome
    from tco.engine.sizing import ServingPlan


def demand(result: ScenarioResult) -> rm.Demand:
    """The demand plan: pattern, runs, hours and the utilization it gives."""
    plan = result.demand
    return rm.Demand(
        pattern=plan.pattern.value,
        runs_per_year=plan.runs_per_year,
        runs=figure(plan.runs, 4),
        run_hours=figure(plan.run_hours, 2),
        gpu_hours=figure(plan.gpu_hours, 1),
        utilization=figure(plan.utilization, 6),
        # derived from the work (runs, a profile, users) rather than given
        utilization_derived=plan.pattern is not DemandPattern.CONTINUOUS
        or result.serving is not None,
        load_factor_peak=figure(plan.load_factor_peak, 4),
        tolerates_interruptions=plan.tolerates_interruptions,
        notes=notes(plan.notes),
    )


def serving(outcome: ServingOutcome | None, plan: ServingPlan | None) -> rm.Serving | None:
    """The derivation from users and requests to tokens/s, every step (docs/scenario.md);
    None unless the demand was given in users and requests."""
    if outcome is None:
        return None
    d, load = outcome.demand, outcome.load
    targets = plan.targets if plan is not None else None
    return rm.Serving(
        users=d.users,
        requests_per_user_per_day=d.requests_per_user_per_day,
        input_tokens_per_request=d.input_tokens_per_request,
        output_tokens_per_request=d.output_tokens_per_request,
        peak_factor=d.peak_factor,
        hours_per_day=d.hours_per_day,
        days_per_week=d.days_per_week,
        around_the_clock=d.around_the_clock,
        latency_ms_per_token=d.latency_ms_per_token,
        requests_per_day=figure(load.requests_per_day, 2),
        input_tokens_per_day=figure(load.input_tokens_per_day, 1),
        output_tokens_per_day=figure(load.output_tokens_per_day, 1),
        working_seconds_per_day=figure(load.working_seconds_per_day, 1),
        average_tokens_per_second=figure(load.average_tokens_per_second, 3),
        peak_tokens_per_second=figure(load.peak_tokens_per_second, 3),
        average_tokens_per_second_all_hours=figure(load.average_tokens_per_second_all_hours, 3),
        sized_tokens_per_second=figure(outcome.sized_tokens_per_second, 3),
        capacity_tokens_per_second=figure(outcome.capacity_tokens_per_second, 1),
        requests_per_month=figure(load.requests_per_month, 2),
        concurrent_requests_at_peak=figure(load.concurrent_requests_at_peak, 2),
        achieved_ms_per_token=figure(outcome.achieved_ms_per_token, 3),
        time_to_first_token_ms=figure(outcome.time_to_first_token_ms, 3),
        time_to_first_token_target_ms=d.time_to_first_token_ms,
        # the targets in force: the demand's, else the defaults of the use
        target_ms_per_token=targets.time_per_output_token_ms if targets else None,
        target_time_to_first_token_ms=targets.time_to_first_token_ms if targets else None,
        utilization=figure(outcome.utilization, 6),
        fleet_capacity_requests_per_day=figure(outcome.fleet_capacity_requests_per_day, 1),
        load_months=figure(outcome.load_months, 4),
        notes=notes(outcome.notes),
    )


def owning_extras(result: ScenarioResult) -> rm.OwningExtras | None:
    """What owning includes besides the servers (tco/engine/extras.py), where each figure
    came from, and the amounts per server in the reporting currency (the cost model's)."""
    extras = result.extras
    if extras is None:
        return None
    m = result.cost_model
    return rm.OwningExtras(
        site=extras.site.value,
        networking=extras.networking.value,
        fabric_tiers=extras.fabric_tiers,
        fabric_ports=extras.fabric_ports,
        networking_given=extras.networking_given,
        installation_given=extras.installation_given,
        staff_fte=fixed(extras.staff_fte, 4),
        staff_given=extras.staff_given,
        networking_per_server=figure(float(m.networking_per_server), 2),
        installation_per_server=figure(float(m.installation_per_server), 2),
        staff_cost_per_year=figure(float(m.staff_fte) * float(m.staff_annual_cost), 2),
    )
