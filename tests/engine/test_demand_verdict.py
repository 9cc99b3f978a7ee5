"""Demand over the horizon and the buy-or-rent verdict, against hand calculations.

The scenario is kept so that every cost can be derived on paper: one 8 × H100
server at $300,000, nothing but energy (2 kW idle, 10 kW busy, $0.20/kWh, PUE
1.0) and a 10 % residual; one cloud offering of the same GPU at $40 per
8-GPU instance-hour; 60 months, no discounting. The run time T of the LoRA
fine-tune comes from the sizing (tested on its own in test_sizing.py); the
costs around it are derived here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine import (
    CloudOfferingSpec,
    CloudTerm,
    Demand,
    DemandPattern,
    FinanceInputs,
    InvalidInput,
    Scenario,
    ServerSpec,
    SiteSpec,
    Workload,
    WorkloadKind,
    evaluate,
)
from tco.engine.examples import H100_SXM, reference_scenario
from tco.engine.units import Money
from tco.report import build_report

SERVER = ServerSpec("Test H100 server", H100_SXM, 8, 8, 10.0, 2.0, False, Money(300_000.0))
SITE = SiteSpec(0.20, 1.0, 0.0, 40.0)
ON_DEMAND = CloudOfferingSpec("Cloud", "8x H100", CloudTerm.ON_DEMAND, 8, 40.0, gpu=H100_SXM)
YEAR_TERM = CloudOfferingSpec("Cloud", "8x H100", CloudTerm.COMMITTED_1Y, 8, 25.0, gpu=H100_SXM)
SPOT = CloudOfferingSpec("Cloud", "8x H100", CloudTerm.SPOT, 8, 12.0, gpu=H100_SXM)
FINANCE = FinanceInputs(
    horizon_months=60,
    discount_rate=0.0,
    networking_per_server=0.0,
    installation_per_server=0.0,
    support_pct_per_year=0.0,
    staff_fte=0.0,
    insurance_pct_per_year=0.0,
    residual_pct=0.10,
)
LORA_70B = Workload(WorkloadKind.LORA, 70.0, tokens_billion=1.0, deadline_days=2.0)


def scenario(demand: Demand | None, *offerings: CloudOfferingSpec, **changes: Any) -> Scenario:
    return Scenario(
        workload=LORA_70B,
        server=SERVER,
        site=SITE,
        cloud_offerings=offerings or (ON_DEMAND,),
        finance=FINANCE,
        demand=demand,
        **changes,
    )


def test_one_off_lora_costs_its_gpu_hours_in_the_cloud_and_owning_loses() -> None:
    r = evaluate(scenario(Demand(DemandPattern.ONE_OFF), ON_DEMAND, YEAR_TERM))
    t = r.sizing.training_hours
    assert r.sizing.servers_required == 1 and t is not None and 20 < t < 40
    # Cloud on demand: the run's hours, rounded up to whole hours, × $40.
    on_demand = next(o for o in r.cloud_options if "on_demand" in o.name)
    assert on_demand.total_cost == pytest.approx(math.ceil(t) * 40.0, rel=1e-9)
    # A 1-year commitment is bought whole, even for a day's run: 730 h × 12 × $25.
    year = next(o for o in r.cloud_options if "committed_1y" in o.name)
    assert year.total_cost == pytest.approx(730 * 12 * 25.0, rel=1e-9)
    # Buy and keep: $300,000 + idle 2 kW × 730 h × 60 × $0.20 + busy 8 kW × T × $0.20
    # − residual $30,000.
    keep = 300_000 + 2 * 730 * 60 * 0.20 + 8 * t * 0.20 - 30_000
    assert r.onprem.total_cost == pytest.approx(keep, rel=1e-9)
    # Buy, run for one month, resell at 85 % − 7 % / 12 = 84.417 % of $300,000.
    assert r.resell is not None and r.resell.months_owned == 1
    resell = 300_000 + 2 * 730 * 0.20 + 8 * t * 0.20 - 300_000 * (0.85 - 0.07 / 12)
    assert r.resell.total_cost == pytest.approx(resell, rel=1e-9)
    # The verdict: rent on demand; owning (at best, resold) costs resell / cloud times more.
    v = r.verdict
    assert (v.action, v.code, v.recommended) == ("rent", "rent", on_demand.name)
    assert v.params["ratio"] == pytest.approx(resell / (math.ceil(t) * 40.0), rel=1e-9)
    assert v.params["per_work"] is True
    # Utilization is derived: T hours of 730 × 60.
    assert r.demand.utilization == pytest.approx(t / (730 * 60), rel=1e-12)
    assert r.demand.gpu_hours == pytest.approx(8 * t, rel=1e-12)


def test_recurring_runs_cross_over_where_the_hand_calculation_says() -> None:
    probe = evaluate(scenario(Demand(DemandPattern.RECURRING, runs_per_year=1)))
    t = probe.sizing.training_hours
    assert t is not None
    # Over 5 years with R runs a year: owning 287,520 + 1.6 × T × 5R (idle energy, busy
    # energy, residual); renting 40 × ceil(T) × 5R. Equal at R* below.
    r_star = 287_520 / (5 * (40 * math.ceil(t) - 1.6 * t))
    got = probe.break_even_runs_per_year[0]
    assert got == pytest.approx(r_star, rel=1e-9)
    below = evaluate(scenario(Demand(DemandPattern.RECURRING, runs_per_year=math.floor(r_star))))
    above = evaluate(scenario(Demand(DemandPattern.RECURRING, runs_per_year=math.ceil(r_star))))
    assert below.verdict.action == "rent" and above.verdict.action == "buy"
    # The derived utilization is the demand's GPU-hours over the owned GPU-hours.
    runs = math.ceil(r_star)
    assert above.demand.utilization == pytest.approx(runs * t / 8760, rel=1e-12)
    assert above.demand.gpu_hours == pytest.approx(runs * 5 * 8 * t, rel=1e-12)
    summary = build_report(above).to_json()
    assert summary["break_even_runs_per_year"] == pytest.approx(r_star, abs=0.01)
    assert summary["verdict"]["action"] == "buy"


def test_continuous_demand_reproduces_the_worked_example() -> None:
    base = reference_scenario()  # states demand continuous at finance.utilization
    old = evaluate(base)
    assert old.onprem.total_cost == pytest.approx(4_850_339.12, abs=0.01)
    assert not old.demand.notes and old.verdict.params["demand_assumed"] is None
    stated = evaluate(
        dataclasses.replace(base, demand=Demand(DemandPattern.CONTINUOUS, utilization=0.7))
    )
    assert stated.onprem.total_cost == pytest.approx(old.onprem.total_cost, rel=1e-12)
    for a, b in zip(stated.cloud_options, old.cloud_options, strict=True):
        assert a.total_cost == pytest.approx(b.total_cost, rel=1e-12)
    assert stated.demand.utilization == 0.7 and not stated.demand.notes


def test_training_without_demand_is_one_run_and_the_verdict_says_so() -> None:
    """Issue 29: a demand is never silently assumed. Training without one is one run: the
    same costs as demand one_off, a note, and the verdict's sentence names it."""
    assumed = evaluate(dataclasses.replace(reference_scenario(), demand=None))
    once = evaluate(dataclasses.replace(reference_scenario(), demand=Demand(DemandPattern.ONE_OFF)))
    assert assumed.demand.pattern is DemandPattern.ONE_OFF
    assert [n.code for n in assumed.demand.notes] == ["demand_assumed_one_run"]
    assert assumed.onprem.total_cost == once.onprem.total_cost
    assert [o.total_cost for o in assumed.cloud_options] == [
        o.total_cost for o in once.cloud_options
    ]
    assert assumed.verdict.params["demand_assumed"] == "one_run"
    assert once.verdict.params["demand_assumed"] is None
    d = build_report(assumed).to_json()
    assert d["demand"]["pattern"] == "one_off"
    assert d["verdict"]["text"].endswith(", assuming one run.")
    assert "assuming" not in build_report(once).to_json()["verdict"]["text"]


