"""Pure calculation core of the GPU TCO tool: sizing, costs, finance, sensitivity.

Plain Python and numpy/pandas only; no Django, no settings, no database.
Start with :func:`evaluate`; see docs/methodology.md for every formula.
"""

from tco.engine.capacity import CapacityInputs, CapacityPlan, LatePolicy, plan_capacity
from tco.engine.cloud import cloud_cashflow, cloud_params
from tco.engine.compute import (
    scaling_efficiency,
    training_flops,
    training_hours,
)
from tco.engine.constraints import EU_COUNTRIES, Constraints, violations
from tco.engine.costmodel import (
    CloudCostParams,
    CostModel,
    break_even,
    cloud_totals,
    onprem_totals,
)
from tco.engine.decode import DecodeStep, ServingPoint, decode_step, prefill_seconds
from tco.engine.demand import DemandPlan, plan_demand
from tco.engine.errors import DeadlineInfeasible, DoesNotFit, EngineError, InvalidInput
from tco.engine.extras import OwningExtras, owning_extras
from tco.engine.finance import (
    annuity_factor,
    break_even_utilization,
    lease_payment,
    monthly_discount_rate,
    payback_month,
)
from tco.engine.horizons import HORIZONS_MONTHS, HorizonView, horizon_view
from tco.engine.hosted_api import ApiOptionResult
from tco.engine.hybrid import HybridResult, optimise_hybrid
from tco.engine.inference import LatencyTargets, ServingPlan
from tco.engine.inputs import (
    ApiOfferingSpec,
    CloudOfferingSpec,
    CloudTerm,
    Demand,
    DemandPattern,
    FinanceInputs,
    GpuSpec,
    Interconnect,
    LabeledAmount,
    LeaseTerms,
    ModelShape,
    Optimizer,
    Precision,
    PriceBasis,
    Recompute,
    Scenario,
    ServerSpec,
    ServingDemand,
    ServingUse,
    Sharding,
    SiteSpec,
    UncertaintyRanges,
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
from tco.engine.montecarlo import Confidence, monte_carlo
from tco.engine.notes import Note
from tco.engine.onprem import onprem_cashflow
from tco.engine.options import CloudOptionResult, OnPremResult, compare_options
from tco.engine.ownership import (
    Financing,
    LeaseOption,
    ResellResult,
    buy_run_resell,
    financing,
    resale_fraction,
)
from tco.engine.racks import RackPlan, plan_racks
from tco.engine.scenario import (
    OwningPlan,
    ScenarioResult,
    SizingMemo,
    build_cost_model,
    cost_of_owning,
    costs_of_owning,
    evaluate,
    fleet_extras,
    owning_plan,
    result_to_dict,
    verdict_text,
)
from tco.engine.sensitivity import TORNADO_INPUTS, Tornado, TornadoBar, tornado
from tco.engine.serving import ServingLoad, ServingOutcome, derive_load
from tco.engine.sizing import MemoryBreakdown, ParallelismPlan, SizingResult, size_workload
from tco.engine.sweep import SweepResult, sweep
from tco.engine.units import HOURS_PER_MONTH, FxRates, Money
from tco.engine.verdict import Candidate, RankedOption, Verdict, decide

__all__ = [
    "EU_COUNTRIES",
    "HORIZONS_MONTHS",
    "HOURS_PER_MONTH",
    "TORNADO_INPUTS",
    "ApiOfferingSpec",
    "ApiOptionResult",
    "Candidate",
    "CapacityInputs",
    "CapacityPlan",
    "CloudCostParams",
    "CloudOfferingSpec",
    "CloudOptionResult",
    "CloudTerm",
    "Confidence",
    "Constraints",
    "CostModel",
    "DeadlineInfeasible",
    "DecodeStep",
    "Demand",
    "DemandPattern",
    "DemandPlan",
    "DoesNotFit",
    "EngineError",
    "FinanceInputs",
    "Financing",
    "FxRates",
    "GpuSpec",
    "HorizonView",
    "HybridResult",
    "Interconnect",
    "InvalidInput",
    "LabeledAmount",
    "LatePolicy",
    "LatencyTargets",
    "LeaseOption",
    "LeaseTerms",
    "MemoryBreakdown",
    "ModelShape",
    "Money",
    "Note",
    "OnPremResult",
    "Optimizer",
    "OwningExtras",
    "OwningPlan",
    "ParallelismPlan",
    "Precision",
    "PriceBasis",
    "RackPlan",
    "RankedOption",
    "Recompute",
    "ResellResult",
    "Scenario",
    "ScenarioResult",
    "ServerSpec",
    "ServingDemand",
    "ServingLoad",
    "ServingOutcome",
    "ServingPlan",
    "ServingPoint",
    "ServingUse",
    "Sharding",
    "SiteSpec",
    "SizingMemo",
    "SizingResult",
    "SweepResult",
    "Tornado",
    "TornadoBar",
    "UncertaintyRanges",
    "Verdict",
    "Workload",
    "WorkloadKind",
    "activation_gb_per_gpu",
    "annuity_factor",
    "break_even",
    "break_even_utilization",
    "build_cost_model",
    "buy_run_resell",
    "cloud_cashflow",
    "cloud_params",
    "cloud_totals",
    "compare_options",
    "cost_of_owning",
    "costs_of_owning",
    "decide",
    "decode_step",
    "default_shape",
    "derive_load",
    "evaluate",
    "financing",
    "fleet_extras",
    "horizon_view",
    "kv_cache_gb",
    "lease_payment",
    "lora_state_gb",
    "model_state_gb_per_gpu",
    "monte_carlo",
    "monthly_discount_rate",
    "onprem_cashflow",
    "onprem_totals",
    "optimise_hybrid",
    "owning_extras",
    "owning_plan",
    "payback_month",
    "plan_capacity",
    "plan_demand",
    "plan_racks",
    "prefill_seconds",
    "resale_fraction",
    "result_to_dict",
    "scaling_efficiency",
    "size_workload",
    "sweep",
    "tornado",
    "training_flops",
    "training_hours",
    "verdict_text",
    "violations",
]
