"""The one-call API: ``evaluate(scenario)`` and a JSON-ready view of the result."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tco.engine.capacity import (
    CapacityPlan,
    OwnedOption,
    RentedOption,
    late_draws,
    plan_capacity,
)
from tco.engine.cashflow import CashFlow
from tco.engine.cloud import cloud_params
from tco.engine.constraints import violations
from tco.engine.costmodel import (
    CostModel,
    OnPremMonthly,
    onprem_line,
    onprem_monthly,
    onprem_total,
    stack_models,
)
from tco.engine.demand import (
    HOURS_PER_YEAR,
    WHOLE_HORIZON,
    DemandPlan,
    growth_factors,
    peak_load_factor,
    plan_demand,
)
from tco.engine.errors import (
    DeadlineInfeasible,
    DoesNotFit,
    EngineError,
    InvalidInput,
    NoCompliantOption,
)
from tco.engine.extras import OwningExtras, needs_fabric, owning_extras
from tco.engine.finance import broadcast
from tco.engine.horizons import HORIZONS_MONTHS, HorizonView, horizon_view
from tco.engine.hosted_api import ApiOptionResult, cost_api_offering
from tco.engine.hybrid import HybridResult, optimise_hybrid
from tco.engine.inputs import (
    ApiOfferingSpec,
    CloudOfferingSpec,
    CloudTerm,
    Demand,
    DemandPattern,
    FinanceInputs,
    GpuSpec,
    Scenario,
    ServerSpec,
    ServingDemand,
    UncertaintyRanges,
    Workload,
)
from tco.engine.montecarlo import Confidence, monte_carlo
from tco.engine.notes import Note
from tco.engine.onprem import onprem_cashflow, scalar
from tco.engine.options import CloudOptionResult, OnPremResult, compare_options
from tco.engine.ownership import (
    Financing,
    ResellResult,
    buy_run_resell,
    financing,
    resold_model,
    run_months,
)
from tco.engine.racks import RackPlan
from tco.engine.result import OfferingFit, ScenarioResult, SizingMemo
from tco.engine.sensitivity import Tornado, tornado
from tco.engine.serving import ServingOutcome, derive_load, serving_outcome
from tco.engine.site import BUILD_OUT, SiteFit, placed, placed_elsewhere, site_duties
from tco.engine.sizing import SizingResult, size_workload
from tco.engine.units import HOURS_PER_DAY, HOURS_PER_MONTH, FloatArray, Money
from tco.engine.verdict import CLOUD, HYBRID, OWN, OWN_RESELL, Candidate, Verdict, decide

# Names of the owning options in results (the web layer words them by kind).
OWN_NAME = "Buy and keep"
RESELL_NAME = "Buy, run and resell"
HYBRID_NAME = "Hybrid: own part, rent the rest"
# Sanity limits: beyond these a plan gets a prominent warning naming its driver.
SANITY_MAX_SERVERS = 1000
SANITY_MAX_FACILITY_KW = 10_000.0
SANITY_MAX_COST = 1e9
RELAXED_DEADLINE_DAYS = 30.0
# An owned fleet busy less than this share of its capacity is mostly bought to stand idle
# (issue 40: a 72-GPU rack for a model one 8-GPU server serves): a warning says so, and
# the verdict names a smaller owned option when the catalog has one.
IDLE_OWNED_SHARE = 0.10
# The confidence compares owning with the cheapest few eligible clouds (the others
# practically never become the cheapest within the ranges).
CONFIDENCE_CLOUDS = 4
# The Monte Carlo's ranges when a scenario gives none (frozen: one instance serves all,
# without checking the defaults again on every result).
DEFAULT_RANGES = UncertaintyRanges()


def sized(
    workload: Workload,
    server: ServerSpec,
    servers: int | None = None,
    sizings: SizingMemo | None = None,
) -> SizingResult:
    """:func:`size_workload`, or its result from ``sizings`` when the board was sized."""
    key = (workload, server.gpu, server.gpus_per_server, servers)
    result = sizings.get(key) if sizings is not None else None
    if result is None:
        result = size_workload(workload, server, servers)
        if sizings is not None:
            sizings[key] = result
    return result


def offering_fit(
    offering: CloudOfferingSpec,
    workload: Workload,
    server: ServerSpec,
    sizing: SizingResult,
    sizings: SizingMemo | None = None,
) -> OfferingFit:
    """Size the same work on the offering's own instances, to the work's need and never to
    the owned unit's size: another GPU, an instance larger than an owned server (an 8-GPU
    instance for a 1-GPU workstation's work) or smaller (8-GPU instances for the work a
    72-GPU NVL72 rack would do: a model that fits one instance rents one, not nine).

    Training: GPU-hours of a run on those instances ÷ on the owned fleet (work ratio)
    and GPUs needed ÷ owned GPUs (fleet ratio), both sized for the same
    deadline. Serving: GPUs needed for the same target ÷ owned GPUs. Sized on whole
    instances, the bill counts the instances the provider sells (docs/methodology.md
    § 3, "One billing unit" and "Renting sized to the work"). An instance of the owned
    server's GPU and size does the work as the owned fleet does (ratio 1).
    """
    gpu = offering.gpu or server.gpu
    node = offering.gpus_per_instance
    if gpu == server.gpu and node == server.gpus_per_server:
        return OfferingFit(run_hours=sizing.training_hours)
    # Serving may keep weights in a format the GPU cannot compute in (weight-only).
    if workload.kind.is_training and gpu.peak_tflops(workload.precision) is None:
        return OfferingFit(
            problem=Note(
                "cloud_gpu_lacks_precision",
                {"gpu": gpu.name, "precision": workload.precision.value},
            )
        )
    # The instance as a server of its own: its GPUs share one NVLink domain, nothing more.
    virtual = ServerSpec(
        name=offering.name,
        gpu=gpu,
        gpus_per_server=node,
        rack_units=server.rack_units,
        max_power_kw=gpu.tdp_w * node / 1000.0,
        idle_power_kw=0.0,
        liquid_cooled=False,
        price=Money(0.0, server.price.currency),
    )
    try:
        cloud = sized(workload, virtual, sizings=sizings)
    except (DoesNotFit, DeadlineInfeasible, InvalidInput) as exc:
        return OfferingFit(
            problem=Note("cloud_gpu_cannot_run", {"reason": str(exc), "gpu": gpu.name})
        )
    fleet_ratio = cloud.gpus_required / sizing.gpus_required
    if sizing.training_hours and cloud.training_hours:
        work_ratio = fleet_ratio * cloud.training_hours / sizing.training_hours
        return OfferingFit(work_ratio, fleet_ratio, cloud.training_hours)
    return OfferingFit(fleet_ratio, fleet_ratio)


def offering_fits(
    offerings: Sequence[CloudOfferingSpec],
    workload: Workload,
    server: ServerSpec,
    sizing: SizingResult,
    sizings: SizingMemo | None = None,
) -> list[OfferingFit]:
    """:func:`offering_fit` for each offering; offerings of the same GPU in the same
    instance size fit alike, so each such pair is sized once (sizing is the costly step)."""
    fits: dict[tuple[GpuSpec | None, int], OfferingFit] = {}
    result = []
    for offering in offerings:
        key = (offering.gpu, offering.gpus_per_instance)
        if key not in fits:
            fits[key] = offering_fit(offering, workload, server, sizing, sizings)
        result.append(fits[key])
    return result


def _run_billing_factor(
    offering: CloudOfferingSpec, run_hours: float | None, per_run: bool
) -> float:
    """Billed hours per hour of a run: whole hours, and a capacity block's minimum."""
    if not per_run or not run_hours:
        return 1.0
    billed = max(math.ceil(run_hours - 1e-9), offering.min_billed_hours)
    return billed / run_hours


