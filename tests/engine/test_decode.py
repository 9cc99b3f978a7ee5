"""The serving model of issue 29 against hand calculations and its invariants.

Hand figures use the calibrated defaults (tco/engine/defaults.py): bandwidth efficiency
0.75, compute efficiency 0.46 (FP4 × 0.55), routed experts × 0.28, 19 µs per collective.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import defaults
from tco.engine.decode import (
    CopyHardware,
    Requests,
    ServedModel,
    decode_step,
    first_token_seconds,
    largest_batch,
    prefill_seconds,
    serving_point,
)
from tco.engine.errors import DoesNotFit, InvalidInput
from tco.engine.inputs import (
    GpuSpec,
    ModelShape,
    Precision,
    ServerSpec,
    ServingDemand,
    ServingUse,
    Workload,
    WorkloadKind,
)
from tco.engine.moe import expert_split, experts_touched, weights_read_per_step
from tco.engine.sizing import size_inference
from tco.engine.sizing.inference import (
    ServingInputs,
    copy_options,
    latency_targets,
    plan_serving,
    requests_of,
)
from tco.engine.units import Money

H100 = GpuSpec("H100 SXM5", 80.0, 3.35, 989.0, 1979.0, None, 700.0, 900.0)
H200 = GpuSpec("H200 SXM", 141.0, 4.8, 989.0, 1979.0, None, 700.0, 900.0)
L40S = GpuSpec("L40S", 48.0, 0.864, 362.0, 733.0, None, 350.0)
HGX_H100 = ServerSpec("HGX H100", H100, 8, 8, 10.2, 2.5, False, Money(300_000.0))
HGX_H200 = ServerSpec("HGX H200", H200, 8, 8, 10.2, 2.5, False, Money(325_000.0))
LLAMA_70B = ModelShape(80, 8192, 64, 8)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def llama_70b(**changes: Any) -> Workload:
    base = Workload(WorkloadKind.INFERENCE, 70.6, precision=Precision.FP8, shape=LLAMA_70B)
    return dataclasses.replace(base, **changes)


def test_llama_70b_fp8_step_on_one_8_gpu_h100_server_by_hand() -> None:
    # TP 8, 64 sequences of 1,500 tokens, BF16 KV cache (2 × 80 × 8 × 128 × 2 = 327,680 B).
    model = ServedModel.of(llama_70b(), LLAMA_70B)
    step = decode_step(model, CopyHardware.of(H100, Precision.FP8, 8), 64, 1500)
    bandwidth = 8 * 3.35e12 * 0.75  # 20.1 TB/s
    weights = 70.6e9 * 1.0 / bandwidth  # 3.512 ms (compute: 2 × 70.6e9 × 64 / 7.28e15 = 1.24)
    assert weights > 2 * 70.6e9 * 64 / (8 * 1979e12 * 0.46)
    kv = 64 * 1500 * 327_680 / bandwidth  # 1.565 ms
    all_reduce = 19e-6 + 2 * 7 / 8 * (2 * 8192 * 64) / 450e9  # ring: 2(t−1)/t of the message
    assert step.weights_s == pytest.approx(weights)
    assert step.attention_s == pytest.approx(kv)
    assert step.communication_s == pytest.approx(80 * 2 * all_reduce)  # 3.692 ms
    assert step.total_s == pytest.approx(weights + kv + 160 * all_reduce)
    assert step.total_s * 1000 == pytest.approx(8.770, abs=0.001)
    # 64 sequences ÷ 8.77 ms = 7,298 tokens/s from one copy on the whole server, with no
    # prompts to compute (tokens per second given, answers of unknown length).
    point = serving_point(
        model, CopyHardware.of(H100, Precision.FP8, 8), Requests(0, None, 1500, 1500), 64
    )
    assert point.tokens_per_second == pytest.approx(64 / step.total_s)
    assert point.time_per_output_token_s == pytest.approx(step.total_s)


def test_prefill_is_sized_and_interleaved_by_hand() -> None:
    # 1,000-token prompts, 400-token answers on TP 2: a prompt costs 2·N·1,000 + attention
    # 2·80·8,192·1,000² FLOPs over 2 × 1,979e12 × 0.46, plus 160 all-reduces of 32.8 MB.
    model = ServedModel.of(llama_70b(), LLAMA_70B)
    copy = CopyHardware.of(H100, Precision.FP8, 2)
    flops = 2 * 70.6e9 * 1000 + 2 * 80 * 8192 * 1000**2
    comm = 160 * (19e-6 + 1.0 * 2 * 8192 * 1000 / 450e9)
    prefill = flops / (2 * 1979e12 * 0.46) + comm
    assert prefill_seconds(model, copy, 1000) == pytest.approx(prefill)
    point = serving_point(model, copy, Requests(1000, 400, 1400, 1200), 32)
    step = decode_step(model, copy, 32, 1200).total_s
    # Every step 32/400 of a prompt is computed between the steps.
    assert point.prefill_share_s == pytest.approx(32 / 400 * prefill)
    assert point.time_per_output_token_s == pytest.approx(step + 32 / 400 * prefill)
    busy = point.prefill_share_s / point.time_per_output_token_s
    # The first token is sampled from the prefill's last position: no decode step on top.
    assert point.time_to_first_token_s == pytest.approx(prefill + busy / (2 * (1 - busy)) * prefill)


def test_one_user_waits_for_the_prompt_only() -> None:
    # 5,000-token prompts, one user on TP 2 (the NIM setup): the prefill is 437.93 ms
    # (prefill_seconds' doctest), 1/500 of it between two steps of 17.44 ms gives
    # ρ = 0.876 / 18.32 = 4.78 %, a wait of 0.0478 / (2 × 0.9522) × 437.93 = 11.0 ms:
    # TTFT 448.9 ms. NIM publishes 406.8 ms at concurrency 1.
    model = ServedModel.of(llama_70b(), LLAMA_70B)
    copy = CopyHardware.of(H100, Precision.FP8, 2)
    point = serving_point(model, copy, Requests(5000, 500, 5500, 5250), 1)
    assert point.time_to_first_token_s * 1000 == pytest.approx(448.9, abs=0.05)
    assert point.time_to_first_token_s < point.prefill_s + point.step.total_s


def test_a_short_prompt_still_reads_the_weights_once() -> None:
    # 100 tokens of Llama 3.3 70B at FP8 on TP 2: computing them takes 2 × 70.6e9 × 100 +
    # 2 × 80 × 8,192 × 100² = 1.413e13 FLOPs ÷ (2 × 1,979e12 × 0.46) = 7.76 ms, less than
    # reading the 70.6 GB of weights at 2 × 3.35 TB/s × 0.75: 14.05 ms. The pass that
    # yields the first token takes the read plus 160 all-reduces of 2 × 8,192 × 100 bytes.
    model = ServedModel.of(llama_70b(), LLAMA_70B)
    copy = CopyHardware.of(H100, Precision.FP8, 2)
    comm = 160 * (19e-6 + 1.0 * 2 * 8192 * 100 / 450e9)
    assert first_token_seconds(model, copy, 100) == pytest.approx(70.6e9 / 5.025e12 + comm)
    # An unknown prompt (load given in tokens/s) counts as one token: still the read.
    assert first_token_seconds(model, copy, 0) > 70.6e9 / 5.025e12
    point = serving_point(model, copy, Requests(0.0, None, 8192, 8192.0), 4)
    assert point.time_to_first_token_s == pytest.approx(first_token_seconds(model, copy, 0))


def test_an_fp4_copy_computes_its_attention_at_fp8() -> None:
    # Llama 3.3 70B at FP4 on one B200, a 5,000-token prompt: the weights' products
    # 2 × 70.6e9 × 5,000 = 7.06e14 FLOPs at 9,000e12 × 0.46 × 0.60 = 2.484e15 FLOP/s:
    # 284.2 ms; the attention 2 × 80 × 8,192 × 5,000² = 3.277e13 FLOPs at the FP8 peak,
    # 4,500e12 × 0.46 = 2.07e15 FLOP/s: 15.8 ms; no collectives on one GPU: 300.0 ms.
    b200 = GpuSpec("B200", 180.0, 7.7, 2250.0, 4500.0, 9000.0, 1000.0, 1800.0)
    w = llama_70b(precision=Precision.FP4)
    model = ServedModel.of(w, LLAMA_70B)
    copy = CopyHardware.of(b200, Precision.FP4, 1)
    linear = 2 * 70.6e9 * 5000 / (9000e12 * 0.46 * 0.60)
    attention = 2 * 80 * 8192 * 5000**2 / (4500e12 * 0.46)
    assert prefill_seconds(model, copy, 5000) == pytest.approx(linear + attention)
    assert prefill_seconds(model, copy, 5000) * 1000 == pytest.approx(300.0, abs=0.05)


def test_long_prompts_take_a_large_share_of_the_copy() -> None:
    # The issue: with 5,000-token prompts prefill takes about a third of the GPUs' time.
    model = ServedModel.of(llama_70b(), LLAMA_70B)
    copy = CopyHardware.of(H100, Precision.FP8, 2)
    point = serving_point(model, copy, Requests(5000, 500, 5500, 5250), 25)
    share = point.prefill_share_s / point.time_per_output_token_s
    assert 0.3 < share < 0.6


def test_a_moe_batch_reads_most_experts() -> None:
    # DeepSeek-V3-like: 671 B, 37 B active, 256 experts of which 8 per token.
    split = expert_split(671e9, 37e9, 256, 8)
    assert split.shared_params + 8 * split.params_per_expert == pytest.approx(37e9)
    assert split.shared_params + 256 * split.params_per_expert == pytest.approx(671e9)
    assert weights_read_per_step(split, 671e9, 1) == pytest.approx(37e9)
    # 64 tokens: 256 × (1 − (248/256)^64) = 222.8 experts, 86 % of them.
    assert experts_touched(256, 8, 64) == pytest.approx(256 * (1 - (248 / 256) ** 64))
    assert weights_read_per_step(split, 671e9, 1024) == pytest.approx(671e9, rel=1e-6)


def test_moe_decode_pays_for_the_experts_it_touches() -> None:
    shape = ModelShape(61, 7168, 128, 1, 288)
    w = Workload(
        WorkloadKind.INFERENCE,
        671.0,
        active_params_billion=37.0,
        experts=256,
        experts_per_token=8,
        precision=Precision.FP8,
        shape=shape,
    )
    model = ServedModel.of(w, shape)
    copy = CopyHardware.of(H200, Precision.FP8, 8)
    one = decode_step(model, copy, 1, 2048)
    many = decode_step(model, copy, 1024, 2048)
    bandwidth = 8 * 4.8e12 * 0.75
    split = model.split
    assert split is not None
    # One token reads 8 experts; 1,024 read all 256, at the experts' efficiency.
    assert one.experts_s == pytest.approx(8 * split.params_per_expert / bandwidth / 0.28)
    assert many.experts_s >= 256 * split.params_per_expert / bandwidth / 0.28 * (1 - 1e-6)
    # The old engine read only the active weights: 37 GB per step whatever the batch.
    assert many.weights_s + many.experts_s > 10 * 37e9 / bandwidth


@pytest.mark.parametrize(("experts", "per_token"), [(8, 8), (4, 2)])
def test_an_impossible_expert_split_is_refused(experts: int, per_token: int) -> None:
    # 8 of 8: no routing; 4 experts of which 2 per token cannot hold 400 B with 17 B active.
    with pytest.raises(InvalidInput) as exc:
        Workload(
            WorkloadKind.INFERENCE,
            400.0,
            active_params_billion=17.0,
            experts=experts,
            experts_per_token=per_token,
        )
    assert exc.value.field in ("experts", "experts_per_token")
    with pytest.raises(InvalidInput) as dense:
        Workload(WorkloadKind.INFERENCE, 70.0, experts=8)
    assert dense.value.field == "experts"


def test_the_largest_batch_fills_the_memory_left_by_the_weights() -> None:
    model = ServedModel.of(llama_70b(), LLAMA_70B)
    # 2 × (72 − 3) GB − 70.6 GB = 67.4 GB for 2,000-token sequences of 655 MB.
    assert largest_batch(model, 2, 72.0, 2000, 0.0, 3.0) == int(67.4e9 / (2000 * 327_680))
    assert largest_batch(model, 1, 72.0, 2000, 0.0, 3.0) == 0  # 70.6 GB leave no room


def test_context_is_derived_from_the_requests_and_targets_from_the_use() -> None:
    demand = ServingDemand(100, 10, 400, input_tokens_per_request=800)
    assert requests_of(llama_70b(serving_demand=demand)).context_tokens == 1200
    assert requests_of(llama_70b(serving_demand=demand, context_tokens=4096)).context_tokens == (
        4096
    )
    assert requests_of(llama_70b(target_tokens_per_second=1.0)).context_tokens == 8192
    interactive = latency_targets(llama_70b(target_tokens_per_second=1.0))
    assert interactive.time_per_output_token_ms == defaults.INTERACTIVE_TPOT_MS
    assert interactive.time_to_first_token_ms == defaults.INTERACTIVE_TTFT_MS
    batch = latency_targets(llama_70b(target_tokens_per_second=1.0, serving_use=ServingUse.BATCH))
    assert batch.time_per_output_token_ms is None and batch.time_to_first_token_ms is None
    given = dataclasses.replace(demand, latency_ms_per_token=25.0, time_to_first_token_ms=900.0)
    targets = latency_targets(llama_70b(serving_demand=given))
    assert (targets.time_per_output_token_ms, targets.time_to_first_token_ms) == (25.0, 900.0)


def test_a_given_batch_and_tensor_parallel_degree_are_kept() -> None:
    w = llama_70b(target_tokens_per_second=3000.0, concurrent_sequences=16, tensor_parallel=8)
    r = size_inference(w, HGX_H100)
    assert r.gpus_per_replica == 8 and r.parallelism.tensor_parallel == 8
    assert r.concurrent_sequences == 16 and r.max_concurrent_sequences == 16
    with pytest.raises(InvalidInput) as exc:
        size_inference(llama_70b(target_tokens_per_second=1.0, tensor_parallel=3), HGX_H100)
    assert exc.value.field == "tensor_parallel"


def test_a_batch_that_needs_more_servers_than_given_is_refused() -> None:
    # 5,000 sequences of 8,192 tokens hold 13.4 TB of KV cache: a pipeline over many
    # servers could take them, one server cannot.
    w = llama_70b(target_tokens_per_second=1.0, concurrent_sequences=5000, context_tokens=8192)
    assert size_inference(w, HGX_H100).gpus_per_replica or 0 > 8
    with pytest.raises(DoesNotFit) as exc:
        size_inference(w, HGX_H100, servers=1)
    assert exc.value.code == "too_few_servers"


def test_the_latency_warning_fires_for_a_batch_too_large() -> None:
    # 256 sequences with 1,000-token prompts cannot stream each token within 20 ms.
    demand = ServingDemand(10, 10, 400, input_tokens_per_request=1000, latency_ms_per_token=20.0)
    w = llama_70b(serving_demand=demand, target_tokens_per_second=3000.0, concurrent_sequences=256)
    r = size_inference(w, HGX_H100)
    missed = [n for n in r.warnings if n.code == "latency_target_missed"]
    assert missed and missed[0].params["metric"] == "time_per_output_token"
    assert missed[0].params["achieved_ms"] > 20.0 and "best_ms" not in missed[0].params


def test_an_unreachable_target_is_dropped_with_the_best_the_server_reaches() -> None:
    # 70 B on PCIe L40S cannot stream a token in 10 ms even alone.
    server = ServerSpec("8 × L40S", L40S, 8, 5, 5.0, 1.2, False, Money(90_000.0))
    demand = ServingDemand(200, 20, 400, input_tokens_per_request=1000, latency_ms_per_token=10.0)
    r = size_inference(llama_70b(serving_demand=demand, target_tokens_per_second=500.0), server)
    (missed,) = [n for n in r.warnings if n.code == "latency_target_missed"]
    assert missed.params["best_ms"] > 10.0
    assert missed.params["achieved_ms"] >= missed.params["best_ms"]


@FAST
@given(
    tp=st.sampled_from([1, 2, 4, 8]),
    prompt=st.integers(0, 20_000),
    answer=st.integers(1, 4000),
    moe=st.booleans(),
)
def test_throughput_rises_and_so_does_the_time_per_token(
    tp: int, prompt: int, answer: int, moe: bool
) -> None:
    """Up to the memory limit, more sequences never lower a copy's tokens/s, and each
    sequence waits longer for its next token (and its first)."""
    shape = ModelShape(48, 5120, 40, 8, 128)
    w = Workload(
        WorkloadKind.INFERENCE,
        100.0 if moe else 30.0,
        active_params_billion=17.0 if moe else None,
        experts=64 if moe else None,
        experts_per_token=2 if moe else None,
        precision=Precision.FP8,
        shape=shape,
    )
    model = ServedModel.of(w, shape)
    copy = CopyHardware.of(H200, Precision.FP8, tp)
    requests = Requests(prompt, answer, prompt + answer, prompt + answer / 2)
    limit = largest_batch(model, tp, 126.9, prompt + answer, 0.0, 3.0)
    batches = sorted({b for b in (1, 2, 3, 8, 17, 64, 255, 1024, limit) if 1 <= b <= limit})
    points = [serving_point(model, copy, requests, b) for b in batches]
    for a, b in itertools.pairwise(points):
        assert b.tokens_per_second >= a.tokens_per_second * (1 - 1e-12)
        assert b.time_per_output_token_s > a.time_per_output_token_s
        assert b.time_to_first_token_s >= a.time_to_first_token_s * (1 - 1e-12)


@FAST
@given(
    target=st.floats(100.0, 200_000.0),
    tpot=st.floats(5.0, 200.0),
    ttft=st.floats(100.0, 5000.0),
    prompt=st.integers(0, 8000),
    answer=st.integers(16, 2000),
)
def test_fewer_servers_are_never_bought_by_missing_the_latency_target(
    target: float, tpot: float, ttft: float, prompt: int, answer: int
) -> None:
    """The chosen layout meets the targets whenever any layout can; no layout that meets
    them needs fewer servers; and the fleet carries the target."""
    demand = ServingDemand(
        1,
        1.0,
        answer,
        input_tokens_per_request=prompt,
        latency_ms_per_token=tpot,
        time_to_first_token_ms=ttft,
    )
    w = llama_70b(serving_demand=demand, target_tokens_per_second=target)
    plan = plan_serving(w, HGX_H200, LLAMA_70B, 126.9)
    model, requests, targets = plan.model, plan.requests, plan.targets
    options = copy_options(ServingInputs(w, HGX_H200, model, requests, 126.9), targets)
    meeting = [o for o in options if o.meets_targets]
    if meeting:
        assert targets.met_by(plan.peak)
        for o in meeting:
            copies = -(-target // o.capacity.tokens_per_second)
            gpus = copies * o.copy.gpus
            assert plan.servers <= max(1, -(-gpus // 8)) or o.copy.gpus > 8
    assert plan.capacity_tokens_per_second >= target * (1 - 1e-9)


def test_a_server_of_ten_gpus_stacks_stages_of_its_largest_tensor_parallel_degree() -> None:
    # TP must divide the server's GPUs and stay a power of two: 1 or 2 of 10. 70.6 GB of
    # FP8 weights and one 300,000-token KV cache (98 GB) do not fit two 72 GB GPUs, so
    # stages of TP 2 are stacked.
    ten = ServerSpec("10 × H100 PCIe", H100, 10, 8, 7.0, 2.0, False, Money(250_000.0))
    r = size_inference(llama_70b(target_tokens_per_second=500.0, context_tokens=300_000), ten)
    assert r.parallelism.tensor_parallel == 2 and r.parallelism.pipeline_parallel >= 2
