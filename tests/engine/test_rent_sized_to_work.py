"""Renting sized to the work when the owned unit is larger (issue 40): a 72-GPU NVL72 rack
against 8-GPU cloud instances for a model that one instance serves or trains. Expected
numbers are worked out by hand in each test's comment."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine import evaluate
from tco.engine.inputs import (
    CloudOfferingSpec,
    CloudTerm,
    Demand,
    DemandPattern,
    FinanceInputs,
    GpuSpec,
    Scenario,
    ServerCooling,
    ServerSpec,
    ServingDemand,
    SiteCooling,
    SiteSpec,
    Workload,
    WorkloadKind,
)
from tco.engine.scenario import IDLE_OWNED_SHARE, cost_of_owning, verdict_text
from tco.engine.units import Money
from tco.report import build_report

GB300 = GpuSpec("GB300", 288.0, 8.0, 2500.0, 5000.0, 15000.0, 1400.0, 1800.0)
B300 = GpuSpec("B300", 288.0, 8.0, 2250.0, 4500.0, 13500.0, 1100.0, 1800.0)
B200 = GpuSpec("B200", 180.0, 7.7, 2250.0, 4500.0, 9000.0, 1000.0, 1800.0)
NVL72 = ServerSpec(
    "GB300 NVL72",
    GB300,
    72,
    48,
    140.0,
    38.0,
    True,
    Money(3_500_000.0),
    cooling=ServerCooling.RACK_LIQUID,
    whole_rack=True,
)
HGX_B300 = ServerSpec("HGX B300", B300, 8, 8, 14.5, 3.6, False, Money(620_000.0))
COLO = SiteSpec(
    0.15,
    1.3,
    150.0,
    150.0,
    "USD",
    name="Liquid-ready colocation",
    cooling=SiteCooling.DIRECT_LIQUID,
    pue_liquid=1.15,
)
LAMBDA_B200 = CloudOfferingSpec("Lambda", "8x B200", CloudTerm.ON_DEMAND, 8, 53.52, gpu=B200)
FINANCE = FinanceInputs(horizon_months=60, discount_rate=0.0, utilization=0.7)
# 2,000 users × 20 requests a day × 400 output tokens (1,000 in) over a 10-hour day, five
# days a week, peak factor 3 (the customer-service preset's demand).
USERS = ServingDemand(
    2000, 20, 400, input_tokens_per_request=1000, peak_factor=3, hours_per_day=10, days_per_week=5
)


def _served(server: ServerSpec = NVL72, users: ServingDemand = USERS, **kw: object) -> Scenario:
    return Scenario(
        Workload(WorkloadKind.INFERENCE, 8.0, serving_demand=users),
        server,
        COLO,
        (LAMBDA_B200,),
        FINANCE,
        demand=Demand(DemandPattern.CONTINUOUS),
        smaller_servers=(HGX_B300,),
        **kw,  # type: ignore[arg-type]
    )


def test_an_8b_model_served_from_an_nvl72_rents_one_8_gpu_instance() -> None:
    """The peak: 2,000 × 20 × 400 = 16,000,000 output tokens a day over 36,000 s = 444.4
    tokens/s, × 3 = 1,333.3 tokens/s. One B200 holds the 8B model's 16 GB of BF16 weights
    in its 180 GB; reading them once a decode step at 7.7 TB/s × 0.75 takes 2.77 ms, 361
    steps a second, so a batch of 4 sequences (183 MB of KV cache each at 1,400 tokens)
    already gives 1,444 tokens/s: one GPU, one 8-GPU instance. A service is billed around
    the clock: 1 × 730 h × 60 months × $53.52 = $2,344,176. Before issue 40 the rented side
    was sized to the rack's 72 GPUs: 9 instances, $21,097,584."""
    result = evaluate(_served())
    assert result.sizing.gpus_required == 72  # the rack is bought whole
    (cloud,) = result.cloud_options
    assert cloud.instances == 1
    assert cloud.total_cost == pytest.approx(730 * 60 * 53.52, rel=1e-9)


