"""How many GPUs and servers a workload needs, and how to split it across them."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tco.engine.compute import (
    decode_tokens_per_second,
    hours_to_days,
    scaling_efficiency,
    training_flops,
    training_hours,
)
from tco.engine.errors import DeadlineInfeasible, DoesNotFit, InvalidInput
from tco.engine.inputs import (
    ModelShape,
    ServerSpec,
    Sharding,
    Workload,
    WorkloadKind,
)
from tco.engine.memory import (
    activation_gb_per_gpu,
    default_shape,
    inference_weights_gb,
    kv_cache_gb,
    lora_state_gb,
    replicated_and_sharded_bytes,
)
from tco.engine.units import BYTES_PER_GB, HOURS_PER_DAY

MAX_SERVERS = 10_000
"""Upper bound searched for a deadline; beyond it the engine says it is infeasible."""

_EPS = 1e-9  # guards ceil() against float noise such as 2.0000000000000004


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Memory per GPU in GB."""

    model_states_gb: float
    activations_gb: float
    kv_cache_gb: float
    overhead_gb: float

    @property
    def total_gb(self) -> float:
        return self.model_states_gb + self.activations_gb + self.kv_cache_gb + self.overhead_gb


@dataclass(frozen=True, slots=True)
class ParallelismPlan:
    strategy: str
    data_parallel: int
    tensor_parallel: int
    pipeline_parallel: int
    reason: str


@dataclass(frozen=True, slots=True)
class SizingResult:
    kind: WorkloadKind
    shape: ModelShape
    memory: MemoryBreakdown
    gpu_memory_gb: float
    gpus_to_fit: int
    gpus_required: int
    servers_required: int
    sharding: Sharding | None
    parallelism: ParallelismPlan
    training_flops: float | None = None
    training_hours: float | None = None
    training_days: float | None = None
    scaling_efficiency: float | None = None
    gpus_per_replica: int | None = None
    replicas: int | None = None
    tokens_per_second_per_replica: float | None = None
    tokens_per_second_capacity: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def memory_per_gpu_gb(self) -> float:
        return self.memory.total_gb


def _ceil(x: float) -> int:
    return math.ceil(x - _EPS)


def size_workload(
    workload: Workload, server: ServerSpec, servers: int | None = None
) -> SizingResult:
    """Size a training or inference workload on ``server``; see the two helpers."""
    if workload.kind is WorkloadKind.INFERENCE:
        return size_inference(workload, server, servers)
    return size_training(workload, server, servers)


def _training_peak(workload: Workload, server: ServerSpec) -> float:
    peak = server.gpu.peak_tflops(workload.precision)
    if peak is None:
        raise InvalidInput(
            "precision",
            f"The {server.gpu.name} has no {workload.precision.value.upper()} tensor cores; "
            "train in BF16 or pick a newer GPU.",
        )
    return peak


@dataclass(frozen=True, slots=True)
class _TrainingFit:
    tensor_parallel: int
    sharding: Sharding
    act_gb: float
    free_gb: float
    rep_gb: float  # per GPU, kept whole
    shard_gb: float  # per GPU before dividing by the data-parallel degree

    @property
    def gpus_to_fit(self) -> int:
        dp = (
            1 if self.shard_gb == 0 else max(1, _ceil(self.shard_gb / (self.free_gb - self.rep_gb)))
        )
        return dp * self.tensor_parallel


