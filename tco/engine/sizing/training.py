"""Sizing pre-training and fine-tuning: the memory fit, then the fleet that meets the deadline.

The engine speaks in codes: every reason and note carries a code and its parameters (for
the Django layer to word) next to an English sentence.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from tco.engine import defaults
from tco.engine.compute import (
    exposed_exchange_seconds,
    gradient_exchange_seconds,
    hardware_flops_factor,
    hours_to_days,
    scaling_efficiency,
    training_flops,
    training_hours,
    width_efficiency,
)
from tco.engine.errors import DeadlineInfeasible, DoesNotFit, InvalidInput
from tco.engine.inputs import Interconnect, ModelShape, Recompute, ServerSpec, Sharding, Workload
from tco.engine.memory import activation_gb_per_gpu, default_shape
from tco.engine.moe import all_to_all_bytes_per_token, exchange_seconds, workload_split
from tco.engine.notes import Note
from tco.engine.sizing.parallelism import (
    FULL_STATE_KINDS,
    MAX_SERVERS,
    SHARDING_RANK,
    Candidate,
    Placed,
    candidates,
    ceil,
    global_sequences,
    place,
    usable_memory_gb,
)
from tco.engine.sizing.results import MemoryBreakdown, ParallelismPlan, Params, SizingResult
from tco.engine.units import HOURS_PER_DAY, SECONDS_PER_HOUR


def _training_peak(workload: Workload, server: ServerSpec) -> float:
    peak = server.gpu.peak_tflops(workload.precision)
    if peak is None:
        raise InvalidInput(
            "precision",
            f"The {server.gpu.name} has no {workload.precision.value.upper()} tensor cores; "
            "train in BF16 or pick a newer GPU.",
        )
    return peak


def servers_for_deadline(
    flops: float,
    deadline_hours: float,
    gpus_per_server: int,
    peak_tflops: float,
    workload: Workload,
    min_servers: int = 1,
    useful_fraction: Callable[[int], float] | None = None,
    exchange_hours: Callable[[int], float] | None = None,
    mfu: float | None = None,
) -> int:
    """Fewest servers (≥ ``min_servers``) that finish ``flops`` within the deadline.

    ``useful_fraction(servers)`` is the share of the fleet's GPU time doing work
    (GPUs the plan uses × (1 − pipeline bubble) ÷ GPUs); 1 when omitted.
    ``exchange_hours(servers)``: wall-clock hours the exchanges the compute does not hide
    add (gradients, a mixture's tokens to its experts). ``mfu``: the model's MFU
    (``workload.mfu`` when omitted). Throughput is searched on a doubling grid, then by bisection.
    4.2e22 FLOPs in 30 days on 8 × 989 TFLOPS servers, MFU 0.4, goodput 0.9,
    InfiniBand: 5 servers take 829 h, 6 servers 718 h ≤ 720 h, so 6.

    >>> from tco.engine.inputs import WorkloadKind
    >>> w = Workload(WorkloadKind.PRETRAIN, 7.0, tokens_billion=1000.0, mfu=0.4)
    >>> servers_for_deadline(4.2e22, 720.0, 8, 989.0, w)
    6
    """
    model_mfu = workload.mfu if mfu is None else mfu

    def hours(s: int) -> float:
        fraction = 1.0 if useful_fraction is None else useful_fraction(s)
        if fraction <= 0:
            return math.inf
        eff = scaling_efficiency(s, workload.interconnect)
        extra = 0.0 if exchange_hours is None else exchange_hours(s)
        return extra + training_hours(
            flops, s * gpus_per_server, peak_tflops, model_mfu, eff, workload.goodput, fraction
        )

    low = max(1, min_servers)
    first = hours(low)
    if first <= deadline_hours:
        return low
    fastest = (first, low)
    high = low
    while True:  # doubling grid; invariant: hours(low) > deadline
        high = min(high * 2, MAX_SERVERS)
        at_high = hours(high)
        if at_high <= deadline_hours:
            break
        fastest = min(fastest, (at_high, high))
        if high >= MAX_SERVERS:
            best_days = hours_to_days(fastest[0])
            raise DeadlineInfeasible(
                f"No fleet up to {MAX_SERVERS:,} servers ({MAX_SERVERS * gpus_per_server:,} "
                f"GPUs) meets the {deadline_hours / HOURS_PER_DAY:,.1f}-day deadline: the "
                f"fastest found, {fastest[1]:,} servers, needs {best_days:,.1f} days. Extend "
                "the deadline, train on fewer tokens, raise the global batch or choose a "
                "faster GPU.",
                code="deadline_infeasible",
                params={
                    "max_servers": MAX_SERVERS,
                    "fastest_servers": fastest[1],
                    "best_days": round(best_days, 1),
                    "deadline_days": round(deadline_hours / HOURS_PER_DAY, 2),
                },
            )
        low = high
    while high - low > 1:  # invariant: hours(low) > deadline >= hours(high)
        mid = (low + high) // 2
        if hours(mid) <= deadline_hours:
            high = mid
        else:
            low = mid
    return high


def _open_levers(workload: Workload, server: ServerSpec) -> list[str]:
    """Inputs that could still make a plan fit, as codes, in the order worth trying."""
    levers: list[str] = []
    if workload.micro_batch_size > 1:
        levers.append("micro_batch_size")
    if workload.recompute is not Recompute.FULL:
        levers.append("recompute")
    if workload.tensor_parallel is not None and workload.tensor_parallel < server.gpus_per_server:
        levers.append("tensor_parallel")
    if workload.context_parallel is not None:
        levers.append("context_parallel")
    if workload.pipeline_parallel is not None:
        levers.append("pipeline_parallel")
    if workload.sharding is not None and workload.sharding is not Sharding.ZERO3:
        levers.append("sharding")
    levers.append("sequence_length")
    if workload.memory_headroom > 0.05:
        levers.append("memory_headroom")
    levers.append("gpu_memory")
    return levers


_LEVER_TEXT = {
    "micro_batch_size": "lower the micro-batch",
    "recompute": "turn on full activation recomputation",
    "tensor_parallel": "leave tensor parallelism to the engine (up to the GPUs in a server)",
    "context_parallel": "leave context parallelism to the engine",
    "pipeline_parallel": "leave pipeline parallelism to the engine",
    "sharding": "leave the ZeRO stage to the engine (or use ZeRO-3)",
    "sequence_length": "shorten the sequence",
    "memory_headroom": "lower the memory headroom",
    "gpu_memory": "choose a GPU with more memory",
}


def _does_not_fit(workload: Workload, server: ServerSpec, least_gb: float) -> DoesNotFit:
    usable = usable_memory_gb(server.gpu.memory_gb, workload.memory_headroom)
    levers = _open_levers(workload, server)
    needed = round(least_gb, 1) if math.isfinite(least_gb) else None
    need_text = (
        f"even the leanest plan needs {least_gb:,.1f} GB per GPU"
        if math.isfinite(least_gb)
        else "no plan fits"
    )
    return DoesNotFit(
        f"No parallelism plan fits: {need_text}, more than the {usable:,.1f} GB usable of "
        f"one {server.gpu.name} ({server.gpu.memory_gb:,.0f} GB less "
        f"{workload.memory_headroom:.0%} headroom). Still open: "
        + "; ".join(_LEVER_TEXT[lever] for lever in levers)
        + ".",
        code="does_not_fit",
        params={"needed_gb": needed, "usable_gb": round(usable, 1), "levers": levers},
    )


def _expert_exchange_hours(
    workload: Workload, shape: ModelShape, server: ServerSpec, placed: Placed
) -> float:
    """Wall-clock hours a mixture of experts spends sending tokens to their experts.

    The experts of a model-parallel rank are spread over e = min(dp·cp, experts) GPUs;
    a server holds gps ÷ t of them, so (in − 1)/e of a token's experts are on other GPUs
    of its server and (e − in)/e on other servers. Forward and backward each dispatch
    and combine (``all_to_all_bytes_per_token``), in every layer; lost time (goodput)
    stretches it like the compute.
    """
    split = workload_split(workload)
    assert split is not None and workload.kind in FULL_STATE_KINDS
    c = placed.cand
    ep = c.expert_parallel(placed.dp)
    in_server = min(ep, max(1, server.nvlink_domain // c.t))  # the NVLink domain (NVL72: 72)
    per_token = 2.0 * all_to_all_bytes_per_token(
        split.experts_per_token, shape.hidden_size, workload.precision.bytes_per_param
    )
    network = (
        server.gpu.link_gb_per_s
        if workload.interconnect is Interconnect.NVLINK
        else defaults.NETWORK_GBPS_PER_GPU
    )
    seconds = exchange_seconds(
        workload.tokens,
        shape.layers,
        per_token,
        placed.used_gpus,
        (in_server - 1) / ep,
        (ep - in_server) / ep,
        server.gpu.link_gb_per_s,
        network,
    )
    return seconds / workload.goodput / SECONDS_PER_HOUR


def _step_exchange(
    workload: Workload, server: ServerSpec, placed: Placed, peak: float, mfu: float
) -> tuple[float, float]:
    """(exposed gradient exchange, compute) of one training step, in seconds per GPU.

    Per step (``global_batch_tokens``) every GPU exchanges the gradients of its
    model-parallel share (``compute.gradient_exchange_seconds``) with the n = dp·cp copies
    of it, over NVLink when the whole run is inside one NVLink domain, else over its
    network link (``NETWORK_GBPS_PER_GPU``). The step's compute, 6·N·B ÷ GPUs ÷ (peak ×
    MFU), hides up to ``GRADIENT_OVERLAP`` of it. A mixture of experts exchanges only its
    shared weights' gradients: each routed expert lives on one GPU of its expert-parallel
    group. Fine-tuning with adapters exchanges a few megabytes: not counted.
    """
    c = placed.cand
    flops_per_gpu = (
        training_flops(workload.active_params, workload.global_batch_tokens, workload.kind)
        / placed.used_gpus
    )
    compute_s = flops_per_gpu / (peak * 1e12 * mfu)
    if workload.kind not in FULL_STATE_KINDS:
        return 0.0, compute_s
    split = workload_split(workload)
    exchanged = workload.params if split is None else split.shared_params
    inside = (
        placed.used_gpus <= server.nvlink_domain or workload.interconnect is Interconnect.NVLINK
    )
    link = server.gpu.link_gb_per_s if inside else defaults.NETWORK_GBPS_PER_GPU
    zero3 = c.sharding is Sharding.ZERO3
    exchange_s = gradient_exchange_seconds(exchanged / (c.t * c.p), placed.dp * c.cp, zero3, link)
    return exposed_exchange_seconds(exchange_s, compute_s), compute_s


def _tensor_exchange_seconds(
    workload: Workload, shape: ModelShape, server: ServerSpec, placed: Placed
) -> float:
    """Seconds a step spends exchanging activations inside its tensor-parallel groups.

    Each of a stage's layers all-reduces its activations twice forward and twice
    backward (or reduce-scatters and gathers them, the same bytes with sequence
    parallelism): 4 × 2(t − 1)/t × tokens × hidden × 2 bytes for the tokens of the GPU's
    data-parallel copy, over NVLink. Only the choice of plan counts it: the MFU measured
    on the calibrated runs, which used tensor parallelism inside a server, contains it.
    """
    c = placed.cand
    if c.t == 1:
        return 0.0
    tokens = workload.global_batch_tokens / (placed.dp * c.cp)
    per_layer = 4.0 * 2.0 * (c.t - 1) / c.t * tokens * shape.hidden_size * 2.0
    return shape.layers / c.p * per_layer / (server.gpu.link_gb_per_s * 1e9)


def _gradient_exchange_hours(
    workload: Workload, server: ServerSpec, placed: Placed, peak: float, mfu: float
) -> float:
    """Wall-clock hours the exposed gradient exchange adds over the run (all its steps),
    stretched by lost time (goodput) like the compute."""
    exposed, _compute = _step_exchange(workload, server, placed, peak, mfu)
    steps = workload.tokens / workload.global_batch_tokens
    return steps * exposed / workload.goodput / SECONDS_PER_HOUR


@dataclass
class _Fleets:
    """The plan on each fleet size the searches ask about (each placed once), and what
    its exchanges add."""

    workload: Workload
    server: ServerSpec
    shape: ModelShape
    cands: list[Candidate]
    peak: float
    mfu: float
    placements: dict[int, Placed | None] = field(default_factory=dict)

    @property
    def moe(self) -> bool:
        return workload_split(self.workload) is not None and self.workload.kind in FULL_STATE_KINDS

    def exchange_share(self, plan: Placed) -> float:
        w, srv = self.workload, self.server
        exposed, compute_s = _step_exchange(w, srv, plan, self.peak, self.mfu)
        return (exposed + _tensor_exchange_seconds(w, self.shape, srv, plan)) / compute_s

    def place(self, gpus: int) -> Placed | None:
        if gpus not in self.placements:
            # A mixture of experts keeps the throughput choice its calibration was fitted
            # with: its plans trade the experts' exchange too, which DeepSeek's overlapped
            # schedules hide in ways the engine does not represent (docs/calibration.md).
            weigh = None if self.moe else self.exchange_share
            gps = self.server.gpus_per_server
            self.placements[gpus] = place(self.workload, self.cands, gpus, gps, weigh)
        return self.placements[gpus]

    def useful(self, servers: int) -> float:
        gpus = servers * self.server.gpus_per_server
        placed = self.place(gpus)
        return 0.0 if placed is None else placed.rate / gpus

    def a2a(self, servers: int) -> float:
        placed = self.place(servers * self.server.gpus_per_server)
        if placed is None or not self.moe:
            return 0.0
        return _expert_exchange_hours(self.workload, self.shape, self.server, placed)

    def exchange(self, servers: int) -> float:
        placed = self.place(servers * self.server.gpus_per_server)
        if placed is None:
            return 0.0
        grads = _gradient_exchange_hours(self.workload, self.server, placed, self.peak, self.mfu)
        return self.a2a(servers) + grads


def size_training(
    workload: Workload, server: ServerSpec, servers: int | None = None
) -> SizingResult:
    """Memory fit, then deadline, for pre-training and fine-tuning.

    7 B pre-training on 1 T tokens with a 30-day deadline on 8 × H100 servers (PCIe
    between the GPUs: no NVLink given) needs ZeRO-3 (112 GB of states) and 6 servers:
    638.18 h of compute and, per 4 M-token step, 3 × 47/48 × 14 GB ÷ 50 GB/s = 822.5 ms
    of exchange, 250,000 steps ÷ goodput 0.9 = 63.46 h:

    >>> from tco.engine.inputs import GpuSpec, WorkloadKind
    >>> from tco.engine.units import Money
    >>> h100 = GpuSpec("H100 SXM5", 80.0, 3.35, 989.0, 1979.0, None, 700.0)
    >>> srv = ServerSpec("HGX H100", h100, 8, 8, 10.2, 2.5, False, Money(300_000.0))
    >>> w = Workload(WorkloadKind.PRETRAIN, 7.0, tokens_billion=1000.0, deadline_days=30.0)
    >>> r = size_training(w, srv)
    >>> r.sharding.value, r.servers_required, r.gpus_required, round(r.training_days, 1)
    ('zero3', 6, 48, 29.2)
    >>> round(r.gpu_hours)  # (638.18 + 63.46) h × 48 GPUs
    33679
    """
    gpu = server.gpu
    gps = server.gpus_per_server
    peak = _training_peak(workload, server)
    # A mixture of experts computes like a dense model of its active parameters.
    shape = workload.shape or default_shape(workload.active_params)
    cands, least_gb = candidates(workload, server, shape)
    if not cands:
        raise _does_not_fit(workload, server, least_gb)
    fit = min(
        cands,
        key=lambda c: (c.gpus_to_fit, c.p, c.cp, c.t, SHARDING_RANK[c.sharding]),
    )
    gpus_to_fit = fit.gpus_to_fit
    # The MFU input is a wide model's; narrower ones reach less (compute.width_efficiency).
    mfu = workload.mfu * width_efficiency(shape.hidden_size, peak, gpu.memory_bandwidth_tbps)
    run = _Fleets(workload, server, shape, cands, peak, mfu)
    place = run.place

    servers_fit = ceil(gpus_to_fit / gps)
    while place(servers_fit * gps) is None and servers_fit < MAX_SERVERS:
        servers_fit += 1  # a fleet of whole servers on which some plan divides evenly

    flops = training_flops(workload.active_params, workload.tokens, workload.kind)
    n_servers = _training_servers(
        workload, servers, servers_fit, gps, peak, flops, place, run.useful, run.exchange, mfu
    )

    gpus = n_servers * gps
    placed = place(gpus)
    assert placed is not None  # guaranteed by the searches above
    eff = scaling_efficiency(n_servers, workload.interconnect)
    a2a_hours = run.a2a(n_servers) if run.moe else None
    grad_hours = _gradient_exchange_hours(workload, server, placed, peak, mfu)
    hours = (
        (a2a_hours or 0.0)
        + grad_hours
        + training_hours(flops, gpus, peak, mfu, eff, workload.goodput, placed.rate / gpus)
    )
    notes = _training_notes(workload, placed, gpus, n_servers, hours)
    c = placed.cand
    memory = _training_memory(workload, shape, placed)
    plan = _training_plan(workload, server, placed, memory)
    return SizingResult(
        kind=workload.kind,
        shape=shape,
        memory=memory,
        gpu_memory_gb=gpu.memory_gb,
        gpus_to_fit=gpus_to_fit,
        gpus_required=gpus,
        servers_required=n_servers,
        sharding=c.sharding,
        parallelism=plan,
        training_flops=flops,
        training_hours=hours,
        training_days=hours_to_days(hours),
        scaling_efficiency=eff,
        notes=tuple(n.text for n in notes),
        gpu_hours=hours * gpus,
        hardware_flops_utilization=mfu * hardware_flops_factor(workload.kind, workload.recompute),
        usable_memory_gb=usable_memory_gb(gpu.memory_gb, workload.memory_headroom),
        note_details=tuple(notes),
        expert_parallel=c.expert_parallel(placed.dp) if a2a_hours is not None else None,
        all_to_all_hours=a2a_hours,
        gradient_exchange_hours=grad_hours if workload.kind in FULL_STATE_KINDS else None,
    )


def _training_servers(
    workload: Workload,
    servers: int | None,
    servers_fit: int,
    gps: int,
    peak: float,
    flops: float,
    place: Callable[[int], Placed | None],
    useful: Callable[[int], float],
    exchange_hours: Callable[[int], float] | None,
    mfu: float,
) -> int:
    """The fleet: the servers given (DoesNotFit when too few), else the fewest that meet
    the deadline, else the fewest the model fits on."""
    if servers is not None:
        if servers < servers_fit or place(servers * gps) is None:
            raise DoesNotFit(
                f"The model needs at least {servers_fit} server(s) to fit in memory; "
                f"only {servers} given.",
                code="too_few_servers",
                params={"servers_needed": servers_fit, "servers_given": servers},
            )
        return servers
    if workload.deadline_days is not None:
        return servers_for_deadline(
            flops,
            workload.deadline_days * HOURS_PER_DAY,
            gps,
            peak,
            workload,
            servers_fit,
            useful,
            exchange_hours,
            mfu,
        )
    return servers_fit


def _training_notes(
    workload: Workload, placed: Placed, gpus: int, n_servers: int, hours: float
) -> list[Note]:
    """What the sized run warns about: past the deadline, a global batch too small for
    its data-parallel copies, GPUs the plan's groups leave idle."""
    notes: list[Note] = []
    if workload.deadline_days is not None and hours > workload.deadline_days * HOURS_PER_DAY:
        notes.append(
            Note(
                "past_deadline",
                {
                    "days": round(hours_to_days(hours), 1),
                    "servers": n_servers,
                    "deadline_days": workload.deadline_days,
                },
                f"The run takes {hours_to_days(hours):,.1f} days on {n_servers} server(s), "
                f"past the {workload.deadline_days:g}-day deadline.",
            )
        )
    sequences = global_sequences(workload)
    if placed.dp * workload.micro_batch_size > sequences:
        notes.append(
            Note(
                "batch_below_data_parallel",
                {
                    "global_batch_sequences": int(sequences),
                    "data_parallel": placed.dp,
                    "micro_batch_size": workload.micro_batch_size,
                },
                f"The global batch of {int(sequences):,} sequences is smaller than "
                f"{placed.dp:,} data-parallel copies × micro-batch "
                f"{workload.micro_batch_size}: raise global_batch_tokens or the run cannot "
                "use this many GPUs as planned.",
            )
        )
    if placed.used_gpus < gpus:
        notes.append(
            Note(
                "idle_gpus",
                {"idle": gpus - placed.used_gpus, "gpus": gpus},
                f"{gpus - placed.used_gpus} of the {gpus} GPUs do not fit the plan's groups "
                "and stay idle.",
            )
        )
    return notes


