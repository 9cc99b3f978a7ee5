"""Sequence, context and pipeline parallelism: activation memory and the bubble by hand."""

from __future__ import annotations

import pytest

from tco.engine import ModelShape, Recompute, Workload, WorkloadKind, size_workload
from tco.engine.compute import training_hours
from tco.engine.examples import HGX_H100_SERVER
from tco.engine.memory import (
    activation_bytes_per_layer,
    activation_gb_per_gpu,
    pipeline_activation_layers,
    pipeline_bubble,
)

S, H, A = 4096, 8192, 64  # a 70 B-class layer: sequence 4,096, hidden 8,192, 64 heads
SBH = S * H  # micro-batch 1


def test_sequence_parallelism_divides_the_shared_term_by_t() -> None:
    # Korthikanti et al. 2022, t = 8. Selective: without SP sbh(10 + 24/8) = 13 sbh,
    # with SP 34/8 sbh = 4.25 sbh.
    assert activation_bytes_per_layer(S, 1, H, A, 8, Recompute.SELECTIVE) == 13 * SBH
    sp = activation_bytes_per_layer(S, 1, H, A, 8, Recompute.SELECTIVE, sequence_parallel=True)
    assert sp == 4.25 * SBH == 142_606_336
    # No recomputation: 34/8 + 5·a·s/(h·t) = 4.25 + 5·64·4096/(8192·8) = 4.25 + 20 = 24.25
    full_attn = activation_bytes_per_layer(S, 1, H, A, 8, Recompute.NONE, sequence_parallel=True)
    assert full_attn == 24.25 * SBH
    # Full recomputation keeps only the layer input, split over t with SP: 2sbh/8
    assert activation_bytes_per_layer(
        S, 1, H, A, 8, Recompute.FULL, sequence_parallel=True
    ) == pytest.approx(SBH / 4)
    # at t = 1 sequence parallelism changes nothing
    assert activation_bytes_per_layer(
        S, 1, H, A, 1, Recompute.SELECTIVE, sequence_parallel=True
    ) == activation_bytes_per_layer(S, 1, H, A, 1, Recompute.SELECTIVE)


def test_context_parallelism_splits_the_sequence() -> None:
    # cp = 4 on an 8,192-token sequence: each GPU holds 2,048 tokens.
    # Selective, SP, t = 8: 2048 · 8192 · 4.25 = 71,303,168 bytes
    sel = activation_bytes_per_layer(
        8192, 1, H, A, 8, Recompute.SELECTIVE, sequence_parallel=True, context_parallel=4
    )
    assert sel == 2048 * H * 4.25 == 71_303_168
    # No recomputation: the attention term uses the local 2,048 tokens too:
    # 4.25 + 5·64·2048/(8192·8) = 4.25 + 10 = 14.25 → 2048 · 8192 · 14.25 = 239,075,328
    none = activation_bytes_per_layer(
        8192, 1, H, A, 8, Recompute.NONE, sequence_parallel=True, context_parallel=4
    )
    assert none == 2048 * H * 14.25 == 239_075_328


def test_pipeline_first_stage_holds_p_micro_batches_of_its_layers() -> None:
    # 80 layers on 8 stages: 10 layers each; 1F1B keeps min(p, m) micro-batches in flight
    assert pipeline_activation_layers(80, 8, 16) == 80  # 10 × 8: pipelining does not shrink
    assert pipeline_activation_layers(80, 8, 4) == 40  # only 4 micro-batches: 10 × 4
    assert pipeline_activation_layers(80, 3, 16) == 81  # uneven: ceil(80/3) = 27 × 3
    shape = ModelShape(80, H, A, 8)
    # 80 layers × 4.25 sbh (selective, SP, t=8) = 80 × 142,606,336 B = 11.41 GB
    gb = activation_gb_per_gpu(
        shape, S, 1, 8, Recompute.SELECTIVE, sequence_parallel=True, pipeline_parallel=8
    )
    assert gb == pytest.approx(80 * 142_606_336 / 1e9)
    few = activation_gb_per_gpu(
        shape,
        S,
        1,
        8,
        Recompute.SELECTIVE,
        sequence_parallel=True,
        pipeline_parallel=8,
        micro_batches=4,
    )
    assert few == pytest.approx(gb / 2)