def _fit_training(
    workload: Workload, server: ServerSpec, shape: ModelShape, t: int
) -> _TrainingFit:
    """Memory fit at tensor-parallel degree ``t``; raises DoesNotFit."""
    gpu = server.gpu
    act_gb = activation_gb_per_gpu(
        shape, workload.sequence_length, workload.micro_batch_size, t, workload.recompute
    )
    overhead_gb = workload.framework_overhead_gb
    free_gb = gpu.memory_gb - act_gb - overhead_gb
    if free_gb <= 0:
        raise DoesNotFit(
            f"Activations ({act_gb:,.1f} GB) plus framework overhead ({overhead_gb:,.1f} GB) "
            f"exceed the {gpu.memory_gb:,.0f} GB of one {gpu.name}. Lower the micro-batch or "
            "sequence length, turn on activation recomputation, or raise tensor parallelism."
        )
    # Bytes per parameter that every GPU keeps vs. that are divided across N.
    if workload.kind in (WorkloadKind.LORA, WorkloadKind.QLORA):
        total_bytes = (
            lora_state_gb(
                1.0,
                workload.lora_adapter_fraction,
                quantized_base=workload.kind is WorkloadKind.QLORA,
                optimizer_bytes=workload.optimizer.weight_grad_state_bytes[2],
            )
            * BYTES_PER_GB
        )
        # Adapter state is tiny, so ZeRO-1/2 change nothing: only ZeRO-3 shards the base.
        sharding = workload.sharding or (
            Sharding.DDP
            if workload.params * total_bytes / t / BYTES_PER_GB <= free_gb
            else Sharding.ZERO3
        )
        rep_b, shard_b = (0.0, total_bytes) if sharding is Sharding.ZERO3 else (total_bytes, 0.0)
    else:
        w, g, k = workload.optimizer.weight_grad_state_bytes
        ddp_gb = workload.params * (w + g + k) / t / BYTES_PER_GB
        sharding = workload.sharding or (Sharding.DDP if ddp_gb <= free_gb else Sharding.ZERO3)
        rep_b, shard_b = replicated_and_sharded_bytes(sharding, k, w, g)
    rep_gb = workload.params * rep_b / t / BYTES_PER_GB
    shard_gb = workload.params * shard_b / t / BYTES_PER_GB
    # Fully replicated states may fill the free memory exactly; sharded ones need room for 1/N.
    if rep_gb > free_gb or (shard_gb > 0 and rep_gb >= free_gb):
        raise DoesNotFit(
            f"With {sharding.value.upper()} every GPU keeps {rep_gb:,.1f} GB of model states, "
            f"but only {free_gb:,.1f} GB of the {gpu.memory_gb:,.0f} GB is free after "
            "activations and overhead. Shard more (ZeRO-3/FSDP), add tensor parallelism, "
            "or use a GPU with more memory."
        )
    return _TrainingFit(t, sharding, act_gb, free_gb, rep_gb, shard_gb)


def _auto_tensor_parallel(
    workload: Workload, server: ServerSpec, shape: ModelShape
) -> _TrainingFit:
    """Try tensor parallel 1, 2, 4, ... inside a server; keep the fewest GPUs to fit.

    Ties go to the smaller degree (less communication). If nothing fits, the
    error for tensor parallel 1 explains why.
    """
    gps = server.gpus_per_server
    fits: list[_TrainingFit] = []
    first_error: DoesNotFit | None = None
    t = 1
    while t <= gps:
        if gps % t == 0:
            try:
                fits.append(_fit_training(workload, server, shape, t))
            except DoesNotFit as err:
                first_error = first_error or err
        t *= 2
    if not fits:
        assert first_error is not None
        raise first_error
    return min(fits, key=lambda f: (f.gpus_to_fit, f.tensor_parallel))


def servers_for_deadline(
    flops: float,
    deadline_hours: float,
    gpus_per_server: int,
    peak_tflops: float,
    workload: Workload,
    min_servers: int = 1,
) -> int:
    """Fewest servers (≥ ``min_servers``) that finish ``flops`` within the deadline.

    Throughput S·eff(S) rises with S, so a binary search finds the answer.
    4.2e22 FLOPs in 30 days on 8 × 989 TFLOPS servers, MFU 0.4, goodput 0.9,
    InfiniBand: 5 servers take 829 h, 6 servers 718 h ≤ 720 h, so 6.

    >>> w = Workload(WorkloadKind.PRETRAIN, 7.0, tokens_billion=1000.0)
    >>> servers_for_deadline(4.2e22, 720.0, 8, 989.0, w)
    6
    """

    def hours(s: int) -> float:
        eff = scaling_efficiency(s, workload.interconnect)
        return training_hours(
            flops, s * gpus_per_server, peak_tflops, workload.mfu, eff, workload.goodput
        )

    if hours(MAX_SERVERS) > deadline_hours:
        best_days = hours_to_days(hours(MAX_SERVERS))
        raise DeadlineInfeasible(
            f"Even {MAX_SERVERS:,} servers ({MAX_SERVERS * gpus_per_server:,} GPUs) would need "
            f"{best_days:,.1f} days, more than the {deadline_hours / HOURS_PER_DAY:,.1f}-day "
            "deadline. Extend the deadline, train on fewer tokens or choose a faster GPU."
        )
    low, high = max(1, min_servers), MAX_SERVERS
    if hours(low) <= deadline_hours:
        return low
    while high - low > 1:  # invariant: hours(low) > deadline >= hours(high)
        mid = (low + high) // 2
        if hours(mid) <= deadline_hours:
            high = mid
        else:
            low = mid
    return high