def fleet_extras(
    scenario: Scenario, servers: int, sizing: SizingResult | None = None
) -> OwningExtras:
    """The owned fleet's networking, installation and staff (tco/engine/extras.py).

    ``sizing``: the fleet's plan, which says whether a served model copy spans servers
    (without it only multi-server training gets a fabric).
    """
    server = scenario.server
    fabric = needs_fabric(
        scenario.workload.kind.is_training,
        servers,
        sizing.gpus_per_replica if sizing is not None else None,
        server.gpus_per_server,
    )
    return owning_extras(
        scenario.finance,
        scenario.site,
        servers=servers,
        gpus_per_server=server.gpus_per_server,
        needs_fabric=fabric,
    )


def build_cost_model(
    scenario: Scenario,
    servers: int,
    plan: DemandPlan | None = None,
    fits: Sequence[OfferingFit] | None = None,
    *,
    with_clouds: bool = True,
    extras: OwningExtras | None = None,
) -> CostModel:
    """Flatten a scenario into the cost core's inputs, in the reporting currency.

    Without a demand plan the fleet runs at ``finance.utilization`` all horizon.
    ``with_clouds=False`` leaves the cloud offerings out (the cost of owning only).
    ``extras``: the fleet's :func:`fleet_extras` (by default those of ``servers``
    servers, a fabric only for multi-server training).
    """
    fin, server = scenario.finance, scenario.server
    # The site the fleet runs at (its fallback colocation when the own site cannot take
    # it), its PUE by cooling and the build-out that makes it fit (tco/engine/site.py).
    site, fit, _own = placed(servers, server, scenario.site)
    fx, cur = fin.fx, fin.reporting_currency
    # FxRates.convert's arithmetic (amount × from ÷ to), each rate looked up once: the
    # ranking flattens a scenario per candidate server, a dozen amounts each.
    to_rate = fx.usd_per(cur)
    site_rate, fin_rate = fx.usd_per(site.currency), fx.usd_per(fin.currency)

    def site_money(x: float) -> float:
        return x * site_rate / to_rate

    def fin_money(x: float) -> float:
        return x * fin_rate / to_rate

    def extra_money(x: float, given: bool) -> float:
        """The buyer's figure is in the finance currency; the engine's defaults in USD."""
        return fin_money(x) if given else x / to_rate

    if extras is None:
        extras = fleet_extras(scenario, servers)

    per_run = plan is not None and plan.pattern is not DemandPattern.CONTINUOUS
    # A service must be up every hour: rented serving capacity is billed around the clock.
    serving = not scenario.workload.kind.is_training
    offerings = scenario.cloud_offerings if with_clouds else ()
    fits = fits or [OfferingFit() for _ in offerings]
    clouds = tuple(
        cloud_params(
            o,
            fx,
            cur,
            work_ratio=fit.work_ratio,
            fleet_ratio=fit.fleet_ratio,
            run_billing_factor=_run_billing_factor(o, fit.run_hours, per_run),
            always_on=serving,
        )
        for o, fit in zip(offerings, fits, strict=True)
    )
    return CostModel(
        servers=float(servers),
        gpus_per_server=float(server.gpus_per_server),
        server_price=fx.convert(server.price.amount, server.price.currency, cur),
        idle_power_kw=server.idle_power_kw,
        max_power_kw=server.max_power_kw,
        pue=fit.pue,
        electricity_price_per_kwh=site_money(site.electricity_price_per_kwh),
        colocation_per_kw_month=site_money(site.colocation_per_kw_month),
        utilization=plan.utilization if plan is not None else fin.utilization,
        horizon_months=float(fin.horizon_months),
        discount_rate=fin.discount_rate,
        clouds=clouds,
        networking_per_server=extra_money(extras.networking_per_server, extras.networking_given),
        storage_total=fin_money(fin.storage_total),
        installation_per_server=extra_money(
            extras.installation_per_server, extras.installation_given
        ),
        spares_pct=fin.spares_pct,
        colocation_on_facility_kw=1.0 if site.colocation_billed_on_facility_kw else 0.0,
        support_pct_per_year=fin.support_pct_per_year,
        staff_fte=extras.staff_fte,
        staff_annual_cost=fin_money(fin.staff_annual_cost),
        software_per_gpu_year=fin_money(fin.software_per_gpu_year),
        insurance_pct_per_year=fin.insurance_pct_per_year,
        residual_pct=fin.residual_pct,
        leased=1.0 if fin.lease is not None else 0.0,
        lease_annual_rate=fin.lease.annual_rate if fin.lease is not None else 0.0,
        lease_term_months=float(fin.lease.term_months) if fin.lease is not None else 36.0,
        active_months=plan.active_months if plan is not None else WHOLE_HORIZON,
        whole_terms=1.0 if plan is not None and plan.whole_terms else 0.0,
        fixed_monthly=fin_money(fin.fixed_monthly_total),
        one_off_cost=fin_money(fin.one_off_total)
        + fx.convert(fit.build_out_cost, fit.currency, cur),
        service_life_months=float(fin.service_life_months),
        rented_work_scale=plan.rented_work_scale if plan is not None else 1.0,
    )


def sized_workload(scenario: Scenario) -> Workload:
    """The workload the owned fleet is sized for: a growing served load at its peak year.

    Users and requests (``serving_demand``) set the target: their peak tokens/s.
    """
    workload = scenario.workload
    if workload.serving_demand is not None:
        workload = dataclasses.replace(
            workload,
            target_tokens_per_second=derive_load(workload.serving_demand).peak_tokens_per_second,
        )
    peak = peak_load_factor(scenario.demand, scenario.finance.horizon_months)
    if peak != 1.0 and workload.target_tokens_per_second:
        return dataclasses.replace(
            workload, target_tokens_per_second=workload.target_tokens_per_second * peak
        )
    return workload


def _serving(
    scenario: Scenario, sizing: SizingResult, horizon_months: int | None = None
) -> ServingOutcome | None:
    """Users and requests against the sized fleet (None: the target was given in tokens/s).

    ``horizon_months``: over another horizon than the scenario's (the horizons view).
    """
    demand = scenario.workload.serving_demand
    if demand is None:
        return None
    peak = sizing.serving.peak if sizing.serving is not None else None
    return serving_outcome(
        demand,
        _load_factors(scenario, horizon_months),
        capacity_tokens_per_second=sizing.tokens_per_second_capacity or 0.0,
        achieved_ms_per_token=peak.time_per_output_token_s * 1000.0 if peak else None,
        time_to_first_token_ms=peak.time_to_first_token_s * 1000.0 if peak else None,
    )


def _load_factors(scenario: Scenario, horizon_months: int | None = None) -> FloatArray:
    """The served load of each month relative to the first year (1 without growth)."""
    d = scenario.demand
    growth = d.growth_per_year if d is not None and d.pattern is DemandPattern.CONTINUOUS else 0.0
    return growth_factors(growth, horizon_months or scenario.finance.horizon_months)


def _plan(
    scenario: Scenario, sizing: SizingResult, horizon_months: int | None = None
) -> DemandPlan:
    """The demand plan of the sized fleet, over the scenario's horizon or ``horizon_months``."""
    horizon = horizon_months or scenario.finance.horizon_months
    serving = _serving(scenario, sizing, horizon)
    demand = scenario.demand
    if serving is not None:  # the fleet's utilization follows from the requests
        demand = dataclasses.replace(demand or Demand(), utilization=max(serving.utilization, 1e-9))
    return plan_demand(
        demand,
        servers=sizing.servers_required,
        gpus_per_server=scenario.server.gpus_per_server,
        run_hours=sizing.training_hours if sizing.kind.is_training else None,
        horizon_months=horizon,
        utilization=scenario.finance.utilization,
    )


