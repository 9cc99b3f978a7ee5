"""Serving one model copy from first principles: decode steps, prefill, latency.

A copy of the model runs on t GPUs (tensor parallel inside a server) in p pipeline
stages. Every decode step produces one token for each of the S sequences it holds: it
reads the weights (for a mixture of experts only the experts the batch routes to) and the
KV cache of every sequence from memory, does 2 FLOPs per active parameter per token, and
exchanges activations between the GPUs of a stage. Each part is a roofline, the larger of
its bytes ÷ bandwidth and its FLOPs ÷ compute, at the calibrated efficiencies of
defaults.py (docs/calibration.md). New requests' prompts (prefill) are computed between
the steps, so the time per output token is the step plus the prefill share, and both
rise with the batch (docs/methodology.md, "Serving a model copy").
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.engine import defaults
from tco.engine.inputs import GpuSpec, ModelShape, Precision, Workload
from tco.engine.memory import inference_weights_gb, kv_bytes_per_token
from tco.engine.moe import (
    ExpertSplit,
    all_to_all_bytes_per_token,
    weights_read_per_step,
    workload_split,
)
from tco.engine.units import BYTES_PER_GB

ACTIVATION_BYTES = 2.0  # BF16 activations between the GPUs of a copy


@dataclass(frozen=True, slots=True)
class ServedModel:
    """What a decode step and a prefill read and compute."""

    params: float
    active_params: float
    bytes_per_param: float
    kv_bytes_per_token: float  # 2 × layers × kv_heads × head size × bytes per value
    layers: int
    hidden_size: int
    attention_width: float  # heads × head size
    split: ExpertSplit | None = None

    @classmethod
    def of(cls, workload: Workload, shape: ModelShape) -> ServedModel:
        """The workload's model at its serving precision and KV-cache format.

        >>> from tco.engine.inputs import WorkloadKind
        >>> w = Workload(WorkloadKind.INFERENCE, 70.0, precision=Precision.FP8)
        >>> m = ServedModel.of(w, ModelShape(80, 8192, 64, 8))
        >>> m.kv_bytes_per_token  # 2 × 80 × 8 × 128 × 2 bytes
        327680.0
        """
        return cls(
            params=workload.params,
            active_params=workload.active_params,
            bytes_per_param=workload.precision.bytes_per_param,
            kv_bytes_per_token=kv_bytes_per_token(shape, workload.kv_cache_bytes),
            layers=shape.layers,
            hidden_size=shape.hidden_size,
            attention_width=shape.attention_width,
            split=workload_split(workload),
        )

    @property
    def weights_gb(self) -> float:
        return inference_weights_gb(self.params, self.bytes_per_param)


@dataclass(frozen=True, slots=True)
class CopyHardware:
    """The GPUs of one model copy and the efficiencies they run at."""

    tensor_parallel: int
    pipeline_parallel: int
    memory_bandwidth_tbps: float  # per GPU
    peak_tflops: float  # per GPU, dense, at the serving precision
    attention_peak_tflops: float  # per GPU, dense: attention runs at FP8 when serving FP4
    link_gb_per_s: float  # one way between two GPUs of a stage (NVLink or PCIe)
    network_gb_per_s: float  # between stages (servers), per GPU
    bandwidth_efficiency: float
    compute_efficiency: float
    attention_efficiency: float
    expert_efficiency: float
    collective_latency_s: float

    @classmethod
    def of(
        cls,
        gpu: GpuSpec,
        precision: Precision,
        tensor_parallel: int,
        pipeline_parallel: int = 1,
        serving_efficiency: float = 1.0,
    ) -> CopyHardware:
        """A copy on ``gpu``; a GPU without the serving format computes in BF16
        (weight-only quantization), FP4 at its lower calibrated efficiency. Only the
        weights' matrix multiplies run in FP4: the attention over the FP8 KV cache runs
        at the FP8 peak and the plain compute efficiency (TensorRT-LLM's FP4 checkpoints).

        >>> from tco.engine.examples import H100_SXM
        >>> c = CopyHardware.of(H100_SXM, Precision.FP4, 8)
        >>> c.peak_tflops, c.attention_peak_tflops, c.link_gb_per_s, c.gpus
        (989.0, 989.0, 450.0, 8)
        >>> b200 = GpuSpec("B200", 180.0, 7.7, 2250.0, 4500.0, 9000.0, 1000.0, 1800.0)
        >>> c = CopyHardware.of(b200, Precision.FP4, 8)
        >>> c.peak_tflops, c.attention_peak_tflops
        (9000.0, 4500.0)
        """
        peak = gpu.peak_tflops(precision) or gpu.bf16_tflops
        compute = defaults.SERVING_COMPUTE_EFFICIENCY
        attention_peak = peak
        if precision is Precision.FP4 and gpu.fp4_tflops is not None:
            compute *= defaults.FP4_COMPUTE_FACTOR
            attention_peak = gpu.fp8_tflops or gpu.bf16_tflops
        return cls(
            tensor_parallel=tensor_parallel,
            pipeline_parallel=pipeline_parallel,
            memory_bandwidth_tbps=gpu.memory_bandwidth_tbps,
            peak_tflops=peak,
            attention_peak_tflops=attention_peak,
            link_gb_per_s=gpu.link_gb_per_s,
            network_gb_per_s=defaults.NETWORK_GBPS_PER_GPU,
            bandwidth_efficiency=defaults.SERVING_BANDWIDTH_EFFICIENCY * serving_efficiency,
            compute_efficiency=compute * serving_efficiency,
            attention_efficiency=defaults.SERVING_COMPUTE_EFFICIENCY * serving_efficiency,
            expert_efficiency=defaults.MOE_EXPERT_EFFICIENCY,
            collective_latency_s=defaults.COLLECTIVE_LATENCY_US * 1e-6,
        )

    @property
    def gpus(self) -> int:
        return self.tensor_parallel * self.pipeline_parallel

    @property
    def stage_bytes_per_s(self) -> float:
        """Memory bandwidth of one stage's GPUs at the bandwidth efficiency."""
        return self.tensor_parallel * self.memory_bandwidth_tbps * 1e12 * self.bandwidth_efficiency

    @property
    def flops_per_s(self) -> float:
        """Compute of all the copy's GPUs at the compute efficiency."""
        return self.gpus * self.peak_tflops * 1e12 * self.compute_efficiency

    @property
    def attention_flops_per_s(self) -> float:
        """Attention compute of all the copy's GPUs (FP8 for an FP4 copy)."""
        return self.gpus * self.attention_peak_tflops * 1e12 * self.attention_efficiency


@dataclass(frozen=True, slots=True)
class DecodeStep:
    """One decode step of a copy (one token for each of its sequences), in seconds."""

    weights_s: float  # dense and shared weights: read or computed, whichever is slower
    experts_s: float  # the routed experts the batch touches (mixture of experts)
    attention_s: float  # the KV cache of every sequence
    communication_s: float  # tensor-parallel collectives and pipeline hand-overs

    @property
    def total_s(self) -> float:
        return self.weights_s + self.experts_s + self.attention_s + self.communication_s


def _collectives_per_layer(
    model: ServedModel, copy: CopyHardware, tokens: float, dispatch_bytes: float
) -> float:
    """Seconds of one layer's exchanges between the t GPUs of a stage, for ``tokens``.

    A dense layer all-reduces its activations twice (after attention and after the MLP);
    ring all-reduce moves 2(t − 1)/t of the message over each link. A mixture-of-experts
    layer all-reduces once and sends each token to its experts and back (all-to-all):
    each GPU holds 1/t of the tokens and sends (t − 1)/t of their expert copies away.
    """
    t = copy.tensor_parallel
    if t == 1:
        return 0.0
    link = copy.link_gb_per_s * 1e9
    latency = copy.collective_latency_s
    message = ACTIVATION_BYTES * model.hidden_size * tokens
    all_reduce = latency + 2.0 * (t - 1) / t * message / link
    if model.split is None:
        return 2.0 * all_reduce
    exchanged = (
        all_to_all_bytes_per_token(model.split.experts_per_token, model.hidden_size, dispatch_bytes)
        * tokens
        / t
        * (t - 1)
        / t
    )
    return all_reduce + 2.0 * latency + exchanged / link


def decode_step(
    model: ServedModel, copy: CopyHardware, batch: int, context_tokens: float
) -> DecodeStep:
    """Seconds of one decode step for ``batch`` sequences holding ``context_tokens`` each.

    With p pipeline stages the batch runs as p micro-batches of S/p: every stage reads
    its share of the weights once per micro-batch, so a round (one token for every
    sequence) reads the weights of S/p tokens' experts and the whole KV cache over one
    stage's t GPUs, computes on all t·p, and hands p micro-batches to the next stage.

    Llama 3.3 70B at FP8 on 8 × H100 (TP 8), 64 sequences of 1,500 tokens (BF16 cache):
    weights 70.6 GB ÷ (8 × 3.35 TB/s × 0.75) = 3.512 ms (compute 2 × 70.6e9 × 64 ÷
    (8 × 1,979e12 × 0.46) = 1.241 ms is less); KV cache 64 × 1,500 × 327,680 B = 31.5 GB
    ÷ 20.1 TB/s = 1.565 ms; 80 layers × 2 all-reduces × (19 µs + 7/4 × 2 × 8,192 × 64 B
    ÷ 450 GB/s) = 3.692 ms. The step takes 8.770 ms.

    >>> from tco.engine.examples import H100_SXM, LLAMA_70B_FP8
    >>> m = ServedModel.of(LLAMA_70B_FP8, LLAMA_70B_FP8.shape)
    >>> s = decode_step(m, CopyHardware.of(H100_SXM, Precision.FP8, 8), 64, 1500)
    >>> [round(x * 1000, 3) for x in (s.weights_s, s.attention_s, s.communication_s)]
    [3.512, 1.565, 3.692]
    >>> round(s.total_s * 1000, 3)
    8.77
    """
    p = copy.pipeline_parallel
    micro = batch / p
    read_bw = copy.stage_bytes_per_s
    flops = copy.flops_per_s
    b = model.bytes_per_param
    split = model.split
    shared = model.params if split is None else split.shared_params
    weights = max(shared * b / read_bw, 2.0 * shared * batch / flops)
    experts = 0.0
    if split is not None:
        routed = weights_read_per_step(split, model.params, micro) - split.shared_params
        active = split.experts_per_token * split.params_per_expert
        experts = max(routed * b / read_bw, 2.0 * active * batch / flops) / copy.expert_efficiency
    kv_bytes = model.kv_bytes_per_token * context_tokens * batch / p
    attention_flops = 4.0 * model.layers * model.attention_width * context_tokens * batch
    attention = max(kv_bytes / read_bw, attention_flops / copy.attention_flops_per_s)
    comm = model.layers * _collectives_per_layer(model, copy, micro, b)
    if p > 1:
        handover = ACTIVATION_BYTES * model.hidden_size * micro / copy.tensor_parallel
        comm += p * (copy.collective_latency_s + handover / (copy.network_gb_per_s * 1e9))
    return DecodeStep(weights, experts, attention, comm)


def prefill_seconds(model: ServedModel, copy: CopyHardware, prompt_tokens: float) -> float:
    """Seconds of computing one prompt of ``prompt_tokens`` on the copy.

    FLOPs 2 · N_active · tokens for the weights (routed experts at their efficiency) plus
    2 · layers · attention width · tokens² for causal attention, on all the copy's GPUs,
    plus the layers' collectives on the prompt's activations. 5,000 tokens of Llama 3.3
    70B at FP8 on 2 × H100: (7.06e14 + 2 × 80 × 8,192 × 5,000² = 3.28e13) ÷ (2 × 1,979e12
    × 0.46) = 405.8 ms, and 160 all-reduces of 81.9 MB at 450 GB/s, 19 µs each on top:
    32.2 ms; 437.9 ms.

    >>> from tco.engine.examples import H100_SXM, LLAMA_70B_FP8
    >>> m = ServedModel.of(LLAMA_70B_FP8, LLAMA_70B_FP8.shape)
    >>> round(prefill_seconds(m, CopyHardware.of(H100_SXM, Precision.FP8, 2), 5000) * 1000, 1)
    437.9
    """
    if prompt_tokens <= 0:
        return 0.0
    return _prompt_compute_seconds(model, copy, prompt_tokens) + _prompt_comm_seconds(
        model, copy, prompt_tokens
    )


def _prompt_compute_seconds(model: ServedModel, copy: CopyHardware, prompt_tokens: float) -> float:
    split = model.split
    if split is None:
        linear = 2.0 * model.active_params * prompt_tokens
    else:
        routed = 2.0 * split.experts_per_token * split.params_per_expert * prompt_tokens
        linear = 2.0 * split.shared_params * prompt_tokens + routed / copy.expert_efficiency
    attention = 2.0 * model.layers * model.attention_width * prompt_tokens**2
    return linear / copy.flops_per_s + attention / copy.attention_flops_per_s


def _prompt_comm_seconds(model: ServedModel, copy: CopyHardware, prompt_tokens: float) -> float:
    return model.layers * _collectives_per_layer(model, copy, prompt_tokens, model.bytes_per_param)


def first_token_seconds(model: ServedModel, copy: CopyHardware, prompt_tokens: float) -> float:
    """Seconds of the forward pass that yields a request's first token.

    The first token is sampled from the logits of the prompt's last position, so it comes
    out of the prefill pass itself. That pass computes the prompt and reads the weights
    its tokens touch at least once: the slower of the two, plus the layers' collectives.
    A prompt has at least one token (an unknown prompt counts as one). Long prompts are
    compute-bound (the 5,000-token prompt above: 437.9 ms); one token of Llama 3.3 70B
    at FP8 on 2 × H100 reads 70.6 GB at 5.025 TB/s: 14.05 ms, and 160 all-reduces of
    16 KB take 160 × (19 µs + 16,384 B ÷ 450 GB/s) = 3.05 ms: 17.10 ms.

    >>> from tco.engine.examples import H100_SXM, LLAMA_70B_FP8
    >>> m = ServedModel.of(LLAMA_70B_FP8, LLAMA_70B_FP8.shape)
    >>> copy = CopyHardware.of(H100_SXM, Precision.FP8, 2)
    >>> [round(first_token_seconds(m, copy, n) * 1000, 2) for n in (5000, 0)]
    [437.93, 17.1]
    """
    tokens = max(prompt_tokens, 1.0)
    read = (
        weights_read_per_step(model.split, model.params, tokens)
        * model.bytes_per_param
        / copy.stage_bytes_per_s
    )
    compute = _prompt_compute_seconds(model, copy, tokens)
    return max(compute, read) + _prompt_comm_seconds(model, copy, tokens)


@dataclass(frozen=True, slots=True)
class Requests:
    """The requests a copy serves: prompt and answer lengths, and the context to hold.

    ``output_tokens`` None: unknown (the load was given in tokens per second), so no
    prefill is interleaved; ``context_tokens`` is what each sequence holds at most (the
    memory), ``average_context_tokens`` what a step reads on average.
    """

    input_tokens: float
    output_tokens: float | None
    context_tokens: int
    average_context_tokens: float


@dataclass(frozen=True, slots=True)
class ServingPoint:
    """A copy at one batch: what each sequence sees and what the copy delivers."""

    batch: int
    step: DecodeStep
    prefill_s: float  # one request's prompt
    prefill_share_s: float  # prompts computed between two steps, on average
    time_per_output_token_s: float
    time_to_first_token_s: float
    tokens_per_second: float


def serving_point(
    model: ServedModel, copy: CopyHardware, requests: Requests, batch: int
) -> ServingPoint:
    """Time per output token, time to first token and tokens/s of a copy at ``batch``.

    Every step, S ÷ output tokens sequences finish on average and as many new prompts are
    computed: TPOT = step + S ÷ O × prefill; the copy delivers S ÷ TPOT tokens/s. A new
    request waits for the prompts ahead of it: the copy spends ρ = prefill share ÷ TPOT of
    its time on prompts, and with requests arriving at random the mean wait is
    ρ ÷ (2(1 − ρ)) × prefill (M/D/1); TTFT = wait + the prompt's pass
    (:func:`first_token_seconds`): the first token is sampled from the logits of the
    prompt's last position, so it leaves with the prefill pass and no decode step follows
    before it.

    Llama 3.3 70B at FP8 on 2 × H100 with 5,000-token prompts and 500-token answers (BF16
    cache, 5,250 tokens read on average). One user: weights 70.6 GB ÷ 5.025 TB/s =
    14.05 ms, cache 0.34 ms, 160 all-reduces 3.05 ms, a step of 17.44 ms, and 1/500 of the
    437.9 ms prompt: TPOT 18.3 ms; ρ = 0.876/18.3 = 4.8 %, a wait of 11.0 ms: TTFT
    437.93 + 11.00 = 448.9 ms. 25 users: the cache read grows to 8.56 ms (step 25.79 ms) and
    25/500 of a prompt is 21.90 ms: TPOT 47.7 ms, ρ = 45.9 %, a wait of 185.9 ms: TTFT
    437.93 + 185.88 = 623.8 ms, and 25 ÷ 47.7 ms = 524 tokens/s.

    >>> from tco.engine.examples import H100_SXM, LLAMA_70B_FP8
    >>> m = ServedModel.of(LLAMA_70B_FP8, LLAMA_70B_FP8.shape)
    >>> copy, req = CopyHardware.of(H100_SXM, Precision.FP8, 2), Requests(5000, 500, 5500, 5250)
    >>> one, many = serving_point(m, copy, req, 1), serving_point(m, copy, req, 25)
    >>> [round(p.time_per_output_token_s * 1000, 1) for p in (one, many)]
    [18.3, 47.7]
    >>> [round(p.time_to_first_token_s * 1000, 1) for p in (one, many)]
    [448.9, 623.8]
    >>> round(many.tokens_per_second)
    524
    """
    step = decode_step(model, copy, batch, requests.average_context_tokens)
    prefill = prefill_seconds(model, copy, requests.input_tokens)
    share = batch / requests.output_tokens * prefill if requests.output_tokens else 0.0
    tpot = step.total_s + share
    busy = share / tpot
    wait = busy / (2.0 * (1.0 - busy)) * prefill
    return ServingPoint(
        batch=batch,
        step=step,
        prefill_s=prefill,
        prefill_share_s=share,
        time_per_output_token_s=tpot,
        time_to_first_token_s=wait + first_token_seconds(model, copy, requests.input_tokens),
        tokens_per_second=batch / tpot,
    )


def memory_per_gpu_gb(
    model: ServedModel,
    gpus: int,
    batch: int,
    context_tokens: int,
    overhead_fraction: float,
    framework_overhead_gb: float,
) -> float:
    """GB on each GPU of a copy: weights (all experts) × (1 + overhead) and the KV cache
    of every sequence at its longest, split over the copy's GPUs, plus the framework's.

    70.6 B at FP8 on 2 GPUs with 100 sequences of 2,000 tokens (BF16 cache):
    (70.6 + 100 × 2,000 × 327,680 B = 65.5 GB) ÷ 2 + 3 = 71.07 GB.

    >>> from tco.engine.examples import LLAMA_70B_FP8
    >>> m = ServedModel.of(LLAMA_70B_FP8, LLAMA_70B_FP8.shape)
    >>> round(memory_per_gpu_gb(m, 2, 100, 2000, 0.0, 3.0), 2)
    71.07
    """
    kv_gb = model.kv_bytes_per_token * context_tokens * batch / BYTES_PER_GB
    return (model.weights_gb * (1.0 + overhead_fraction) + kv_gb) / gpus + framework_overhead_gb


def largest_batch(
    model: ServedModel,
    gpus: int,
    usable_gb: float,
    context_tokens: int,
    overhead_fraction: float,
    framework_overhead_gb: float,
) -> int:
    """The most sequences whose KV cache fits beside the weights (0: not even one).

    2 × 72 GB usable, 3 GB each for the framework, 70.6 GB of weights: 67.4 GB hold
    67.4e9 ÷ (2,000 × 327,680 B) = 102 sequences of 2,000 tokens.

    >>> from tco.engine.examples import LLAMA_70B_FP8
    >>> m = ServedModel.of(LLAMA_70B_FP8, LLAMA_70B_FP8.shape)
    >>> largest_batch(m, 2, 72.0, 2000, 0.0, 3.0)
    102
    """
    free_gb = gpus * (usable_gb - framework_overhead_gb) - model.weights_gb * (
        1.0 + overhead_fraction
    )
    per_sequence_gb = model.kv_bytes_per_token * context_tokens / BYTES_PER_GB
    if free_gb <= 0:
        return 0
    return int(free_gb / per_sequence_gb + 1e-9)
