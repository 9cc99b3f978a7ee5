"""How a training run is split across GPUs: the candidate plans and their placement.

Training plans combine tensor parallelism t (with sequence parallelism) inside a
server, context parallelism cp, pipeline parallelism p (1F1B) and data
parallelism d with a ZeRO stage over the data-parallel group: t·cp·p·d GPUs.
Serving uses the same tensor-parallel degrees (``tensor_degrees``) for its copies.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from tco.engine import defaults
from tco.engine.errors import InvalidInput
from tco.engine.inputs import ModelShape, ServerSpec, Sharding, Workload, WorkloadKind
from tco.engine.memory import (
    activation_gb_per_gpu,
    lora_state_gb,
    pipeline_bubble,
    replicated_and_sharded_bytes,
)
from tco.engine.moe import workload_split
from tco.engine.units import BYTES_PER_GB

MAX_SERVERS = 10_000
"""Largest fleet searched for: a training deadline's, a served copy's longest pipeline
across servers; beyond it the engine says it is infeasible."""

EPS = 1e-9  # guards ceil() against float noise such as 2.0000000000000004


def ceil(x: float) -> int:
    return math.ceil(x - EPS)


def usable_memory_gb(gpu_memory_gb: float, headroom: float) -> float:
    """Memory a plan may fill: GPU memory × (1 − headroom). 80 GB at 10 %: 72 GB.

    >>> usable_memory_gb(80.0, 0.1)
    72.0
    """
    return gpu_memory_gb * (1.0 - headroom)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One (t, cp, p, ZeRO stage) that fits once the data-parallel degree is ≥ dp_min."""

    t: int
    cp: int
    p: int
    sharding: Sharding
    act_gb: float  # first pipeline stage, p micro-batches in flight
    rep_gb: float  # model states per GPU kept whole
    shard_gb: float  # model states per GPU before dividing by the shard group dp·cp
    dp_min: int
    expert_gb: float = 0.0  # routed experts' states per GPU before expert parallelism
    experts: int = 1  # routed experts: expert parallelism spreads them over ≤ this many

    @property
    def model_parallel(self) -> int:
        return self.t * self.cp * self.p

    @property
    def gpus_to_fit(self) -> int:
        return self.model_parallel * self.dp_min

    def expert_parallel(self, dp: int) -> int:
        """GPUs the experts of one model-parallel rank are spread over: dp·cp, ≤ experts."""
        return min(dp * self.cp, self.experts)

    def states_gb(self, dp: int) -> float:
        return (
            self.rep_gb + self.shard_gb / (dp * self.cp) + self.expert_gb / self.expert_parallel(dp)
        )


def min_data_parallel(
    rep_gb: float, shard_gb: float, expert_gb: float, experts: int, cp: int, free_gb: float
) -> int | None:
    """Fewest data-parallel copies d with rep + shard/(d·cp) + expert/min(d·cp, E) ≤ free.

    Expert parallelism spreads the routed experts over the data-parallel (and context-
    parallel) GPUs, at most one expert each; ZeRO shards the rest of the states. None when
    no d fits. 20 GB kept whole, 400 GB sharded and 1,000 GB of experts in 60 GB free:
    spreading all 1,400 GB over 40 GB of room takes 35 GPUs, more than the 32 experts;
    with one expert each (31.25 GB) 8.75 GB are left for 400 ÷ d, so d = 46.

    >>> min_data_parallel(20.0, 400.0, 1000.0, 32, 1, 60.0)
    46
    >>> min_data_parallel(20.0, 400.0, 0.0, 1, 1, 60.0), min_data_parallel(70.0, 0, 0, 1, 1, 60.0)
    (10, None)
    """
    room = free_gb - rep_gb
    if room <= 0 or (expert_gb == 0.0 and shard_gb == 0.0 and rep_gb > free_gb):
        return None
    if expert_gb == 0.0 and shard_gb == 0.0:
        return 1
    group = ceil((shard_gb + expert_gb) / room)  # every state spread over d·cp ≤ E GPUs
    if expert_gb == 0.0 or group <= experts:
        return max(1, ceil(group / cp))
    room -= expert_gb / experts  # experts at one per GPU; ZeRO shards the rest further
    if room <= 0:
        return None
    group = max(experts, ceil(shard_gb / room)) if shard_gb else experts
    return max(1, ceil(group / cp))