@dataclass(frozen=True, slots=True, eq=False)
class OwningPlan:
    """A scenario's owned fleet, sized, with its demand plan and cost model."""

    model: CostModel  # without the cloud offerings
    plan: DemandPlan
    resale_by_year: tuple[float, ...]
    meets_latency_targets: bool = True  # serving: no latency_target_missed warning


def owning_plan(scenario: Scenario, sizings: SizingMemo | None = None) -> OwningPlan:
    """Size the scenario's fleet and flatten it for :func:`costs_of_owning` (raises the
    sizing's DoesNotFit or DeadlineInfeasible when the server cannot do the work).

    ``sizings``: the request's sizings (one catalog of 11 servers has 6 GPU boards).
    """
    sizing = sized(sized_workload(scenario), scenario.server, scenario.servers, sizings)
    plan = _plan(scenario, sizing)
    # Without the cloud offerings: the cost of owning does not use them (the ranking of
    # servers flattens one scenario per catalog server).
    servers = sizing.servers_required
    model = build_cost_model(
        scenario,
        servers,
        plan,
        with_clouds=False,
        extras=fleet_extras(scenario, servers, sizing),
    )
    meets = not any(n.code == "latency_target_missed" for n in sizing.warnings)
    return OwningPlan(model, plan, tuple(scenario.finance.resale_by_year), meets)


def costs_of_owning(owned: Sequence[OwningPlan]) -> list[float]:
    """What owning costs for each plan's demand, closed form (the calculator ranks servers
    by it): for a one-off run the cheaper of keeping the servers and reselling them.

    All plans in one vectorised pass of the on-prem closed form (and one for reselling):
    the same arithmetic as one plan at a time, without a pass per candidate server.
    """
    if not owned:
        return []
    kept = broadcast(
        onprem_total(stack_models([o.model for o in owned], with_clouds=False)), (len(owned),)
    )
    totals = [float(t) for t in kept]
    resold = []
    for k, o in enumerate(owned):
        if o.plan.pattern is DemandPattern.ONE_OFF and o.plan.run_hours:
            sold = resold_model(o.model, o.plan.run_hours, o.resale_by_year)
            if sold is not None:
                resold.append((k, sold[0]))
    if resold:
        sold_totals = onprem_total(stack_models([m for _k, m in resold], with_clouds=False))
        for (k, _m), total in zip(resold, broadcast(sold_totals, (len(resold),)), strict=True):
            totals[k] = min(totals[k], float(total))
    return totals


def cost_of_owning(scenario: Scenario) -> float:
    """What owning costs for the demand, closed form (:func:`costs_of_owning`)."""
    return costs_of_owning([owning_plan(scenario)])[0]


def _spot_allowed(scenario: Scenario, plan: DemandPlan) -> bool:
    """Spot may be recommended only for interruptible work."""
    if plan.tolerates_interruptions:
        return True
    w = scenario.workload
    return w.kind.is_training and w.deadline_days is None


def _sanity(
    scenario: Scenario, sizing: SizingResult, racks: RackPlan, onprem_total: float, currency: str
) -> list[Note]:
    """Warnings for plans nobody would sign without a second look."""
    notes: list[Note] = []
    servers = sizing.servers_required
    w = scenario.workload
    if servers > SANITY_MAX_SERVERS:
        relaxed = None
        if w.kind.is_training and w.deadline_days:
            days = (
                RELAXED_DEADLINE_DAYS
                if w.deadline_days < RELAXED_DEADLINE_DAYS
                else 2 * w.deadline_days
            )
            try:
                relaxed_sizing = size_workload(
                    dataclasses.replace(w, deadline_days=days), scenario.server
                )
                relaxed = (days, relaxed_sizing.servers_required)
            except EngineError:
                relaxed = None
        if relaxed is not None and relaxed[1] < servers:
            notes.append(
                Note(
                    "fleet_too_large_deadline",
                    {
                        "servers": servers,
                        "deadline_days": w.deadline_days,
                        "relaxed_days": relaxed[0],
                        "relaxed_servers": relaxed[1],
                    },
                    warning=True,
                )
            )
        else:
            notes.append(Note("fleet_too_large", {"servers": servers}, warning=True))
    if racks.facility_kw > SANITY_MAX_FACILITY_KW:
        notes.append(
            Note("power_too_high", {"facility_mw": racks.facility_kw / 1000.0}, warning=True)
        )
    if onprem_total > SANITY_MAX_COST:
        notes.append(
            Note("cost_too_high", {"amount": onprem_total, "currency": currency}, warning=True)
        )
    return notes


def owned_busy_share(plan: DemandPlan) -> float:
    """The share of the owned fleet's time the work keeps it busy: its utilization over
    the horizon, or for a one-off run over the whole months a buy, run and resell owns
    the fleet.

    A 12-hour one-off run owns the fleet for one month: 12 ÷ 730 = 1.6 %.

    >>> plan = plan_demand(Demand(DemandPattern.ONE_OFF), servers=1, gpus_per_server=8,
    ...     run_hours=12.0, horizon_months=60, utilization=0.7)
    >>> round(owned_busy_share(plan), 4)
    0.0164
    """
    if plan.pattern is DemandPattern.ONE_OFF and plan.run_hours:
        return min(1.0, plan.run_hours / (run_months(plan.run_hours) * HOURS_PER_MONTH))
    return plan.utilization


def owned_capacity_share(
    plan: DemandPlan, sizing: SizingResult, target_tokens_per_second: float | None
) -> tuple[float, str]:
    """How much of the owned fleet's capacity the work uses, and on what basis.

    A service ("peak"): the tokens/s it was sized for (the busiest year's peak) ÷ the
    fleet's capacity. Renting serves around the clock too, so the hours outside the peak
    stand idle either way; what shows an owned unit too large for the work is how little
    of it even the peak uses. Training ("time"): :func:`owned_busy_share`, the idle time
    renting would not pay for. 1,333 tokens/s on a rack of 932,513: 0.14 %.
    """
    capacity = sizing.tokens_per_second_capacity
    if not sizing.kind.is_training and target_tokens_per_second and capacity:
        return min(1.0, target_tokens_per_second / capacity), "peak"
    return owned_busy_share(plan), "time"


@dataclass(frozen=True, slots=True)
class SmallerOption:
    """A catalog server that does the work with fewer GPUs than the owned fleet."""

    server: str
    servers: int
    gpus: int
    cost: float  # owning it for the work, closed form, in the reporting currency


def smaller_owned_option(
    scenario: Scenario, sizing: SizingResult, sizings: SizingMemo | None = None
) -> SmallerOption | None:
    """The cheapest way to own the work on fewer GPUs than the owned fleet (``sizing``):
    a smaller server of the catalog (``scenario.smaller_servers``) or, for a fleet of
    fixed size, the same server sized to the work. Each is sized and costed as the
    calculator ranks servers (:func:`owning_plan`, :func:`costs_of_owning`) at the buyer's
    site; one that cannot do the work, or misses latency targets the owned fleet meets, is
    left out."""
    choices = [
        dataclasses.replace(scenario, server=s, servers=None) for s in scenario.smaller_servers
    ]
    if scenario.servers is not None:
        choices.append(dataclasses.replace(scenario, servers=None))
    owned_meets = not any(n.code == "latency_target_missed" for n in sizing.warnings)
    found: list[tuple[Scenario, OwningPlan]] = []
    for choice in choices:
        try:
            plan = owning_plan(choice, sizings)
        except (DoesNotFit, DeadlineInfeasible, InvalidInput):
            continue
        fewer = _fleet_gpus(plan) < sizing.gpus_required
        if fewer and (plan.meets_latency_targets or not owned_meets):
            found.append((choice, plan))
    if not found:
        return None
    costs = costs_of_owning([plan for _c, plan in found])
    cost, k = min((c, k) for k, c in enumerate(costs))
    choice, plan = found[k]
    servers = round(scalar(plan.model.servers, "servers"))
    return SmallerOption(choice.server.name, servers, _fleet_gpus(plan), cost)


