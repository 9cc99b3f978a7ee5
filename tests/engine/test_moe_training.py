"""Training a mixture of experts (issue 29 item 2): shape, memory and the experts' exchange.

Hand figures for a Mixtral-like model (46.7 B, 12.9 B active, 8 experts of which 2 per
token): each expert holds (46.7 − 12.9) ÷ 6 = 5.633 B, the shared weights 12.9 − 2 ×
5.633 = 1.633 B.
"""

from __future__ import annotations

from typing import Any

import pytest

from tco.engine import Workload, WorkloadKind, size_workload
from tco.engine.examples import HGX_H100_SERVER
from tco.engine.memory import default_shape
from tco.engine.moe import expert_split

MIXTRAL: dict[str, Any] = dict(
    params_billion=46.7, active_params_billion=12.9, experts=8, experts_per_token=2
)


def pretrain(**changes: Any) -> Workload:
    return Workload(WorkloadKind.PRETRAIN, tokens_billion=1000.0, **{**MIXTRAL, **changes})


def test_shape_and_activations_follow_the_active_parameters() -> None:
    r = size_workload(pretrain(), HGX_H100_SERVER)
    assert r.shape == default_shape(12.9e9)  # not the 46.7 B of all experts
    dense = size_workload(
        Workload(WorkloadKind.PRETRAIN, 12.9, tokens_billion=1000.0), HGX_H100_SERVER
    )
    assert r.shape == dense.shape


def test_expert_parallelism_divides_the_experts_states() -> None:
    r = size_workload(pretrain(), HGX_H100_SERVER)
    split = expert_split(46.7e9, 12.9e9, 8, 2)
    t, p, dp = (
        r.parallelism.tensor_parallel,
        r.parallelism.pipeline_parallel,
        r.parallelism.data_parallel,
    )
    ep = r.expert_parallel
    assert ep == min(dp * r.parallelism.context_parallel, 8)
    # ZeRO-3 over dp for the shared weights, experts over ep; 16 bytes a parameter each.
    assert r.sharding is not None and r.sharding.value == "zero3"
    shared = split.shared_params / (t * p) * 16 / dp / 1e9
    experts = split.expert_params / (t * p) * 16 / ep / 1e9
    assert r.memory.model_states_gb == pytest.approx(shared + experts)


def test_the_exchange_is_counted_by_hand() -> None:
    r = size_workload(pretrain(), HGX_H100_SERVER)
    assert r.all_to_all_hours is not None and r.expert_parallel is not None
    ep, t = r.expert_parallel, r.parallelism.tensor_parallel
    in_server = min(ep, 8 // t)
    # Forward and backward send every token's hidden state to its 2 experts and back:
    # 2 × 2 × hidden × (2 bytes BF16 dispatch + 2 combine), in every layer.
    per_token_layer = 2 * 2 * r.shape.hidden_size * (2.0 + 2.0)
    seconds = (
        1000e9
        * r.shape.layers
        * per_token_layer
        / r.gpus_required
        * ((in_server - 1) / ep / 450e9 + (ep - in_server) / ep / 50e9)
    )
    assert r.all_to_all_hours == pytest.approx(seconds / 0.9 / 3600)
    assert r.training_hours is not None and r.training_hours > r.all_to_all_hours


def test_the_exchange_costs_time_and_a_dense_model_pays_none() -> None:
    moe = size_workload(pretrain(), HGX_H100_SERVER)
    dense = size_workload(
        Workload(WorkloadKind.PRETRAIN, 12.9, tokens_billion=1000.0), HGX_H100_SERVER
    )
    assert dense.all_to_all_hours is None and dense.expert_parallel is None
    assert moe.training_flops == pytest.approx(dense.training_flops)  # 6 · N_active · D
    assert moe.gpu_hours is not None and dense.gpu_hours is not None
    assert moe.gpu_hours > dense.gpu_hours


def test_lora_keeps_the_experts_frozen_with_the_base() -> None:
    r = size_workload(
        Workload(WorkloadKind.LORA, tokens_billion=1.0, **MIXTRAL),
        HGX_H100_SERVER,
    )
    assert r.expert_parallel is None and r.all_to_all_hours is None


def test_a_deadline_counts_the_exchange_too() -> None:
    # The fleet for a deadline finishes in time with the exchange included.
    r = size_workload(pretrain(deadline_days=30.0), HGX_H100_SERVER)
    assert r.training_days is not None and r.training_days <= 30.0
    fewer = size_workload(pretrain(), HGX_H100_SERVER, servers=r.servers_required - 1)
    assert fewer.training_days is not None and fewer.training_days > 30.0
