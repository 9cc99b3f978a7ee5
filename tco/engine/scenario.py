"""The one-call API: ``evaluate(scenario)`` and a JSON-ready view of the result."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tco.engine.cloud import cloud_params
from tco.engine.costmodel import CostModel
from tco.engine.inputs import Scenario
from tco.engine.options import CloudOptionResult, OnPremResult, compare_options
from tco.engine.racks import RackPlan, plan_racks
from tco.engine.sensitivity import Tornado, tornado
from tco.engine.sizing import SizingResult, size_workload
from tco.engine.units import HOURS_PER_MONTH


@dataclass(frozen=True, slots=True, eq=False)
class ScenarioResult:
    scenario: Scenario
    currency: str
    sizing: SizingResult
    rack_plan: RackPlan
    cost_model: CostModel
    onprem: OnPremResult
    cloud_options: tuple[CloudOptionResult, ...]
    tornado: Tornado
    energy_kwh: float
    carbon_tonnes: float | None


def build_cost_model(scenario: Scenario, servers: int) -> CostModel:
    """Flatten a scenario into the cost core's inputs, in the reporting currency."""
    fin, site, server = scenario.finance, scenario.site, scenario.server
    fx, cur = fin.fx, fin.reporting_currency

    def site_money(x: float) -> float:
        return fx.convert(x, site.currency, cur)

    def fin_money(x: float) -> float:
        return fx.convert(x, fin.currency, cur)

    return CostModel(
        servers=float(servers),
        gpus_per_server=float(server.gpus_per_server),
        server_price=fx.convert(server.price.amount, server.price.currency, cur),
        idle_power_kw=server.idle_power_kw,
        max_power_kw=server.max_power_kw,
        pue=site.pue,
        electricity_price_per_kwh=site_money(site.electricity_price_per_kwh),
        colocation_per_kw_month=site_money(site.colocation_per_kw_month),
        utilization=fin.utilization,
        horizon_months=float(fin.horizon_months),
        discount_rate=fin.discount_rate,
        clouds=tuple(cloud_params(o, fx, cur) for o in scenario.cloud_offerings),
        networking_per_server=fin_money(fin.networking_per_server),
        storage_total=fin_money(fin.storage_total),
        installation_per_server=fin_money(fin.installation_per_server),
        spares_pct=fin.spares_pct,
        colocation_on_facility_kw=1.0 if site.colocation_billed_on_facility_kw else 0.0,
        support_pct_per_year=fin.support_pct_per_year,
        staff_fte=fin.staff_fte,
        staff_annual_cost=fin_money(fin.staff_annual_cost),
        software_per_gpu_year=fin_money(fin.software_per_gpu_year),
        insurance_pct_per_year=fin.insurance_pct_per_year,
        residual_pct=fin.residual_pct,
        leased=1.0 if fin.lease is not None else 0.0,
        lease_annual_rate=fin.lease.annual_rate if fin.lease is not None else 0.0,
        lease_term_months=float(fin.lease.term_months) if fin.lease is not None else 36.0,
    )


def evaluate(scenario: Scenario) -> ScenarioResult:
    """Size the workload, plan racks, cost on-prem and every cloud option, run the tornado."""
    sizing = size_workload(scenario.workload, scenario.server, scenario.servers)
    servers = sizing.servers_required
    racks = plan_racks(servers, scenario.server, scenario.site)
    model = build_cost_model(scenario, servers)
    onprem, clouds = compare_options(model, sizing.tokens_per_second_capacity)
    fin, server, site = scenario.finance, scenario.server, scenario.site
    avg_kw = server.idle_power_kw + (server.max_power_kw - server.idle_power_kw) * fin.utilization
    energy_kwh = servers * avg_kw * site.pue * HOURS_PER_MONTH * fin.horizon_months
    carbon = (
        energy_kwh * site.carbon_kg_per_kwh / 1000.0 if site.carbon_kg_per_kwh is not None else None
    )
    return ScenarioResult(
        scenario=scenario,
        currency=fin.reporting_currency,
        sizing=sizing,
        rack_plan=racks,
        cost_model=model,
        onprem=onprem,
        cloud_options=clouds,
        tornado=tornado(model, pct=fin.tornado_pct),
        energy_kwh=energy_kwh,
        carbon_tonnes=carbon,
    )


def _num(x: float | None, digits: int = 6) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return round(float(x), digits)


