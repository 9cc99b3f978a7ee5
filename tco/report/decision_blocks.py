"""The decision blocks of the report: the verdict and the reference option's
break-evens, the hybrid, lease, Monte Carlo confidence, constraints, horizons, tornado."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tco.engine.scenario import DEFAULT_RANGES, RESELL_NAME, verdict_text
from tco.report import models as rm
from tco.report.rounding import figure
from tco.report.sizing_blocks import notes

if TYPE_CHECKING:
    from tco.engine import ScenarioResult
    from tco.engine.hybrid import HybridResult
    from tco.engine.inputs import UncertaintyRanges


def verdict(result: ScenarioResult) -> rm.Verdict:
    """Buy, rent or a mix, as a code and its parameters (floats to 4 digits), and the
    English headline of the command line."""
    v = result.verdict
    return rm.Verdict(
        action=v.action,
        code=v.code,
        params={k: figure(x, 4) if isinstance(x, float) else x for k, x in v.params.items()},
        recommended=v.recommended,
        reference_cloud=v.reference_cloud,
        owning=v.owning,
        owning_kind=v.owning_kind,
        renting=v.renting,
        text=verdict_text(v, result.currency),
    )


def reference_figures(result: ScenarioResult) -> dict[str, Any]:
    """The break-evens of the rented option the verdict compares owning with: a cloud
    offering's month, utilization and runs a year, or a hosted API's requests a day."""
    name = result.verdict.reference_cloud
    clouds = result.cloud_options
    k = next((k for k, c in enumerate(clouds) if c.name == name), None)
    api = next((x for x in result.api_options if x.name == name), None)
    cloud = clouds[k] if k is not None else None
    return {
        "break_even_requests_per_day": figure(api.break_even_requests_per_day, 1)
        if api is not None
        else None,
        "break_even_beyond_capacity": api.break_even_beyond_capacity if api is not None else None,
        "break_even_month": figure(cloud.break_even_month, 2) if cloud else None,
        "break_even_utilization": figure(cloud.break_even_utilization, 4) if cloud else None,
        "break_even_runs_per_year": figure(result.break_even_runs_per_year[k], 2)
        if k is not None
        else None,
        "owning_wins_above": cloud.owning_wins_above if cloud else None,
    }


def hybrid(result: ScenarioResult) -> rm.Hybrid | None:
    """Own N servers for the base, rent the rest (demand that varies only)."""
    hy = result.hybrid
    if hy is None:
        return None
    return rm.Hybrid(
        cloud_option=result.hybrid_option,
        owned_servers=hy.owned_servers,
        peak_servers=len(hy.total_by_owned_servers) - 1,
        total_cost=figure(hy.total_cost, 2),
        npv=figure(hy.npv, 2),
        onprem_cost=figure(hy.onprem_cost, 2),
        cloud_cost=figure(hy.cloud_cost, 2),
        all_cloud_total=figure(hy.all_cloud_total, 2),
        all_onprem_total=figure(hy.all_onprem_total, 2),
        reason=_hybrid_reason(hy),
    )


def _hybrid_reason(hy: HybridResult) -> str:
    """Why the hybrid optimum is what it is, as a code."""
    peak = len(hy.total_by_owned_servers) - 1
    if hy.owned_servers == 0:
        return "all_rent_cheapest"
    if hy.owned_servers >= peak:
        return "all_own_cheapest"
    return "mix_cheapest"


def lease(result: ScenarioResult) -> rm.Lease:
    """Cash against a lease of each term, and the rented option's monthly cost."""
    fi = result.financing
    return rm.Lease(
        upfront=figure(fi.upfront, 2),
        cash_total=figure(fi.cash_total, 2),
        cash_npv=figure(fi.cash_npv, 2),
        cloud_option=fi.cloud_option,
        cloud_monthly=figure(fi.cloud_monthly, 2),
        terms=[
            rm.LeaseTerm(
                term_months=lo.term_months,
                annual_rate=lo.annual_rate,
                monthly_payment=figure(lo.monthly_payment, 2),
                total_cost=figure(lo.total_cost, 2),
                npv=figure(lo.npv, 2),
            )
            for lo in fi.leases
        ],
    )


