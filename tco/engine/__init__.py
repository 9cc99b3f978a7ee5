"""Pure calculation core of the GPU TCO tool: sizing, costs, finance, sensitivity.

Plain Python and numpy/pandas only; no Django, no settings, no database.
Start with :func:`evaluate`; see docs/methodology.md for every formula.
"""

from tco.engine.cloud import cloud_cashflow, cloud_params
from tco.engine.compute import (
    decode_tokens_per_second,
    scaling_efficiency,
    training_flops,
    training_hours,
)
from tco.engine.costmodel import (
    CloudCostParams,
    CostModel,
    break_even,
    cloud_totals,
    onprem_totals,
)
from tco.engine.errors import DeadlineInfeasible, DoesNotFit, EngineError, InvalidInput
from tco.engine.finance import (
    annuity_factor,
    break_even_utilization,
    lease_payment,
    monthly_discount_rate,
    payback_month,
)
from tco.engine.hybrid import HybridResult, optimise_hybrid
from tco.engine.inputs import (
    CloudOfferingSpec,
    CloudTerm,
    FinanceInputs,
    GpuSpec,
    Interconnect,
    LeaseTerms,
    ModelShape,
    Optimizer,
    Precision,
    PriceBasis,
    Recompute,
    Scenario,
    ServerSpec,
    Sharding,
    SiteSpec,
    Workload,
    WorkloadKind,
)
from tco.engine.memory import (
    activation_gb_per_gpu,
    default_shape,
    kv_cache_gb,
    lora_state_gb,
    model_state_gb_per_gpu,
)
from tco.engine.onprem import onprem_cashflow
from tco.engine.options import CloudOptionResult, OnPremResult, compare_options
from tco.engine.racks import RackPlan, plan_racks
from tco.engine.scenario import ScenarioResult, build_cost_model, evaluate, result_to_dict
from tco.engine.sensitivity import TORNADO_INPUTS, Tornado, TornadoBar, tornado
from tco.engine.sizing import MemoryBreakdown, ParallelismPlan, SizingResult, size_workload
from tco.engine.sweep import SweepResult, sweep
from tco.engine.units import HOURS_PER_MONTH, FxRates, Money

__all__ = [
    "HOURS_PER_MONTH",
    "TORNADO_INPUTS",
    "CloudCostParams",
    "CloudOfferingSpec",
    "CloudOptionResult",
    "CloudTerm",
    "CostModel",
    "DeadlineInfeasible",
    "DoesNotFit",
    "EngineError",
    "FinanceInputs",
    "FxRates",
    "GpuSpec",
    "HybridResult",
    "Interconnect",
    "InvalidInput",
    "LeaseTerms",
    "MemoryBreakdown",
    "ModelShape",
    "Money",
    "OnPremResult",
    "Optimizer",
    "ParallelismPlan",
    "Precision",
    "PriceBasis",
    "RackPlan",
    "Recompute",
    "Scenario",
    "ScenarioResult",
    "ServerSpec",
    "Sharding",
    "SiteSpec",
    "SizingResult",
    "SweepResult",
    "Tornado",
    "TornadoBar",
    "Workload",
    "WorkloadKind",
    "activation_gb_per_gpu",
    "annuity_factor",
    "break_even",
    "break_even_utilization",
    "build_cost_model",
    "cloud_cashflow",
    "cloud_params",
    "cloud_totals",
    "compare_options",
    "decode_tokens_per_second",
    "default_shape",
    "evaluate",
    "kv_cache_gb",
    "lease_payment",
    "lora_state_gb",
    "model_state_gb_per_gpu",
    "monthly_discount_rate",
    "onprem_cashflow",
    "onprem_totals",
    "optimise_hybrid",
    "payback_month",
    "plan_racks",
    "result_to_dict",
    "scaling_efficiency",
    "size_workload",
    "sweep",
    "tornado",
    "training_flops",
    "training_hours",
]
