"""Property tests (hypothesis) of the plan search: whatever it returns, it fits and adds up."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import DeadlineInfeasible, DoesNotFit, Recompute, Workload, WorkloadKind
from tco.engine.examples import HGX_H100_SERVER
from tco.engine.sizing import size_workload

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def workloads(draw: st.DrawFn) -> Workload:
    return Workload(
        kind=draw(st.sampled_from([WorkloadKind.PRETRAIN, WorkloadKind.LORA])),
        params_billion=draw(st.floats(0.1, 2000.0)),
        tokens_billion=draw(st.floats(0.1, 20_000.0)),
        sequence_length=draw(st.sampled_from([1024, 2048, 4096, 8192, 32_768, 131_072])),
        micro_batch_size=draw(st.sampled_from([1, 2, 4, 16])),
        recompute=draw(st.sampled_from(list(Recompute))),
        memory_headroom=draw(st.sampled_from([0.0, 0.05, 0.1, 0.2])),
        deadline_days=draw(st.one_of(st.none(), st.floats(1.0, 365.0))),
    )


@FAST
@given(workloads())
def test_every_plan_fits_and_adds_up(w: Workload) -> None:
    try:
        r = size_workload(w, HGX_H100_SERVER)
    except (DoesNotFit, DeadlineInfeasible) as err:
        assert err.code and err.params
        return
    plan = r.parallelism
    usable = 80.0 * (1 - w.memory_headroom)
    assert r.memory_per_gpu_gb <= usable + 1e-9
    used = plan.tensor_parallel * plan.context_parallel * plan.pipeline_parallel
    used *= plan.data_parallel
    assert used <= r.gpus_required == 8 * r.servers_required
    assert r.gpus_to_fit <= r.gpus_required
    assert 8 % plan.tensor_parallel == 0
    assert 0.0 <= plan.pipeline_bubble < 1.0
    assert plan.reason and plan.reason_code
    assert r.training_hours is not None
    assert r.gpu_hours == pytest.approx(r.training_hours * r.gpus_required)
    if w.deadline_days is not None and not r.notes:
        assert r.training_days is not None and r.training_days <= w.deadline_days + 1e-9