def test_serving_without_demand_is_continuous_and_the_verdict_says_so() -> None:
    w = Workload(WorkloadKind.INFERENCE, 70.0, target_tokens_per_second=2_000.0)
    served = evaluate(dataclasses.replace(reference_scenario(), workload=w, demand=None))
    assert served.demand.pattern is DemandPattern.CONTINUOUS
    assert served.demand.utilization == 0.7  # finance.utilization
    assert [n.code for n in served.demand.notes] == ["demand_assumed_continuous"]
    text = build_report(served).to_json()["verdict"]["text"]
    assert text.endswith(", assuming it serves around the clock.")


def test_spot_is_not_recommended_for_deadline_work_unless_it_tolerates_interruptions() -> None:
    strict = evaluate(scenario(Demand(DemandPattern.ONE_OFF), ON_DEMAND, SPOT))
    spot = next(o for o in strict.verdict.options if "spot" in o.name)
    assert (
        spot.total_cost
        < next(o for o in strict.verdict.options if "on_demand" in o.name).total_cost
    )
    assert not spot.eligible and spot.excluded_code == "spot_needs_tolerance"
    assert "on_demand" in strict.verdict.recommended
    tolerant = evaluate(
        scenario(Demand(DemandPattern.ONE_OFF, tolerates_interruptions=True), ON_DEMAND, SPOT)
    )
    assert "spot" in tolerant.verdict.recommended
    # Spot bills the interruption overhead (15 %) on top of the whole hours.
    t = tolerant.sizing.training_hours
    assert t is not None
    got = next(o for o in tolerant.cloud_options if "spot" in o.name).total_cost
    assert got == pytest.approx(math.ceil(t) * 12.0 * 1.15, rel=1e-9)


