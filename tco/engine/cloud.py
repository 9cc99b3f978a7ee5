"""A cloud option as month-by-month cash flows (single scenario)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tco.engine.cashflow import SUMMARY_COLUMNS, CashFlow
from tco.engine.costmodel import CloudCostParams, CostModel, cloud_bill, stack_clouds
from tco.engine.finance import broadcast
from tco.engine.inputs import CloudOfferingSpec
from tco.engine.onprem import scalar
from tco.engine.units import FxRates

CLOUD_COLUMNS = ("compute", "storage_egress")


def cloud_params(
    offering: CloudOfferingSpec,
    fx: FxRates,
    currency: str,
    *,
    work_ratio: float = 1.0,
    fleet_ratio: float = 1.0,
    run_billing_factor: float = 1.0,
    always_on: bool = False,
) -> CloudCostParams:
    """Normalise an offering: per-instance price in the reporting currency.

    ``run_billing_factor`` (≥ 1) adds the hours a run is billed beyond its
    length: rounding up to whole hours, a capacity block's minimum duration.

    A per-GPU price of €3.00 on a 1-GPU offering with $1.10/€ is $3.30 an hour.

    >>> from tco.engine.inputs import CloudTerm, PriceBasis
    >>> o = CloudOfferingSpec("Acme", "h100", CloudTerm.SPOT, 1, 3.0, "EUR",
    ...     PriceBasis.GPU_HOUR, spot_interruption_overhead=0.2)
    >>> p = cloud_params(o, FxRates(usd_per_eur=1.10), "USD")
    >>> round(float(p.price_per_instance_hour), 2), p.usage_multiplier, p.committed
    (3.3, 1.2, 0.0)
    """
    return CloudCostParams(
        name=offering.name,
        price_per_instance_hour=fx.convert(
            offering.price_per_instance_hour, offering.currency, currency
        ),
        gpus_per_instance=float(offering.gpus_per_instance),
        committed=1.0 if offering.term.is_committed else 0.0,
        usage_multiplier=offering.usage_multiplier * run_billing_factor,
        uplift_pct=offering.storage_egress_uplift_pct,
        term_months=float(offering.term_months),
        work_ratio=work_ratio,
        fleet_ratio=fleet_ratio,
        always_on=1.0 if always_on else 0.0,
    )


def cloud_cashflow(model: CostModel, cloud: CloudCostParams) -> CashFlow:
    """Monthly cloud bill, months 0..H (month 0 is empty: nothing is bought upfront).

    2 instances on demand at $10/h, 50 % utilization, 12 months:
    2 × 730 × 0.5 × 10 = $7,300 a month, $87,600 in total.

    >>> m = CostModel(servers=2, gpus_per_server=8, server_price=1.0, idle_power_kw=0.0,
    ...     max_power_kw=1.0, pue=1.0, electricity_price_per_kwh=0.0,
    ...     colocation_per_kw_month=0.0, utilization=0.5, horizon_months=12, discount_rate=0.0)
    >>> cf = cloud_cashflow(m, CloudCostParams("od", 10.0, 8, 0.0))
    >>> cf["compute"][1], cf["cumulative"][-1]
    (np.float64(7300.0), np.float64(87600.0))
    """
    bill = cloud_bill(model, cloud)
    h = round(scalar(model.horizon_months, "horizon_months"))
    block = np.zeros((h + 1, len(CLOUD_COLUMNS)))
    usage_months = round(scalar(bill.usage_months, "usage_months"))
    block[1 : usage_months + 1, 0] = scalar(bill.usage_total, "usage") / usage_months
    committed_months = scalar(bill.committed_months, "committed_months")
    paid = min(round(committed_months), h)
    monthly = scalar(bill.committed_monthly, "committed_monthly")
    block[1 : paid + 1, 0] += monthly
    block[h, 0] += monthly * max(committed_months - paid, 0.0)  # term left at the horizon
    block[:, 1] = block[:, 0] * scalar(bill.uplift_pct, "uplift_pct")
    return CashFlow.from_components(CLOUD_COLUMNS, block)


def cloud_cashflows(model: CostModel, clouds: Sequence[CloudCostParams]) -> list[CashFlow]:
    """:func:`cloud_cashflow` of each offering, all built in one pass: one bill of the
    stacked offerings and one block of offerings × months (a result page has a dozen).

    >>> m = CostModel(servers=2, gpus_per_server=8, server_price=1.0, idle_power_kw=0.0,
    ...     max_power_kw=1.0, pue=1.0, electricity_price_per_kwh=0.0,
    ...     colocation_per_kw_month=0.0, utilization=0.5, horizon_months=12, discount_rate=0.0)
    >>> od, term = CloudCostParams("od", 10.0, 8, 0.0), CloudCostParams("3y", 6.0, 8, 1.0, 0.1)
    >>> [cf.values.tolist() == cloud_cashflow(m, c).values.tolist()
    ...     for cf, c in zip(cloud_cashflows(m, [od, term]), [od, term])]
    [True, True]
    """
    if not clouds:
        return []
    k = len(clouds)
    bill = cloud_bill(model, stack_clouds(clouds))
    h = round(scalar(model.horizon_months, "horizon_months"))
    months = np.arange(h + 1)
    compute = np.zeros((k, h + 1))
    # As cloud_cashflow, row by row: usage in the active months, then the commitment's
    # months added, then the term left at the horizon (adding 0.0 elsewhere changes nothing).
    usage_months = round(scalar(bill.usage_months, "usage_months"))
    compute[:, 1 : usage_months + 1] = (broadcast(bill.usage_total, (k,)) / usage_months)[:, None]
    committed_months = broadcast(bill.committed_months, (k,))
    paid = np.minimum(np.rint(committed_months), h)
    monthly = broadcast(bill.committed_monthly, (k,))
    compute += np.where((months >= 1) & (months <= paid[:, None]), monthly[:, None], 0.0)
    compute[:, h] += monthly * np.maximum(committed_months - paid, 0.0)
    storage = compute * broadcast(bill.uplift_pct, (k,))[:, None]
    total = compute + storage  # the sum of the two columns
    values = np.stack((compute, storage, total, np.cumsum(total, axis=1)), axis=-1)
    columns = (*CLOUD_COLUMNS, *SUMMARY_COLUMNS)
    return [CashFlow(columns, values[j]) for j in range(k)]