SHARDING_RANK = {Sharding.DDP: 0, Sharding.ZERO1: 1, Sharding.ZERO2: 2, Sharding.ZERO3: 3}
# Kinds that train every weight, so routed experts carry full states and expert parallelism.
FULL_STATE_KINDS = (WorkloadKind.PRETRAIN, WorkloadKind.FULL_FINETUNE)


def powers_of_two(limit: int) -> list[int]:
    out, x = [], 1
    while x <= limit:
        out.append(x)
        x *= 2
    return out


def state_bytes(workload: Workload, sharding: Sharding) -> tuple[float, float]:
    """(bytes kept whole, bytes sharded over the group) per parameter."""
    if workload.kind in (WorkloadKind.LORA, WorkloadKind.QLORA):
        total = (
            lora_state_gb(
                1.0,
                workload.lora_adapter_fraction,
                quantized_base=workload.kind is WorkloadKind.QLORA,
                optimizer_bytes=workload.optimizer.weight_grad_state_bytes[2],
            )
            * BYTES_PER_GB
        )
        # Adapter state is tiny, so ZeRO-1/2 change nothing: only ZeRO-3 shards the base.
        return (0.0, total) if sharding is Sharding.ZERO3 else (total, 0.0)
    w, g, k = workload.optimizer.weight_grad_state_bytes
    return replicated_and_sharded_bytes(sharding, k, w, g)


def degrees(fixed: int | None, limit: int) -> list[int]:
    return [fixed] if fixed is not None else powers_of_two(max(1, limit))


def tensor_degrees(workload: Workload, gps: int) -> list[int]:
    t = workload.tensor_parallel
    if t is not None:
        if t > gps or gps % t:
            raise InvalidInput(
                "tensor_parallel",
                f"Tensor parallelism stays inside one server: use a divisor of {gps}, got {t}.",
            )
        return [t]
    return [t for t in powers_of_two(gps) if gps % t == 0]


def candidates(
    workload: Workload, server: ServerSpec, shape: ModelShape
) -> tuple[list[Candidate], float]:
    """Every (t, cp, p, stage) that can fit, and the least memory per GPU any plan needs."""
    gps = server.gpus_per_server
    usable = usable_memory_gb(server.gpu.memory_gb, workload.memory_headroom)
    overhead = workload.framework_overhead_gb
    big = workload.params >= defaults.FSDP_MAX_PARAMS_ACROSS_SERVERS
    if workload.pipeline_parallel is not None and workload.pipeline_parallel > shape.layers:
        raise InvalidInput(
            "pipeline_parallel",
            f"A pipeline cannot have more stages than the model has layers ({shape.layers}), "
            f"got {workload.pipeline_parallel}.",
        )
    if workload.context_parallel is not None and (
        workload.context_parallel > workload.sequence_length
    ):
        raise InvalidInput(
            "context_parallel",
            "Context parallelism splits the sequence: it cannot exceed the sequence length "
            f"({workload.sequence_length}), got {workload.context_parallel}.",
        )
    cps = degrees(
        workload.context_parallel,
        min(defaults.MAX_CONTEXT_PARALLEL, workload.sequence_length),
    )
    pps = degrees(workload.pipeline_parallel, min(defaults.MAX_PIPELINE_PARALLEL, shape.layers))
    found: list[Candidate] = []
    least_gb = math.inf
    tensors = tensor_degrees(workload, gps)
    # Context parallelism's ring exchange of keys and values is not modelled, so it is used
    # at the smallest degree with which anything fits: stop at the first cp that fits.
    for cp in cps:
        for t in tensors:
            for p in pps:
                act = activation_gb_per_gpu(
                    shape,
                    workload.sequence_length,
                    workload.micro_batch_size,
                    t,
                    workload.recompute,
                    sequence_parallel=t > 1,
                    context_parallel=cp,
                    pipeline_parallel=p,
                )
                cand, need = _fit(workload, gps, usable, overhead, big, t, cp, p, act)
                least_gb = min(least_gb, need)
                if cand is None:
                    continue
                found.append(cand)
                if p == 1 and not (cand.sharding is Sharding.ZERO3 and big):
                    # Without a pipeline the plan fits and has no bubble: more stages at
                    # this (t, cp) could only be slower.
                    break
        if found:
            break
    return found, least_gb