def _training_memory(workload: Workload, shape: ModelShape, placed: Placed) -> MemoryBreakdown:
    """Per GPU: the plan's model states and activations, and the framework's overhead."""
    c = placed.cand
    return MemoryBreakdown(
        model_states_gb=c.states_gb(placed.dp),
        activations_gb=activation_gb_per_gpu(
            shape,
            workload.sequence_length,
            workload.micro_batch_size,
            c.t,
            workload.recompute,
            sequence_parallel=c.t > 1,
            context_parallel=c.cp,
            pipeline_parallel=c.p,
            micro_batches=placed.micro_batches,
        ),
        kv_cache_gb=0.0,
        overhead_gb=workload.framework_overhead_gb,
    )


def _training_plan(
    workload: Workload, server: ServerSpec, placed: Placed, memory: MemoryBreakdown
) -> ParallelismPlan:
    """The plan in one sentence, with its code and parameters."""
    c, dp = placed.cand, placed.dp
    gpu_gb = server.gpu.memory_gb
    states = memory.model_states_gb

    def plan(strategy: str, reason: str, code: str) -> ParallelismPlan:
        return ParallelismPlan(
            strategy,
            dp,
            c.t,
            c.p,
            reason,
            context_parallel=c.cp,
            sequence_parallel=c.t > 1,
            micro_batches=placed.micro_batches,
            pipeline_bubble=placed.bubble,
            reason_code=code,
            reason_params=params,
        )

    params: Params = {
        "params_billion": workload.params_billion,
        "tensor_parallel": c.t,
        "context_parallel": c.cp,
        "pipeline_parallel": c.p,
        "data_parallel": dp,
        "sharding": c.sharding.value,
        "memory_gb": round(memory.total_gb, 1),
        "gpu_memory_gb": gpu_gb,
        "states_gb": round(states, 1),
        "bubble_pct": round(100.0 * placed.bubble, 1),
    }
    if c.p > 1 or c.cp > 1 or c.t > 1:
        return plan(*_model_parallel_wording(workload, placed, memory, gpu_gb))
    if c.sharding is Sharding.DDP:
        return plan(
            "DDP (data parallel)",
            f"The full model states ({states:,.1f} GB per GPU) fit on each {gpu_gb:,.0f} GB "
            f"GPU, so plain data parallelism over {dp} replicas is simplest and fastest.",
            "ddp",
        )
    if c.sharding is Sharding.ZERO3:
        free = usable_memory_gb(gpu_gb, workload.memory_headroom) - c.act_gb
        free -= workload.framework_overhead_gb
        params["free_gb"] = round(free, 1)
        return plan(
            "FSDP / ZeRO-3",
            f"A full copy of the model states does not fit in the {free:,.1f} GB left per "
            f"GPU after activations, overhead and headroom, so parameters, gradients and "
            f"optimizer state are sharded over {dp} GPUs ({states:,.1f} GB each).",
            "fsdp",
        )
    stage = "1" if c.sharding is Sharding.ZERO1 else "2"
    return plan(
        f"ZeRO-{stage}",
        f"ZeRO-{stage} shards the optimizer state{' and gradients' if stage == '2' else ''} "
        f"over {dp} GPUs and keeps the bf16 weights whole, leaving {states:,.1f} GB of "
        "model states per GPU.",
        "zero" + stage,
    )