def test_pipeline_bubble_slows_the_run() -> None:
    # (p − 1)/(m + p − 1): 8 stages, 16 micro-batches → 7/23 = 0.3043
    assert pipeline_bubble(8, 16) == pytest.approx(7 / 23)
    assert pipeline_bubble(16, 488) == pytest.approx(15 / 503)
    assert pipeline_bubble(1, 1) == 0.0
    # a third of the time idle → the run takes 23/16 as long
    base = training_hours(4.2e22, 64, 989.0, 0.45, 1.0, 0.9)
    assert training_hours(4.2e22, 64, 989.0, 0.45, 1.0, 0.9, 1 - 7 / 23) == pytest.approx(
        base * 23 / 16
    )


def test_llama_405b_fits_at_defaults_with_a_meta_like_plan() -> None:
    """Llama 3.1 405B, 15.6 T tokens, 8 k sequence on H100s, no override."""
    w = Workload(WorkloadKind.PRETRAIN, 405.0, tokens_billion=15_600.0, sequence_length=8192)
    r = size_workload(w, HGX_H100_SERVER)
    plan = r.parallelism
    assert (plan.tensor_parallel, plan.pipeline_parallel) == (8, 16)
    assert plan.context_parallel == 2 and plan.sequence_parallel
    assert r.sharding is not None and r.sharding.value == "zero1"
    # Default shape for 405 B: L = 127, h = 16,256. Per GPU, by hand:
    # states: weights + grads 4 B × 405e9 / (8 × 16) = 12.656 GB whole, optimizer
    #   12 B × 405e9 / 128 = 37.969 GB sharded over dp × cp = 1 × 2 → 18.984 GB
    # activations: first stage ceil(127/16) = 8 layers × 16 micro-batches in flight,
    #   each (8192/2) × 16256 × 34/8 = 282,976,256 B → 128 × 0.28298 = 36.221 GB
    assert r.shape.layers == 127 and r.shape.hidden_size == 16256
    assert r.memory.model_states_gb == pytest.approx(4 * 405e9 / 128 / 1e9 + 12 * 405e9 / 256e9)
    assert r.memory.activations_gb == pytest.approx(128 * 4096 * 16256 * 4.25 / 1e9)
    assert r.memory_per_gpu_gb == pytest.approx(70.86, abs=0.01)
    assert r.memory_per_gpu_gb <= 80 * 0.9
    assert r.gpus_to_fit == 256 and r.servers_required == 32
    assert "16 pipeline stages" in plan.reason and plan.reason_code == "three_d"
    # context parallel 1 cannot fit: activations alone are 72.4 GB of 72 usable
    from tco.engine import DoesNotFit

    with pytest.raises(DoesNotFit) as err:
        size_workload(
            Workload(
                WorkloadKind.PRETRAIN,
                405.0,
                tokens_billion=15_600.0,
                sequence_length=8192,
                context_parallel=1,
            ),
            HGX_H100_SERVER,
        )
    levers = err.value.params["levers"]
    assert isinstance(levers, list)
    assert "tensor_parallel" not in levers
    assert "context_parallel" in levers


def test_given_fleet_uses_the_plan_with_the_most_useful_throughput() -> None:
    # 405 B on 64 servers (512 GPUs), 4 M-token batch = 488 sequences of 8 k.
    # TP 8 × CP 2 leaves 32 GPUs per pipeline group. PP 8 needs ≥ 6 data-parallel copies
    # (25.3 GB of weights+grads + 75.9 GB optimizer/(dp × 2) in 32.8 GB free) and gets 4:
    # does not fit. PP 16 gets dp = 2, m = 244, bubble 15/259 = 5.79 %; PP 32 gets dp = 1,
    # m = 488, bubble 31/519 = 5.97 %. Per step (42.7 s of compute per GPU) PP 16's four
    # copies (dp × cp) all-reduce 2 × 3/4 × 405e9/128 × 2 B ÷ 50 GB/s = 190 ms (0.44 %),
    # PP 32's two 2 × 1/2 × 405e9/256 × 2 B ÷ 50 GB/s = 63 ms (0.15 %); both exchange the
    # same activations inside TP 8. 512 × 0.9421 ÷ 1.0989 < 512 × 0.9403 ÷ 1.0960: PP 32.
    w = Workload(WorkloadKind.PRETRAIN, 405.0, tokens_billion=15_600.0, sequence_length=8192)
    r = size_workload(w, HGX_H100_SERVER, servers=64)
    plan = r.parallelism
    assert (plan.tensor_parallel, plan.context_parallel) == (8, 2)
    assert plan.pipeline_parallel == 32 and plan.data_parallel == 1
    assert plan.micro_batches == 488
    assert plan.pipeline_bubble == pytest.approx(31 / 519)
