"""Time to capacity (tco/engine/capacity.py, docs/methodology.md § 3i), with numbers
derived by hand from the reference scenario's published prices."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import TypedDict, Unpack

import pytest

from tco.engine.capacity import CapacityInputs, LatePolicy
from tco.engine.examples import reference_scenario
from tco.engine.inputs import CloudTerm, Scenario, UncertaintyRanges
from tco.engine.scenario import OWN_NAME, evaluate

AS_OF = date(2026, 12, 3)
COREWEAVE = "CoreWeave 8x H100 (on_demand)"  # $49.24 per instance-hour, the cheapest by use


class CapacityBlock(TypedDict, total=False):
    """The scenario's capacity block (CapacityInputs) as a test gives it, ordered on AS_OF."""

    needed_in_days: float | None
    if_late: LatePolicy
    cost_of_delay_per_week: float
    site_readiness_weeks: float
    install_days: float
    lead_time_range: tuple[float, float]


def four_servers(
    *, stock: int | None, lead_weeks: float, **capacity: Unpack[CapacityBlock]
) -> Scenario:
    """The reference scenario (continuous, 70 % busy) on a fixed fleet of 4 servers; no
    capacity block when no field of it is given."""
    base = reference_scenario()
    server = dataclasses.replace(base.server, units_in_stock=stock, lead_time_weeks=lead_weeks)
    inputs = CapacityInputs(AS_OF, **capacity) if capacity else None
    return dataclasses.replace(base, servers=4, server=server, capacity=inputs)


def test_late_fleet_is_bridged_for_hours_times_price() -> None:
    # Needed in 30 days, ships in 10 weeks, no installation time: ready on day 70, so the
    # bridge rents 4 CoreWeave instances for 40 days at the fleet's 70 % use:
    # 40 × 24 × 0.70 = 672 hours each; 4 × 672 × $49.24 = $132,357.12.
    result = evaluate(four_servers(stock=0, lead_weeks=10, needed_in_days=30, install_days=0))
    assert result.capacity is not None
    own = result.capacity.timing(OWN_NAME)
    assert own is not None
    assert own.ready_in_days == 70
    assert own.ready_date == date(2027, 2, 11)
    assert own.bridge is not None
    assert own.bridge.option == COREWEAVE
    assert own.bridge.instances == 4
    assert own.bridge.hours == pytest.approx(672.0)
    assert own.bridge.cost == pytest.approx(132_357.12)
    ranked = {o.name: o for o in result.verdict.options}
    assert ranked[OWN_NAME].total_cost == pytest.approx(result.onprem.total_cost + 132_357.12)


def test_fleet_in_stock_needs_no_bridge() -> None:
    timed = evaluate(four_servers(stock=4, lead_weeks=10, needed_in_days=30, install_days=7))
    plain = evaluate(four_servers(stock=None, lead_weeks=0))
    assert timed.capacity is not None
    own = timed.capacity.timing(OWN_NAME)
    assert own is not None
    assert (own.ready_in_days, own.code, own.late_days, own.bridge) == (7.0, "in_stock", 0.0, None)
    assert timed.verdict.options == plain.verdict.options


def test_short_stock_waits_for_the_lead_time() -> None:
    # 3 in stock for a fleet of 4: the fourth ships in 10 weeks, so the fleet does too.
    result = evaluate(four_servers(stock=3, lead_weeks=10, needed_in_days=90, install_days=7))
    assert result.capacity is not None
    own = result.capacity.timing(OWN_NAME)
    assert own is not None
    assert (own.ready_in_days, own.code, own.late_days) == (77.0, "lead_time", 0.0)


def test_rule_out_policy_excludes_the_late_fleet() -> None:
    result = evaluate(
        four_servers(
            stock=0, lead_weeks=10, needed_in_days=30, install_days=0, if_late=LatePolicy.RULE_OUT
        )
    )
    ranked = {o.name: o for o in result.verdict.options}
    assert ranked[OWN_NAME].excluded_code == "misses_deadline"
    assert not ranked[OWN_NAME].eligible
    assert result.verdict.action == "rent"
    assert result.verdict.recommended == COREWEAVE


def test_cost_of_delay_flips_the_verdict_at_the_break_even() -> None:
    # Taking the fleet 40 days late costs c × 40/7; owning stays cheapest while
    # own + c × 40/7 < the cheapest cloud (CoreWeave, on time), so the break-even is
    # c* = (CoreWeave − own) × 7/40.
    plain = evaluate(four_servers(stock=None, lead_weeks=0))
    totals = {o.name: o.total_cost for o in plain.verdict.options}
    c_star = (totals[COREWEAVE] - totals[OWN_NAME]) * 7 / 40

    def verdict(cost_per_week: float) -> str:
        scenario = four_servers(
            stock=0,
            lead_weeks=10,
            needed_in_days=30,
            install_days=0,
            if_late=LatePolicy.DELAY,
            cost_of_delay_per_week=cost_per_week,
        )
        return evaluate(scenario).verdict.action

    assert verdict(c_star * 0.99) == "buy"
    assert verdict(c_star * 1.01) == "rent"


