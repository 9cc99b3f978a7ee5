"""The sizing and rack blocks of the report, from the engine's sizing and rack plan."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tco.report import models as rm
from tco.report.rounding import figure

if TYPE_CHECKING:
    from tco.engine.notes import Note
    from tco.engine.racks import RackPlan
    from tco.engine.sizing import SizingResult


def note(n: Note) -> rm.Note:
    """A note or warning: code, parameters, whether the buyer must see it, English text."""
    return rm.Note(code=n.code, params=dict(n.params), warning=n.warning, text=n.text)


def notes(ns: tuple[Note, ...] | list[Note]) -> list[rm.Note]:
    return [note(n) for n in ns]


def sizing(s: SizingResult) -> rm.Sizing:
    """GPUs, servers, memory and parallel plan; a training run's time or a served
    model's replicas and latency."""
    kind_fields = _training(s) if s.kind.is_training else _inference(s)
    return rm.Sizing(
        kind=s.kind.value,
        memory_per_gpu_gb=figure(s.memory_per_gpu_gb, 3),
        memory_breakdown_gb=rm.MemoryBreakdown(
            model_states=figure(s.memory.model_states_gb, 3),
            activations=figure(s.memory.activations_gb, 3),
            kv_cache=figure(s.memory.kv_cache_gb, 3),
            overhead=figure(s.memory.overhead_gb, 3),
        ),
        gpu_memory_gb=s.gpu_memory_gb,
        usable_memory_gb=figure(s.usable_memory_gb, 3),
        gpus_to_fit=s.gpus_to_fit,
        gpus_required=s.gpus_required,
        servers_required=s.servers_required,
        sharding=s.sharding.value if s.sharding else None,
        parallelism=_parallelism(s),
        model_shape=rm.ModelShape(
            layers=s.shape.layers,
            hidden_size=s.shape.hidden_size,
            attention_heads=s.shape.attention_heads,
            kv_heads=s.shape.kv_heads,
        ),
        notes=list(s.notes),
        # the sizing's own notes word themselves (no ``warning`` flag written)
        note_details=[
            rm.Note(code=n.code, params=dict(n.params), text=n.text) for n in s.note_details
        ],
        **kind_fields,
    )


def _parallelism(s: SizingResult) -> rm.Parallelism:
    p = s.parallelism
    return rm.Parallelism(
        strategy=p.strategy,
        data_parallel=p.data_parallel,
        tensor_parallel=p.tensor_parallel,
        pipeline_parallel=p.pipeline_parallel,
        context_parallel=p.context_parallel,
        sequence_parallel=p.sequence_parallel,
        micro_batches=p.micro_batches,
        pipeline_bubble=figure(p.pipeline_bubble, 4),
        reason=p.reason,
        reason_code=p.reason_code,
        reason_params=dict(p.reason_params),
    )


def _training(s: SizingResult) -> dict[str, Any]:
    """A training run's fields (only these are written: a served model has none)."""
    fields: dict[str, Any] = {
        "training_flops": s.training_flops,  # not rounded
        "training_hours": figure(s.training_hours, 2),
        "training_days": figure(s.training_days, 2),
        "gpu_hours": figure(s.gpu_hours, 1),
        "hardware_flops_utilization": figure(s.hardware_flops_utilization, 4),
        "scaling_efficiency": figure(s.scaling_efficiency, 4),
    }
    if s.expert_parallel is not None:
        fields |= {
            "expert_parallel": s.expert_parallel,
            "all_to_all_hours": figure(s.all_to_all_hours, 2),
        }
    return fields


def _inference(s: SizingResult) -> dict[str, Any]:
    """A served model's fields, with the batch and latency when sized for serving."""
    return {
        "gpus_per_replica": s.gpus_per_replica,
        "replicas": s.replicas,
        "tokens_per_second_per_replica": figure(s.tokens_per_second_per_replica, 1),
        "tokens_per_second_capacity": figure(s.tokens_per_second_capacity, 1),
        **_serving_sizing(s),
    }


def _serving_sizing(s: SizingResult) -> dict[str, Any]:
    """The copy's batch, latency at the sized peak against its targets, and the decode
    step's parts (docs/scenario.md, "sizing" of inference); nothing without a serving plan."""
    plan = s.serving
    if plan is None:
        return {}
    peak = plan.peak
    return {
        "concurrent_sequences": peak.batch,
        "max_concurrent_sequences": plan.option.batch,
        "memory_concurrent_sequences": plan.option.memory_batch,
        "context_tokens": plan.requests.context_tokens,
        # Without a prompt length (tokens/s given directly) no prefill is sized: the time
        # to the first token is then one pass over the weights (a one-token prompt), not
        # what a user would wait.
        "prompts_sized": plan.requests.input_tokens > 0,
        "time_per_output_token_ms": figure(peak.time_per_output_token_s * 1000.0, 3),
        "time_to_first_token_ms": figure(peak.time_to_first_token_s * 1000.0, 3),
        "latency_targets": rm.LatencyTargets(
            use=plan.use.value,
            time_per_output_token_ms=plan.targets.time_per_output_token_ms,
            time_to_first_token_ms=plan.targets.time_to_first_token_ms,
            met=plan.targets.met_by(peak),
        ),
        "decode_step_ms": rm.DecodeStep(
            weights=figure(peak.step.weights_s * 1000.0, 4),
            experts=figure(peak.step.experts_s * 1000.0, 4),
            kv_cache=figure(peak.step.attention_s * 1000.0, 4),
            communication=figure(peak.step.communication_s * 1000.0, 4),
            total=figure(peak.step.total_s * 1000.0, 4),
            prefill_share=figure(peak.prefill_share_s * 1000.0, 4),
        ),
        "prefill_ms": figure(peak.prefill_s * 1000.0, 3),
    }


def racks(r: RackPlan) -> rm.Racks:
    """Servers per rack, racks, IT and facility power, cooling."""
    return rm.Racks(
        servers=r.servers,
        servers_per_rack=r.servers_per_rack,
        racks_required=r.racks_required,
        it_kw=figure(r.it_kw, 3),
        facility_kw=figure(r.facility_kw, 3),
        needs_liquid_cooling=r.needs_liquid_cooling,
        server_exceeds_rack_power=r.server_exceeds_rack_power,
        limited_by=r.limited_by,
        warnings=list(r.warnings),
        warning_details=notes(r.warning_details),
    )