def test_the_rack_would_stand_idle_and_the_verdict_names_the_hgx() -> None:
    """Even at its peak the service needs 1,333.3 tokens/s (above). The rack's 72 GPUs each
    deliver at least the 1,444 tokens/s of one B200 (the GB300 reads faster), so the peak
    uses at most 1,333.3 ÷ (72 × 1,444) = 1.28 % of its capacity, below the 10 % at which
    it warns. One HGX B300 (8 GPUs) serves the same load."""
    result = evaluate(_served())
    capacity = result.sizing.tokens_per_second_capacity
    assert capacity is not None and capacity >= 72 * 1444
    (idle,) = [n for n in result.warnings if n.code == "owned_mostly_idle"]
    peak = 2000 * 20 * 400 / 36_000 * 3
    assert peak == pytest.approx(1333.33, abs=0.01)
    assert idle.params["idle_basis"] == "peak"
    assert idle.params["idle_share"] == pytest.approx(peak / capacity, abs=1e-6)
    assert idle.params["idle_share"] <= 1333.34 / (72 * 1444) < IDLE_OWNED_SHARE
    assert (idle.params["idle_servers"], idle.params["idle_gpus"]) == (1, 72)
    assert idle.params["smaller_server"] == "HGX B300"
    assert (idle.params["smaller_servers"], idle.params["smaller_gpus"]) == (1, 8)
    # The cost named is what owning the HGX costs for the work, as the calculator ranks it.
    hgx = dataclasses.replace(_served(), server=HGX_B300, smaller_servers=())
    assert idle.params["smaller_cost"] == pytest.approx(cost_of_owning(hgx), abs=0.01)
    # The verdict carries the same parameters, and its English text names the HGX.
    assert result.verdict.params["smaller_server"] == "HGX B300"
    assert "1 × HGX B300 (8 GPUs) does this work for" in verdict_text(result.verdict, "USD")
    out = build_report(result).to_json()
    assert "owned_mostly_idle" in [w["code"] for w in out["warnings"]]


def test_a_service_sized_to_its_peak_gets_no_warning() -> None:
    """The same users on HGX B300 servers sized for their peak: an office-hours service
    (10 hours, 5 days, peak factor 3) averages at most 1/3 × 10/24 × 5/7 = 9.9 % of the
    capacity its peak needs, around the clock, whoever runs it; the warning is about the
    owned unit's size, so it looks at the peak, which fills a server sized for it."""
    many = dataclasses.replace(USERS, users=200_000)
    result = evaluate(_served(HGX_B300, many))
    assert result.demand.utilization < IDLE_OWNED_SHARE
    assert "owned_mostly_idle" not in [n.code for n in result.warnings]
    assert "smaller_server" not in result.verdict.params


def test_a_fixed_fleet_names_the_same_server_sized_to_the_work() -> None:
    """Four HGX B300 bought for a load one of them serves: the smaller option is one."""
    result = evaluate(_served(HGX_B300, servers=4))
    (idle,) = [n for n in result.warnings if n.code == "owned_mostly_idle"]
    assert (idle.params["idle_servers"], idle.params["idle_gpus"]) == (4, 32)
    assert (idle.params["smaller_server"], idle.params["smaller_servers"]) == ("HGX B300", 1)
    (cloud,) = result.cloud_options
    assert cloud.instances == 1  # the work's need, not the four servers bought


def test_a_fine_tune_rents_the_instance_its_plan_needs() -> None:
    """A full fine-tune of 8B on 5B tokens, four times a year, within 30 days: 6 × 8e9 × 5e9 =
    2.4e20 FLOPs. On one 8 × B200 instance (2,250 TFLOPS BF16, MFU 45 %, goodput 90 %,
    one node so no scaling loss): 2.4e20 ÷ (8 × 2.25e15 × 0.45 × 0.9) = 32,922 s = 9.14 h,
    billed as 10 whole hours a run; its states (16 bytes × 8e9 = 128 GB) sharded over the
    8 GPUs fit. 4 runs × 5 years × 10 h × $53.52 = $10,704, whatever the rack bought."""
    w = Workload(
        WorkloadKind.FULL_FINETUNE,
        8.0,
        tokens_billion=5.0,
        deadline_days=30.0,
        mfu=0.45,
        goodput=0.9,
    )
    s = Scenario(
        w,
        NVL72,
        COLO,
        (LAMBDA_B200,),
        FINANCE,
        demand=Demand(DemandPattern.RECURRING, runs_per_year=4),
        smaller_servers=(HGX_B300,),
    )
    result = evaluate(s)
    (cloud,) = result.cloud_options
    assert cloud.instances == 1
    assert cloud.total_cost == pytest.approx(4 * 5 * 10 * 53.52, rel=1e-9)
    assert math.ceil(2.4e20 / (8 * 2.25e15 * 0.45 * 0.9) / 3600) == 10
    # The rack's 72 GB300s (2,500 TFLOPS) run it in 2.4e20 ÷ (72 × 2.5e15 × 0.45 × 0.9) =
    # 3,292 s = 0.9145 h, plus the gradient all-reduce inside the rack's NVLink domain:
    # 2 × 71/72 × 8e9 × 2 B ÷ 900 GB/s = 35.1 ms per 4 M-token step, 1,250 steps ÷ 0.9 =
    # 0.0135 h; four times a year: busy 4 × 0.9280 ÷ 8,760 h = 0.0424 % of the time.
    (idle,) = [n for n in result.warnings if n.code == "owned_mostly_idle"]
    assert idle.params["idle_basis"] == "time"
    exchange = 5e9 / 4e6 * (2 * 71 / 72 * 8e9 * 2 / 900e9) / 0.9 / 3600
    run_hours = 2.4e20 / (72 * 2.5e15 * 0.45 * 0.9) / 3600 + exchange
    assert idle.params["idle_share"] == pytest.approx(4 * run_hours / 8760, abs=1e-6)
    assert result.verdict.params["smaller_server"] == "HGX B300"