def test_cloud_booked_ahead_pays_the_delay() -> None:
    # A capacity block booked 14 days ahead, needed in 7: one week late at $10,000 a week.
    base = reference_scenario()
    block = dataclasses.replace(
        base.cloud_offerings[0], term=CloudTerm.CAPACITY_BLOCK, ready_in_days=14.0
    )
    scenario = dataclasses.replace(
        base,
        servers=4,
        cloud_offerings=(block, *base.cloud_offerings[1:]),
        capacity=CapacityInputs(
            AS_OF, needed_in_days=7, if_late=LatePolicy.DELAY, cost_of_delay_per_week=10_000.0
        ),
    )
    result = evaluate(scenario)
    assert result.capacity is not None
    timing = result.capacity.timing(block.name)
    assert timing is not None
    assert (timing.code, timing.late_days, timing.delay_cost) == ("capacity_block", 7.0, 10_000.0)


def test_lead_time_draws_lower_the_confidence_in_owning() -> None:
    # Needed in 60 days; nominally 8 weeks' lead + 7 days' installation = day 63, 3 days
    # late. At a cost of delay of (CoreWeave − own) / 6 a week, owning loses once the fleet
    # is 6 weeks late: never with the lead time fixed, sometimes when it is drawn up to
    # 8 × 1.6 = 12.8 weeks (ready day 97, 5.3 weeks late: not yet), more often up to
    # 8 × 2.2 = 17.6 weeks (ready day 130, 10 weeks late).
    plain = evaluate(four_servers(stock=None, lead_weeks=0))
    totals = {o.name: o.total_cost for o in plain.verdict.options}
    gap = totals[COREWEAVE] - totals[OWN_NAME]  # what owning may lose to lateness
    per_week = gap / 6  # six weeks late and owning loses

    def probability(spread: tuple[float, float]) -> float:
        scenario = four_servers(
            stock=0,
            lead_weeks=8,
            needed_in_days=60,
            install_days=7,
            if_late=LatePolicy.DELAY,
            cost_of_delay_per_week=per_week,
            lead_time_range=spread,
        )
        scenario = dataclasses.replace(scenario, uncertainty=UncertaintyRanges(draws=4000))
        result = evaluate(scenario)
        assert result.verdict.action == "buy"
        assert result.confidence is not None
        return result.confidence.probability

    sure = probability((1.0, 1.0))
    wide = probability((0.85, 1.6))
    wider = probability((0.85, 2.2))
    assert sure > wide > wider
    assert wider < 0.9


def test_one_off_run_is_bridged_at_most_for_the_run() -> None:
    # Needed on day 10, ready on day 70: a gap of 60 days (1,440 h), but the run takes
    # 240 h, so the bridge rents 2 instances × 240 h × $30 = $14,400 and no more.
    from tco.engine.capacity import OwnedOption, RentedOption, plan_capacity

    plan = plan_capacity(
        CapacityInputs(AS_OF, needed_in_days=10, install_days=0),
        owned=[OwnedOption("Buy", "own", 2)],
        rented=[RentedOption("Cloud", 0.0, 2, 30.0)],
        units_in_stock=None,
        lead_time_weeks=10,
        utilization=0.05,
        run_hours=240.0,
    )
    own = plan.timing("Buy")
    assert own is not None and own.bridge is not None
    assert (own.bridge.days, own.bridge.hours, own.bridge.cost) == (60.0, 240.0, 14_400.0)


def test_hybrid_bridges_its_owned_share_and_a_committed_cloud_never_bridges() -> None:
    # Owning 1 of 4 servers: a quarter of the 4 instances (1) is bridged, on the on-demand
    # cloud at $50 even though the 3-year commitment costs $30 an hour; 20 days × 24 h × 1.0.
    from tco.engine.capacity import OwnedOption, RentedOption, plan_capacity

    plan = plan_capacity(
        CapacityInputs(AS_OF, needed_in_days=0, install_days=0),
        owned=[OwnedOption("Hybrid", "hybrid", 1, share=0.25)],
        rented=[
            RentedOption("Committed", 0.0, 4, 30.0, committed=True, code="reserved"),
            RentedOption("On demand", 0.0, 4, 50.0),
        ],
        units_in_stock=0,
        lead_time_weeks=20 / 7,
        utilization=1.0,
    )
    hybrid = plan.timing("Hybrid")
    assert hybrid is not None and hybrid.bridge is not None
    assert hybrid.bridge.option == "On demand" and hybrid.bridge.instances == 1
    assert hybrid.bridge.cost == pytest.approx(20 * 24 * 50.0)