def confidence(result: ScenarioResult) -> rm.Confidence | None:
    """How sure the verdict is: the Monte Carlo's share of draws and savings."""
    c = result.confidence
    if c is None:
        return None
    return rm.Confidence(
        favours=c.favours,
        probability=figure(c.probability, 4),
        draws=c.draws,
        saving_p10=figure(c.saving_p10, 2),
        saving_p50=figure(c.saving_p50, 2),
        saving_p90=figure(c.saving_p90, 2),
        saving_mean=figure(c.saving_mean, 2),
        ranges=_ranges(result.scenario.uncertainty or DEFAULT_RANGES),
    )


def _ranges(r: UncertaintyRanges) -> rm.Ranges:
    return rm.Ranges(
        cloud_price_trend=list(r.cloud_price_trend),
        electricity=list(r.electricity),
        demand=list(r.demand),
        server_price=list(r.server_price),
        resale=list(r.resale),
        discount_rate=list(r.discount_rate),
        pue=list(r.pue),
        draws=r.draws,
        seed=r.seed,
    )


def excluded_offerings(result: ScenarioResult) -> list[rm.ExcludedOffering]:
    """Offerings the scenario named that the engine left out, and why."""
    return [
        rm.ExcludedOffering(
            name=name, code=n.code, params=dict(n.params), warning=n.warning, text=n.text
        )
        for name, n in result.excluded_offerings
    ]


def constraints(result: ScenarioResult) -> rm.Constraints:
    """The constraint outcome: what was asked, what it ruled out, whether it decided."""
    c = result.scenario.constraints
    v = result.verdict
    p = v.params
    return rm.Constraints(
        eu_data_only=c.eu_data_only,
        own_premises_only=c.own_premises_only,
        eu_jurisdiction_only=c.eu_jurisdiction_only,
        air_gapped=c.air_gapped,
        preferred_providers=list(c.preferred_providers),
        excluded=[
            rm.ExcludedOption(name=o.name, kind=o.kind, violations=notes(o.violations))
            for o in v.options
            if o.violations
        ],
        decided_verdict=bool(p.get("constraint_decided")),
        cheapest_overall=p.get("cheapest_overall"),
        cheapest_overall_cost=figure(p.get("cheapest_overall_cost"), 2),
        cheapest_compliant=v.recommended,
        cheapest_compliant_cost=figure(next(o.total_cost for o in v.options if o.recommended), 2),
        cost_of_constraints=figure(p.get("constraint_cost"), 2),
    )


def horizons(result: ScenarioResult) -> rm.Horizons | None:
    """Total cost of owning and of each rented option over 3, 5, 7 and 10 years."""
    view = result.horizons
    if view is None:
        return None
    eligible = {o.name: o.eligible for o in result.verdict.options}
    rows: list[tuple[str, str, tuple[float | None, ...]]] = [
        (result.onprem.name, "onprem", view.onprem)
    ]
    if view.resell is not None:
        rows.append((RESELL_NAME, "onprem_resell", view.resell))
    rows += [(c.name, "cloud", t) for c, t in zip(result.cloud_options, view.clouds, strict=True)]
    rows += [(name, "api", totals) for name, totals in view.apis]
    return rm.Horizons(
        months=list(view.months),
        refreshes=list(view.refreshes),
        service_life_months=view.service_life_months,
        options=[
            rm.HorizonRow(
                name=name,
                kind=kind,
                eligible=eligible.get(name, False),
                totals=[figure(t, 2) for t in totals],
            )
            for name, kind, totals in rows
        ],
    )


def tornado(result: ScenarioResult) -> rm.Tornado:
    """Which inputs move the reference comparison most (inputs to 6 digits, money to 2)."""
    t = result.tornado
    return rm.Tornado(
        metric=t.metric,
        reference_option=t.reference_option,
        base_value=figure(t.base_value, 2),
        bars=[
            rm.TornadoBar(
                input=b.input_name,
                label=b.label,
                base_input=figure(b.base_input),
                low_input=figure(b.low_input),
                high_input=figure(b.high_input),
                low_value=figure(b.low_value, 2),
                high_value=figure(b.high_value, 2),
            )
            for b in t.bars
        ],
    )


def warnings(result: ScenarioResult) -> list[rm.Note]:
    return notes(result.warnings)
