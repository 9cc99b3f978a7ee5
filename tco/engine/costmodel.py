"""The vectorized cost core: one source of truth for every cost formula.

A :class:`CostModel` holds the flat, currency-converted cost inputs of one
scenario; any field may instead be a numpy array with one value per scenario
(the sweep and the tornado do that). The single-scenario path
(:mod:`tco.engine.onprem`, :mod:`tco.engine.cloud`) calls the same functions
with plain floats.

Month 0 carries the purchase; operating costs run in months 1..H; the
residual value comes back (negative cash flow) in month H.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from tco.engine.finance import (
    annuity_factor,
    as_array,
    break_even_utilization,
    discount_factor,
    lease_balance,
    lease_payment,
    monthly_discount_rate,
)
from tco.engine.units import HOURS_PER_MONTH, MONTHS_PER_YEAR, FloatArray, Number


@dataclass(frozen=True, slots=True)
class CloudCostParams:
    """One cloud offering, prices already in the reporting currency."""

    name: str
    price_per_instance_hour: Number
    gpus_per_instance: Number
    committed: Number  # 1.0: billed every hour of the term; 0.0: billed per hour used
    usage_multiplier: Number = 1.0  # spot: 1 + interruption overhead
    uplift_pct: Number = 0.0  # storage and egress on top of compute


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

    def replace(self, **changes: Number) -> CostModel:
        """A copy with some fields replaced (e.g. by arrays for a sweep)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


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
    return as_array(as_array(servers) * per_server * (1.0 + as_array(spares_pct)) + storage_total)


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
    uplift = 1.0 + as_array(on_facility_kw) * (as_array(pue) - 1.0)
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
    servers: Number, gpus_per_server: Number, gpus_per_instance: Number
) -> FloatArray:
    """Instances needed to match the owned fleet's GPU count (rounded up).

    6 servers × 8 GPUs on 8-GPU instances = 6; on 1-GPU offerings = 48.

    >>> float(cloud_instances(6, 8, 8)), float(cloud_instances(6, 8, 1))
    (6.0, 48.0)
    """
    gpus = as_array(servers) * as_array(gpus_per_server)
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


# --- totals (closed form over the horizon) -----------------------------------------


@dataclass(frozen=True, slots=True)
class OnPremMonthly:
    """Month-0 and per-month amounts of the on-prem option (arrays)."""

    hardware_value: FloatArray
    upfront: FloatArray
    energy: FloatArray
    colocation: FloatArray
    support: FloatArray
    staff: FloatArray
    software: FloatArray
    insurance: FloatArray
    residual: FloatArray
    lease_payment: FloatArray

    @property
    def opex(self) -> FloatArray:
        return as_array(
            self.energy
            + self.colocation
            + self.support
            + self.staff
            + self.software
            + self.insurance
        )


def onprem_monthly(m: CostModel) -> OnPremMonthly:
    """Every on-prem amount of the model, from the component formulas above."""
    hv = hardware_value(
        m.servers, m.server_price, m.networking_per_server, m.spares_pct, m.storage_total
    )
    upfront = as_array(hv + as_array(m.servers) * as_array(m.installation_per_server))
    gpus = as_array(m.servers) * as_array(m.gpus_per_server)
    return OnPremMonthly(
        hardware_value=hv,
        upfront=upfront,
        energy=energy_cost_per_month(
            m.servers,
            m.idle_power_kw,
            m.max_power_kw,
            m.utilization,
            m.pue,
            m.electricity_price_per_kwh,
        ),
        colocation=colocation_cost_per_month(
            m.servers, m.max_power_kw, m.pue, m.colocation_per_kw_month, m.colocation_on_facility_kw
        ),
        support=percent_per_year_per_month(hv, m.support_pct_per_year),
        staff=staff_cost_per_month(m.staff_fte, m.staff_annual_cost),
        software=software_cost_per_month(gpus, m.software_per_gpu_year),
        insurance=percent_per_year_per_month(hv, m.insurance_pct_per_year),
        residual=as_array(hv * as_array(m.residual_pct)),
        lease_payment=lease_payment(upfront, m.lease_annual_rate, m.lease_term_months),
    )


def cloud_cost_per_month(m: CostModel, cloud: CloudCostParams) -> tuple[FloatArray, FloatArray]:
    """(compute, storage/egress uplift) per month for one offering."""
    instances = cloud_instances(m.servers, m.gpus_per_server, cloud.gpus_per_instance)
    hours = cloud_billed_hours_per_month(
        instances, m.utilization, cloud.committed, cloud.usage_multiplier
    )
    compute = as_array(
        hours * as_array(cloud.price_per_instance_hour) * as_array(m.cloud_price_scale)
    )
    return compute, as_array(compute * as_array(cloud.uplift_pct))


@dataclass(frozen=True, slots=True)
class Totals:
    """Nominal total and NPV over the horizon (arrays)."""

    total: FloatArray
    npv: FloatArray


def onprem_totals(m: CostModel) -> Totals:
    """Closed-form on-prem total and NPV; equal to summing the monthly table.

    Cash: upfront + H × opex − residual. Lease: payments for min(term, H)
    months, plus the balance still owed at H (paid off then), instead of upfront.
    """
    mo = onprem_monthly(m)
    h = as_array(m.horizon_months)
    i = monthly_discount_rate(m.discount_rate)
    df_h = discount_factor(i, h)
    leased = as_array(m.leased)
    paid = np.minimum(as_array(m.lease_term_months), h)
    payoff = lease_balance(mo.upfront, m.lease_annual_rate, m.lease_term_months, paid)
    finance_total = leased * (mo.lease_payment * paid + payoff) + (1.0 - leased) * mo.upfront
    finance_npv = (
        leased * (mo.lease_payment * annuity_factor(i, paid) + payoff * df_h)
        + (1.0 - leased) * mo.upfront
    )
    total = finance_total + mo.opex * h - mo.residual
    npv = finance_npv + mo.opex * annuity_factor(i, h) - mo.residual * df_h
    return Totals(as_array(total), as_array(npv))


def cloud_totals(m: CostModel, cloud: CloudCostParams) -> Totals:
    """Closed-form cloud total and NPV: the monthly bill for months 1..H."""
    compute, uplift = cloud_cost_per_month(m, cloud)
    monthly = compute + uplift
    h = as_array(m.horizon_months)
    i = monthly_discount_rate(m.discount_rate)
    return Totals(as_array(monthly * h), as_array(monthly * annuity_factor(i, h)))


def break_even_lines(
    m: CostModel, cloud: CloudCostParams
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """(A, B, C, D): on-prem total = A + B·u and cloud total = C + D·u.

    Both totals are linear in utilization, so evaluating them at u = 0 and
    u = 1 gives the two lines exactly.
    """
    at0, at1 = m.replace(utilization=0.0), m.replace(utilization=1.0)
    a = onprem_totals(at0).total
    b = as_array(onprem_totals(at1).total - a)
    c = cloud_totals(at0, cloud).total
    d = as_array(cloud_totals(at1, cloud).total - c)
    return a, b, c, d


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
