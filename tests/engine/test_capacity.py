"""Time to capacity (tco/engine/capacity.py, docs/methodology.md § 3i), with numbers
derived by hand from the reference scenario's published prices."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import TypedDict, Unpack

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.engine.capacity import (
    NOT_GUARANTEED,
    CapacityInputs,
    CapacityPlan,
    LatePolicy,
    OwnedOption,
    RentedOption,
    bridge_hours,
    held_hours,
    late_draws,
    plan_capacity,
)
from tco.engine.examples import reference_scenario
from tco.engine.inputs import CloudTerm, Scenario, UncertaintyRanges
from tco.engine.montecarlo import late_cost_draws
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
    # bridge rents 4 CoreWeave instances for 40 days, billed for every hour held although
    # the fleet is 70 % busy: 40 × 24 = 960 hours each; 4 × 960 × $49.24 = $189,081.60.
    result = evaluate(four_servers(stock=0, lead_weeks=10, needed_in_days=30, install_days=0))
    assert result.capacity is not None
    own = result.capacity.timing(OWN_NAME)
    assert own is not None
    assert own.ready_in_days == 70
    assert own.ready_date == date(2027, 2, 11)
    assert own.bridge is not None
    assert own.bridge.option == COREWEAVE
    assert own.bridge.instances == 4
    assert own.bridge.hours == pytest.approx(960.0)
    assert own.bridge.cost == pytest.approx(189_081.60)
    ranked = {o.name: o for o in result.verdict.options}
    assert ranked[OWN_NAME].total_cost == pytest.approx(result.onprem.total_cost + 189_081.60)


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
    plan = plan_capacity(
        CapacityInputs(AS_OF, needed_in_days=10, install_days=0),
        owned=[OwnedOption("Buy", "own", 2)],
        rented=[RentedOption("Cloud", 0.0, 2, 30.0)],
        units_in_stock=None,
        lead_time_weeks=10,
        run_hours=240.0,
    )
    own = plan.timing("Buy")
    assert own is not None and own.bridge is not None
    assert (own.bridge.days, own.bridge.hours, own.bridge.cost) == (60.0, 240.0, 14_400.0)


def test_hybrid_bridges_its_owned_share_and_a_committed_term_is_paid_whole() -> None:
    # Owning 1 of 4 servers: a quarter of the 4 instances (1) is bridged, on the on-demand
    # cloud at $50 even though the 3-year commitment costs $30 an hour: the whole fleet's
    # bridge on the term buys 3 × 365 days (4 × 26,280 h × $30 = $3,153,600), on demand
    # 20 days (4 × 480 h × $50 = $96,000). The hybrid's: 1 × 20 days × 24 h × $50.
    plan = plan_capacity(
        CapacityInputs(AS_OF, needed_in_days=0, install_days=0),
        owned=[OwnedOption("Hybrid", "hybrid", 1, share=0.25)],
        rented=[
            RentedOption(
                "Committed", 0.0, 4, 30.0, committed=True, code="reserved", minimum_days=1095
            ),
            RentedOption("On demand", 0.0, 4, 50.0),
        ],
        units_in_stock=0,
        lead_time_weeks=20 / 7,
    )
    hybrid = plan.timing("Hybrid")
    assert hybrid is not None and hybrid.bridge is not None
    assert hybrid.bridge.option == "On demand" and hybrid.bridge.instances == 1
    assert hybrid.bridge.cost == pytest.approx(20 * 24 * 50.0)


# --- bridges billed for the hours they are held (docs/methodology.md § 3i) -------------

LAMBDA_B200 = 53.52  # Lambda 8x B200 on demand, $ per instance-hour (catalog, Sep 2026)
AWS_B300_BLOCK = 112.32  # AWS p6-b300.48xlarge capacity block, $ per instance-hour


def _bridge_plan(
    needed_in_days: float,
    lead_weeks: float,
    rented: list[RentedOption],
    *,
    install_days: float = 7.0,
    run_hours: float | None = None,
    cost_of_delay_per_week: float = 0.0,
) -> CapacityPlan:
    return plan_capacity(
        CapacityInputs(
            AS_OF,
            needed_in_days=needed_in_days,
            install_days=install_days,
            cost_of_delay_per_week=cost_of_delay_per_week,
        ),
        owned=[OwnedOption(OWN_NAME, "own", 17)],
        rented=rented,
        units_in_stock=0,
        lead_time_weeks=lead_weeks,
        run_hours=run_hours,
    )


def test_training_bridge_is_billed_every_hour_held() -> None:
    # The issue's 70B run: needed in 30 days, servers in 10 weeks + 7 days' installation:
    # ready on day 77, a bridge of 77 − 30 = 47 days. Every hour held is billed, whatever
    # the owned fleet's average busy share: 47 × 24 = 1,128 h per instance;
    # 17 × 1,128 × $53.52 = $1,026,299.52. A one-off run of 84.9 days (2,037.6 h) that
    # must start on day 30 holds them the same 1,128 h (the servers take over before it
    # ends). 17 × 8 = 136 GPUs is more than the 64 a provider is taken to have free on
    # demand, and nothing can be booked: the bridge stays, its risk named.
    on_demand = [RentedOption("Lambda B200", 0.0, 17, LAMBDA_B200)]
    for run_hours in (None, 84.9 * 24):
        own = _bridge_plan(30, 10, on_demand, run_hours=run_hours).timing(OWN_NAME)
        assert own is not None and own.bridge is not None
        assert (own.bridge.days, own.bridge.instances) == (47.0, 17)
        assert own.bridge.hours == pytest.approx(1_128.0)
        assert own.bridge.cost == pytest.approx(1_026_299.52)
        assert (own.bridge.gpus, own.bridge.risk) == (136, NOT_GUARANTEED)


def test_served_model_is_bridged_around_the_clock() -> None:
    # Needed in 14 days, a 12-week lead time + 7 days: ready on day 91, bridged for 77
    # days around the clock: 77 × 24 = 1,848 h; 2 × 1,848 × $53.52 = $197,809.92. Two
    # instances (16 GPUs) are within what on demand is taken to have: no risk.
    plan = plan_capacity(
        CapacityInputs(AS_OF, needed_in_days=14, install_days=7),
        owned=[OwnedOption(OWN_NAME, "own", 2)],
        rented=[RentedOption("Lambda B200", 0.0, 2, LAMBDA_B200)],
        units_in_stock=0,
        lead_time_weeks=12,
    )
    own = plan.timing(OWN_NAME)
    assert own is not None and own.bridge is not None
    assert own.bridge.hours == pytest.approx(1_848.0)
    assert own.bridge.cost == pytest.approx(197_809.92)
    assert own.bridge.risk == ""


def test_large_bridge_is_booked_as_a_capacity_block_after_its_lead_time() -> None:
    # 200 instances (1,600 GPUs) are not there on demand: the capacity block is booked,
    # 14 days ahead. Needed on day 7, ready on day 77 (10 weeks + 7 days): the block runs
    # from day 14, 63 days × 24 = 1,512 h; 200 × 1,512 × $112.32 = $33,965,568. The week
    # before it starts (days 7–14) pays the cost of delay: 1 week × $70,000.
    rented = [
        RentedOption("Lambda B200", 0.0, 200, LAMBDA_B200),
        RentedOption(
            "AWS B300 block", 14.0, 200, AWS_B300_BLOCK, code="capacity_block", minimum_days=1.0
        ),
    ]
    plan = _bridge_plan(7, 10, rented, cost_of_delay_per_week=70_000.0)
    own = plan.timing(OWN_NAME)
    assert own is not None and own.bridge is not None
    assert own.bridge.option == "AWS B300 block" and own.bridge.code == "capacity_block"
    assert (own.bridge.start_in_days, own.bridge.days, own.bridge.risk) == (14.0, 63.0, "")
    assert own.bridge.hours == pytest.approx(1_512.0)
    assert own.bridge.cost == pytest.approx(33_965_568.0)
    assert own.delay_cost == pytest.approx(70_000.0)
    # The Monte Carlo at a fixed lead time pays what the plan does.
    draws = late_draws(plan, OWN_NAME)
    assert draws is not None
    fixed = dataclasses.replace(draws, lead_time_range=(1.0, 1.0))
    cost = late_cost_draws(fixed, np.random.default_rng(0), 2)
    assert cost.tolist() == pytest.approx([own.extra_cost] * 2)


def test_a_reserved_term_bridge_is_paid_whole_when_it_fits() -> None:
    # Needed on day 30, 40 weeks' lead, no installation: ready on day 280, 250 days to
    # bridge 200 instances. A 1-year term held 250 of its 365 days (68 % ≥ 50 %) fits and
    # is paid whole: 8,760 h; 200 × 8,760 × $30 = $52,560,000. A 3-year term at $20 would
    # be used 250 of 1,095 days (23 %): no bridge. On demand is too big for 1,600 GPUs.
    rented = [
        RentedOption("On demand", 0.0, 200, 25.0),
        RentedOption(
            "1 year", 14.0, 200, 30.0, code="reserved", committed=True, minimum_days=365.0
        ),
        RentedOption(
            "3 years", 14.0, 200, 20.0, code="reserved", committed=True, minimum_days=1095.0
        ),
    ]
    own = _bridge_plan(30, 40, rented, install_days=0).timing(OWN_NAME)
    assert own is not None and own.bridge is not None
    assert own.bridge.option == "1 year"
    assert own.bridge.hours == pytest.approx(8_760.0)
    assert own.bridge.cost == pytest.approx(52_560_000.0)


@given(
    gap=st.floats(0.0, 1_000.0),
    run=st.one_of(st.none(), st.floats(1.0, 20_000.0)),
    minimum=st.floats(0.0, 1_095.0),
)
def test_bridge_hours_cover_what_is_held_and_what_must_be_bought(
    gap: float, run: float | None, minimum: float
) -> None:
    hours = bridge_hours(gap_days=gap, run_hours=run, minimum_days=minimum)
    held = held_hours(gap_days=gap, run_hours=run)
    assert held <= gap * 24 + 1e-9
    if held > 0:
        assert hours >= held and hours >= minimum * 24
        assert hours <= max(held, minimum * 24)
    else:
        assert hours == 0.0


def test_scenario_bridges_on_a_one_year_term_paid_whole() -> None:
    # The reference scenario on 17 servers (136 GPUs, too many for on demand) with its
    # first cloud on a 1-year term at $61.38: needed on day 30, 40 weeks' lead, no
    # installation, ready on day 280. The term is held 250 of its 365 days and bought
    # whole: 17 × 8,760 h × $61.38 = $9,140,709.60, in owning's total.
    base = reference_scenario()
    term = dataclasses.replace(
        base.cloud_offerings[0], term=CloudTerm.COMMITTED_1Y, price_per_hour=61.38
    )
    server = dataclasses.replace(base.server, units_in_stock=0, lead_time_weeks=40)
    scenario = dataclasses.replace(
        base,
        servers=17,
        server=server,
        cloud_offerings=(term, *base.cloud_offerings[1:]),
        capacity=CapacityInputs(AS_OF, needed_in_days=30, install_days=0),
    )
    result = evaluate(scenario)
    assert result.capacity is not None
    own = result.capacity.timing(OWN_NAME)
    assert own is not None and own.bridge is not None
    assert (own.bridge.code, own.bridge.minimum_days, own.bridge.days) == ("reserved", 365, 250)
    assert own.bridge.cost == pytest.approx(9_140_709.60)
    ranked = {o.name: o for o in result.verdict.options}
    assert ranked[OWN_NAME].total_cost == pytest.approx(result.onprem.total_cost + 9_140_709.60)


def test_the_monte_carlo_draws_a_booked_bridges_lead_like_the_lead_times() -> None:
    # The servers ready on day 77 (site work, nothing to draw), needed on day 7; a block
    # booked 14 days ahead drawn × U(1, 2) starts between day 14 and day 28. At $1,000 a
    # day held and $10,000 a day waiting, a draw costs (77 − S) × 1,000 + (S − 7) × 10,000:
    # from 63,000 + 70,000 = $133,000 (S = 14) to 49,000 + 210,000 = $259,000 (S = 28).
    from tco.engine.capacity import LateDraws

    late = LateDraws(
        supply_days=0.0,
        site_days=77.0,
        install_days=0.0,
        needed_day=7.0,
        per_late_day=1_000.0,
        lead_time_range=(1.0, 2.0),
        bridge_lead_days=14.0,
        minimum_days=1.0,
        delay_per_day=10_000.0,
    )
    cost = late_cost_draws(late, np.random.default_rng(3), 500)
    assert cost.min() >= 133_000.0 - 1e-6 and cost.max() <= 259_000.0 + 1e-6
    assert cost.max() - cost.min() > 100_000.0  # the lead is drawn, not fixed