def _fleet_gpus(plan: OwningPlan) -> int:
    return round(scalar(plan.model.servers, "servers") * scalar(plan.model.gpus_per_server, "gps"))


def idle_owned_note(
    scenario: Scenario,
    workload: Workload,
    sizing: SizingResult,
    plan: DemandPlan,
    sizings: SizingMemo | None = None,
) -> tuple[Note | None, dict[str, Any]]:
    """The warning that the owned fleet would be mostly idle (using less than
    :data:`IDLE_OWNED_SHARE` of its capacity, :func:`owned_capacity_share`), with the
    smaller owned option the verdict names; the verdict's parameters (empty when the
    fleet is used enough). ``workload``: as sized (a service's target at its peak)."""
    share, basis = owned_capacity_share(plan, sizing, workload.target_tokens_per_second)
    if share >= IDLE_OWNED_SHARE:
        return None, {}
    smaller = smaller_owned_option(scenario, sizing, sizings)
    params: dict[str, Any] = {
        "idle_share": round(share, 6),
        "idle_basis": basis,
        # A one-off run's share is over the months a buy, run and resell owns the fleet,
        # not the horizon: the wording names them so the two shares shown do not clash.
        "idle_months": run_months(plan.run_hours)
        if basis == "time" and plan.pattern is DemandPattern.ONE_OFF and plan.run_hours
        else None,
        "idle_server": scenario.server.name,
        "idle_servers": sizing.servers_required,
        "idle_gpus": sizing.gpus_required,
        "smaller_server": smaller.server if smaller else None,
        "smaller_servers": smaller.servers if smaller else None,
        "smaller_gpus": smaller.gpus if smaller else None,
        "smaller_cost": round(smaller.cost, 2) if smaller else None,
    }
    text = idle_text(params, scenario.finance.reporting_currency)
    return Note("owned_mostly_idle", params, text, warning=True), params


def evaluate(scenario: Scenario, sizings: SizingMemo | None = None) -> ScenarioResult:
    """Size the workload, derive the demand, cost every way to own and rent, and decide.

    ``sizings``: the sizings the request already did (the calculator's ranking sized the
    same server and, often, the cloud offerings' GPUs).

    The steps, in order: size, place and model the costs (:func:`_setup`); cost every
    option and rank the candidates (:func:`_options`); decide (:func:`_decide`); and the
    result with its financing, confidence, tornado and warnings (:func:`_result`).
    """
    setup = _setup(scenario, sizings)
    options = _options(setup)
    verdict = _decide(setup, options)
    return _result(setup, options, verdict)


@dataclass(frozen=True)
class _Setup:
    """The sized workload, its demand, the fleet's site and the cost model (evaluate's
    first step)."""

    scenario: Scenario  # at the site the fleet is placed at
    kept: Scenario  # with the usable cloud offerings only
    workload: Workload
    sizing: SizingResult
    plan: DemandPlan
    idle: Note | None
    idle_params: dict[str, Any]
    fit: SiteFit
    own_fit: SiteFit
    fits: list[OfferingFit]
    usable: list[int]
    excluded: tuple[tuple[str, Note], ...]
    extras: OwningExtras
    model: CostModel
    serving: ServingOutcome | None
    monthly: OnPremMonthly


def _setup(scenario: Scenario, sizings: SizingMemo | None) -> _Setup:
    workload = sized_workload(scenario)
    sizing = sized(workload, scenario.server, scenario.servers, sizings)
    servers = sizing.servers_required
    plan = _plan(scenario, sizing)  # the site changes nothing in it
    # A smaller owned option is sized at the site the buyer chose (it may fit there).
    idle, idle_params = idle_owned_note(scenario, workload, sizing, plan, sizings)
    used_site, fit, own_fit = placed(servers, scenario.server, scenario.site)
    if used_site is not scenario.site:  # the own site cannot take it: the colocation can
        scenario = dataclasses.replace(scenario, site=used_site)
    fits = offering_fits(scenario.cloud_offerings, workload, scenario.server, sizing, sizings)
    usable, excluded = _usable_offerings(scenario, fits)
    kept = dataclasses.replace(
        scenario, cloud_offerings=tuple(scenario.cloud_offerings[i] for i in usable)
    )
    extras = fleet_extras(scenario, servers, sizing)
    model = build_cost_model(kept, servers, plan, [fits[i] for i in usable], extras=extras)
    return _Setup(
        scenario=scenario,
        kept=kept,
        workload=workload,
        sizing=sizing,
        plan=plan,
        idle=idle,
        idle_params=idle_params,
        fit=fit,
        own_fit=own_fit,
        fits=fits,
        usable=usable,
        excluded=excluded,
        extras=extras,
        model=model,
        serving=_serving(scenario, sizing),
        monthly=onprem_monthly(model),  # the options' and the financing's
    )


@dataclass(frozen=True)
class _Options:
    """Every way to own and rent, costed, and the candidates the verdict ranks."""

    onprem: OnPremResult
    clouds: tuple[CloudOptionResult, ...]
    energy_kwh: float
    carbon: float | None
    resell: ResellResult | None
    eligible: tuple[bool, ...]  # each cloud option: allowed by the work and the buyer
    candidates: list[Candidate]
    apis: tuple[ApiOptionResult, ...]
    hybrid: HybridResult | None
    hybrid_option: str | None
    capacity: CapacityPlan | None


def _options(setup: _Setup) -> _Options:
    """Cost owning, each cloud offering, buy-run-resell, the hosted APIs and the hybrid;
    NoCompliantOption when the buyer's terms allow none, InvalidInput when none is ready
    in time."""
    scenario, kept, plan, model, fit = (
        setup.scenario,
        setup.kept,
        setup.plan,
        setup.model,
        setup.fit,
    )
    servers, serving = setup.sizing.servers_required, setup.serving
    onprem, clouds = compare_options(
        model,
        setup.sizing.tokens_per_second_capacity,
        onprem_name=OWN_NAME,
        target_tokens_per_second=serving.load.average_tokens_per_second_all_hours
        if serving is not None
        else scenario.workload.target_tokens_per_second,
        monthly=setup.monthly,
    )
    fin, server = scenario.finance, scenario.server
    energy_kwh, carbon = _energy_and_carbon(scenario, servers, plan, fit.pue)
    resell = (
        buy_run_resell(model, plan.run_hours, fin.resale_by_year)
        if plan.pattern is DemandPattern.ONE_OFF and plan.run_hours
        else None
    )
    spot_ok = _spot_allowed(scenario, plan)
    own_breaks, cloud_breaks = _constraint_violations(kept)
    own_breaks += _site_violation(fit, server.name)
    spot_fine = tuple(spot_ok or o.term is not CloudTerm.SPOT for o in kept.cloud_offerings)
    # Recommendable: allowed by the work (spot) and by the buyer's constraints.
    eligible = tuple(ok and not breaks for ok, breaks in zip(spot_fine, cloud_breaks, strict=True))
    candidates = _candidates(onprem, resell, clouds, spot_fine, own_breaks, cloud_breaks)
    apis = _api_options(scenario, model, serving)
    candidates += _api_candidates(scenario, apis)
    if not any(c.recommendable for c in candidates):
        raise NoCompliantOption(placed_elsewhere(setup.own_fit, fit, server.name))
    hybrid, hybrid_option = _hybrid(model, plan, clouds, eligible)
    if hybrid is not None:
        candidates += _hybrid_candidate(hybrid, hybrid_option, candidates)
    build_out_weeks = fit.build_out_weeks if fit.status == BUILD_OUT else 0.0
    capacity = _capacity(
        kept, servers, plan, clouds, eligible, hybrid, resell is not None, build_out_weeks
    )
    if capacity is not None:
        candidates = _timed(candidates, capacity)
        if not any(c.recommendable for c in candidates):
            raise InvalidInput("capacity", "No option is ready by the date the work needs it.")
    return _Options(
        onprem,
        clouds,
        energy_kwh,
        carbon,
        resell,
        eligible,
        candidates,
        apis,
        hybrid,
        hybrid_option,
        capacity,
    )


