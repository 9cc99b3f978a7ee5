"""The on-prem option as month-by-month cash flows (single scenario)."""

from __future__ import annotations

import numpy as np

from tco.engine.cashflow import CashFlow
from tco.engine.costmodel import CostModel, OnPremMonthly, onprem_monthly
from tco.engine.errors import InvalidInput
from tco.engine.finance import lease_balance

ONPREM_COLUMNS = (
    "hardware",
    "lease",
    "energy",
    "colocation",
    "support",
    "staff",
    "software",
    "insurance",
    "fixed",
    "residual",
)


def scalar(value: object, field: str) -> float:
    """A model field as a float; the table path works on one scenario at a time."""
    if isinstance(value, float):  # float or numpy's float64, a float subclass: most calls
        return float(value)  # skip the array round trip
    array = np.asarray(value, dtype=np.float64)
    if array.size != 1:
        raise InvalidInput(field, "The cash-flow table needs a single scenario, not an array.")
    return float(array.reshape(()))


def onprem_cashflow(model: CostModel, monthly: OnPremMonthly | None = None) -> CashFlow:
    """Monthly on-prem cash flows, months 0..H, plus ``total`` and ``cumulative``.

    Built as one numpy block so a scenario stays cheap.
    One $100,000 server, 12 months, $500 a month of colocation, nothing else:

    >>> m = CostModel(servers=1, gpus_per_server=8, server_price=100_000.0,
    ...     idle_power_kw=0.0, max_power_kw=1.0, pue=1.0, electricity_price_per_kwh=0.0,
    ...     colocation_per_kw_month=500.0, utilization=0.5, horizon_months=12,
    ...     discount_rate=0.0)
    >>> cf = onprem_cashflow(m)
    >>> len(cf), cf["hardware"][0], cf["colocation"][12], cf["cumulative"][-1]
    (13, np.float64(100000.0), np.float64(500.0), np.float64(106000.0))

    ``monthly``: the model's :func:`onprem_monthly`, when the caller has it already.
    """
    mo = monthly if monthly is not None else onprem_monthly(model)
    h = round(scalar(model.horizon_months, "horizon_months"))
    leased = scalar(model.leased, "leased") >= 0.5
    block = np.zeros((h + 1, len(ONPREM_COLUMNS)))
    col = {name: i for i, name in enumerate(ONPREM_COLUMNS)}
    upfront = scalar(mo.upfront, "upfront")
    if leased:
        term = round(scalar(model.lease_term_months, "lease_term_months"))
        paid = min(term, h)
        block[1 : paid + 1, col["lease"]] = scalar(mo.lease_payment, "lease_payment")
        # A lease running past the horizon is paid off in the last month.
        block[h, col["lease"]] += scalar(
            lease_balance(upfront, model.lease_annual_rate, term, paid), "lease_balance"
        )
    else:
        block[0, col["hardware"]] = upfront
    active = round(scalar(mo.active_months, "active_months"))
    block[1:, col["energy"]] = scalar(mo.energy_idle, "energy_idle")
    block[1 : active + 1, col["energy"]] += scalar(mo.energy_active, "energy_active")
    for name, amount in (
        ("fixed", mo.fixed),
        ("colocation", mo.colocation),
        ("support", mo.support),
        ("staff", mo.staff),
        ("software", mo.software),
        ("insurance", mo.insurance),
    ):
        block[1:, col[name]] = scalar(amount, name)
    # Refresh cycle: the fleet is bought again at months L, 2L, … and the old one sold.
    life = round(scalar(mo.refresh.life, "service_life_months"))
    for k in range(1, round(scalar(mo.refresh.count, "refreshes")) + 1):
        block[k * life, col["hardware"]] += scalar(mo.refresh.purchase, "refresh")
        block[k * life, col["residual"]] -= scalar(mo.refresh.resale, "resale")
    block[h, col["residual"]] -= scalar(mo.residual, "residual")
    return CashFlow.from_components(ONPREM_COLUMNS, block)
