"""How many GPUs and servers a workload needs, and how to split it across them.

Three parts: ``parallelism`` (the candidate plans of a training run and their placement;
the tensor-parallel degrees a server allows, which serving shares), ``training`` (the
memory fit, then the fleet that meets the deadline) and ``inference`` (the copies, their
layout and batch that serve the target). ``results`` holds what they give.
The engine speaks in codes: every reason and note carries a code and its
parameters (for the Django layer to word) next to an English sentence.
"""

from __future__ import annotations

from tco.engine.inputs import ServerSpec, Workload, WorkloadKind
from tco.engine.sizing.inference import LatencyTargets, ServingPlan, size_inference
from tco.engine.sizing.parallelism import MAX_SERVERS, min_data_parallel, usable_memory_gb
from tco.engine.sizing.results import MemoryBreakdown, ParallelismPlan, SizingResult
from tco.engine.sizing.training import servers_for_deadline, size_training

__all__ = [
    "MAX_SERVERS",
    "LatencyTargets",
    "MemoryBreakdown",
    "ParallelismPlan",
    "ServingPlan",
    "SizingResult",
    "min_data_parallel",
    "servers_for_deadline",
    "size_inference",
    "size_training",
    "size_workload",
    "usable_memory_gb",
]


def size_workload(
    workload: Workload, server: ServerSpec, servers: int | None = None
) -> SizingResult:
    """Size a training or inference workload on ``server``; see the two helpers."""
    if workload.kind is WorkloadKind.INFERENCE:
        return size_inference(workload, server, servers)
    return size_training(workload, server, servers)