def _decide(setup: _Setup, options: _Options) -> Verdict:
    """The verdict over the candidates (tco/engine/verdict.py)."""
    plan, hybrid, resell = setup.plan, options.hybrid, options.resell
    return decide(
        options.candidates,
        servers=setup.sizing.servers_required,
        server_name=setup.scenario.server.name,
        horizon_months=setup.scenario.finance.horizon_months,
        per_work=plan.pattern is not DemandPattern.CONTINUOUS,
        extra={
            "pattern": plan.pattern.value,
            "demand_assumed": assumed_demand(plan),
            "owned_servers": hybrid.owned_servers if hybrid is not None else None,
            "hybrid_option": options.hybrid_option,
            "resale_month": resell.months_owned if resell is not None else None,
            **setup.idle_params,
        },
    )


def _result(setup: _Setup, options: _Options, verdict: Verdict) -> ScenarioResult:
    """The result: the options, the verdict, and what is read with them (financing, the
    Monte Carlo's confidence, the tornado, horizons, energy, warnings)."""
    scenario, kept, sizing, plan, model = (
        setup.scenario,
        setup.kept,
        setup.sizing,
        setup.plan,
        setup.model,
    )
    fin, racks, fit, apis = scenario.finance, setup.fit.racks, setup.fit, options.apis
    return ScenarioResult(
        scenario=kept,
        currency=fin.reporting_currency,
        sizing=sizing,
        rack_plan=racks,
        cost_model=model,
        onprem=options.onprem,
        cloud_options=options.clouds,
        tornado=_verdict_tornado(model, fin, verdict, apis, plan.run_hours),
        energy_kwh=options.energy_kwh,
        carbon_tonnes=options.carbon,
        demand=plan,
        verdict=verdict,
        financing=_financing(model, fin, options.clouds, apis, verdict, setup.monthly),
        resell=options.resell,
        hybrid=options.hybrid,
        hybrid_option=options.hybrid_option,
        warnings=_result_warnings(setup, options),
        excluded_offerings=setup.excluded,
        break_even_runs_per_year=tuple(_runs_break_even(o, plan) for o in options.clouds),
        confidence=_verdict_confidence(setup, options, verdict),
        cloud_energy=tuple(
            cloud_energy_and_carbon(
                o, setup.fits[i], scenario.server, sizing, plan, fin.horizon_months
            )
            for i, o in zip(setup.usable, kept.cloud_offerings, strict=True)
        ),
        horizons=_with_api_horizons(
            _horizons(kept, sizing, model, options.resell, plan),
            scenario,
            model,
            setup.serving,
            next((a for a in apis if a.name == verdict.renting), None),
        ),
        serving=setup.serving,
        api_options=apis,
        extras=setup.extras,
        site_fit=fit,
        own_site_fit=setup.own_fit,
        site_duties=site_duties(racks.it_kw, scenario.site, fit),
        capacity=options.capacity,
    )


def _verdict_confidence(setup: _Setup, options: _Options, verdict: Verdict) -> Confidence | None:
    """The Monte Carlo's confidence in the verdict; it draws GPU clouds only: none when an
    API sets the reference."""
    if any(api.name == verdict.reference_cloud for api in options.apis):
        return None
    return _confidence(
        setup.scenario,
        setup.model,
        setup.plan,
        options.clouds,
        options.eligible,
        verdict,
        options.resell,
        options.capacity,
    )


def _result_warnings(setup: _Setup, options: _Options) -> tuple[Note, ...]:
    scenario, sizing, fit = setup.scenario, setup.sizing, setup.fit
    return _warnings(
        setup.plan,
        sizing,
        setup.serving,
        setup.extras,
        _sanity(
            scenario,
            sizing,
            fit.racks,
            options.onprem.total_cost,
            scenario.finance.reporting_currency,
        ),
        setup.idle,
        _moved(setup.own_fit, fit, scenario.server.name),
    )


def idle_text(p: dict[str, Any], currency: str) -> str:
    """The idle fleet's warning in plain English (command line); the web layer words its
    own. Empty without one."""
    if p.get("idle_share") is None:
        return ""
    fleet = f"The {p['idle_servers']} × {p['idle_server']} ({p['idle_gpus']} GPUs)"
    share = f"{p['idle_share']:.2%}"
    text = (
        f"{fleet} would use {share} of its capacity even at the peak"
        if p.get("idle_basis") == "peak"
        else f"{fleet} would be busy {share} of the time"
    )
    if not p.get("smaller_server"):
        return text + "."
    return (
        f"{text}; {p['smaller_servers']} × {p['smaller_server']} ({p['smaller_gpus']} GPUs) "
        f"does this work for {p['smaller_cost']:,.0f} {currency}."
    )


def _warnings(
    plan: DemandPlan,
    sizing: SizingResult,
    serving: ServingOutcome | None,
    extras: OwningExtras,
    sanity: Sequence[Note],
    idle: Note | None,
    moved: Sequence[Note],
) -> tuple[Note, ...]:
    """What the buyer must see, in the order the steps found it: the demand's, the
    sizing's, the served load's, the fleet's extras', the sanity checks', the idle
    fleet's warning and the site's move."""
    found = [n for n in plan.notes if n.warning]
    found += list(sizing.warnings)
    found += list(serving.notes) if serving is not None else []
    found += list(extras.notes)
    found += sanity
    found += [idle] if idle is not None else []
    found += moved
    return tuple(found)


def _site_violation(fit: SiteFit, server: str) -> tuple[Note, ...]:
    """When the site cannot take the fleet and no colocation can: owning is never advised
    (``described``: whether the buyer described the site, for the wording)."""
    if fit.fits:
        return ()
    params = {"site": fit.site, "server": server, "described": fit.described}
    return (Note("site_does_not_fit", params),)


def _moved(own: SiteFit, used: SiteFit, server: str) -> list[Note]:
    """The warning that the fleet is costed at another site than the scenario's (a move the
    buyer must be told of, tco/engine/site.py), or none."""
    moved = placed_elsewhere(own, used, server)
    return [moved] if moved is not None else []


def owning_cashflow(result: ScenarioResult) -> CashFlow:
    """Month by month, the owning option the headline compares (``verdict.owning_kind``):
    keeping the fleet (``result.onprem.cashflow``), or buying, running and reselling it,
    which spends in the months the fleet is owned (the resale a negative residual in the
    last) and nothing after; months 0..H either way.
    """
    on = result.onprem.cashflow
    if result.verdict.owning_kind != OWN_RESELL or not result.demand.run_hours:
        return on
    resold = resold_model(
        result.cost_model, result.demand.run_hours, result.scenario.finance.resale_by_year
    )
    if resold is None:
        return on
    owned = onprem_cashflow(resold[0])
    block = np.zeros((len(on), len(owned.components)))
    rows = min(len(owned), len(on))
    block[:rows] = owned.component_values()[:rows]
    return CashFlow.from_components(owned.components, block)