def size_training(
    workload: Workload, server: ServerSpec, servers: int | None = None
) -> SizingResult:
    """Memory fit, then deadline, for pre-training and fine-tuning.

    7 B pre-training on 1 T tokens with a 30-day deadline on 8 × H100 servers
    needs ZeRO-3 (112 GB of states) and 6 servers:

    >>> from tco.engine.inputs import GpuSpec
    >>> from tco.engine.units import Money
    >>> h100 = GpuSpec("H100 SXM5", 80.0, 3.35, 989.0, 1979.0, None, 700.0)
    >>> srv = ServerSpec("HGX H100", h100, 8, 8, 10.2, 2.5, False, Money(300_000.0))
    >>> w = Workload(WorkloadKind.PRETRAIN, 7.0, tokens_billion=1000.0, deadline_days=30.0)
    >>> r = size_training(w, srv)
    >>> r.sharding.value, r.servers_required, r.gpus_required, round(r.training_days, 1)
    ('zero3', 6, 48, 29.9)
    """
    gpu = server.gpu
    gps = server.gpus_per_server
    peak = _training_peak(workload, server)
    shape = workload.shape or default_shape(workload.params)
    if workload.tensor_parallel is not None:
        t = workload.tensor_parallel
        if t > gps or gps % t:
            raise InvalidInput(
                "tensor_parallel",
                f"Tensor parallelism stays inside one server: use a divisor of {gps}, got {t}.",
            )
        fit = _fit_training(workload, server, shape, t)
    else:
        fit = _auto_tensor_parallel(workload, server, shape)
    t, sharding, act_gb, free_gb = fit.tensor_parallel, fit.sharding, fit.act_gb, fit.free_gb
    rep_gb, shard_gb = fit.rep_gb, fit.shard_gb
    overhead_gb = workload.framework_overhead_gb
    gpus_to_fit = fit.gpus_to_fit
    servers_fit = _ceil(gpus_to_fit / gps)

    flops = training_flops(workload.params, workload.tokens, workload.kind, workload.recompute)
    notes: list[str] = []
    if servers is not None:
        if servers < servers_fit:
            raise DoesNotFit(
                f"The model needs at least {servers_fit} server(s) to fit in memory; "
                f"only {servers} given."
            )
        n_servers = servers
    elif workload.deadline_days is not None:
        n_servers = servers_for_deadline(
            flops, workload.deadline_days * HOURS_PER_DAY, gps, peak, workload, servers_fit
        )
    else:
        n_servers = servers_fit

    gpus = n_servers * gps
    dp = gpus // t
    eff = scaling_efficiency(n_servers, workload.interconnect)
    hours = training_hours(flops, gpus, peak, workload.mfu, eff, workload.goodput)
    if workload.deadline_days is not None and hours > workload.deadline_days * HOURS_PER_DAY:
        notes.append(
            f"The run takes {hours_to_days(hours):,.1f} days on {n_servers} server(s), "
            f"past the {workload.deadline_days:g}-day deadline."
        )
    memory = MemoryBreakdown(
        model_states_gb=rep_gb + shard_gb / dp,
        activations_gb=act_gb,
        kv_cache_gb=0.0,
        overhead_gb=overhead_gb,
    )
    plan = _training_plan(workload, server, sharding, dp, n_servers, memory, free_gb, act_gb, t)
    return SizingResult(
        kind=workload.kind,
        shape=shape,
        memory=memory,
        gpu_memory_gb=gpu.memory_gb,
        gpus_to_fit=gpus_to_fit,
        gpus_required=gpus,
        servers_required=n_servers,
        sharding=sharding,
        parallelism=plan,
        training_flops=flops,
        training_hours=hours,
        training_days=hours_to_days(hours),
        scaling_efficiency=eff,
        notes=tuple(notes),
    )


