"""One billing unit per ranking (issue 29): a 1-GPU job ranked across on-demand,
capacity-block, spot and 1-GPU offerings, each billed in the unit its provider sells."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine import (
    CloudCostParams,
    CloudOfferingSpec,
    CloudTerm,
    CostModel,
    Demand,
    DemandPattern,
    FinanceInputs,
    Scenario,
    ServerSpec,
    SiteSpec,
    Workload,
    WorkloadKind,
    evaluate,
)
from tco.engine.costmodel import cloud_bill
from tco.engine.examples import H100_SXM
from tco.engine.units import FxRates, Money

FINANCE = FinanceInputs(
    horizon_months=60, discount_rate=0.08, utilization=0.7, fx=FxRates(usd_per_eur=1.08)
)
CONTINUOUS = Demand(DemandPattern.CONTINUOUS)
WORKSTATION = ServerSpec("H100 workstation", H100_SXM, 1, 4, 1.2, 0.25, False, Money(35_000.0))
DESK = SiteSpec(0.18, 1.0, 0.0, 3.6, currency="EUR", on_premises=True, workstation=True)

OD = CloudOfferingSpec("Cloud", "8x H100", CloudTerm.ON_DEMAND, 8, 55.04, gpu=H100_SXM)
BLOCK = CloudOfferingSpec(
    "Cloud", "8x H100", CloudTerm.CAPACITY_BLOCK, 8, 39.80, gpu=H100_SXM, min_billed_hours=24.0
)
SPOT = CloudOfferingSpec("Cloud", "8x H100", CloudTerm.SPOT, 8, 19.71, gpu=H100_SXM)
ONE_GPU = CloudOfferingSpec("Cloud", "1x H100", CloudTerm.ON_DEMAND, 1, 3.00, gpu=H100_SXM)


def test_a_one_gpu_job_is_ranked_in_the_units_the_providers_sell() -> None:
    """A 1-GPU LoRA run, once. Every 8-GPU offering bills one whole instance for the hours
    the run takes on it (its eight GPUs share the work); the 1-GPU offering bills one GPU
    for the run's hours on one GPU. Before issue 29, on demand and spot billed an eighth
    of an instance while the capacity block billed a whole one."""
    w = Workload(WorkloadKind.LORA, 8.0, tokens_billion=0.2)
    s = Scenario(
        w,
        WORKSTATION,
        DESK,
        (OD, BLOCK, SPOT, ONE_GPU),
        FINANCE,
        demand=Demand(DemandPattern.ONE_OFF, tolerates_interruptions=True),
    )
    r = evaluate(s)
    own_hours = r.sizing.training_hours
    assert own_hours is not None and r.sizing.gpus_required == 1
    eight = evaluate(
        dataclasses.replace(
            s, server=dataclasses.replace(WORKSTATION, gpus_per_server=8, max_power_kw=10.2)
        )
    ).sizing.training_hours  # the same run on one 8-GPU node
    assert eight is not None and eight < own_hours
    by_name = {o.name: o for o in r.cloud_options}
    assert all(o.instances == 1 for o in r.cloud_options)
    assert by_name[OD.name].total_cost == pytest.approx(math.ceil(eight) * 55.04, rel=1e-9)
    assert by_name[BLOCK.name].total_cost == pytest.approx(24 * 39.80, rel=1e-9)
    assert by_name[SPOT.name].total_cost == pytest.approx(math.ceil(eight) * 1.15 * 19.71, rel=1e-9)
    assert by_name[ONE_GPU.name].total_cost == pytest.approx(math.ceil(own_hours) * 3.00, rel=1e-9)
    ranked = [o.name for o in r.verdict.options if o.kind == "cloud"]
    assert ranked == [ONE_GPU.name, SPOT.name, OD.name, BLOCK.name]


def test_a_served_gpu_rents_a_whole_instance_around_the_clock() -> None:
    """One GPU's worth of serving on 8-GPU instances: the whole instance, every hour."""
    w = Workload(WorkloadKind.INFERENCE, 8.0, target_tokens_per_second=100.0)
    r = evaluate(Scenario(w, WORKSTATION, DESK, (OD, ONE_GPU), FINANCE, demand=CONTINUOUS))
    assert r.sizing.gpus_required == 1
    od, one = r.cloud_options
    assert (od.instances, one.instances) == (1, 1)
    assert od.total_cost == pytest.approx(730 * 60 * 55.04, rel=1e-9)
    assert one.total_cost == pytest.approx(730 * 60 * 3.00, rel=1e-9)


@settings(max_examples=80, deadline=None)
@given(
    servers=st.integers(1, 64),
    gps=st.sampled_from([1, 2, 4, 8]),
    gpi=st.sampled_from([1, 2, 4, 8, 16]),
    fleet_ratio=st.floats(0.25, 4.0),
    hours_ratio=st.floats(0.1, 2.0),
    u=st.floats(0.01, 1.0),
)
def test_pay_per_use_bills_whole_instances_for_the_hours_they_run(
    servers: int, gps: int, gpi: int, fleet_ratio: float, hours_ratio: float, u: float
) -> None:
    """Whatever the fleet and the instance, the bill is a whole number of instances (at
    least the GPUs needed ÷ GPUs per instance) × the hours they run × the price."""
    m = CostModel(
        servers=float(servers),
        gpus_per_server=float(gps),
        server_price=1.0,
        idle_power_kw=0.0,
        max_power_kw=1.0,
        pue=1.0,
        electricity_price_per_kwh=0.0,
        colocation_per_kw_month=0.0,
        utilization=u,
        horizon_months=12.0,
        discount_rate=0.0,
    )
    cloud = CloudCostParams(
        "od", 10.0, float(gpi), 0.0, work_ratio=fleet_ratio * hours_ratio, fleet_ratio=fleet_ratio
    )
    bill = cloud_bill(m, cloud)
    instances = float(bill.instances)
    assert instances == math.ceil(instances) >= servers * gps * fleet_ratio / gpi - 1e-9
    hours = 730 * 12 * u * hours_ratio
    assert float(bill.usage_total) == pytest.approx(instances * hours * 10.0, rel=1e-12)