def _model_parallel_wording(
    workload: Workload, placed: Placed, memory: MemoryBreakdown, gpu_gb: float
) -> tuple[str, str, str]:
    """(strategy, reason, code) of a plan that splits the model (pipeline, tensor or
    context parallel), with its data-parallel copies and their sharding."""
    c, dp = placed.cand, placed.dp
    states = memory.model_states_gb
    extras = ""
    if c.t > 1:
        extras += f", tensor parallel {c.t} with sequence parallelism inside each server"
    if c.cp > 1:
        extras += f", context parallel {c.cp} splitting each sequence"
    stage = {
        Sharding.DDP: "whole model states",
        Sharding.ZERO1: "ZeRO-1 (optimizer state sharded)",
        Sharding.ZERO2: "ZeRO-2 (optimizer state and gradients sharded)",
        Sharding.ZERO3: "ZeRO-3 (all model states sharded)",
    }[c.sharding]
    copies = f"{dp} data-parallel cop{'y' if dp == 1 else 'ies'}"
    if c.p > 1:
        strategy = (
            "3D: tensor parallel inside each server, pipeline across servers, data parallel"
            if c.t > 1
            else "Pipeline + data parallel"
        )
        code = "three_d"
        reason = (
            f"At {workload.params_billion:g} B parameters the plan uses {c.p} pipeline "
            f"stages (1F1B){extras}, and {copies} with {stage}: "
            f"{memory.total_gb:,.1f} GB per {gpu_gb:,.0f} GB GPU, the pipeline bubble "
            f"costing {placed.bubble:.1%} of throughput with {placed.micro_batches} "
            "micro-batches per step."
        )
    else:
        strategy = {
            Sharding.DDP: "DDP (data parallel)",
            Sharding.ZERO1: "ZeRO-1",
            Sharding.ZERO2: "ZeRO-2",
            Sharding.ZERO3: "FSDP / ZeRO-3",
        }[c.sharding]
        strategy += (" + tensor parallel" if c.t > 1 else "") + (
            " + context parallel" if c.cp > 1 else ""
        )
        code = "model_parallel_" + c.sharding.value
        splits = []
        if c.t > 1:
            splits.append(
                f"each layer over {c.t} GPUs inside a server (tensor parallel with "
                "sequence parallelism)"
            )
        if c.cp > 1:
            splits.append(f"each sequence over {c.cp} GPUs (context parallel)")
        reason = (
            f"The plan splits {' and '.join(splits)}, and runs {copies} with "
            f"{stage}: {states:,.1f} GB of model states and {memory.total_gb:,.1f} GB in "
            f"all per {gpu_gb:,.0f} GB GPU."
        )
    return strategy, reason, code
