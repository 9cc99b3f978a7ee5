"""Compute, time and throughput formulas against hand calculations."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.engine import (
    Interconnect,
    InvalidInput,
    Recompute,
    WorkloadKind,
    scaling_efficiency,
    training_flops,
    training_hours,
)
from tco.engine.compute import (
    exposed_exchange_seconds,
    gradient_exchange_seconds,
    hardware_flops_factor,
    width_efficiency,
)


def test_training_flops_are_model_flops() -> None:
    # Llama 3 8B on 15T tokens: 6 × 8e9 × 15e12 = 7.2e23, whatever the recomputation
    assert training_flops(8e9, 15e12, WorkloadKind.PRETRAIN) == 7.2e23
    # full fine-tuning is still 6ND; LoRA/QLoRA 4ND (no weight gradients for the frozen base)
    assert training_flops(1e9, 1e9, WorkloadKind.FULL_FINETUNE) == 6e18
    assert training_flops(1e9, 1e9, WorkloadKind.QLORA) == 4e18
    with pytest.raises(InvalidInput):
        training_flops(1e9, 1e9, WorkloadKind.INFERENCE)


def test_recomputation_changes_hfu_not_work() -> None:
    # full recomputation repeats the forward pass: 8ND of hardware work for 6ND of model work
    assert hardware_flops_factor(WorkloadKind.PRETRAIN, Recompute.FULL) == pytest.approx(8 / 6)
    # LoRA: 4ND model, + 2ND forward again = 6ND hardware
    assert hardware_flops_factor(WorkloadKind.LORA, Recompute.FULL) == pytest.approx(6 / 4)
    for r in (Recompute.NONE, Recompute.SELECTIVE):
        assert hardware_flops_factor(WorkloadKind.PRETRAIN, r) == 1.0


def test_time_does_not_change_with_recomputation_at_a_given_mfu() -> None:
    from tco.engine.examples import HGX_H100_SERVER
    from tco.engine.inputs import Workload
    from tco.engine.sizing import size_workload

    base = Workload(WorkloadKind.PRETRAIN, 7.0, tokens_billion=1000.0)
    full = Workload(WorkloadKind.PRETRAIN, 7.0, tokens_billion=1000.0, recompute=Recompute.FULL)
    a = size_workload(base, HGX_H100_SERVER, servers=2)
    b = size_workload(full, HGX_H100_SERVER, servers=2)
    assert a.training_flops == b.training_flops == 4.2e22
    assert a.training_hours == pytest.approx(b.training_hours)
    # HFU: 0.45 × 8/6 = 0.60 with full recomputation; equals MFU otherwise
    assert b.hardware_flops_utilization == pytest.approx(0.45 * 8 / 6)
    assert a.hardware_flops_utilization == pytest.approx(0.45)


def test_moe_uses_active_parameters() -> None:
    from tco.engine.examples import HGX_H100_SERVER
    from tco.engine.inputs import Workload
    from tco.engine.sizing import size_workload

    # Mixtral-like: 46.7 B total, 12.9 B active, 1 T tokens: 6 × 12.9e9 × 1e12 = 7.74e22
    w = Workload(WorkloadKind.PRETRAIN, 46.7, tokens_billion=1000.0, active_params_billion=12.9)
    r = size_workload(w, HGX_H100_SERVER)
    assert r.training_flops == pytest.approx(7.74e22)
    # memory still holds all 46.7 B parameters: 16 bytes each over the GPUs
    assert r.gpus_to_fit >= 747.2 / 72


def test_scaling_efficiency_falls_with_servers_and_slower_networks() -> None:
    # 1 / (1 + 0.02 × log2 64) = 1 / 1.12 = 0.892857
    assert scaling_efficiency(64, Interconnect.INFINIBAND) == pytest.approx(1 / 1.12)
    # RoCE: 1 / (1 + 0.04 × 6) = 0.806452
    assert scaling_efficiency(64, Interconnect.ROCE) == pytest.approx(1 / 1.24)
    for ic in Interconnect:
        assert scaling_efficiency(1, ic) == 1.0
        values = [scaling_efficiency(n, ic) for n in (1, 2, 8, 64, 1024)]
        assert values == sorted(values, reverse=True)
    order = [scaling_efficiency(32, ic) for ic in Interconnect]
    assert order == sorted(order, reverse=True)  # nvlink > ib > roce > ethernet


def test_training_hours() -> None:
    # Llama-3-8B-like: 7.2e23 FLOPs on 1024 H100 (989 TFLOPS), MFU 0.4, eff 1, goodput 0.9
    # 7.2e23 / (1024 × 989e12 × 0.4 × 0.9) = 1,974,848 s = 548.57 h
    hours = training_hours(7.2e23, 1024, 989.0, 0.4, 1.0, 0.9)
    assert hours == pytest.approx(7.2e23 / (1024 * 989e12 * 0.36) / 3600)
    assert hours == pytest.approx(548.57, abs=0.01)
    with pytest.raises(InvalidInput):
        training_hours(1e20, 0, 989.0, 0.4)


def test_width_efficiency_by_hand() -> None:
    # A100 40GB: ridge 312 / 1.555 = 200.64 FLOPs per byte, h0 = 7.5 × 200.64 = 1,504.8.
    # Pythia-1B's engine shape is 2,176 wide: (2,176 / 3,680.8) ÷ (4,096 / 5,600.8) =
    # 0.59118 ÷ 0.73133 = 0.8084.
    h0 = 7.5 * 312.0 / 1.555
    expected = (2176 / (2176 + h0)) / (4096 / (4096 + h0))
    assert width_efficiency(2176, 312.0, 1.555) == pytest.approx(expected)
    assert width_efficiency(2176, 312.0, 1.555) == pytest.approx(0.8084, abs=1e-4)
    assert width_efficiency(4096, 312.0, 1.555) == pytest.approx(1.0)


@given(
    st.integers(128, 32768),
    st.integers(128, 32768),
    st.floats(100.0, 10000.0),
    st.floats(0.5, 10.0),
)
def test_a_wider_model_never_reaches_less_of_the_mfu(
    h1: int, h2: int, peak: float, bandwidth: float
) -> None:
    narrow, wide = sorted((h1, h2))
    e_narrow = width_efficiency(narrow, peak, bandwidth)
    e_wide = width_efficiency(wide, peak, bandwidth)
    assert 0.0 < e_narrow <= e_wide <= 1.0


@given(st.floats(1e6, 1e12), st.integers(1, 100_000), st.booleans(), st.floats(1.0, 1000.0))
def test_the_gradient_exchange_grows_with_the_copies_and_zero3(
    params: float, copies: int, zero3: bool, link: float
) -> None:
    one = gradient_exchange_seconds(params, copies, zero3, link)
    more = gradient_exchange_seconds(params, copies + 1, zero3, link)
    assert 0.0 <= one <= more
    # a ring never sends more than twice the gradients (three times with ZeRO-3)
    assert more <= (3.0 if zero3 else 2.0) * params * 2.0 / (link * 1e9) * (1 + 1e-12)
    assert gradient_exchange_seconds(params, copies, True, link) >= gradient_exchange_seconds(
        params, copies, False, link
    )


@given(st.floats(0.0, 10.0), st.floats(0.0, 10.0))
def test_the_exposed_exchange_is_at_most_the_exchange(exchange: float, compute: float) -> None:
    assert 0.0 <= exposed_exchange_seconds(exchange, compute) <= exchange
