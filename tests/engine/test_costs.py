"""On-prem and cloud cash flows against hand calculations.

The hand model (tests/engine/conftest.py::simple_model): 2 servers at $100,000,
idle 2 kW / max 10 kW, PUE 1.5, $0.10/kWh, $100/kW-month, utilization 0.5,
12 months, support 12 %/yr, 0.5 FTE at $120,000, insurance 0.6 %/yr, residual 10 %.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tco.engine import (
    CloudOfferingSpec,
    CloudTerm,
    FxRates,
    PriceBasis,
    cloud_cashflow,
    cloud_params,
    compare_options,
    onprem_cashflow,
)
from tco.engine.costmodel import cloud_total, cloud_totals, onprem_total, onprem_totals

from .helpers import simple_model


def test_onprem_monthly_table_by_hand() -> None:
    df = onprem_cashflow(simple_model())
    # energy 2 × (2 + 8 × 0.5) × 1.5 × 730 × 0.10 = 1,314
    # colocation 2 × 10 × 100 = 2,000; support 200,000 × 12 % / 12 = 2,000
    # staff 0.5 × 120,000 / 12 = 5,000; insurance 200,000 × 0.6 % / 12 = 100
    row = {column: df[column][1] for column in df.columns}
    assert row["energy"] == pytest.approx(1314.0)
    assert row["colocation"] == pytest.approx(2000.0)
    assert row["support"] == pytest.approx(2000.0)
    assert row["staff"] == pytest.approx(5000.0)
    assert row["insurance"] == pytest.approx(100.0)
    assert row["total"] == pytest.approx(10_414.0)
    assert df["hardware"][0] == 200_000.0 and df["total"][0] == 200_000.0
    # residual 10 % of 200,000 comes back in month 12
    assert df["residual"][12] == -20_000.0
    # 200,000 + 12 × 10,414 − 20,000 = 304,968
    assert df["cumulative"][-1] == pytest.approx(304_968.0)
    assert df.months.tolist() == list(range(13))


def test_cloud_terms_by_hand() -> None:
    m = simple_model()
    od, committed, spot = m.clouds
    # on demand: 2 instances × 730 h × 0.5 × $20 = 14,600 a month
    assert cloud_cashflow(m, od)["total"].sum() == pytest.approx(12 * 14_600.0)
    # committed: every hour of the term, 2 × 730 × $12 = 17,520 a month
    assert cloud_cashflow(m, committed)["total"].sum() == pytest.approx(12 * 17_520.0)
    # spot: 2 × 730 × 0.5 × 1.15 × $10 = 8,395 + 10 % storage/egress = 9,234.5 a month
    df = cloud_cashflow(m, spot)
    assert df["compute"][1] == pytest.approx(8395.0)
    assert df["storage_egress"][1] == pytest.approx(839.5)
    assert df["total"].sum() == pytest.approx(12 * 9234.5)
    assert df["total"][0] == 0.0


def test_per_gpu_price_is_normalised_to_instances() -> None:
    offering = CloudOfferingSpec(
        "Lambda", "H100", CloudTerm.ON_DEMAND, 1, 3.99, price_basis=PriceBasis.GPU_HOUR
    )
    p = cloud_params(offering, FxRates(), "USD")
    m = simple_model(clouds=(p,))
    # 16 GPUs → 16 one-GPU instances × 730 × 0.5 × $3.99 = 23,301.6 a month
    assert cloud_cashflow(m, p)["total"][1] == pytest.approx(16 * 730 * 0.5 * 3.99)
    eight = CloudOfferingSpec(
        "Lambda", "8x H100", CloudTerm.ON_DEMAND, 8, 3.99, price_basis=PriceBasis.GPU_HOUR
    )
    assert cloud_params(eight, FxRates(), "USD").price_per_instance_hour == pytest.approx(31.92)


def test_capacity_block_bills_hours_used() -> None:
    block = CloudOfferingSpec("AWS", "p5e.48xlarge", CloudTerm.CAPACITY_BLOCK, 8, 39.80)
    p = cloud_params(block, FxRates(), "USD")
    assert p.committed == 0.0 and p.usage_multiplier == 1.0


def test_currency_conversion_of_cloud_price() -> None:
    # €40/h with $1.10 per € = $44/h; reported in EUR it stays €40
    o = CloudOfferingSpec("X", "8x", CloudTerm.ON_DEMAND, 8, 40.0, currency="EUR")
    fx = FxRates(usd_per_eur=1.10)
    assert cloud_params(o, fx, "USD").price_per_instance_hour == pytest.approx(44.0)
    assert cloud_params(o, fx, "EUR").price_per_instance_hour == pytest.approx(40.0)


def test_lease_replaces_purchase() -> None:
    m = simple_model(leased=1.0, lease_annual_rate=0.06, lease_term_months=24.0)
    df = onprem_cashflow(m)
    i = 0.005
    pmt = 200_000.0 * i / (1 - (1 + i) ** -24)  # 8,864.12
    balance = pmt * (1 - (1 + i) ** -12) / i  # 12 payments still owed at month 12
    assert df["hardware"][0] == 0.0
    assert df["lease"][1] == pytest.approx(pmt)
    assert df["lease"][12] == pytest.approx(pmt + balance)
    assert df["lease"].sum() == pytest.approx(12 * pmt + balance)
    # lease shorter than the horizon: payments stop after the term
    short = onprem_cashflow(simple_model(leased=1.0, lease_term_months=6.0))
    assert short["lease"][6] == pytest.approx(200_000.0 / 6)
    assert short["lease"][7] == 0.0


def test_table_totals_equal_closed_form() -> None:
    for changes in (
        {},
        {"discount_rate": 0.08},
        {
            "leased": 1.0,
            "lease_annual_rate": 0.07,
            "lease_term_months": 36.0,
            "horizon_months": 24.0,
        },
        {"leased": 1.0, "lease_annual_rate": 0.05, "lease_term_months": 12.0},
    ):
        m = simple_model(**changes)
        onprem, clouds = compare_options(m)
        closed = onprem_totals(m)
        assert onprem.total_cost == pytest.approx(float(closed.total), rel=1e-12)
        assert onprem.npv == pytest.approx(float(closed.npv), rel=1e-12)
        assert float(onprem_total(m)) == pytest.approx(float(closed.total), rel=1e-12)
        for c, params in zip(clouds, m.clouds, strict=True):
            t = cloud_totals(m, params)
            assert c.total_cost == pytest.approx(float(t.total), rel=1e-12)
            assert float(cloud_total(m, params)) == pytest.approx(float(t.total), rel=1e-12)
            assert c.npv == pytest.approx(float(t.npv), rel=1e-12)


def test_compare_options_break_even_and_payback() -> None:
    onprem, (od, committed, _spot) = compare_options(simple_model())
    # A = 200,000 + 12 × (438 + 2,000 + 2,000 + 5,000 + 100) − 20,000 = 294,456
    # B = 12 × 2 × 8 × 1.5 × 730 × 0.1 = 21,024; D = 12 × 2 × 730 × 20 = 350,400
    # u* = 294,456 / (350,400 − 21,024) = 0.893981
    assert od.break_even_utilization == pytest.approx(294_456 / 329_376)
    assert od.break_even_note == "On-prem is cheaper above 89 % utilization."
    # at u = 0.5 on-prem (304,968) never beats on demand (175,200) within 12 months
    assert od.payback_month is None
    assert committed.break_even_utilization is not None
    # cost per delivered GPU-hour: 304,968 / (16 GPUs × 730 × 12 × 0.5)
    assert onprem.cost_per_gpu_hour == pytest.approx(304_968 / (16 * 730 * 12 * 0.5))
    assert onprem.cost_per_million_tokens is None


def test_cost_per_million_tokens_for_inference() -> None:
    m = simple_model()
    onprem, (od, *_rest) = compare_options(m, tokens_per_second=10_000.0)
    # tokens = 10,000 × 3600 × 730 × 12 × 0.5 = 1.5768e11 → 157,680 million
    assert onprem.cost_per_million_tokens == pytest.approx(304_968 / 157_680)
    assert od.cost_per_million_tokens == pytest.approx(175_200 / 157_680)


def test_zero_utilization_has_no_cost_per_hour() -> None:
    onprem, _ = compare_options(simple_model(utilization=0.0))
    assert onprem.cost_per_gpu_hour is None
    assert np.isfinite(onprem.total_cost)


@pytest.mark.parametrize("currencies", [("EUR", "USD", "GBP"), ("GBP", "EUR", "USD")])
def test_cost_model_amounts_convert_as_fx_convert(currencies: tuple[str, str, str]) -> None:
    """build_cost_model converts each amount to the reporting currency as FxRates.convert."""
    from tco.engine.examples import reference_scenario
    from tco.engine.scenario import build_cost_model
    from tco.engine.units import FxRates

    site_currency, finance_currency, reporting = currencies
    scenario = reference_scenario()
    fx = FxRates(usd_per_eur=1.0937, usd_per_gbp=1.2713)
    finance = dataclasses.replace(
        scenario.finance, fx=fx, currency=finance_currency, reporting_currency=reporting
    )
    site = dataclasses.replace(scenario.site, currency=site_currency)
    scenario = dataclasses.replace(scenario, finance=finance, site=site)
    m = build_cost_model(scenario, 3, with_clouds=False)
    assert site.colocation_per_kw_month is not None
    assert finance.networking_per_server is not None
    assert m.electricity_price_per_kwh == fx.convert(
        site.electricity_price_per_kwh, site_currency, reporting
    )
    assert m.colocation_per_kw_month == fx.convert(
        site.colocation_per_kw_month, site_currency, reporting
    )
    assert m.networking_per_server == fx.convert(
        finance.networking_per_server, finance_currency, reporting
    )
    assert m.staff_annual_cost == fx.convert(finance.staff_annual_cost, finance_currency, reporting)