def result_to_dict(result: ScenarioResult, include_cashflows: bool = False) -> dict[str, Any]:
    """A JSON-serialisable summary (floats rounded, NaN/inf as None)."""
    s = result.sizing
    sizing: dict[str, Any] = {
        "kind": s.kind.value,
        "memory_per_gpu_gb": _num(s.memory_per_gpu_gb, 3),
        "memory_breakdown_gb": {
            "model_states": _num(s.memory.model_states_gb, 3),
            "activations": _num(s.memory.activations_gb, 3),
            "kv_cache": _num(s.memory.kv_cache_gb, 3),
            "overhead": _num(s.memory.overhead_gb, 3),
        },
        "gpu_memory_gb": s.gpu_memory_gb,
        "usable_memory_gb": _num(s.usable_memory_gb, 3),
        "gpus_to_fit": s.gpus_to_fit,
        "gpus_required": s.gpus_required,
        "servers_required": s.servers_required,
        "sharding": s.sharding.value if s.sharding else None,
        "parallelism": {
            "strategy": s.parallelism.strategy,
            "data_parallel": s.parallelism.data_parallel,
            "tensor_parallel": s.parallelism.tensor_parallel,
            "pipeline_parallel": s.parallelism.pipeline_parallel,
            "context_parallel": s.parallelism.context_parallel,
            "sequence_parallel": s.parallelism.sequence_parallel,
            "micro_batches": s.parallelism.micro_batches,
            "pipeline_bubble": _num(s.parallelism.pipeline_bubble, 4),
            "reason": s.parallelism.reason,
            "reason_code": s.parallelism.reason_code,
            "reason_params": dict(s.parallelism.reason_params),
        },
        "model_shape": {
            "layers": s.shape.layers,
            "hidden_size": s.shape.hidden_size,
            "attention_heads": s.shape.attention_heads,
            "kv_heads": s.shape.kv_heads,
        },
        "notes": list(s.notes),
        "note_details": [
            {"code": n.code, "params": dict(n.params), "text": n.text} for n in s.note_details
        ],
    }
    if s.kind.is_training:
        sizing.update(
            training_flops=s.training_flops,
            training_hours=_num(s.training_hours, 2),
            training_days=_num(s.training_days, 2),
            gpu_hours=_num(s.gpu_hours, 1),
            hardware_flops_utilization=_num(s.hardware_flops_utilization, 4),
            scaling_efficiency=_num(s.scaling_efficiency, 4),
        )
    else:
        sizing.update(
            gpus_per_replica=s.gpus_per_replica,
            replicas=s.replicas,
            tokens_per_second_per_replica=_num(s.tokens_per_second_per_replica, 1),
            tokens_per_second_capacity=_num(s.tokens_per_second_capacity, 1),
        )
    r = result.rack_plan
    on = result.onprem
    options: list[dict[str, Any]] = [
        {
            "name": on.name,
            "kind": "onprem",
            "total_cost": _num(on.total_cost, 2),
            "npv": _num(on.npv, 2),
            "upfront_cost": _num(on.upfront_cost, 2),
            "monthly_opex": _num(on.monthly_opex, 2),
            "break_even_utilization": None,
            "break_even_note": "",
            "payback_month": None,
            "cost_per_gpu_hour": _num(on.cost_per_gpu_hour, 4),
            "cost_per_million_tokens": _num(on.cost_per_million_tokens, 4),
        }
    ]
    for c in result.cloud_options:
        options.append(
            {
                "name": c.name,
                "kind": "cloud",
                "instances": c.instances,
                "total_cost": _num(c.total_cost, 2),
                "npv": _num(c.npv, 2),
                "break_even_utilization": _num(c.break_even_utilization, 4),
                "break_even_note": c.break_even_note,
                "payback_month": c.payback_month,
                "cost_per_gpu_hour": _num(c.cost_per_gpu_hour, 4),
                "cost_per_million_tokens": _num(c.cost_per_million_tokens, 4),
            }
        )
    if include_cashflows:
        frames = [on.cashflow, *(c.cashflow for c in result.cloud_options)]
        for option, frame in zip(options, frames, strict=True):
            option["cashflow"] = {
                "month": [int(m) for m in frame.index],
                **{col: [round(float(v), 2) for v in frame[col]] for col in frame.columns},
            }
    t = result.tornado
    return {
        "scenario": result.scenario.name,
        "currency": result.currency,
        "horizon_months": result.scenario.finance.horizon_months,
        "utilization": result.scenario.finance.utilization,
        "sizing": sizing,
        "racks": {
            "servers": r.servers,
            "servers_per_rack": r.servers_per_rack,
            "racks_required": r.racks_required,
            "it_kw": _num(r.it_kw, 3),
            "facility_kw": _num(r.facility_kw, 3),
            "needs_liquid_cooling": r.needs_liquid_cooling,
            "server_exceeds_rack_power": r.server_exceeds_rack_power,
            "limited_by": r.limited_by,
            "warnings": list(r.warnings),
        },
        "energy_kwh": _num(result.energy_kwh, 1),
        "carbon_tonnes": _num(result.carbon_tonnes, 3),
        "options": options,
        "tornado": {
            "metric": t.metric,
            "reference_option": t.reference_option,
            "base_value": _num(t.base_value, 2),
            "bars": [
                {
                    "input": b.input_name,
                    "label": b.label,
                    "base_input": _num(b.base_input),
                    "low_input": _num(b.low_input),
                    "high_input": _num(b.high_input),
                    "low_value": _num(b.low_value, 2),
                    "high_value": _num(b.high_value, 2),
                }
                for b in t.bars
            ],
        },
    }