def owning_carbon_tonnes(result: ScenarioResult) -> float | None:
    """Tonnes of CO₂ of the owning option the headline compares: the fleet kept over the
    horizon (``result.carbon_tonnes``), or, bought, run and resold, its energy in the
    months it is owned only (idle + (max − idle) × utilization while owned, × PUE).
    None without the site's carbon intensity."""
    carbon = result.scenario.site.carbon_kg_per_kwh
    if carbon is None or result.verdict.owning_kind != OWN_RESELL or not result.demand.run_hours:
        return result.carbon_tonnes
    resold = resold_model(
        result.cost_model, result.demand.run_hours, result.scenario.finance.resale_by_year
    )
    if resold is None:
        return result.carbon_tonnes
    m = resold[0]
    servers, idle, top = (
        scalar(m.servers, "servers"),
        scalar(m.idle_power_kw, "idle"),
        scalar(m.max_power_kw, "max"),
    )
    kw = idle + (top - idle) * scalar(m.utilization, "utilization")
    kwh = servers * kw * scalar(m.pue, "pue") * HOURS_PER_MONTH * scalar(m.horizon_months, "h")
    return kwh * carbon / 1000.0


def _verdict_tornado(
    model: CostModel,
    fin: FinanceInputs,
    verdict: Verdict,
    apis: tuple[ApiOptionResult, ...],
    run_hours: float | None,
) -> Tornado:
    """The tornado of the two options the headline compares (``verdict.owning`` against
    ``verdict.renting``): a GPU cloud or a hosted API's bill, against keeping the fleet or
    buying, running and reselling it. Without a rented option in the verdict, against the
    cloud option with the lowest NPV (the page does not draw it then)."""
    resell = (
        (float(run_hours), fin.resale_by_year)
        if verdict.owning_kind == OWN_RESELL and run_hours
        else None
    )
    api = next((x for x in apis if x.name == verdict.renting), None)
    if api is not None:
        return tornado(
            model,
            pct=fin.tornado_pct,
            rent_bill=api.monthly_cost,
            rent_name=api.name,
            resell=resell,
        )
    index = next((k for k, c in enumerate(model.clouds) if c.name == verdict.renting), None)
    return tornado(model, pct=fin.tornado_pct, reference_cloud=index, resell=resell)


# How a cloud term is obtained (the timing's code): a commitment is provisioned, a
# capacity block booked ahead, anything else started on demand.
OBTAINED = {
    CloudTerm.COMMITTED_1Y: "reserved",
    CloudTerm.COMMITTED_3Y: "reserved",
    CloudTerm.CAPACITY_BLOCK: "capacity_block",
}


# A committed term's whole length in days: a bridge on it buys the whole term.
TERM_DAYS = {CloudTerm.COMMITTED_1Y: 365.0, CloudTerm.COMMITTED_3Y: 3 * 365.0}


def _minimum_days(spec: CloudOfferingSpec) -> float:
    """What a bridge on ``spec`` must buy however short it is: a committed term whole, a
    capacity block's minimum duration (its minimum billed hours), nothing on demand."""
    return TERM_DAYS.get(spec.term, spec.min_billed_hours / HOURS_PER_DAY)


def _capacity(
    scenario: Scenario,
    servers: int,
    plan: DemandPlan,
    clouds: Sequence[CloudOptionResult],
    eligible: Sequence[bool],
    hybrid: HybridResult | None,
    resold: bool = False,
    build_out_weeks: float = 0.0,
) -> CapacityPlan | None:
    """Each option's ready date and bridge (docs/methodology.md § 3i); None without
    ``scenario.capacity``. A site that needs a build-out (§ 3h) is ready no sooner than
    the build-out's weeks."""
    inputs = scenario.capacity
    if inputs is None:
        return None
    if build_out_weeks > inputs.site_readiness_weeks:
        inputs = dataclasses.replace(inputs, site_readiness_weeks=build_out_weeks)
    owned = [OwnedOption(OWN_NAME, OWN, servers)]
    if resold:
        owned.append(OwnedOption(RESELL_NAME, OWN_RESELL, servers))
    if hybrid is not None and 0 < hybrid.owned_servers < servers:
        owned.append(
            OwnedOption(HYBRID_NAME, HYBRID, hybrid.owned_servers, hybrid.owned_servers / servers)
        )
    rented = [
        RentedOption(
            name=option.name,
            ready_in_days=spec.ready_in_days,
            instances=option.instances,
            price_per_instance_hour=(option.price_per_gpu_hour or 0.0) * spec.gpus_per_instance,
            eligible=ok,
            code=OBTAINED.get(spec.term, "on_demand"),
            committed=option.committed,
            gpus_per_instance=spec.gpus_per_instance,
            minimum_days=_minimum_days(spec),
        )
        for option, spec, ok in zip(clouds, scenario.cloud_offerings, eligible, strict=True)
    ]
    one_off = plan.pattern is DemandPattern.ONE_OFF and plan.run_hours
    return plan_capacity(
        inputs,
        owned=owned,
        rented=rented,
        units_in_stock=scenario.server.units_in_stock,
        lead_time_weeks=scenario.server.lead_time_weeks,
        run_hours=plan.run_hours if one_off else None,
    )


def _timed(candidates: Sequence[Candidate], capacity: CapacityPlan) -> list[Candidate]:
    """The candidates with time priced in: a bridge or a cost of delay added to the total
    (and its NPV, undiscounted: it falls in the first months), or ruled out."""
    timed: list[Candidate] = []
    for candidate in candidates:
        timing = capacity.timing(candidate.name)
        if timing is None:
            timed.append(candidate)
        elif timing.ruled_out:
            timed.append(
                dataclasses.replace(candidate, eligible=False, excluded_code="misses_deadline")
            )
        else:
            extra = timing.extra_cost
            timed.append(
                dataclasses.replace(
                    candidate,
                    total_cost=candidate.total_cost + extra,
                    npv=candidate.npv + extra,
                )
            )
    return timed


def _usable_offerings(
    scenario: Scenario, fits: Sequence[OfferingFit]
) -> tuple[list[int], tuple[tuple[str, Note], ...]]:
    """The indexes of the cloud offerings whose GPUs can run the workload, and the others'
    (name, problem code); InvalidInput when none can."""
    usable = [i for i, fit in enumerate(fits) if fit.problem is None]
    excluded = tuple(
        (scenario.cloud_offerings[i].name, fit.problem)
        for i, fit in enumerate(fits)
        if fit.problem is not None
    )
    if not usable:
        raise InvalidInput(
            "cloud_offerings", "None of the cloud offerings' GPUs can run this workload."
        )
    return usable, excluded


def _energy_and_carbon(
    scenario: Scenario, servers: int, plan: DemandPlan, pue: float
) -> tuple[float, float | None]:
    """The owned fleet's facility energy over the horizon (kWh) and its CO2 (tonnes; None
    when the site's carbon intensity is unknown); ``pue`` is the one its cooling gets at
    the site (tco/engine/site.py)."""
    fin, server, site = scenario.finance, scenario.server, scenario.site
    avg_kw = server.idle_power_kw + (server.max_power_kw - server.idle_power_kw) * plan.utilization
    energy_kwh = servers * avg_kw * pue * HOURS_PER_MONTH * fin.horizon_months
    carbon = (
        energy_kwh * site.carbon_kg_per_kwh / 1000.0 if site.carbon_kg_per_kwh is not None else None
    )
    return energy_kwh, carbon


