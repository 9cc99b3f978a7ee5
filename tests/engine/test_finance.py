"""Discounting, annuities, lease, break-even and payback."""

from __future__ import annotations

import numpy as np
import pytest

from tco.engine import annuity_factor, break_even_utilization, lease_payment, payback_month
from tco.engine.finance import discount_factor, lease_balance, monthly_discount_rate


def test_monthly_rate_compounds_to_annual() -> None:
    # (1 + 0.1)^(1/12) − 1 = 0.0079741; compounded 12 times gives 10 %
    i = float(monthly_discount_rate(0.10))
    assert i == pytest.approx(0.00797414, abs=1e-8)
    assert (1 + i) ** 12 == pytest.approx(1.10)
    assert float(discount_factor(i, 12)) == pytest.approx(1 / 1.1)


def test_annuity_factor_equals_sum_of_discount_factors() -> None:
    i = 0.0075
    expected = sum((1 + i) ** -m for m in range(1, 61))
    assert float(annuity_factor(i, 60)) == pytest.approx(expected)
    assert float(annuity_factor(0.0, 60)) == 60.0
    # vectorized: several rates and horizons at once
    got = annuity_factor(np.array([0.0, 0.01]), np.array([12.0, 24.0]))
    assert got.tolist() == pytest.approx([12.0, (1 - 1.01**-24) / 0.01])


def test_lease_payment_repays_the_principal() -> None:
    # $1,000,000 at 7 % over 48 months: standard annuity 23,946.24
    pmt = float(lease_payment(1_000_000.0, 0.07, 48))
    assert pmt == pytest.approx(23_946.24, abs=0.01)
    i = 0.07 / 12
    assert sum(pmt / (1 + i) ** m for m in range(1, 49)) == pytest.approx(1_000_000.0)
    assert float(lease_balance(1_000_000.0, 0.07, 48, 0)) == pytest.approx(1_000_000.0)
    assert float(lease_balance(1_000_000.0, 0.07, 48, 60)) == 0.0


def test_break_even_closed_form() -> None:
    # on-prem 2,000,000 + 500,000 u; cloud 0 + 4,000,000 u → u* = 2e6 / 3.5e6 = 0.5714
    assert float(break_even_utilization(2e6, 5e5, 0.0, 4e6)) == pytest.approx(2 / 3.5)
    # committed cloud: flat 3e6 (D = 0) → u* = (2e6 − 3e6) / (0 − 5e5) = 2.0 (> 1)
    assert float(break_even_utilization(2e6, 5e5, 3e6, 0.0)) == pytest.approx(2.0)
    assert np.isnan(break_even_utilization(1.0, 1.0, 2.0, 1.0))


def test_payback_month() -> None:
    onprem = np.array([1000.0, 1100.0, 1200.0, 1300.0])
    cloud = np.array([0.0, 500.0, 1000.0, 1500.0])
    assert payback_month(onprem, cloud) == 3
    assert payback_month(onprem, cloud * 0.1) is None
    # month 0 never counts (both can be zero with a lease)
    assert payback_month(np.zeros(3), np.zeros(3)) == 1


@pytest.mark.parametrize("rate", [0.0, 1e-12, 1e-9, 1e-6, 0.005, 0.05])
@pytest.mark.parametrize("life", [1.0, 12.0, 60.0, 240.0])
def test_refresh_discount_sum_is_the_sum_it_closes(rate: float, life: float) -> None:
    # Σ (1 + i)^−kL for k = 1..n, summed term by term; the closed form keeps that to 1e-12
    # even when the rate is tiny (1 − (1 + i)^−L cancels in the naive geometric formula).
    from tco.engine.costmodel import refresh_discount_sum

    counts = np.arange(0.0, 8.0)
    by_term = [sum((1.0 + rate) ** (-k * life) for k in range(1, int(n) + 1)) for n in counts]
    closed = refresh_discount_sum(rate, life, counts)
    assert closed == pytest.approx(by_term, rel=1e-12, abs=1e-15)
