"""Sizing: memory fit, deadline, inference replicas, parallelism plan."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tco.engine import (
    DeadlineInfeasible,
    DoesNotFit,
    GpuSpec,
    InvalidInput,
    ModelShape,
    Money,
    Precision,
    Recompute,
    ServerSpec,
    Sharding,
    Workload,
    WorkloadKind,
    size_workload,
)
from tco.engine.compute import scaling_efficiency, training_hours
from tco.engine.inputs import Interconnect
from tco.engine.sizing import servers_for_deadline
from tco.engine.sizing.inference import CopyOption


def pretrain(**kw: Any) -> Workload:
    base: dict[str, Any] = dict(
        kind=WorkloadKind.PRETRAIN, params_billion=7.0, tokens_billion=1000.0
    )
    base.update(kw)
    return Workload(**base)


def test_seven_b_needs_zero3_and_two_gpus_to_fit(server: ServerSpec) -> None:
    # Default shape L=33, h=4224, s=4096, b=1, selective; usable 80 × 0.9 = 72 GB.
    # t=1: activations 33 × 4096 × 4224 × 34 = 19.412 GB; free = 72 − 19.412 − 3 = 49.588 GB;
    #      DDP 112 GB > 49.6 → ZeRO-3, N = ceil(112 / 49.588) = 3 GPUs
    # t=2 (sequence parallel): activations 33 × 4096 × 4224 × 17 = 9.706 GB, states 56 GB:
    #      56 + 9.706 + 3 = 68.7 ≤ 72 → DDP on 2 GPUs: the fewest
    r = size_workload(pretrain(), server)
    assert r.gpus_to_fit == 2
    # on the whole server (8 GPUs) the simplest plan, t=1 with ZeRO-3 over 8, fits
    assert r.sharding is Sharding.ZERO3 and r.parallelism.tensor_parallel == 1
    assert r.memory.activations_gb == pytest.approx(33 * 4096 * 4224 * 34 / 1e9)
    assert r.servers_required == 1 and r.gpus_required == 8
    assert r.memory.model_states_gb == pytest.approx(112 / 8)
    # time on 8 GPUs: 4.2e22 / (8 × 989e12 × 0.45 × 0.9) / 3600 = 3,640.9 h, plus the
    # ZeRO-3 exchange over NVLink: 3 × 7/8 × 7e9 × 2 B ÷ 450 GB/s = 81.67 ms per 4 M-token
    # step, 250,000 steps ÷ goodput 0.9 = 6.30 h
    exchange = 1e12 / 4e6 * (3 * 7 / 8 * 7e9 * 2 / 450e9) / 0.9 / 3600
    assert r.gradient_exchange_hours == pytest.approx(exchange)
    assert r.training_hours == pytest.approx(4.2e22 / (8 * 989e12 * 0.405) / 3600 + exchange)
    assert r.training_hours == pytest.approx(3647.2, abs=0.1)
    assert r.training_hours is not None
    assert r.training_days == pytest.approx(r.training_hours / 24)
    assert r.gpu_hours == pytest.approx(8 * r.training_hours)
    assert r.usable_memory_gb == pytest.approx(72.0)


def test_deadline_drives_server_count(server: ServerSpec) -> None:
    r = size_workload(pretrain(deadline_days=30.0), server)
    # 5 servers: 682.66 × 48/40 / (1/(1 + 0.02 log2 5)) = 829 h > 720; 6 servers: 718 h
    assert r.servers_required == 6
    assert r.training_hours is not None and r.training_hours <= 720.0
    eff5 = scaling_efficiency(5, Interconnect.INFINIBAND)
    assert training_hours(4.2e22, 40, 989.0, 0.45, eff5, 0.9) > 720.0


def test_deadline_search_matches_linear_scan() -> None:
    w = pretrain(interconnect=Interconnect.ETHERNET)
    for deadline in (50.0, 400.0, 3000.0, 20_000.0):
        found = servers_for_deadline(4.2e22, deadline, 8, 989.0, w)
        linear = next(
            s
            for s in range(1, 10_001)
            if training_hours(
                4.2e22, 8 * s, 989.0, w.mfu, scaling_efficiency(s, Interconnect.ETHERNET), 0.9
            )
            <= deadline
        )
        assert found == linear


def test_impossible_deadline(server: ServerSpec) -> None:
    with pytest.raises(DeadlineInfeasible, match="deadline"):
        size_workload(pretrain(params_billion=70.0, tokens_billion=1e6, deadline_days=1.0), server)


def test_small_model_uses_ddp(server: ServerSpec) -> None:
    # 1 B × 16 B = 16 GB fits next to activations → plain DDP
    r = size_workload(pretrain(params_billion=1.0, tokens_billion=20.0), server)
    assert r.sharding is Sharding.DDP
    assert r.gpus_to_fit == 1
    assert r.memory.model_states_gb == pytest.approx(16.0)
    assert "DDP" in r.parallelism.strategy and r.parallelism.reason


def test_ddp_forced_on_too_large_model_does_not_fit(server: ServerSpec) -> None:
    # t=1, p=1: 112 GB of states alone exceed 72 GB usable; with pipeline 2 each stage
    # keeps 56 GB + 17 layers × 2 micro-batches × 4096·4224·34 B = 20.0 GB + 3 > 72;
    # pipeline 4: 28 + 9 × 4 × 0.588 = 21.2 + 3 = 52.2 GB fits → 4 GPUs
    r1 = size_workload(pretrain(sharding=Sharding.DDP, tensor_parallel=1), server)
    assert r1.gpus_to_fit == 4 and r1.parallelism.pipeline_parallel >= 1
    with pytest.raises(DoesNotFit) as err:
        size_workload(
            pretrain(sharding=Sharding.DDP, tensor_parallel=1, pipeline_parallel=1), server
        )
    assert err.value.code == "does_not_fit"
    levers = err.value.params["levers"]
    assert isinstance(levers, list)
    assert "tensor_parallel" in levers and "sharding" in levers
    assert "pipeline_parallel" in levers
    # tensor parallel 2 with sequence parallelism: 56 GB + 4096·4224·17·33 = 9.7 GB + 3 ≤ 72
    r = size_workload(pretrain(sharding=Sharding.DDP, pipeline_parallel=1), server)
    assert r.gpus_to_fit == 2
    assert r.memory.model_states_gb == pytest.approx(112 / r.parallelism.tensor_parallel)


def test_activations_too_large_names_the_open_levers(server: ServerSpec) -> None:
    # 7 B, micro-batch 2048: even t=8, cp=16 with sequence parallelism leaves
    # 2048 × (4096/16) × 4224 × 34/8 × 33 = 310 GB of activations per GPU
    with pytest.raises(DoesNotFit, match="micro-batch") as err:
        size_workload(pretrain(micro_batch_size=2048), server)
    levers = err.value.params["levers"]
    assert isinstance(levers, list)
    assert levers[:2] == ["micro_batch_size", "recompute"]
    # tensor parallelism is already searched up to 8: it is not offered as a lever
    assert "tensor_parallel" not in levers and "raise tensor" not in str(err.value)


def test_servers_override(server: ServerSpec) -> None:
    r = size_workload(pretrain(), server, servers=4)
    assert r.servers_required == 4 and r.gpus_required == 32
    big = pretrain(params_billion=70.0)
    with pytest.raises(DoesNotFit):
        size_workload(big, server, servers=1)


def test_large_model_recommends_3d_parallelism(server: ServerSpec) -> None:
    r = size_workload(pretrain(params_billion=175.0, tokens_billion=300.0), server)
    assert r.servers_required >= 2
    assert r.parallelism.tensor_parallel == 8
    assert "pipeline" in r.parallelism.strategy


def test_auto_tensor_parallel_picks_fewest_gpus(server: ServerSpec) -> None:
    # 70 B default shape (L=71, h=9088), s=4096, selective recompute, sequence parallel,
    # usable 72 GB, ZeRO-3; activations 4096·9088·34/t·71 = 89.86/t GB:
    # t=1: 89.9 GB > 72 → does not fit
    # t=2: 44.9 GB, free 24.1 → ceil(560 / 24.07) = 24 × 2 = 48 GPUs
    # t=4: 22.5 GB, free 46.5 → ceil(280 / 46.54) = 7 × 4 = 28 GPUs
    # t=8: 11.2 GB, free 57.8 → ceil(140 / 57.77) = 3 × 8 = 24 GPUs  ← fewest
    r = size_workload(pretrain(params_billion=70.0), server)
    assert r.parallelism.tensor_parallel == 8
    assert r.gpus_to_fit == 24
    assert r.memory.activations_gb == pytest.approx(4096 * 9088 * 34 / 8 * 71 / 1e9)
    # t=1 without context parallelism: nothing fits; the levers do not include t
    with pytest.raises(DoesNotFit) as err:
        size_workload(pretrain(params_billion=70.0, tensor_parallel=1, context_parallel=1), server)
    needed_gb, levers = err.value.params["needed_gb"], err.value.params["levers"]
    assert isinstance(needed_gb, float) and needed_gb > 72
    assert isinstance(levers, list) and "tensor_parallel" in levers


def test_tensor_parallel_must_divide_server(server: ServerSpec) -> None:
    with pytest.raises(InvalidInput) as err:
        size_workload(pretrain(tensor_parallel=3), server)
    assert err.value.field == "tensor_parallel"
    r = size_workload(pretrain(tensor_parallel=2), server)
    assert r.parallelism.tensor_parallel == 2


def test_fp4_training_on_h100_is_rejected(server: ServerSpec) -> None:
    with pytest.raises(InvalidInput) as err:
        size_workload(pretrain(precision=Precision.FP4), server)
    assert err.value.field == "precision"


def test_lora_and_qlora_fit_on_one_gpu(server: ServerSpec) -> None:
    # QLoRA 70 B: 47.3 GB states + activations (full recompute) fits one 80 GB GPU
    shape = ModelShape(80, 8192, 64, 8)
    q = Workload(
        WorkloadKind.QLORA,
        70.0,
        tokens_billion=0.1,
        shape=shape,
        recompute=Recompute.FULL,
        lora_adapter_fraction=0.01,
    )
    r = size_workload(q, server)
    assert r.gpus_to_fit == 1 and r.sharding is Sharding.DDP
    # 2 × 4096 × 8192 × 80 = 5.37 GB activations
    assert r.memory.total_gb == pytest.approx(47.31125 + 2 * 4096 * 8192 * 80 / 1e9 + 3.0)
    # LoRA 70 B in bf16 (151 GB) needs ZeRO-3 over several GPUs
    lora = dataclasses.replace(q, kind=WorkloadKind.LORA)
    r2 = size_workload(lora, server)
    assert r2.sharding is Sharding.ZERO3 and r2.gpus_to_fit >= 2


def test_inference_70b_at_bf16_is_split_for_memory(server: ServerSpec) -> None:
    # 70 B at BF16 is 140 GB: no copy fits one or two 72 GB-usable H100s beside 3 GB of
    # framework each; four hold it with (4 × 69 − 140) GB ÷ (8,192 × 327,680 B) = 50
    # sequences of 8,192 tokens. Old model (issue 29): 32 sequences were assumed and the
    # copy's tokens/s grew linearly with them; now the batch is chosen and has limits.
    w = Workload(
        WorkloadKind.INFERENCE,
        70.0,
        shape=ModelShape(80, 8192, 64, 8),
        target_tokens_per_second=10_000.0,
    )
    r = size_workload(w, server)
    assert r.gpus_to_fit == 4
    assert r.serving is not None
    four = [o for o in _options(w, server) if o.copy.tensor_parallel == 4]
    assert four[0].memory_batch == int((4 * 69.0 - 140.0) * 1e9 / (8192 * 327_680))
    assert r.gpus_per_replica in (4, 8) and "Tensor parallel" in r.parallelism.strategy
    assert r.tokens_per_second_capacity is not None and r.tokens_per_second_capacity >= 10_000
    assert r.replicas == r.servers_required * 8 // r.gpus_per_replica
    # Memory per GPU: the weights and the KV cache of the largest batch, split, plus 3 GB.
    batch = r.max_concurrent_sequences
    assert batch is not None
    kv_gb = batch * 8192 * 327_680 / 1e9
    assert r.memory_per_gpu_gb == pytest.approx((140.0 + kv_gb) / r.gpus_per_replica + 3.0)


def _options(w: Workload, server: ServerSpec) -> list[CopyOption]:
    from tco.engine.decode import ServedModel
    from tco.engine.sizing import inference

    model = ServedModel.of(w, w.shape or ModelShape(80, 8192, 64, 8))
    inputs = inference.ServingInputs(w, server, model, inference.requests_of(w), 72.0)
    return inference.copy_options(inputs, inference.latency_targets(w))


def test_inference_huge_model_pipelines_across_servers(server: ServerSpec) -> None:
    w = Workload(WorkloadKind.INFERENCE, 1000.0, precision=Precision.FP8)
    r = size_workload(w, server)
    assert r.gpus_per_replica is not None and r.gpus_per_replica > 8
    assert r.parallelism.pipeline_parallel == r.gpus_per_replica // 8


def test_inference_fp4_on_h100_uses_bf16_peak_with_note(server: ServerSpec) -> None:
    w = Workload(WorkloadKind.INFERENCE, 8.0, precision=Precision.FP4)
    r = size_workload(w, server)
    assert any("no FP4" in n for n in r.notes)


def test_b200_fp4_training_is_allowed() -> None:
    b200 = GpuSpec("B200", 180.0, 7.7, 2250.0, 4500.0, 9000.0, 1000.0, 1800.0)
    srv = ServerSpec("HGX B200", b200, 8, 10, 14.3, 4.0, False, Money(500_000.0))
    r = size_workload(pretrain(precision=Precision.FP4), srv)
    # 4.2e22 / (8 × 9000e12 × 0.45 × 0.9) / 3600 = 400.1 h; 180 GB holds the 112 GB of
    # states whole, so plain data parallelism all-reduces over NVLink (900 GB/s one way):
    # 2 × 7/8 × 14 GB ÷ 900 GB/s = 27.2 ms × 250,000 steps ÷ 0.9 = 2.10 h
    assert r.sharding is Sharding.DDP
    exchange = 1e12 / 4e6 * (2 * 7 / 8 * 7e9 * 2 / 900e9) / 0.9 / 3600
    assert r.training_hours == pytest.approx(4.2e22 / (8 * 9000e12 * 0.405) / 3600 + exchange)


def test_fixed_degrees_are_checked(server: ServerSpec) -> None:
    # default 7 B shape has 33 layers; a 4,096-token sequence
    with pytest.raises(InvalidInput) as err:
        size_workload(pretrain(pipeline_parallel=64), server)
    assert err.value.field == "pipeline_parallel"
    with pytest.raises(InvalidInput) as err:
        size_workload(pretrain(context_parallel=8192), server)
    assert err.value.field == "context_parallel"
    r = size_workload(pretrain(pipeline_parallel=4, context_parallel=2), server)
    assert (r.parallelism.pipeline_parallel, r.parallelism.context_parallel) == (4, 2)


def test_a_batch_smaller_than_the_data_parallel_degree_is_noted(server: ServerSpec) -> None:
    # 7 B on 64 servers = 512 GPUs, ZeRO-3 over 512 (tensor parallel fixed at 1: left to
    # itself the engine takes TP 8, whose 64 copies the batch covers); a 1 M-token batch
    # is 244 sequences
    r = size_workload(pretrain(global_batch_tokens=1e6, tensor_parallel=1), server, servers=64)
    assert r.parallelism.data_parallel == 512
    codes = [n.code for n in r.note_details]
    assert codes == ["batch_below_data_parallel"]
    assert r.note_details[0].params["global_batch_sequences"] == 244
    assert r.notes == (r.note_details[0].text,)
