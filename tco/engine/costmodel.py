"""The vectorized cost core: one source of truth for every cost formula.

A :class:`CostModel` holds the flat, currency-converted cost inputs of one
scenario; any field may instead be a numpy array with one value per scenario
(the sweep and the tornado do that). The single-scenario path
(:mod:`tco.engine.onprem`, :mod:`tco.engine.cloud`) calls the same functions
with plain floats.

Month 0 carries the purchase; operating costs run in months 1..H; the
residual value comes back (negative cash flow) in month H. A horizon longer
than the servers' service life L buys the fleet again in months L, 2L, …
(the refresh cycle, :func:`refresh_plan`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np

from tco.engine.finance import (
    annuity_factor,
    as_array,
    break_even_utilization,
    broadcast,
    discount_factor,
    lease_balance,
    lease_payment,
    maximum,
    minimum,
    monthly_discount_rate,
)
from tco.engine.units import HOURS_PER_MONTH, MONTHS_PER_YEAR, FloatArray, Number

NO_REFRESH = 1e9  # a service life no horizon reaches


@dataclass(frozen=True, slots=True)
class CloudCostParams:
    """One cloud offering, prices already in the reporting currency."""

    name: str
    price_per_instance_hour: Number
    gpus_per_instance: Number
    committed: Number  # 1.0: billed every hour of the term; 0.0: billed per hour used
    usage_multiplier: Number = 1.0  # spot: 1 + interruption overhead; runs rounded up to hours
    uplift_pct: Number = 0.0  # storage and egress on top of compute
    term_months: Number = 0.0  # commitment length (12 or 36); 0 when billed by use
    work_ratio: Number = 1.0  # GPU-hours on this offering per owned GPU-hour of the same work
    fleet_ratio: Number = 1.0  # GPUs this offering needs per owned GPU for the same work
    always_on: Number = 0.0  # 1.0: a service's instances run every hour, whatever the load


@dataclass(frozen=True, slots=True)
class CostModel:
    """Flat cost inputs in the reporting currency (float or one value per scenario)."""

    servers: Number
    gpus_per_server: Number
    server_price: Number
    idle_power_kw: Number
    max_power_kw: Number
    pue: Number
    electricity_price_per_kwh: Number
    colocation_per_kw_month: Number
    utilization: Number
    horizon_months: Number
    discount_rate: Number
    clouds: tuple[CloudCostParams, ...] = ()
    networking_per_server: Number = 0.0
    storage_total: Number = 0.0
    installation_per_server: Number = 0.0
    spares_pct: Number = 0.0
    colocation_on_facility_kw: Number = 0.0
    support_pct_per_year: Number = 0.0
    staff_fte: Number = 0.0
    staff_annual_cost: Number = 0.0
    software_per_gpu_year: Number = 0.0
    insurance_pct_per_year: Number = 0.0
    residual_pct: Number = 0.0
    leased: Number = 0.0
    lease_annual_rate: Number = 0.0
    lease_term_months: Number = 36.0
    cloud_price_scale: Number = 1.0
    active_months: Number = 1e9  # months the work runs in (capped at H; one-off: its run)
    whole_terms: Number = 0.0  # 1.0: commitments are bought whole for the active months
    fixed_monthly: Number = 0.0  # on-prem fees every month (facility fee, licences)
    one_off_cost: Number = 0.0  # on-prem lump sums in month 0 (spares, services)
    service_life_months: Number = NO_REFRESH  # the fleet is bought again at this age
    # The work demanded ÷ the work the owned fleet does: above 1 when the runs exceed the
    # fleet, whose utilization stops at 1; renting is billed for the whole work.
    rented_work_scale: Number = 1.0

    def replace(self, **changes: Number | tuple[CloudCostParams, ...]) -> CostModel:
        """A copy with some fields replaced (e.g. by arrays for a sweep)."""
        fields: dict[str, Any] = changes  # typed by the signature above
        return dataclasses.replace(self, **fields)


_ALL_FIELDS = tuple(f.name for f in dataclasses.fields(CostModel))
_MODEL_FIELDS = tuple(name for name in _ALL_FIELDS if name != "clouds")
_model_values = attrgetter(*_MODEL_FIELDS)
_CLOUD_FIELDS = tuple(f.name for f in dataclasses.fields(CloudCostParams) if f.name != "name")


def stack_models(models: Sequence[CostModel], *, with_clouds: bool = True) -> CostModel:
    """Scalar models with the same offerings as one model: one value per model (axis 0)
    in each field where they differ, so one pass of the closed forms costs them all.

    Each figure is the same arithmetic as the model's own (numpy works element by
    element); one call instead of one per model is what a result page saves.
    ``with_clouds=False`` leaves the offerings out (on-prem figures only).

    >>> base = CostModel(servers=1, gpus_per_server=8, server_price=100.0, idle_power_kw=0.0,
    ...     max_power_kw=1.0, pue=1.0, electricity_price_per_kwh=0.0,
    ...     colocation_per_kw_month=0.0, utilization=0.5, horizon_months=12, discount_rate=0.0)
    >>> m = stack_models([base, base.replace(horizon_months=24.0)])
    >>> m.horizon_months.tolist(), m.server_price
    ([12.0, 24.0], 100.0)
    """
    first = models[0]
    if with_clouds and any(m.clouds != first.clouds for m in models):
        raise ValueError("stack_models() needs models with the same cloud offerings")
    changes: dict[str, Number | tuple[CloudCostParams, ...]] = {}
    columns = zip(*(_model_values(m) for m in models), strict=True)
    for name, values in zip(_MODEL_FIELDS, columns, strict=True):
        if values.count(values[0]) != len(values):  # they differ
            changes[name] = np.array(values, dtype=np.float64)
    if not with_clouds:
        changes["clouds"] = ()
    return first.replace(**changes)


def stack_clouds(clouds: Sequence[CloudCostParams], ndim: int = 1) -> CloudCostParams:
    """Scalar offerings as one whose fields hold one value per offering along the first
    of ``ndim`` axes, so that the cloud closed forms cost every offering in one call
    (``ndim`` 2 against a model of arrays: results are offerings × the model's values).

    >>> c = stack_clouds([CloudCostParams("a", 10.0, 8, 0.0), CloudCostParams("b", 6.0, 8, 1.0)])
    >>> c.price_per_instance_hour.tolist(), c.committed.tolist()
    ([10.0, 6.0], [0.0, 1.0])
    """
    shape = (len(clouds),) + (1,) * (ndim - 1)
    if not clouds:
        return CloudCostParams("", **{name: np.zeros(shape) for name in _CLOUD_FIELDS})
    columns = zip(*(_cloud_values(c) for c in clouds), strict=True)
    fields = {
        name: np.array(values, dtype=np.float64).reshape(shape)
        for name, values in zip(_CLOUD_FIELDS, columns, strict=True)
    }
    return CloudCostParams(", ".join(c.name for c in clouds), **fields)


_cloud_values = attrgetter(*_CLOUD_FIELDS)


# --- on-prem component formulas ----------------------------------------------------


def hardware_value(
    servers: Number,
    server_price: Number,
    networking_per_server: Number,
    spares_pct: Number,
    storage_total: Number,
) -> FloatArray:
    """Depreciable hardware: servers × (price + network per node) × (1 + spares) + storage.

    6 × ($300,000 + $30,000) × 1.02 + $50,000 = $2,069,600.

    >>> float(hardware_value(6, 300_000.0, 30_000.0, 0.02, 50_000.0))
    2069600.0
    """
    per_server = as_array(server_price) + as_array(networking_per_server)
    return as_array(
        _times(as_array(servers) * per_server, 1.0 + as_array(spares_pct)) + storage_total
    )


def server_power_kw(idle_kw: Number, max_kw: Number, utilization: Number) -> FloatArray:
    """Average IT power of one server: idle + (max − idle) × utilization.

    >>> float(server_power_kw(2.5, 10.2, 0.5))
    6.35
    """
    idle = as_array(idle_kw)
    return as_array(idle + (as_array(max_kw) - idle) * as_array(utilization))


def energy_cost_per_month(
    servers: Number,
    idle_kw: Number,
    max_kw: Number,
    utilization: Number,
    pue: Number,
    price_per_kwh: Number,
) -> FloatArray:
    """servers × (idle + (max − idle) × u) × PUE × 730 h × price.

    6 servers × 6.35 kW × 1.3 × 730 h × 0.20 = 7,231.38 a month.

    >>> round(float(energy_cost_per_month(6, 2.5, 10.2, 0.5, 1.3, 0.20)), 2)
    7231.38
    """
    kw = as_array(servers) * server_power_kw(idle_kw, max_kw, utilization) * as_array(pue)
    return as_array(kw * HOURS_PER_MONTH * as_array(price_per_kwh))


def colocation_cost_per_month(
    servers: Number,
    max_kw: Number,
    pue: Number,
    price_per_kw_month: Number,
    on_facility_kw: Number = 0.0,
) -> FloatArray:
    """Provisioned kW × price; provisioned = servers × max kW (× PUE if billed on facility kW).

    6 × 10.2 kW × 150 = 9,180 a month (IT kW); × 1.3 = 11,934 on facility kW.

    >>> round(float(colocation_cost_per_month(6, 10.2, 1.3, 150.0)), 2)
    9180.0
    >>> round(float(colocation_cost_per_month(6, 10.2, 1.3, 150.0, 1.0)), 2)
    11934.0
    """
    facility, pue_ = as_array(on_facility_kw), as_array(pue)
    if pue_.ndim and facility.ndim == 0 and facility == 0.0 and np.isfinite(np.sum(pue_)):
        # Billed on IT kW against PUEs (the Monte Carlo's draws): the uplift 1 + 0 × (PUE − 1)
        # is exactly 1.0 for a finite PUE (a finite sum has no inf or NaN among its terms),
        # and × 1.0 changes no bit, so the product is the IT kW's.
        return as_array(as_array(servers) * as_array(max_kw) * as_array(price_per_kw_month))
    uplift = 1.0 + facility * (pue_ - 1.0)
    return as_array(as_array(servers) * as_array(max_kw) * uplift * as_array(price_per_kw_month))


def percent_per_year_per_month(base: Number, pct_per_year: Number) -> FloatArray:
    """Support, maintenance or insurance: base × %/year ÷ 12.

    15 % of $1,980,000 a year = 24,750 a month.

    >>> float(percent_per_year_per_month(1_980_000.0, 0.15))
    24750.0
    """
    return as_array(as_array(base) * as_array(pct_per_year) / MONTHS_PER_YEAR)


def staff_cost_per_month(fte: Number, annual_cost: Number) -> FloatArray:
    """FTE × annual cost ÷ 12: 0.5 × 150,000 / 12 = 6,250.

    >>> float(staff_cost_per_month(0.5, 150_000.0))
    6250.0
    """
    return as_array(as_array(fte) * as_array(annual_cost) / MONTHS_PER_YEAR)


def software_cost_per_month(gpus: Number, per_gpu_year: Number) -> FloatArray:
    """Licences per GPU-year ÷ 12: 48 GPUs × 4,500 / 12 = 18,000.

    >>> float(software_cost_per_month(48, 4_500.0))
    18000.0
    """
    return as_array(as_array(gpus) * as_array(per_gpu_year) / MONTHS_PER_YEAR)


# --- cloud component formulas ------------------------------------------------------


def cloud_instances(
    servers: Number, gpus_per_server: Number, gpus_per_instance: Number, fleet_ratio: Number = 1.0
) -> FloatArray:
    """Instances needed to do the owned fleet's work (rounded up).

    6 servers × 8 GPUs on 8-GPU instances = 6; on 1-GPU offerings = 48; on a
    GPU that needs 1.5 times as many GPUs for the same work, 9.

    >>> float(cloud_instances(6, 8, 8)), float(cloud_instances(6, 8, 1))
    (6.0, 48.0)
    >>> float(cloud_instances(6, 8, 8, 1.5))
    9.0
    """
    gpus = as_array(servers) * as_array(gpus_per_server) * as_array(fleet_ratio)
    return as_array(np.ceil(gpus / as_array(gpus_per_instance) - 1e-9))


def cloud_billed_hours_per_month(
    instances: Number, utilization: Number, committed: Number, usage_multiplier: Number = 1.0
) -> FloatArray:
    """Committed terms bill all 730 h; others bill used hours × usage multiplier.

    6 instances at 70 %: on demand 3,066 h; spot (+15 %) 3,525.9 h; committed 4,380 h.

    >>> float(cloud_billed_hours_per_month(6, 0.7, 0.0))
    3066.0
    >>> round(float(cloud_billed_hours_per_month(6, 0.7, 0.0, 1.15)), 1)
    3525.9
    >>> float(cloud_billed_hours_per_month(6, 0.7, 1.0))
    4380.0
    """
    c = as_array(committed)
    fraction = c + (1.0 - c) * as_array(utilization) * as_array(usage_multiplier)
    return as_array(as_array(instances) * HOURS_PER_MONTH * fraction)


# --- refresh cycle -----------------------------------------------------------------


def _broadcast(x: FloatArray, other: FloatArray) -> FloatArray:
    """``x`` in the shape of ``x`` combined with ``other`` (a sweep's arrays).

    One scenario's scalars already agree, and a scalar ``other`` changes no shape (the
    Monte Carlo's draws against one refresh count); skipping ``np.broadcast_to`` there
    saves its cost on the calls a result page makes per option and candidate server.
    """
    if x.shape == other.shape or other.ndim == 0:
        return x
    shape = other.shape if x.ndim == 0 else np.broadcast_shapes(x.shape, other.shape)
    return as_array(broadcast(x, shape))


@dataclass(frozen=True, slots=True)
class RefreshPlan:
    """Second (third, …) purchases of the fleet within the horizon (arrays).

    ``count`` refreshes in months L, 2L, … before H; each buys the fleet again
    (``purchase``: hardware and installation at today's prices) and sells the
    old one at the residual value (``resale``). ``kept_pct`` is the share of the
    hardware value credited at the horizon.
    """

    count: FloatArray
    life: FloatArray
    purchase: FloatArray
    resale: FloatArray
    kept_pct: FloatArray

    @property
    def net(self) -> FloatArray:
        """Cash out at each refresh: the new fleet less what the old one fetches."""
        return as_array(self.purchase - self.resale)


def refresh_plan(m: CostModel, hardware: FloatArray, purchase: FloatArray) -> RefreshPlan:
    """How often the fleet is bought again, and what it is worth at the horizon.

    n = ⌈H ÷ L⌉ − 1 refreshes (none while H ≤ L). Within the service life the
    residual at the horizon is the input ``residual_pct`` (unchanged); after a
    refresh the fleet bought last is a − nL months old at H and is credited at
    its straight-line book value between new and ``residual_pct`` at age L:
    r + (1 − r)(1 − a ÷ L). A 5-year life over 7 years: one refresh in month
    60; the second fleet is 24 months old, 10 % + 90 % × 60 % = 64 % kept.

    >>> m = CostModel(servers=1, gpus_per_server=8, server_price=100.0, idle_power_kw=0.0,
    ...     max_power_kw=1.0, pue=1.0, electricity_price_per_kwh=0.0,
    ...     colocation_per_kw_month=0.0, utilization=0.5, horizon_months=84,
    ...     discount_rate=0.0, residual_pct=0.1, service_life_months=60)
    >>> p = refresh_plan(m, as_array(100.0), as_array(105.0))
    >>> float(p.count), round(float(p.kept_pct), 4), float(p.net)
    (1.0, 0.64, 95.0)
    """
    h = as_array(m.horizon_months)
    life = as_array(m.service_life_months)
    count = maximum(np.ceil(h / life - 1e-9) - 1.0, 0.0)
    r = as_array(m.residual_pct)
    if count.ndim == 0:  # one count (every scenario alike): only the branch it takes
        kept = as_array(r + (1.0 - r) * (1.0 - (h - count * life) / life)) if count > 0 else r
    else:
        age = h - count * life
        kept = np.where(count > 0, r + (1.0 - r) * (1.0 - age / life), r)
    return RefreshPlan(
        count=count,
        life=life,
        purchase=_broadcast(purchase, count),
        resale=as_array(hardware * r),
        kept_pct=as_array(kept),
    )


def refresh_discount_sum(monthly_rate: Number, life: Number, count: Number) -> FloatArray:
    """Σ (1 + i)^−kL for k = 1..n: today's value of one unit paid at each refresh.

    >>> round(float(refresh_discount_sum(0.01, 12, 2)), 6)  # 0.887449 + 0.787566
    1.675015
    >>> float(refresh_discount_sum(0.0, 60, 1))
    1.0
    """
    # q = (1 + i)^−L = e^−a with a = L·ln(1 + i); the sum q(1 − qⁿ)/(1 − q) is written with
    # expm1 so that it keeps its precision when the rate is tiny (1 − q cancels otherwise).
    a = as_array(life) * np.log1p(as_array(monthly_rate))
    n = as_array(count)
    positive = a > 0.0
    geometric = np.exp(-a) * np.expm1(-n * a) / np.expm1(-np.where(positive, a, 1.0))
    return as_array(np.where(positive, geometric, n))


# --- totals (closed form over the horizon) -----------------------------------------


@dataclass(frozen=True, eq=False)
class OnPremMonthly:
    """Month-0 and per-month amounts of the on-prem option (arrays).

    The amounts that only the NPV, the monthly table and leases use (the idle draw, the
    active months' energy, the lease payment) are computed from ``model`` when first read:
    the nominal total (the ranking of servers, the Monte Carlo's 10,000 draws) never reads
    them. Not slotted, so that ``cached_property`` can keep them.
    """

    model: CostModel
    hardware_value: FloatArray
    purchase: FloatArray  # hardware and installation: what a refresh buys again
    upfront: FloatArray
    energy: FloatArray  # average a month over the horizon
    active_months: FloatArray
    fixed: FloatArray
    colocation: FloatArray
    support: FloatArray
    staff: FloatArray
    software: FloatArray
    insurance: FloatArray
    residual: FloatArray
    refresh: RefreshPlan

    @property
    def opex(self) -> FloatArray:
        """The monthly amounts summed left to right. In a sum of arrays a single +0.0 (no
        software, no fixed fees) is passed over once a single number other than −0.0 is in
        the sum (staff): a sum holds −0.0 only where every term is −0.0, and adding +0.0
        to anything else changes no bit, so the same floats without a pass per zero."""
        total = self.energy + self.colocation + self.support + self.staff
        if type(total) is not np.ndarray or not _signed_single(self.staff):
            return as_array(total + self.software + self.insurance + self.fixed)
        for term in (self.software, self.insurance, self.fixed):
            if not _plus_zero(term):
                total = total + term
        return as_array(total)

    @functools.cached_property
    def energy_idle(self) -> FloatArray:
        """Every month: the fleet's idle draw (the energy formula at u = 0)."""
        m = self.model
        return energy_cost_per_month(
            m.servers, m.idle_power_kw, m.max_power_kw, 0.0, m.pue, m.electricity_price_per_kwh
        )

    @functools.cached_property
    def energy_active(self) -> FloatArray:
        """On top of idle, in each of the active months: the horizon's extra kWh, spent
        in those months."""
        horizon = as_array(self.model.horizon_months)
        return as_array((self.energy - self.energy_idle) * horizon / self.active_months)

    @functools.cached_property
    def lease_payment(self) -> FloatArray:
        """The monthly payment of a lease of the upfront amount."""
        m = self.model
        return lease_payment(self.upfront, m.lease_annual_rate, m.lease_term_months)


def _signed_single(x: object) -> bool:
    """One number (a float or numpy float64, not an array) other than −0.0."""
    return isinstance(x, float) and not (x == 0.0 and math.copysign(1.0, x) < 0.0)


def _plus_zero(x: object) -> bool:
    """One number, +0.0."""
    return isinstance(x, float) and x == 0.0 and math.copysign(1.0, x) > 0.0


def active_months(m: CostModel) -> FloatArray:
    """Months the work runs in: the one-off run's months, else the whole horizon."""
    return maximum(minimum(as_array(m.active_months), as_array(m.horizon_months)), 1.0)


def onprem_monthly(m: CostModel) -> OnPremMonthly:
    """Every on-prem amount of the model, from the component formulas above.

    Energy above the idle draw is spent in the active months only: the same
    kWh over the horizon, earlier in time when a one-off run ends early.
    """
    hv = hardware_value(
        m.servers, m.server_price, m.networking_per_server, m.spares_pct, m.storage_total
    )
    # The refresh buys servers and installation again; upfront adds the one-off costs
    # (the same sum, hv + installation + one-off, left to right).
    purchase = as_array(hv + as_array(m.servers) * as_array(m.installation_per_server))
    upfront = as_array(purchase + as_array(m.one_off_cost))
    gpus = as_array(m.servers) * as_array(m.gpus_per_server)
    colocation = colocation_cost_per_month(
        m.servers, m.max_power_kw, m.pue, m.colocation_per_kw_month, m.colocation_on_facility_kw
    )
    support = percent_per_year_per_month(hv, m.support_pct_per_year)
    staff = staff_cost_per_month(m.staff_fte, m.staff_annual_cost)
    software = software_cost_per_month(gpus, m.software_per_gpu_year)
    insurance = percent_per_year_per_month(hv, m.insurance_pct_per_year)
    fixed = as_array(m.fixed_monthly)  # as given: a scalar adds to every scenario alike
    energy = energy_cost_per_month(
        m.servers,
        m.idle_power_kw,
        m.max_power_kw,
        m.utilization,
        m.pue,
        m.electricity_price_per_kwh,
    )
    refresh = refresh_plan(m, hv, purchase)
    count = refresh.count
    # No refresh within the horizon (one count, zero): the fleet at the horizon is the first,
    # credited at residual_pct, which is the refresh plan's resale (hv × residual_pct): the
    # same product, made once (a pass over the draws in the Monte Carlo).
    no_refresh = count.ndim == 0 and count == 0.0
    return OnPremMonthly(
        model=m,
        hardware_value=hv,
        purchase=purchase,
        upfront=upfront,
        energy=energy,
        active_months=active_months(m),
        fixed=fixed,
        colocation=colocation,
        support=support,
        staff=staff,
        software=software,
        insurance=insurance,
        residual=refresh.resale if no_refresh else as_array(hv * refresh.kept_pct),
        refresh=refresh,
    )


@dataclass(frozen=True, slots=True)
class CloudBill:
    """One offering's bill over the horizon, before the storage/egress uplift (arrays).

    Pay-per-use hours are billed in the active months; a commitment is billed
    monthly for ``committed_months`` (beyond the horizon: paid in month H).
    """

    instances: FloatArray
    usage_total: FloatArray
    usage_months: FloatArray
    committed_monthly: FloatArray
    committed_months: FloatArray
    uplift_pct: FloatArray

    @property
    def compute_total(self) -> FloatArray:
        return as_array(self.usage_total + self.committed_monthly * self.committed_months)


def cloud_bill(m: CostModel, cloud: CloudCostParams) -> CloudBill:
    """What renting costs for the model's work on one offering.

    Billed in the unit the provider sells, whole instances: instances =
    ceil(owned GPUs × fleet ratio ÷ GPUs per instance). Pay per use: instances ×
    (work ratio ÷ fleet ratio: the hours they run per owned hour) × 730 h × H × u
    × s × usage multiplier × price (a service's instances, ``always_on``, run every
    hour: u × s = 1 for the bill); s (``rented_work_scale``) is the work demanded ÷
    the work the owned fleet does, 1 unless the runs exceed the fleet. Committed:
    instances × 730 h × price for every month of the horizon, or (``whole_terms``) for
    whole terms covering the active months: a 1-day run on a 1-year term pays the year.

    >>> from tco.engine.costmodel import CostModel, CloudCostParams
    >>> m = CostModel(servers=1, gpus_per_server=8, server_price=1.0, idle_power_kw=0.0,
    ...     max_power_kw=1.0, pue=1.0, electricity_price_per_kwh=0.0,
    ...     colocation_per_kw_month=0.0, utilization=0.01, horizon_months=60, discount_rate=0.0,
    ...     active_months=1, whole_terms=1.0)
    >>> b = cloud_bill(m, CloudCostParams("od", 10.0, 8, 0.0))
    >>> round(float(b.usage_total), 2)  # 730 × 60 × 1 % = 438 instance-hours
    4380.0
    >>> b = cloud_bill(m, CloudCostParams("1y", 6.0, 8, 1.0, term_months=12))
    >>> float(b.committed_months), round(float(b.compute_total), 2)  # the whole year
    (12.0, 52560.0)
    """
    price = as_array(cloud.price_per_instance_hour) * as_array(m.cloud_price_scale)
    committed = as_array(cloud.committed)
    on = _one_row_if_alike(as_array(cloud.always_on))
    instances = cloud_instances(
        m.servers, m.gpus_per_server, cloud.gpus_per_instance, cloud.fleet_ratio
    )
    used_instance_hours = (
        instances
        * (as_array(cloud.work_ratio) / as_array(cloud.fleet_ratio))
        * HOURS_PER_MONTH
        * as_array(m.horizon_months)
        * (on + (1.0 - on) * as_array(m.utilization) * as_array(m.rented_work_scale))
        * as_array(cloud.usage_multiplier)
    )
    active = active_months(m)
    term = np.maximum(as_array(cloud.term_months), 1.0)
    whole = as_array(m.whole_terms)
    months = whole * term * np.ceil(active / term - 1e-9) + (1.0 - whole) * as_array(
        m.horizon_months
    )
    return CloudBill(
        instances=instances,
        usage_total=as_array((1.0 - committed) * used_instance_hours * price),
        usage_months=active,
        committed_monthly=as_array(committed * instances * HOURS_PER_MONTH * price),
        committed_months=as_array(committed * months),
        uplift_pct=as_array(cloud.uplift_pct),
    )


def _times(x: FloatArray, factor: FloatArray) -> FloatArray:
    """``x × factor``, or ``x`` itself where every factor is exactly 1.0 (no spares, no
    storage and egress uplift): × 1.0 changes no float, not even a NaN's or a zero's sign,
    and ``x`` has the product's shape already (a pass over the Monte Carlo's draws saved)."""
    if factor.ndim == 0:
        if factor == 1.0:
            return x
    elif _covers(x.shape, factor.shape) and (factor == 1.0).all():
        return x
    return as_array(x * factor)


def _covers(shape: tuple[int, ...], other: tuple[int, ...]) -> bool:
    """An array of ``shape`` broadcast with one of ``other`` keeps its shape."""
    if len(other) > len(shape):
        return False
    return all(b == 1 or b == a for a, b in zip(shape[::-1], other[::-1], strict=False))


def _one_row_if_alike(x: FloatArray) -> FloatArray:
    """An offerings' field stacked along the first axis, as its first row when every row
    holds the same bits (``always_on``: 0.0 for every offering but a service). Broadcast
    against the model's values it gives each offering's products as before, element by
    element, made once instead of once per offering (the Monte Carlo's draws)."""
    if x.ndim and x.shape[0] > 1:
        first = x[:1]
        if first.tobytes() * x.shape[0] == x.tobytes():
            return first
    return x


def cloud_cost_per_month(m: CostModel, cloud: CloudCostParams) -> tuple[FloatArray, FloatArray]:
    """(compute, storage/egress uplift), averaged a month over the horizon."""
    bill = cloud_bill(m, cloud)
    compute = as_array(bill.compute_total / as_array(m.horizon_months))
    return compute, as_array(compute * bill.uplift_pct)


@dataclass(frozen=True, slots=True)
class Totals:
    """Nominal total and NPV over the horizon (arrays)."""

    total: FloatArray
    npv: FloatArray


def _bought_outright(m: CostModel) -> bool:
    """No scenario of the model leases (the usual case). Then leased × (lease cost) +
    (1 − leased) × upfront is the upfront itself, and the lease terms are not computed
    (a dozen array operations per call, on 10,000 draws in the Monte Carlo)."""
    leased = m.leased
    kind = type(leased)
    if kind is float or kind is np.float64:  # the usual field: skip np.ndim's call
        return bool(leased == 0.0)
    return np.ndim(leased) == 0 and float(leased) == 0.0


def _onprem_finance_total(m: CostModel, mo: OnPremMonthly) -> FloatArray:
    """What buying costs in cash: the upfront price, or the lease payments for min(term, H)
    months plus the balance still owed at H (paid off then)."""
    if _bought_outright(m):
        return mo.upfront
    leased = as_array(m.leased)
    paid = np.minimum(as_array(m.lease_term_months), as_array(m.horizon_months))
    payoff = lease_balance(mo.upfront, m.lease_annual_rate, m.lease_term_months, paid)
    return as_array(leased * (mo.lease_payment * paid + payoff) + (1.0 - leased) * mo.upfront)


def _onprem_nominal(m: CostModel, mo: OnPremMonthly) -> FloatArray:
    refresh = mo.refresh
    return as_array(
        _onprem_finance_total(m, mo)
        + mo.opex * as_array(m.horizon_months)
        + refresh.count * refresh.net
        - mo.residual
    )


def onprem_total(m: CostModel, monthly: OnPremMonthly | None = None) -> FloatArray:
    """Closed-form nominal on-prem total: upfront (or lease) + H × opex + n × (refresh
    purchase − old fleet's resale) − residual.

    The part of :func:`onprem_totals` that needs no discounting: the ranking of servers,
    the break-even lines and the Monte Carlo use only this. ``monthly``: the model's
    :func:`onprem_monthly`, when the caller has it already.
    """
    return _onprem_nominal(m, monthly if monthly is not None else onprem_monthly(m))


def onprem_totals(m: CostModel, monthly: OnPremMonthly | None = None) -> Totals:
    """Closed-form on-prem total and NPV; equal to summing the monthly table.

    Cash: upfront + H × opex + n × (refresh purchase − old fleet's resale) −
    residual. Lease: payments for min(term, H) months, plus the balance still
    owed at H (paid off then), instead of upfront (a refresh is paid in cash).
    ``monthly``: the model's :func:`onprem_monthly`, when the caller has it already.
    """
    mo = monthly if monthly is not None else onprem_monthly(m)
    return Totals(as_array(_onprem_nominal(m, mo)), onprem_npv(m, mo))


def onprem_npv(m: CostModel, monthly: OnPremMonthly | None = None) -> FloatArray:
    """The NPV of :func:`onprem_totals` alone (the tornado ranks on it)."""
    mo = monthly if monthly is not None else onprem_monthly(m)
    h = as_array(m.horizon_months)
    i = monthly_discount_rate(m.discount_rate)
    df_h = discount_factor(i, h)
    if _bought_outright(m):
        finance_npv = mo.upfront
    else:
        leased = as_array(m.leased)
        paid = np.minimum(as_array(m.lease_term_months), h)
        payoff = lease_balance(mo.upfront, m.lease_annual_rate, m.lease_term_months, paid)
        finance_npv = (
            leased * (mo.lease_payment * annuity_factor(i, paid) + payoff * df_h)
            + (1.0 - leased) * mo.upfront
        )
    refresh = mo.refresh
    steady = mo.opex - mo.energy + mo.energy_idle  # opex without the work's extra energy
    npv = (
        finance_npv
        + steady * annuity_factor(i, h)
        + mo.energy_active * annuity_factor(i, mo.active_months)
        + refresh.net * refresh_discount_sum(i, refresh.life, refresh.count)
        - mo.residual * df_h
    )
    return as_array(npv)


def cloud_total(m: CostModel, cloud: CloudCostParams) -> FloatArray:
    """Closed-form nominal cloud total of :func:`cloud_bill` (no discounting)."""
    bill = cloud_bill(m, cloud)
    return _times(bill.compute_total, 1.0 + bill.uplift_pct)


def cloud_totals(m: CostModel, cloud: CloudCostParams) -> Totals:
    """Closed-form cloud total and NPV of :func:`cloud_bill` (months 1..H)."""
    bill = cloud_bill(m, cloud)
    return Totals(as_array(bill.compute_total * (1.0 + bill.uplift_pct)), _cloud_npv(m, bill))


def cloud_npv(m: CostModel, cloud: CloudCostParams) -> FloatArray:
    """The NPV of :func:`cloud_totals` alone (the tornado ranks on it)."""
    return _cloud_npv(m, cloud_bill(m, cloud))


def _cloud_npv(m: CostModel, bill: CloudBill) -> FloatArray:
    h = as_array(m.horizon_months)
    i = monthly_discount_rate(m.discount_rate)
    paid = np.minimum(bill.committed_months, h)
    late = bill.committed_months - paid  # commitment months past the horizon, paid in month H
    usage_npv = bill.usage_total / bill.usage_months * annuity_factor(i, bill.usage_months)
    committed_npv = bill.committed_monthly * (
        annuity_factor(i, paid) + late * discount_factor(i, h)
    )
    return as_array((usage_npv + committed_npv) * (1.0 + bill.uplift_pct))


def onprem_line(m: CostModel) -> tuple[FloatArray, FloatArray]:
    """(A, B): on-prem total = A + B·u (linear in utilization: evaluated at u = 0 and 1)."""
    a = onprem_total(m.replace(utilization=0.0))
    return a, as_array(onprem_total(m.replace(utilization=1.0)) - a)


def break_even_lines(
    m: CostModel,
    cloud: CloudCostParams,
    onprem: tuple[FloatArray, FloatArray] | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """(A, B, C, D): on-prem total = A + B·u and cloud total = C + D·u.

    Both totals are linear in utilization, so evaluating them at u = 0 and
    u = 1 gives the two lines exactly. Pass ``onprem`` (from
    :func:`onprem_line`) to reuse the on-prem line across offerings.
    """
    at0, at1 = m.replace(utilization=0.0), m.replace(utilization=1.0)
    a, b = onprem if onprem is not None else onprem_line(m)
    c = cloud_total(at0, cloud)
    d = as_array(cloud_total(at1, cloud) - c)
    return a, b, c, d


_ENDS = np.array([[0.0], [1.0]])  # utilization at both ends, one row each
_ENDS.flags.writeable = False


def offering_lines(
    m: CostModel, offerings: CloudCostParams
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """:func:`break_even_lines` of one scenario (every field of ``m`` a single value)
    against offerings stacked along one axis (:func:`stack_clouds`).

    Both ends in one pass: utilization 0 and 1 as two rows (ends × offerings), instead
    of a model and a pass of each closed form per end. Element by element the same
    arithmetic (the nominal totals use no power or exponential, whose vector loops could
    round otherwise), so the same floats as :func:`break_even_lines`.
    """
    ends = m.replace(utilization=_ENDS)
    own = onprem_total(ends)  # ends × 1
    rent = cloud_total(ends, offerings)  # ends × offerings
    a, c = own[0, 0], rent[0]
    return a, as_array(own[1, 0] - a), c, as_array(rent[1] - c)


def break_even(m: CostModel, cloud: CloudCostParams) -> FloatArray:
    """Break-even utilization of on-prem vs ``cloud`` on nominal totals (see finance)."""
    return break_even_utilization(*break_even_lines(m, cloud))


def delivered_gpu_hours(m: CostModel) -> FloatArray:
    """GPU-hours of useful work over the horizon: GPUs × 730 × H × u."""
    return as_array(
        as_array(m.servers)
        * as_array(m.gpus_per_server)
        * HOURS_PER_MONTH
        * as_array(m.horizon_months)
        * as_array(m.utilization)
    )