def test_a_cloud_gpu_that_needs_more_gpus_is_billed_for_its_own_gpu_hours() -> None:
    slow = dataclasses.replace(H100_SXM, name="Half-speed GPU", bf16_tflops=989.0 / 2)
    offer = dataclasses.replace(ON_DEMAND, instance_type="8x slow", gpu=slow)
    r = evaluate(scenario(Demand(DemandPattern.ONE_OFF), ON_DEMAND, offer))
    same, other = r.cloud_options
    # Half the throughput: twice the GPU-hours for the same work (same memory, so it fits).
    assert other.total_cost == pytest.approx(2 * same.total_cost, rel=0.05)


def test_inference_must_be_continuous() -> None:
    with pytest.raises(InvalidInput) as err:
        Scenario(
            Workload(WorkloadKind.INFERENCE, 8.0, target_tokens_per_second=100.0),
            SERVER,
            SITE,
            (ON_DEMAND,),
            demand=Demand(DemandPattern.ONE_OFF),
        )
    assert err.value.field == "demand.pattern"


def test_a_huge_fleet_gets_a_warning_that_names_its_driver() -> None:
    # 5 T tokens in 7 days on thousands of servers; with the default 4 M-token batch so
    # many data-parallel copies would spend their steps exchanging gradients, so the run
    # gives Llama 3's 16 M tokens per step.
    w = Workload(
        WorkloadKind.PRETRAIN,
        70.0,
        tokens_billion=5_000.0,
        deadline_days=7.0,
        global_batch_tokens=16e6,
    )
    r = evaluate(
        Scenario(w, SERVER, SITE, (ON_DEMAND,), FINANCE, demand=Demand(DemandPattern.ONE_OFF))
    )
    codes = {n.code: n.params for n in r.warnings}
    assert "fleet_too_large_deadline" in codes
    params = codes["fleet_too_large_deadline"]
    assert params["servers"] == r.sizing.servers_required > 1000
    assert params["relaxed_days"] == 30.0 and params["relaxed_servers"] < params["servers"]


def test_lease_block_by_hand() -> None:
    r = evaluate(scenario(Demand(DemandPattern.RECURRING, runs_per_year=4)))
    upfront = 300_000.0
    lease = next(lo for lo in r.financing.leases if lo.term_months == 36)
    i = 0.06 / 12
    assert lease.monthly_payment == pytest.approx(upfront * i / (1 - (1 + i) ** -36), rel=1e-9)
    # Total = 36 payments + the same running costs − residual as the cash purchase.
    assert lease.total_cost == pytest.approx(
        r.financing.cash_total - upfront + 36 * lease.monthly_payment, rel=1e-9
    )
    assert [lo.term_months for lo in r.financing.leases] == [36, 48, 60]


def test_growing_served_load_sizes_for_the_last_year_and_offers_a_hybrid() -> None:
    w = Workload(WorkloadKind.INFERENCE, 70.0, target_tokens_per_second=5_000.0)
    flat = evaluate(Scenario(w, SERVER, SITE, (ON_DEMAND,), FINANCE))
    grow = evaluate(
        Scenario(
            w,
            SERVER,
            SITE,
            (ON_DEMAND,),
            FINANCE,
            demand=Demand(DemandPattern.CONTINUOUS, utilization=0.7, growth_per_year=0.5),
        )
    )
    assert grow.sizing.servers_required > flat.sizing.servers_required
    assert grow.demand.load_factor_peak == pytest.approx(1.5**4)
    assert grow.hybrid is not None
    summary = build_report(grow).to_json()
    assert summary["hybrid"]["peak_servers"] >= summary["hybrid"]["owned_servers"] >= 0


RUNS = st.floats(0.2, 60.0, allow_nan=False)


@settings(max_examples=25, deadline=None)
@given(RUNS, RUNS)
def test_more_runs_never_make_owning_relatively_worse(a: float, b: float) -> None:
    lo, hi = sorted((a, b))

    def advantage(runs: float) -> float:
        r = evaluate(scenario(Demand(DemandPattern.RECURRING, runs_per_year=runs)))
        return r.cloud_options[0].total_cost - r.onprem.total_cost

    assert advantage(hi) >= advantage(lo) - 1e-6


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(list(DemandPattern)[:2]),
    RUNS,
    st.booleans(),
    st.floats(5.0, 80.0),
)
def test_the_verdict_names_the_cheapest_eligible_option(
    pattern: DemandPattern, runs: float, tolerant: bool, spot_price: float
) -> None:
    spot = dataclasses.replace(SPOT, price_per_hour=spot_price)
    demand = Demand(pattern, runs_per_year=runs, tolerates_interruptions=tolerant)
    r = evaluate(scenario(demand, ON_DEMAND, YEAR_TERM, spot))
    eligible = [o for o in r.verdict.options if o.eligible]
    cheapest = min(eligible, key=lambda o: o.total_cost)
    assert r.verdict.recommended == cheapest.name
    assert [o.total_cost for o in r.verdict.options] == sorted(
        o.total_cost for o in r.verdict.options
    )
    assert all(o.saving_vs_best >= -1e-6 for o in eligible)