def _fit(
    workload: Workload,
    gps: int,
    usable: float,
    overhead: float,
    big: bool,
    t: int,
    cp: int,
    p: int,
    act: float,
) -> tuple[Candidate | None, float]:
    """The simplest ZeRO stage that fits at (t, cp, p), and the least memory it could need.

    A mixture of experts keeps its routed experts apart: expert parallelism spreads their
    full states over the data-parallel GPUs (``min_data_parallel``); ZeRO applies to the
    shared weights. LoRA and QLoRA freeze the experts with the rest of the base."""
    split = workload_split(workload) if workload.kind in FULL_STATE_KINDS else None
    experts = split.experts if split is not None else 1
    expert_params = split.expert_params if split is not None else 0.0
    per_gpu_params = (workload.params - expert_params) / (t * p)
    expert_gb = expert_params / (t * p) * sum(state_bytes(workload, Sharding.DDP)) / BYTES_PER_GB
    if workload.sharding is not None:
        stages = [workload.sharding]
    elif p == 1:
        stages = [Sharding.DDP, Sharding.ZERO3]
    else:  # Megatron-style: the distributed optimizer shards only optimizer state
        stages = [Sharding.DDP, Sharding.ZERO1]
    free = usable - act - overhead
    least = math.inf
    for stage in stages:
        rep_b, shard_b = state_bytes(workload, stage)
        rep = per_gpu_params * rep_b / BYTES_PER_GB
        shard = per_gpu_params * shard_b / BYTES_PER_GB
        least = min(least, act + overhead + rep + expert_gb / experts)
        dp_min = min_data_parallel(rep, shard, expert_gb, experts, cp, free)
        if dp_min is None:
            continue
        cand = Candidate(t, cp, p, stage, act, rep, shard, dp_min, expert_gb, experts)
        spans_servers = cand.gpus_to_fit > gps
        if stage is Sharding.ZERO3 and big and workload.sharding is None and spans_servers:
            continue  # at this size the plan is 3D, not ZeRO-3 over the network
        return cand, least
    return None, least


def global_sequences(workload: Workload) -> float:
    return max(1.0, workload.global_batch_tokens / workload.sequence_length)


def micro_batches(workload: Workload, dp: int) -> int:
    """Micro-batches per pipeline per step: global batch ÷ (data parallel × micro-batch)."""
    return max(1, int(global_sequences(workload) / (dp * workload.micro_batch_size)))


@dataclass(frozen=True, slots=True)
class Placed:
    cand: Candidate
    dp: int
    micro_batches: int
    bubble: float

    @property
    def used_gpus(self) -> int:
        return self.cand.model_parallel * self.dp

    @property
    def rate(self) -> float:
        return self.used_gpus * (1.0 - self.bubble)


def place(
    workload: Workload,
    cands: list[Candidate],
    gpus: int,
    gps: int,
    exchange_share: Callable[[Placed], float] | None = None,
) -> Placed | None:
    """Best plan on ``gpus`` GPUs: most useful throughput, then the simplest.

    ``exchange_share(plan)``: the time a step spends exchanging (gradients, a mixture's
    tokens, tensor-parallel activations), as a share of its compute; throughput is
    divided by 1 + it. Tensor parallelism shrinks each GPU's gradients but exchanges
    activations in every layer, so a plan pays for one or the other."""
    big = workload.params >= defaults.FSDP_MAX_PARAMS_ACROSS_SERVERS
    best: Placed | None = None
    best_key: tuple[float, int, int, int, int] | None = None
    for c in cands:
        dp = gpus // c.model_parallel
        if dp < c.dp_min:
            continue
        zero3_over_network = dp * c.model_parallel > gps and c.sharding is Sharding.ZERO3
        if zero3_over_network and big and workload.sharding is None:
            continue
        m = micro_batches(workload, dp)
        placed = Placed(c, dp, m, pipeline_bubble(c.p, m))
        slowdown = 1.0 + (exchange_share(placed) if exchange_share is not None else 0.0)
        key = (-placed.rate / slowdown, c.p, c.cp, c.t, SHARDING_RANK[c.sharding])
        if best_key is None or key < best_key:
            best, best_key = placed, key
    return best