def _candidates(
    onprem: OnPremResult,
    resell: ResellResult | None,
    clouds: Sequence[CloudOptionResult],
    spot_fine: Sequence[bool],
    own_breaks: tuple[Note, ...],
    cloud_breaks: Sequence[tuple[Note, ...]],
) -> list[Candidate]:
    """Owning (and buy-run-resell) and every cloud offering, as the verdict ranks them."""
    candidates = [Candidate(OWN_NAME, OWN, onprem.total_cost, onprem.npv, violations=own_breaks)]
    if resell is not None:
        candidates.append(
            Candidate(RESELL_NAME, OWN_RESELL, resell.total_cost, resell.npv, violations=own_breaks)
        )
    for option, ok, breaks in zip(clouds, spot_fine, cloud_breaks, strict=True):
        candidates.append(
            Candidate(
                option.name,
                CLOUD,
                option.total_cost,
                option.npv,
                eligible=ok,
                excluded_code=None if ok else "spot_needs_tolerance",
                break_even_month=option.break_even_month,
                violations=breaks,
            )
        )
    return candidates


def _api_candidates(scenario: Scenario, apis: Sequence[ApiOptionResult]) -> list[Candidate]:
    """The hosted APIs, rented like a cloud offering: the verdict ranks them among them."""
    candidates = []
    for api in apis:
        spec = api.spec
        breaks = violations(
            scenario.constraints,
            provider=spec.provider,
            jurisdiction=spec.jurisdiction,
            data_country=spec.data_country,
            on_premises=False,
        )
        candidates.append(Candidate(api.name, CLOUD, api.total_cost, api.npv, violations=breaks))
    return candidates


def _hybrid_candidate(
    hybrid: HybridResult, hybrid_option: str | None, candidates: Sequence[Candidate]
) -> list[Candidate]:
    """Owning part of the fleet and renting the rest, as a candidate when it mixes both and
    beats every other recommendable option; it breaks what both of its parts break (the
    owning candidate's and the rented offering's, as ``candidates`` already hold them)."""
    if not (
        0 < hybrid.owned_servers < len(hybrid.total_by_owned_servers) - 1
        and hybrid.total_cost < min(c.total_cost for c in candidates if c.recommendable)
    ):
        return []
    owned = next(c for c in candidates if c.kind == OWN)
    rented = next(c for c in candidates if c.kind == CLOUD and c.name == hybrid_option)
    hybrid_breaks = owned.violations + rented.violations
    return [Candidate(HYBRID_NAME, HYBRID, hybrid.total_cost, hybrid.npv, violations=hybrid_breaks)]


def _financing(
    model: CostModel,
    fin: FinanceInputs,
    clouds: Sequence[CloudOptionResult],
    apis: Sequence[ApiOptionResult],
    verdict: Verdict,
    monthly: OnPremMonthly,
) -> Financing:
    """Cash, loan and lease, against the option the headline compares with (a GPU cloud
    or a hosted API, if any)."""
    rented = {c.name: c.total_cost for c in clouds} | {a.name: a.total_cost for a in apis}
    reference = verdict.reference_cloud if verdict.reference_cloud in rented else None
    return financing(
        model,
        fin.lease_annual_rate,
        fin.lease_terms_months,
        reference,
        rented[reference] if reference is not None else None,
        monthly=monthly,
    )


def _api_options(
    scenario: Scenario, model: CostModel, serving: ServingOutcome | None
) -> tuple[ApiOptionResult, ...]:
    """Every hosted API offering costed for the requests (docs/methodology.md § 3g)."""
    demand = scenario.workload.serving_demand
    if serving is None or demand is None or not scenario.api_offerings:
        return ()
    owning = onprem_line(model)
    return tuple(
        _api_bill(spec, scenario, demand, serving, model, owning) for spec in scenario.api_offerings
    )


def _api_bill(
    spec: ApiOfferingSpec,
    scenario: Scenario,
    demand: ServingDemand,
    serving: ServingOutcome,
    model: CostModel,
    owning: tuple[FloatArray, FloatArray],
    horizon_months: int | None = None,
) -> ApiOptionResult:
    """One hosted API offering billed for the requests over ``horizon_months`` (the
    scenario's own when None), against the owned fleet's line ``owning`` (onprem_line):
    the option itself and each horizon of the verdict's API are costed alike."""
    fin = scenario.finance
    a, b = owning
    return cost_api_offering(
        spec,
        demand,
        serving.load,
        fx=fin.fx,
        currency=fin.reporting_currency,
        load_factors=_load_factors(scenario, horizon_months),
        discount_rate=fin.discount_rate,
        owning_line=(float(a), float(b)),
        utilization=float(model.utilization),
        fleet_capacity_requests_per_day=serving.fleet_capacity_requests_per_day,
    )


def _constraint_violations(
    scenario: Scenario,
) -> tuple[tuple[Note, ...], tuple[tuple[Note, ...], ...]]:
    """The constraints the owned fleet and each cloud offering break (empty: complies)."""
    c, site = scenario.constraints, scenario.site
    own = violations(
        c, provider="", jurisdiction="", data_country=site.country, on_premises=site.on_premises
    )
    clouds = tuple(
        violations(
            c,
            provider=o.provider,
            jurisdiction=o.jurisdiction,
            data_country=o.data_country,
            on_premises=False,
        )
        for o in scenario.cloud_offerings
    )
    return own, clouds


def _horizons(
    scenario: Scenario,
    sizing: SizingResult,
    model: CostModel,
    resell: ResellResult | None,
    own_plan: DemandPlan | None = None,
) -> HorizonView | None:
    """The same fleet and demand costed over 3, 5, 7 and 10 years (the refresh included).

    ``model`` is the scenario's own cost model: over another horizon only the horizon
    and the demand plan's utilization and active months differ (the plan's pattern, so
    the offerings' billing, is the horizon's too). ``resell``: the scenario's own
    buy-run-resell, when it has one; ``own_plan``: the demand plan over its own horizon.
    """
    models = []
    for months in HORIZONS_MONTHS:
        if own_plan is not None and months == scenario.finance.horizon_months:
            plan = own_plan  # what _plan gives over the scenario's own horizon
        else:
            try:
                plan = _plan(scenario, sizing, months)
            except InvalidInput:
                return None
        models.append(
            model.replace(
                horizon_months=float(months),
                utilization=plan.utilization,
                active_months=plan.active_months,
                rented_work_scale=plan.rented_work_scale,
            )
        )
    resold: list[float | None] | None = None
    if plan.pattern is DemandPattern.ONE_OFF and plan.run_hours:
        # Buy-run-resell replaces every field the horizon changes (it owns the fleet for
        # the run only), so it costs the same over each horizon longer than the run.
        sold = resell or buy_run_resell(models[-1], plan.run_hours, scenario.finance.resale_by_year)
        resold = [
            sold.total_cost if sold is not None and sold.months_owned < months else None
            for months in HORIZONS_MONTHS
        ]
    return horizon_view(models, resold)


def _with_api_horizons(
    view: HorizonView | None,
    scenario: Scenario,
    model: CostModel,
    serving: ServingOutcome | None,
    api: ApiOptionResult | None,
) -> HorizonView | None:
    """The horizon view with the hosted API the verdict compares with: the same requests
    (and their growth) billed over each horizon."""
    demand = scenario.workload.serving_demand
    if view is None or api is None or serving is None or demand is None:
        return view
    owning = onprem_line(model)
    totals = tuple(
        _api_bill(api.spec, scenario, demand, serving, model, owning, months).total_cost
        for months in view.months
    )
    return dataclasses.replace(view, apis=((api.name, totals),))