def test_monte_carlo_with_zero_width_ranges_is_the_deterministic_result() -> None:
    from tco.engine import UncertaintyRanges

    base = scenario(Demand(DemandPattern.RECURRING, runs_per_year=100))
    r = evaluate(dataclasses.replace(base, uncertainty=UncertaintyRanges.none()))
    assert r.confidence is not None and r.verdict.action == "buy"
    cloud = min(o.total_cost for o in r.cloud_options)
    saving = cloud - r.onprem.total_cost
    for value in (r.confidence.saving_p10, r.confidence.saving_p50, r.confidence.saving_p90):
        assert value == pytest.approx(saving, rel=1e-9)
    assert r.confidence.probability == 1.0 and r.confidence.favours == "own"


def test_monte_carlo_probability_moves_with_the_ranges() -> None:
    from tco.engine import UncertaintyRanges

    # Near the break-even, so that the ranges decide.
    probe = evaluate(scenario(Demand(DemandPattern.RECURRING, runs_per_year=1)))
    runs = probe.break_even_runs_per_year[0]
    assert runs is not None
    base = scenario(Demand(DemandPattern.RECURRING, runs_per_year=runs * 1.05))
    assert evaluate(base).verdict.action == "buy"

    def p_own(**ranges: Any) -> float:
        r = evaluate(dataclasses.replace(base, uncertainty=UncertaintyRanges(**ranges)))
        assert r.confidence is not None and r.confidence.favours == "own"
        return r.confidence.probability

    neutral = p_own()
    assert 0.0 < neutral < 1.0
    # Cloud prices expected to fall further: owning wins in fewer futures.
    assert p_own(cloud_price_trend=(-0.6, -0.2)) < neutral
    # More work than planned: owning wins in more.
    assert p_own(demand=(1.0, 1.5)) > neutral
    # Same seed, same answer.
    assert p_own() == neutral


def test_rented_serving_capacity_is_billed_around_the_clock() -> None:
    w = Workload(WorkloadKind.INFERENCE, 8.0, target_tokens_per_second=1_000.0)
    half = Demand(DemandPattern.CONTINUOUS, utilization=0.5)
    r = evaluate(Scenario(w, SERVER, SITE, (ON_DEMAND,), FINANCE, demand=half))
    assert r.sizing.servers_required == 1
    # One 8-GPU instance up every hour of 60 months at $40, whatever the load.
    assert r.cloud_options[0].total_cost == pytest.approx(730 * 60 * 40.0, rel=1e-9)
    # Owning costs more the busier it is (energy); the rented service does not: owning
    # wins below the break-even utilization.
    assert r.cloud_options[0].owning_wins_above is False


def test_energy_and_carbon_of_a_cloud_option_by_hand() -> None:
    green = dataclasses.replace(ON_DEMAND, pue=1.15, carbon_kg_per_kwh=0.418)
    r = evaluate(scenario(Demand(DemandPattern.ONE_OFF), green))
    t = r.sizing.training_hours
    assert t is not None
    # 8 GPUs × T h × 0.7 kW × (10 kW ÷ 5.6 kW of GPUs) × PUE 1.15; × 0.418 kg/kWh.
    kwh = 8 * t * 0.7 * (10.0 / 5.6) * 1.15
    got_kwh, got_co2 = r.cloud_energy[0]
    assert got_kwh == pytest.approx(kwh, rel=1e-9)
    assert got_co2 == pytest.approx(kwh * 0.418 / 1000, rel=1e-9)
    # On-prem: idle 2 kW all 60 months + 8 kW busy for T h, PUE 1.0 (the site has no carbon).
    assert r.energy_kwh == pytest.approx(2 * 730 * 60 + 8 * t, rel=1e-9)
    nl = dataclasses.replace(SITE, carbon_kg_per_kwh=0.253, pue=1.3)
    owned = evaluate(dataclasses.replace(scenario(Demand(DemandPattern.ONE_OFF)), site=nl))
    # (idle 2 kW × 730 h × 60 + busy 8 kW × T) × PUE 1.3 × 0.253 kg/kWh.
    assert owned.carbon_tonnes == pytest.approx(
        (2 * 730 * 60 + 8 * t) * 1.3 * 0.253 / 1000, rel=1e-9
    )
