"""Sizing a served model: the layout of each copy, its batch and the number of copies.

For every layout a server allows (tensor parallel 1, 2, 4, … inside a server; whole
servers as pipeline stages when one server cannot hold the model) the engine finds the
largest batch that fits the memory and meets the latency targets, then the copies the
target tokens per second needs. It keeps the layout that needs the fewest servers (then
the one with the most capacity), and reports what each user sees at the sized peak: with
n copies sharing the peak, each holds the smallest batch that carries its share
(docs/methodology.md, "Choosing the layout and the batch").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from tco.engine import defaults
from tco.engine.decode import (
    CopyHardware,
    Requests,
    ServedModel,
    ServingPoint,
    largest_batch,
    serving_point,
)
from tco.engine.errors import DoesNotFit
from tco.engine.inputs import ModelShape, ServerSpec, ServingUse, Workload
from tco.engine.memory import default_shape
from tco.engine.notes import Note
from tco.engine.sizing.parallelism import EPS, MAX_SERVERS, tensor_degrees, usable_memory_gb
from tco.engine.sizing.results import MemoryBreakdown, ParallelismPlan, Params, SizingResult
from tco.engine.units import BYTES_PER_GB


@dataclass(frozen=True, slots=True)
class LatencyTargets:
    """What each user should see; None: no bound (batch use)."""

    time_per_output_token_ms: float | None
    time_to_first_token_ms: float | None

    def met_by(self, point: ServingPoint) -> bool:
        tpot, ttft = self.time_per_output_token_ms, self.time_to_first_token_ms
        return (tpot is None or point.time_per_output_token_s * 1000.0 <= tpot * (1 + 1e-9)) and (
            ttft is None or point.time_to_first_token_s * 1000.0 <= ttft * (1 + 1e-9)
        )


def latency_targets(workload: Workload) -> LatencyTargets:
    """The demand's targets, else the defaults of the workload's use.

    >>> from tco.engine.inputs import ServingUse, WorkloadKind
    >>> latency_targets(Workload(WorkloadKind.INFERENCE, 8.0, target_tokens_per_second=1.0))
    LatencyTargets(time_per_output_token_ms=40.0, time_to_first_token_ms=450.0)
    >>> latency_targets(Workload(WorkloadKind.INFERENCE, 8.0, target_tokens_per_second=1.0,
    ...     serving_use=ServingUse.BATCH))
    LatencyTargets(time_per_output_token_ms=None, time_to_first_token_ms=None)
    """
    use = workload.serving_use
    demand = workload.serving_demand
    tpot = demand.latency_ms_per_token if demand is not None else None
    ttft = demand.time_to_first_token_ms if demand is not None else None
    return LatencyTargets(
        tpot if tpot is not None else use.default_time_per_output_token_ms,
        ttft if ttft is not None else use.default_time_to_first_token_ms,
    )


def requests_of(workload: Workload) -> Requests:
    """Prompt and answer lengths from the serving demand, and the context each holds.

    With a demand of 1,000 input and 400 output tokens a sequence holds 1,400 tokens at
    the end and 1,200 on average; without one it holds ``context_tokens`` (8,192 by
    default) and no prompts are sized.

    >>> from tco.engine.inputs import ServingDemand, WorkloadKind
    >>> d = ServingDemand(100, 10, 400, input_tokens_per_request=1000)
    >>> r = requests_of(Workload(WorkloadKind.INFERENCE, 8.0, serving_demand=d))
    >>> r.input_tokens, r.output_tokens, r.context_tokens, r.average_context_tokens
    (1000.0, 400, 1400, 1200.0)
    >>> r = requests_of(Workload(WorkloadKind.INFERENCE, 8.0, target_tokens_per_second=1.0))
    >>> r.input_tokens, r.output_tokens, r.context_tokens, r.average_context_tokens
    (0.0, None, 8192, 8192.0)
    """
    demand = workload.serving_demand
    if demand is None:
        context = workload.context_tokens or defaults.CONTEXT_TOKENS
        return Requests(0.0, None, context, float(context))
    prompt, answer = demand.input_tokens_per_request, demand.output_tokens_per_request
    context = workload.context_tokens or max(1, math.ceil(prompt + answer))
    return Requests(float(prompt), answer, context, min(float(context), prompt + answer / 2.0))


@dataclass(frozen=True, slots=True)
class CopyOption:
    """One layout with the batch its memory and the latency targets allow."""

    copy: CopyHardware
    memory_batch: int  # most sequences that fit
    batch: int  # most sequences within the targets (≤ memory_batch)
    capacity: ServingPoint  # the copy at ``batch``
    meets_targets: bool


@dataclass(frozen=True, slots=True)
class ServingPlan:
    """The chosen layout, the fleet and what each user sees at the peak."""

    model: ServedModel
    shape: ModelShape
    requests: Requests
    use: ServingUse
    targets: LatencyTargets
    option: CopyOption
    fewest_gpus_to_fit: int
    servers: int
    copies: int  # copies fitted into the servers
    peak: ServingPoint  # each copy at its share of the sized peak
    warnings: tuple[Note, ...] = ()

    @property
    def capacity_tokens_per_second(self) -> float:
        return self.copies * self.option.capacity.tokens_per_second


def _largest_true(low: int, high: int, ok: Callable[[int], bool]) -> int:
    """Largest s in [low, high] with ok(s), given ok(low) and ok monotone (True, then False)."""
    while low < high:
        mid = (low + high + 1) // 2
        if ok(mid):
            low = mid
        else:
            high = mid - 1
    return low


@dataclass(frozen=True, slots=True)
class ServingInputs:
    """What every layout of a copy is tried with: the workload on the server, the served
    model, its requests and the memory each GPU leaves for it (GB)."""

    workload: Workload
    server: ServerSpec
    model: ServedModel
    requests: Requests
    usable_gb: float


def copy_options(inputs: ServingInputs, targets: LatencyTargets) -> list[CopyOption]:
    """Every layout that holds at least one sequence (or the given batch), with its batch."""
    workload, server, model = inputs.workload, inputs.server, inputs.model
    gps = server.gpus_per_server
    fixed_tp = workload.tensor_parallel is not None
    degrees = tensor_degrees(workload, gps)
    options = []
    for t in degrees:
        p = 1
        while True:
            fit = largest_batch(
                model,
                t * p,
                inputs.usable_gb,
                inputs.requests.context_tokens,
                workload.inference_overhead_fraction,
                workload.framework_overhead_gb,
            )
            if fit >= (workload.concurrent_sequences or 1):
                break
            # Pipeline stages of the largest TP a server allows (whole servers of 8 GPUs);
            # a given smaller TP may stack stages too.
            if (t < max(degrees) and not fixed_tp) or p * t >= MAX_SERVERS * gps:
                fit = 0
                break
            p += 1
        if fit < 1:
            continue
        copy = CopyHardware.of(
            server.gpu, workload.precision, t, p, serving_efficiency=workload.serving_efficiency
        )

        def point(s: int, copy: CopyHardware = copy) -> ServingPoint:
            return serving_point(model, copy, inputs.requests, s)

        if workload.concurrent_sequences is not None:
            batch = workload.concurrent_sequences
            meets = targets.met_by(point(batch))
        else:
            meets = targets.met_by(point(1))
            batch = _largest_true(1, fit, lambda s: targets.met_by(point(s))) if meets else 1
        options.append(CopyOption(copy, fit, batch, point(batch), meets))
    return options


def _servers_for(copies: int, gpus_per_copy: int, gps: int) -> int:
    if gpus_per_copy <= gps:
        return math.ceil(copies / (gps // gpus_per_copy))
    return math.ceil(copies * gpus_per_copy / gps)


def _relaxed(
    inputs: ServingInputs, targets: LatencyTargets, options: list[CopyOption]
) -> tuple[list[CopyOption], dict[str, float]]:
    """When no layout meets the targets, the engine drops one (time to first token first,
    which the batch barely changes; then time per output token) and sizes for throughput.
    Returns the options and, per dropped target, the best the hardware reaches: one
    sequence per copy on the fastest layout."""
    model, requests = inputs.model, inputs.requests
    best: dict[str, float] = {}
    if inputs.workload.concurrent_sequences is not None:
        return options, best  # the batch is given: it, not the hardware, misses the target
    for metric in ("time_to_first_token", "time_per_output_token"):
        if any(o.meets_targets for o in options):
            break
        if getattr(targets, f"{metric}_ms") is None:
            continue
        best[metric] = min(
            getattr(serving_point(model, o.copy, requests, 1), f"{metric}_s") * 1000.0
            for o in options
        )
        targets = (
            LatencyTargets(targets.time_per_output_token_ms, None)
            if metric == "time_to_first_token"
            else LatencyTargets(None, targets.time_to_first_token_ms)
        )
        options = copy_options(inputs, targets)
    return options, best


def plan_serving(
    workload: Workload,
    server: ServerSpec,
    shape: ModelShape,
    usable_gb: float,
    servers: int | None = None,
) -> ServingPlan:
    """Choose the layout, batch and copies that serve the target with the fewest servers.

    Raises DoesNotFit when no layout holds one sequence (or the given batch), or when
    ``servers`` cannot hold one copy.
    """
    gps = server.gpus_per_server
    model = ServedModel.of(workload, shape)
    requests = requests_of(workload)
    targets = latency_targets(workload)
    inputs = ServingInputs(workload, server, model, requests, usable_gb)
    options = copy_options(inputs, targets)
    if not options:
        raise DoesNotFit(
            f"The model ({model.weights_gb:,.1f} GB of weights) and the KV cache of "
            f"{workload.concurrent_sequences or 1} sequence(s) of {requests.context_tokens:,} "
            "tokens do not fit even across the largest fleet considered.",
            code="does_not_fit_fleet",
            params={"max_servers": MAX_SERVERS},
        )
    options, unreachable = _relaxed(inputs, targets, options)
    if any(o.meets_targets for o in options):
        options = [o for o in options if o.meets_targets]
    target = workload.target_tokens_per_second

    def fleet(o: CopyOption) -> int:
        if servers is not None:
            return servers
        copies = 1 if target is None else max(1, math.ceil(target / o.capacity.tokens_per_second))
        return max(_servers_for(1, o.copy.gpus, gps), _servers_for(copies, o.copy.gpus, gps))

    def rank(o: CopyOption) -> tuple[float, ...]:
        fitted = fleet(o) * gps // o.copy.gpus
        return (fleet(o), -fitted * o.capacity.tokens_per_second, o.copy.gpus)

    if servers is not None:
        holding = [o for o in options if o.copy.gpus <= servers * gps]
        if not holding:
            needed = _servers_for(1, min(o.copy.gpus for o in options), gps)
            raise DoesNotFit(
                f"One copy of the model needs {needed} server(s); only {servers} given.",
                code="too_few_servers",
                params={"servers_needed": needed, "servers_given": servers},
            )
        options = holding
    best = min(options, key=rank)
    n_servers = fleet(best)
    copies = n_servers * gps // best.copy.gpus

    def point(s: int) -> ServingPoint:
        return serving_point(model, best.copy, requests, s)

    share = None if target is None else target / copies
    if workload.concurrent_sequences is not None or share is None:
        peak = best.capacity  # the given batch, or no target to share
    elif share >= best.capacity.tokens_per_second:
        peak = best.capacity
    else:  # the smallest batch that carries the copy's share of the peak
        batch = 1 + _largest_true(0, best.batch - 1, lambda s: point(s).tokens_per_second < share)
        peak = point(min(batch, best.batch))
    return ServingPlan(
        model=model,
        shape=shape,
        requests=requests,
        use=workload.serving_use,
        targets=targets,
        option=best,
        fewest_gpus_to_fit=min(o.copy.gpus for o in options),
        servers=n_servers,
        copies=copies,
        peak=peak,
        warnings=_missed(targets, peak, unreachable),
    )


def _missed(
    targets: LatencyTargets, peak: ServingPoint, unreachable: dict[str, float]
) -> tuple[Note, ...]:
    """A warning for each target the users do not get at the peak; ``best_ms`` when no
    layout of the server reaches it (else the given batch is what misses it)."""
    notes = []
    for metric, target, achieved_s in (
        ("time_per_output_token", targets.time_per_output_token_ms, peak.time_per_output_token_s),
        ("time_to_first_token", targets.time_to_first_token_ms, peak.time_to_first_token_s),
    ):
        achieved = achieved_s * 1000.0
        if target is None or achieved <= target * (1 + 1e-9):
            continue
        params: dict[str, object] = {
            "metric": metric,
            "achieved_ms": round(achieved, 1),
            "target_ms": target,
        }
        what = (
            "Each answer streams at {ms} ms per output token"
            if metric == "time_per_output_token"
            else "The first token comes after {ms} ms"
        )
        text = what.format(ms=f"{achieved:,.1f}") + f", over the {target:,.1f} ms target"
        if metric in unreachable:
            params["best_ms"] = round(unreachable[metric], 1)
            text += (
                f": this server needs at least {unreachable[metric]:,.1f} ms, so the fleet is "
                "sized without that target."
            )
        else:
            text += ": hold fewer sequences per model copy."
        notes.append(Note("latency_target_missed", params, text, warning=True))
    return tuple(notes)


def _serving_layout(
    g: int,
    t: int,
    p: int,
    replicas: int,
    total_gb: float,
    batch: int,
    server: ServerSpec,
    params: Params,
) -> ParallelismPlan:
    """How each served copy is laid out: one per GPU, tensor parallel inside a server, or
    tensor parallel inside servers and pipeline stages across them."""
    gpu, gps = server.gpu, server.gpus_per_server
    if g == 1:
        return ParallelismPlan(
            "Replicas (one model copy per GPU)",
            replicas,
            1,
            1,
            f"Each GPU serves its own copy ({total_gb:,.1f} GB with the KV cache of up to "
            f"{batch} sequences); {replicas} copies run side by side.",
            reason_code="inference_replicas",
            reason_params=params,
        )
    if p == 1:
        return ParallelismPlan(
            "Tensor parallel inside a server",
            replicas,
            t,
            1,
            f"Each copy is split with tensor parallel {t} ({total_gb:,.1f} GB with the KV "
            f"cache of up to {batch} sequences); {replicas} copies in total.",
            reason_code="inference_tensor_parallel",
            reason_params=params,
        )
    return ParallelismPlan(
        "Tensor parallel inside servers, pipeline across servers",
        replicas,
        t,
        p,
        f"{total_gb:,.1f} GB exceeds one server's {gps * gpu.memory_gb:,.0f} GB, so each "
        f"copy uses tensor parallel {t} inside a server and {p} pipeline stages "
        f"across servers; {replicas} copies in total.",
        reason_code="inference_pipeline",
        reason_params=params,
    )


def size_inference(
    workload: Workload, server: ServerSpec, servers: int | None = None
) -> SizingResult:
    """The copies, their layout and batch that serve the target (``plan_serving``).

    Llama-3-8B-like at BF16 on H100s, 20,000 tokens/s of 8,192-token contexts for people
    reading as it streams (40 ms per token): memory, not latency, bounds the batch (27 to
    31 ms per token at the fullest). Copies on 1, 2, 4 or 8 GPUs hold 49, 113, 242 or 499
    sequences and deliver 1,794, 3,940, 8,170 or 16,053 tokens/s; every layout needs two
    servers, and four copies of tensor parallel 4 deliver the most (32,678 tokens/s). At
    the peak each copy carries 5,000 tokens/s with 31 sequences.

    >>> from tco.engine.inputs import GpuSpec, WorkloadKind
    >>> from tco.engine.units import Money
    >>> h100 = GpuSpec("H100 SXM5", 80.0, 3.35, 989.0, 1979.0, None, 700.0, 900.0)
    >>> srv = ServerSpec("HGX H100", h100, 8, 8, 10.2, 2.5, False, Money(300_000.0))
    >>> shape = ModelShape(32, 4096, 32, 8)
    >>> w = Workload(WorkloadKind.INFERENCE, 8.0, shape=shape, target_tokens_per_second=20_000.0)
    >>> r = size_inference(w, srv)
    >>> r.gpus_per_replica, r.max_concurrent_sequences, round(r.tokens_per_second_per_replica)
    (4, 242, 8170)
    >>> r.replicas, r.servers_required, r.concurrent_sequences
    (4, 2, 31)
    """
    gpu = server.gpu
    gps = server.gpus_per_server
    shape = workload.shape or default_shape(workload.active_params)
    usable = usable_memory_gb(gpu.memory_gb, workload.memory_headroom)
    plan = plan_serving(workload, server, shape, usable, servers)
    option, copy = plan.option, plan.option.copy
    g = copy.gpus
    notes: list[Note] = []
    if gpu.peak_tflops(workload.precision) is None:
        # Weight-only quantization still runs the maths in BF16 on older GPUs.
        notes.append(
            Note(
                "no_precision_cores",
                {"gpu": gpu.name, "precision": workload.precision.value},
                f"The {gpu.name} has no {workload.precision.value.upper()} tensor cores: "
                "throughput uses its BF16 peak (weight-only quantization).",
            )
        )
    capacity = plan.capacity_tokens_per_second
    target = workload.target_tokens_per_second
    n_servers, replicas = plan.servers, plan.copies
    if target is not None and capacity < target * (1 - EPS):
        notes.append(
            Note(
                "below_target",
                {"servers": n_servers, "capacity": round(capacity), "target": target},
                f"{n_servers} server(s) deliver {capacity:,.0f} tokens/s, below the "
                f"{target:,.0f} tokens/s target.",
            )
        )
    model = plan.model
    weights_gb = model.weights_gb
    kv_gb = model.kv_bytes_per_token * plan.requests.context_tokens * option.batch / BYTES_PER_GB
    overhead_gb = weights_gb * workload.inference_overhead_fraction
    memory = MemoryBreakdown(
        model_states_gb=weights_gb / g,
        activations_gb=0.0,
        kv_cache_gb=kv_gb / g,
        overhead_gb=overhead_gb / g + workload.framework_overhead_gb,
    )
    total_gb = weights_gb + kv_gb + overhead_gb + workload.framework_overhead_gb * g
    t, p = copy.tensor_parallel, copy.pipeline_parallel
    params: Params = {
        "total_gb": round(total_gb, 1),
        "tensor_parallel": t,
        "pipeline_parallel": p,
        "replicas": replicas,
        "batch": option.batch,
    }
    plan_text = _serving_layout(copy.gpus, t, p, replicas, total_gb, option.batch, server, params)
    return SizingResult(
        kind=workload.kind,
        shape=shape,
        memory=memory,
        gpu_memory_gb=gpu.memory_gb,
        gpus_to_fit=plan.fewest_gpus_to_fit,
        gpus_required=n_servers * gps,
        servers_required=n_servers,
        sharding=None,
        parallelism=plan_text,
        gpus_per_replica=g,
        replicas=replicas,
        tokens_per_second_per_replica=option.capacity.tokens_per_second,
        tokens_per_second_capacity=capacity,
        notes=tuple(n.text for n in notes),
        usable_memory_gb=usable,
        note_details=tuple(notes),
        serving=plan,
        warnings=plan.warnings,
    )