# One B300 in a workstation: the owned fleet slower than the 8-GPU instance rented.
WORKSTATION = ServerSpec("B300 workstation", B300, 1, 4, 1.8, 0.4, False, Money(60_000.0))
FINETUNE_8B = Workload(
    WorkloadKind.FULL_FINETUNE, 8.0, tokens_billion=5.0, deadline_days=30.0, mfu=0.45, goodput=0.9
)


def _finetunes(server: ServerSpec, runs_per_year: int, servers: int | None = None) -> Scenario:
    return Scenario(
        FINETUNE_8B,
        server,
        COLO,
        (LAMBDA_B200,),
        FINANCE,
        demand=Demand(DemandPattern.RECURRING, runs_per_year=runs_per_year),
        servers=servers,
    )


def test_runs_that_exceed_the_owned_fleet_are_rented_in_full() -> None:
    """The 8B fine-tune above, 150 times a year, owning one B300 workstation: one run takes
    2.4e20 ÷ (1 × 2.25e15 × 0.45 × 0.9) = 263,374 s = 73.2 h on it, so 150 runs need
    150 × 73.2 = 10,974 h a year, more than its 8,760: it is busy all the time and warns.
    Renting is billed for the whole work, not the share the workstation manages: 150 runs
    × 5 years × 10 whole hours on one 8 × B200 instance × $53.52 = $401,400 (before, the
    rental followed the owned fleet's capped utilization: $401,400 × 8,760 ÷ 10,974 =
    $320,420) — the same as renting it beside a rack or an HGX server sized to the work."""
    result = evaluate(_finetunes(WORKSTATION, 150, servers=1))
    run_hours = 2.4e20 / (2.25e15 * 0.45 * 0.9) / 3600
    assert result.sizing.training_hours == pytest.approx(run_hours, rel=1e-6)
    assert result.demand.utilization == 1.0
    assert result.demand.work_share == pytest.approx(150 * run_hours / 8760, rel=1e-6)
    assert "demand_exceeds_fleet" in [n.code for n in result.warnings]
    (cloud,) = result.cloud_options
    assert cloud.instances == 1
    assert cloud.total_cost == pytest.approx(150 * 5 * 10 * 53.52, rel=1e-9)
    for server in (NVL72, HGX_B300):
        other = evaluate(_finetunes(server, 150)).cloud_options[0]
        assert other.total_cost == pytest.approx(cloud.total_cost, rel=1e-9)


@settings(max_examples=8, deadline=None)
@given(runs=st.integers(1, 400))
def test_renting_the_runs_does_not_depend_on_the_owned_fleet_keeping_up(runs: int) -> None:
    """Whether the owned workstation manages the runs or not, renting them costs the same
    as beside a fleet sized to the work."""
    small = evaluate(_finetunes(WORKSTATION, runs, servers=1)).cloud_options[0]
    sized = evaluate(_finetunes(HGX_B300, runs)).cloud_options[0]
    assert small.total_cost == pytest.approx(sized.total_cost, rel=1e-9)


@settings(max_examples=15, deadline=None)
@given(users=st.integers(10, 50_000))
def test_the_rented_side_does_not_depend_on_the_owned_unit(users: int) -> None:
    """Whatever is bought (a 72-GPU rack or an 8-GPU server), renting the same work costs
    the same: the instances are counted from the work, not from the owned GPUs."""
    demand = dataclasses.replace(USERS, users=users)
    rack = evaluate(_served(NVL72, demand)).cloud_options[0]
    server = evaluate(_served(HGX_B300, demand)).cloud_options[0]
    assert rack.instances == server.instances
    assert rack.total_cost == pytest.approx(server.total_cost, rel=1e-9)


@settings(max_examples=15, deadline=None)
@given(users=st.integers(10, 400_000), rack=st.booleans())
def test_the_warning_fires_below_a_tenth_and_names_only_a_smaller_fleet(
    users: int, rack: bool
) -> None:
    """The warning comes exactly when the sized peak uses less than 10 % of the owned
    capacity; the option it names has fewer GPUs than the owned fleet and costs what
    owning it costs for the work."""
    demand = dataclasses.replace(USERS, users=users)
    result = evaluate(_served(NVL72 if rack else HGX_B300, demand))
    capacity = result.sizing.tokens_per_second_capacity
    assert capacity is not None
    share = users * 20 * 400 / 36_000 * 3 / capacity
    idle = [n for n in result.warnings if n.code == "owned_mostly_idle"]
    assert bool(idle) == (share < IDLE_OWNED_SHARE)
    if idle and idle[0].params["smaller_server"] is not None:
        p = idle[0].params
        assert p["smaller_gpus"] < p["idle_gpus"] == result.sizing.gpus_required
        assert p["smaller_cost"] == pytest.approx(
            cost_of_owning(dataclasses.replace(_served(HGX_B300, demand), smaller_servers=())),
            abs=0.01,
        )
