"""What sizing a workload gives: the memory per GPU, the parallelism plan and the fleet."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tco.engine.inputs import ModelShape, Sharding, WorkloadKind
from tco.engine.notes import Note

if TYPE_CHECKING:  # the serving plan's module sizes with these results
    from tco.engine.sizing.inference import ServingPlan

Params = dict[str, object]


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
    context_parallel: int = 1
    sequence_parallel: bool = False
    micro_batches: int | None = None
    pipeline_bubble: float = 0.0
    reason_code: str = ""
    reason_params: Params = field(default_factory=dict)


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
    gpu_hours: float | None = None
    hardware_flops_utilization: float | None = None
    usable_memory_gb: float | None = None
    note_details: tuple[Note, ...] = ()
    serving: ServingPlan | None = None  # inference: the chosen copy, batch and latency
    warnings: tuple[Note, ...] = ()  # notes the buyer must see (the result's warnings)
    expert_parallel: int | None = None  # training a mixture of experts
    all_to_all_hours: float | None = None  # of the training hours: the experts' exchange
    gradient_exchange_hours: float | None = None  # of the training hours: gradients' exposed

    @property
    def memory_per_gpu_gb(self) -> float:
        return self.memory.total_gb

    @property
    def concurrent_sequences(self) -> int | None:
        """Sequences each copy holds at the sized peak (inference)."""
        return self.serving.peak.batch if self.serving is not None else None

    @property
    def max_concurrent_sequences(self) -> int | None:
        """The largest batch a copy takes within memory and the latency targets."""
        return self.serving.option.batch if self.serving is not None else None