def _training_plan(
    workload: Workload,
    server: ServerSpec,
    sharding: Sharding,
    dp: int,
    n_servers: int,
    memory: MemoryBreakdown,
    free_gb: float,
    act_gb: float,
    t: int,
) -> ParallelismPlan:
    gps = server.gpus_per_server
    states = memory.model_states_gb
    gpu_gb = server.gpu.memory_gb
    if workload.params >= 100e9 and n_servers > 1 and gps > 1:
        # ZeRO-3 all-gathers every layer over the inter-server network; at this size
        # production runs (Megatron, Llama 3) use tensor + pipeline + data parallelism.
        full_state_gb = memory.model_states_gb * dp
        pp = max(1, min(n_servers, _ceil(full_state_gb / (gps * max(free_gb, 1.0)))))
        dp3 = max(1, n_servers * gps // (gps * pp))
        return ParallelismPlan(
            "3D: tensor parallel inside each server, pipeline across servers, data parallel",
            dp3,
            gps,
            pp,
            f"At {workload.params_billion:g} B parameters, tensor parallel {gps} over NVLink "
            f"inside each server and {pp} pipeline stages across servers keep most traffic "
            f"off the slower network; the remaining {dp3} copies run data parallel "
            "(ZeRO-1 for the optimizer state).",
        )
    tp_text = (
        f" Tensor parallel {t} inside each server splits every layer and its activations."
        if t > 1
        else ""
    )
    if act_gb > 0.5 * gpu_gb and t == 1:
        tp_text = (
            f" Activations take {act_gb:,.1f} GB per GPU; tensor parallel inside the server "
            "or full recomputation would free memory."
        )
    if sharding is Sharding.DDP:
        return ParallelismPlan(
            "DDP (data parallel)" + (" + tensor parallel" if t > 1 else ""),
            dp,
            t,
            1,
            f"The full model states ({states:,.1f} GB per GPU) fit on each {gpu_gb:,.0f} GB "
            f"GPU, so plain data parallelism over {dp} replicas is simplest and fastest." + tp_text,
        )
    if sharding is Sharding.ZERO3:
        return ParallelismPlan(
            "FSDP / ZeRO-3" + (" + tensor parallel" if t > 1 else ""),
            dp,
            t,
            1,
            f"A full copy of the model states does not fit in the {free_gb:,.1f} GB left per "
            f"GPU after activations, so parameters, gradients and optimizer state are sharded "
            f"over {dp} GPUs ({states:,.1f} GB each)." + tp_text,
        )
    stage = "1" if sharding is Sharding.ZERO1 else "2"
    return ParallelismPlan(
        f"ZeRO-{stage}" + (" + tensor parallel" if t > 1 else ""),
        dp,
        t,
        1,
        f"ZeRO-{stage} shards the optimizer state{' and gradients' if stage == '2' else ''} "
        f"over {dp} GPUs and keeps the bf16 weights whole, leaving {states:,.1f} GB of "
        "model states per GPU." + tp_text,
    )


def _replica_gpus(total_gb: float, gpu_memory_gb: float, gps: int) -> int:
    """Smallest tensor-parallel group (1, 2, 4, ... within a server, then whole servers)."""
    g = 1
    while g < gps:
        if total_gb / g <= gpu_memory_gb:
            return g
        g *= 2
    g = gps
    while total_gb / g > gpu_memory_gb:
        g += gps
        if g > MAX_SERVERS * gps:
            raise DoesNotFit("The model does not fit even across the largest fleet considered.")
    return g


def size_inference(
    workload: Workload, server: ServerSpec, servers: int | None = None
) -> SizingResult:
    """GPUs per model replica (weights + KV cache + overhead), replicas for the target.

    Llama-3-8B-like at bf16 on H100s, 8,192-token context, 32 sequences:
    weights 16 GB + 20% + KV 2*32*8*128*2*8192*32 = 34.4 GB fits one GPU.

    >>> from tco.engine.inputs import GpuSpec
    >>> from tco.engine.units import Money
    >>> h100 = GpuSpec("H100 SXM5", 80.0, 3.35, 989.0, 1979.0, None, 700.0)
    >>> srv = ServerSpec("HGX H100", h100, 8, 8, 10.2, 2.5, False, Money(300_000.0))
    >>> shape = ModelShape(32, 4096, 32, 8)
    >>> w = Workload(WorkloadKind.INFERENCE, 8.0, shape=shape, target_tokens_per_second=20_000.0)
    >>> r = size_inference(w, srv)
    >>> r.gpus_per_replica, r.replicas, r.servers_required, r.tokens_per_second_per_replica
    (1, 8, 1, 3350.0)
    """
    gpu = server.gpu
    gps = server.gpus_per_server
    shape = workload.shape or default_shape(workload.params)
    bytes_pp = workload.precision.bytes_per_param
    weights_gb = inference_weights_gb(workload.params, bytes_pp)
    kv_gb = kv_cache_gb(
        shape, workload.context_tokens, workload.concurrent_sequences, workload.kv_cache_bytes
    )
    overhead_gb = weights_gb * workload.inference_overhead_fraction
    total_gb = weights_gb + kv_gb + overhead_gb
    g = _replica_gpus(total_gb, gpu.memory_gb, gps)

    notes: list[str] = []
    peak = gpu.peak_tflops(workload.precision)
    if peak is None:
        # Weight-only quantization still runs the maths in BF16 on older GPUs.
        peak = gpu.bf16_tflops
        notes.append(
            f"The {gpu.name} has no {workload.precision.value.upper()} tensor cores: "
            "throughput uses its BF16 peak (weight-only quantization)."
        )
    replica_tps = decode_tokens_per_second(
        g,
        gpu.memory_bandwidth_tbps,
        peak,
        workload.active_params,
        bytes_pp,
        workload.concurrent_sequences,
        workload.serving_efficiency,
    )
    target = workload.target_tokens_per_second
    replicas = 1 if target is None else max(1, _ceil(target / replica_tps))
    servers_fit = _ceil(g / gps)
    if servers is not None:
        if servers < servers_fit:
            raise DoesNotFit(
                f"One copy of the model needs {g} GPUs ({servers_fit} server(s)); "
                f"only {servers} given."
            )
        n_servers = servers
    else:
        n_servers = max(servers_fit, _ceil(replicas * g / gps))
    gpus = n_servers * gps
    fitted_replicas = gpus // g
    capacity = fitted_replicas * replica_tps
    if target is not None and capacity < target:
        notes.append(
            f"{n_servers} server(s) deliver {capacity:,.0f} tokens/s, below the "
            f"{target:,.0f} tokens/s target."
        )
    memory = MemoryBreakdown(
        model_states_gb=weights_gb / g,
        activations_gb=0.0,
        kv_cache_gb=kv_gb / g,
        overhead_gb=overhead_gb / g,
    )
    if g == 1:
        plan = ParallelismPlan(
            "Replicas (one model copy per GPU)",
            fitted_replicas,
            1,
            1,
            f"Weights, KV cache and overhead ({total_gb:,.1f} GB) fit on one "
            f"{gpu.memory_gb:,.0f} GB GPU, so each GPU serves its own copy; "
            f"{fitted_replicas} copies run side by side.",
        )
    elif g <= gps:
        plan = ParallelismPlan(
            "Tensor parallel inside a server",
            fitted_replicas,
            g,
            1,
            f"{total_gb:,.1f} GB of weights, KV cache and overhead need {g} GPUs, so each copy "
            f"is split with tensor parallel {g} over NVLink; {fitted_replicas} copies in total.",
        )
    else:
        plan = ParallelismPlan(
            "Tensor parallel inside servers, pipeline across servers",
            fitted_replicas,
            gps,
            g // gps,
            f"{total_gb:,.1f} GB exceeds one server's {gps * gpu.memory_gb:,.0f} GB, so each "
            f"copy uses tensor parallel {gps} inside a server and {g // gps} pipeline stages "
            "across servers.",
        )
    return SizingResult(
        kind=workload.kind,
        shape=shape,
        memory=memory,
        gpu_memory_gb=gpu.memory_gb,
        gpus_to_fit=g,
        gpus_required=gpus,
        servers_required=n_servers,
        sharding=None,
        parallelism=plan,
        gpus_per_replica=g,
        replicas=fitted_replicas,
        tokens_per_second_per_replica=replica_tps,
        tokens_per_second_capacity=capacity,
        notes=tuple(notes),
    )