def cloud_energy_and_carbon(
    offering: CloudOfferingSpec,
    fit: OfferingFit,
    server: ServerSpec,
    sizing: SizingResult,
    plan: DemandPlan,
    horizon_months: int,
) -> tuple[float | None, float | None]:
    """kWh and tonnes of CO₂ of the work on a cloud offering (None without a PUE).

    GPU-hours of the work on that GPU (owned GPU-hours × the rented work scale, 1 unless
    the runs exceed the owned fleet, × work ratio, × spot's re-run overhead) × kW per GPU
    × the provider's PUE; kW per GPU is the GPU's TDP × the owned server's ratio of
    maximum power to its GPUs' TDP (CPUs, memory, network and fans). 1,000 GPU-hours at
    0.7 kW × 1.82 × PUE 1.15 = 1,465 kWh.
    """
    if offering.pue is None:
        return None, None
    gpu = offering.gpu or server.gpu
    overhead = server.max_power_kw / (server.gpus_per_server * server.gpu.tdp_w / 1000.0)
    gpu_hours = (
        sizing.gpus_required
        * HOURS_PER_MONTH
        * horizon_months
        * plan.utilization
        * plan.rented_work_scale
        * fit.work_ratio
        * offering.usage_multiplier
    )
    kwh = gpu_hours * gpu.tdp_w / 1000.0 * overhead * offering.pue
    carbon = kwh * offering.carbon_kg_per_kwh / 1000.0 if offering.carbon_kg_per_kwh else None
    return kwh, carbon


def _confidence(
    scenario: Scenario,
    model: CostModel,
    plan: DemandPlan,
    clouds: Sequence[CloudOptionResult],
    eligible: Sequence[bool],
    verdict: Verdict,
    resell: ResellResult | None,
    capacity: CapacityPlan | None = None,
) -> Confidence | None:
    """The Monte Carlo behind "how sure": owning against the cheapest eligible clouds
    (with ``capacity``, owning also pays for the lead time drawn, a cloud for its delay;
    a cloud ruled out for lateness is left out)."""
    timings = [capacity.timing(o.name) if capacity else None for o in clouds]
    ranked = sorted(
        (option.total_cost + (t.extra_cost if t else 0.0), k)
        for k, (option, ok, t) in enumerate(zip(clouds, eligible, timings, strict=True))
        if ok and not (t and t.ruled_out)
    )
    if not ranked:
        return None
    return monte_carlo(
        model,
        scenario.uncertainty or DEFAULT_RANGES,
        favours="rent" if verdict.action == "rent" else "own",
        clouds=[k for _cost, k in ranked[:CONFIDENCE_CLOUDS]],
        run_hours=plan.run_hours,
        resale_by_year=scenario.finance.resale_by_year,
        resell_months=resell.months_owned if resell is not None else None,
        late=late_draws(capacity, OWN_NAME) if capacity is not None else None,
        cloud_extra=[
            t.extra_cost if (t := timings[k]) else 0.0 for _cost, k in ranked[:CONFIDENCE_CLOUDS]
        ]
        if capacity is not None
        else (),
    )


def _hybrid(
    model: CostModel,
    plan: DemandPlan,
    clouds: Sequence[CloudOptionResult],
    eligible: Sequence[bool],
) -> tuple[HybridResult | None, str | None]:
    """Own N servers for the base, rent the rest on the cheapest eligible pay-per-use option.

    Only for demand that varies month by month (bursts, growth, a profile): a
    flat monthly average would hide that a run needs its whole fleet at once.
    """
    if not plan.varies:
        return None, None
    pay_per_use = [
        (option.total_cost, k)
        for k, (option, ok) in enumerate(zip(clouds, eligible, strict=True))
        if ok and not option.committed
    ]
    if not pay_per_use:
        return None, None
    _cost, k = min(pay_per_use)
    try:
        result = optimise_hybrid(model, model.clouds[k], plan.profile)
    except InvalidInput:
        return None, None
    return result, clouds[k].name


def _runs_break_even(option: CloudOptionResult, plan: DemandPlan) -> float | None:
    """Runs a year from which owning beats ``option``: u* × 8,760 h ÷ run hours.

    Only for training runs against pay-per-use options, when owning gets
    cheaper the more it is used and the fleet can do that many runs.
    """
    u = option.break_even_utilization
    if plan.pattern is DemandPattern.CONTINUOUS or plan.run_hours is None:
        return None
    if option.committed or u is None or not 0.0 < u <= 1.0:
        return None
    if "below" in option.break_even_note:
        return None
    return u * HOURS_PER_YEAR / plan.run_hours


# What the engine assumed when the scenario gave no demand (DemandPlan notes), as the
# verdict's ``demand_assumed`` code.
ASSUMED_DEMANDS = {
    "demand_assumed_one_run": "one_run",
    "demand_assumed_continuous": "around_the_clock",
}
ASSUMED_DEMAND_TEXT = {
    "one_run": "assuming one run",
    "around_the_clock": "assuming it serves around the clock",
}


def assumed_demand(plan: DemandPlan) -> str | None:
    """``one_run`` or ``around_the_clock`` when the demand was assumed, else None."""
    return next((ASSUMED_DEMANDS[n.code] for n in plan.notes if n.code in ASSUMED_DEMANDS), None)


def with_assumption(headline: str, phrase: str) -> str:
    """The headline with what was assumed before its full stop.

    >>> with_assumption("Rent: A, 55 USD for this work.", "assuming one run")
    'Rent: A, 55 USD for this work, assuming one run.'
    """
    return f"{headline.removesuffix('.')}, {phrase}."


def verdict_text(verdict: Verdict, currency: str) -> str:
    """The headline in plain English (command line); the web layer words its own."""
    p = verdict.params
    text = _headline_text(verdict, currency)
    assumed = p.get("demand_assumed")
    if assumed in ASSUMED_DEMAND_TEXT:
        text = with_assumption(text, ASSUMED_DEMAND_TEXT[assumed])
    if p.get("constraint_decided"):
        text += (
            f" Your constraints decided this, not cost: the cheapest option overall, "
            f"{p['cheapest_overall']}, costs {p['cheapest_overall_cost']:,.0f} {currency} but "
            f"breaks them; complying costs {p['constraint_cost']:,.0f} {currency} more."
        )
    # The verdict names the smaller owned option (the warning alone says the share).
    return f"{text} {idle_text(dict(p), currency)}" if p.get("smaller_server") else text


def _headline_text(verdict: Verdict, currency: str) -> str:
    p = verdict.params
    horizon = f"{p['horizon_months'] / 12:g} years"
    if verdict.code == "rent":
        scope = "for this work" if p.get("per_work") else f"over {horizon}"
        ratio = f" ({p['ratio']:,.1f}× cheaper than owning)" if p.get("ratio") else ""
        return f"Rent: {p['option']}, {p['cost']:,.0f} {currency} {scope}{ratio}."
    saving = p.get("saving")
    against = (
        f", saves {saving:,.0f} {currency} ({p['saving_pct']:.0%}) over {horizon} against the "
        f"cheapest fitting cloud option ({p['option']})"
        if saving is not None and p.get("saving_pct") is not None
        else ""
    )
    if verdict.code == "hybrid":
        return (
            f"Hybrid: own {p['owned_servers']} × {p['server']}, rent the rest on "
            f"{p['hybrid_option']}{against}."
        )
    if verdict.code == "buy_resell":
        return (
            f"Buy, run and resell: {p['servers']} × {p['server']}, resold after "
            f"{p['resale_month']} months{against}."
        )
    payback = f", pays back after {p['payback_month']:.1f} months" if p.get("payback_month") else ""
    return f"Buy: {p['servers']} × {p['server']}{against}{payback}."
