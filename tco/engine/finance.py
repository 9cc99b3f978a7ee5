"""Time value of money, lease annuities, break-even and payback.

The functions accept a float or a numpy array (one value per scenario) and
return a float64 array; the scalar path calls them with floats and the sweep
with arrays, so both use the same formulas.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from tco.engine.units import MONTHS_PER_YEAR, FloatArray, Number

_FLOAT64 = np.float64
_FLOAT64_DTYPE = np.dtype(np.float64)
_NDARRAY = np.ndarray
_asarray = np.asarray


def as_array(x: Number) -> FloatArray:
    """``x`` as float64: arrays (the sweep) as arrays, one scenario's float as a numpy
    float64 scalar. A scalar's arithmetic costs a tenth of a 0-d array's, and a result
    page evaluates thousands of these (it has the same ``ndim``, ``shape`` and methods).

    A float64 array is returned as it is, as ``np.asarray`` would, without the call; the
    names are module globals, not attribute look-ups (a result page makes ~900 calls)."""
    kind = type(x)
    # The casts say what the docstring does: a float64 scalar stands in for a 0-d array.
    if kind is _FLOAT64:
        return cast(FloatArray, x)
    if kind is _NDARRAY and cast(FloatArray, x).dtype is _FLOAT64_DTYPE:
        return cast(FloatArray, x)
    if kind is float or kind is int:
        return cast(FloatArray, _FLOAT64(x))
    return _asarray(x, dtype=_FLOAT64)


def broadcast(x: Number, shape: tuple[int, ...]) -> FloatArray:
    """``np.broadcast_to(x, shape)``, for reading: ``x`` itself when it has that shape
    already (the usual case: the sweep's results come out in their shape), without
    numpy's ~2.5 us of building a view; else numpy's read-only view."""
    if getattr(x, "shape", None) == shape:
        return cast(FloatArray, x)  # an array (or float64 scalar) of that shape
    return np.broadcast_to(x, shape)


def _both_scalars(a: object, b: object) -> bool:
    kind_a, kind_b = type(a), type(b)
    return (kind_a is np.float64 or kind_a is float) and (kind_b is np.float64 or kind_b is float)


def maximum(a: Number, b: Number) -> FloatArray:
    """``np.maximum(a, b)``; for two scalars without the ufunc call (~0.8 us each, a result
    page makes dozens). The same value: a NaN on either side is the result, and of two
    equal values (0.0 and −0.0) the second, as numpy's own scalar loop gives.
    """
    if _both_scalars(a, b):
        return as_array(a if a > b or a != a else b)
    return as_array(np.maximum(a, b))


def minimum(a: Number, b: Number) -> FloatArray:
    """``np.minimum(a, b)``; for two scalars without the ufunc call (see :func:`maximum`)."""
    if _both_scalars(a, b):
        return as_array(a if a < b or a != a else b)
    return as_array(np.minimum(a, b))


def monthly_discount_rate(annual_rate: Number) -> FloatArray:
    """Monthly rate equivalent to an effective annual rate: (1 + r)^(1/12) − 1.

    8 % a year compounds to 0.6434 % a month.

    >>> round(float(monthly_discount_rate(0.08)), 6)
    0.006434
    """
    return as_array(np.power(1.0 + as_array(annual_rate), 1.0 / MONTHS_PER_YEAR) - 1.0)


def annuity_factor(monthly_rate: Number, months: Number) -> FloatArray:
    """Present value of 1 paid at the end of each of ``months`` months.

    (1 − (1 + i)^−n) / i, or n when i = 0. At 1 % for 12 months: 11.2551.

    >>> round(float(annuity_factor(0.01, 12)), 4)
    11.2551
    >>> float(annuity_factor(0.0, 12))
    12.0
    """
    i = as_array(monthly_rate)
    n = as_array(months)
    # expm1/log1p keep precision for tiny rates; below 1e-12 the limit n is exact enough.
    if i.ndim == 0:  # one rate (for one or more horizons): the same operations, no np.where
        if i > 1e-12:
            return as_array(-np.expm1(-n * np.log1p(i)) / i)
        return n.copy()
    positive = i > 1e-12
    safe_i = np.where(positive, i, 1.0)
    return as_array(np.where(positive, -np.expm1(-n * np.log1p(safe_i)) / safe_i, n))


def discount_factor(monthly_rate: Number, month: Number) -> FloatArray:
    """(1 + i)^−m: what one unit paid in month m is worth today.

    >>> round(float(discount_factor(0.01, 12)), 6)
    0.887449
    """
    return as_array(np.power(1.0 + as_array(monthly_rate), -as_array(month)))


def lease_payment(principal: Number, annual_rate: Number, term_months: Number) -> FloatArray:
    """Level monthly payment of a lease/loan: P·i / (1 − (1 + i)^−n), i = rate / 12.

    Lease rates are quoted as nominal annual rates (APR), hence rate / 12.
    $100,000 at 6 % over 36 months: 3,042.19 a month.

    >>> round(float(lease_payment(100_000.0, 0.06, 36)), 2)
    3042.19
    >>> round(float(lease_payment(120_000.0, 0.0, 36)), 2)
    3333.33
    """
    i = as_array(annual_rate) / MONTHS_PER_YEAR
    return as_array(as_array(principal) / annuity_factor(i, term_months))


def lease_balance(
    principal: Number, annual_rate: Number, term_months: Number, payments_made: Number
) -> FloatArray:
    """Outstanding balance after ``payments_made`` level payments (0 once paid off).

    Used when the lease runs past the horizon: the remainder is paid off at
    the end so that owning the servers is costed in full.

    After 24 of 36 payments of 3,042.19 at 0.5 % a month the balance is
    100,000 × 1.005^24 − 3,042.19 × (1.005^24 − 1) / 0.005 = 35,347.04.

    >>> round(float(lease_balance(100_000.0, 0.06, 36, 24)), 2)
    35347.04
    >>> float(lease_balance(100_000.0, 0.06, 36, 36))
    0.0
    """
    i = as_array(annual_rate) / MONTHS_PER_YEAR
    n = as_array(term_months)
    k = np.minimum(as_array(payments_made), n)
    # The balance equals the present value of the payments still to come.
    remaining = lease_payment(principal, annual_rate, term_months) * annuity_factor(i, n - k)
    return as_array(np.where(k >= n, 0.0, remaining))


def break_even_utilization(
    onprem_fixed: Number, onprem_slope: Number, cloud_fixed: Number, cloud_slope: Number
) -> FloatArray:
    """Utilization u* where on-prem A + B·u equals cloud C + D·u: (A − C) / (D − B).

    NaN when the lines are parallel (no crossing). Values outside [0, 1] are
    returned as they are: u* > 1 means on-prem never catches up at any real
    utilization, u* < 0 means it is cheaper at every utilization (when D > B).
    A = 1,000,000, B = 100,000, C = 0, D = 2,000,000: u* = 1e6 / 1.9e6 = 0.5263.

    >>> round(float(break_even_utilization(1e6, 1e5, 0.0, 2e6)), 4)
    0.5263
    >>> bool(np.isnan(break_even_utilization(1.0, 2.0, 0.0, 2.0)))
    True
    """
    a, b, c, d = (as_array(v) for v in (onprem_fixed, onprem_slope, cloud_fixed, cloud_slope))
    denominator = d - b
    safe = np.where(denominator != 0, denominator, 1.0)
    return as_array(np.where(denominator != 0, (a - c) / safe, np.nan))


def payback_month(cumulative_onprem: FloatArray, cumulative_cloud: FloatArray) -> int | None:
    """First month ≥ 1 in which cumulative on-prem spend ≤ cumulative cloud spend.

    >>> payback_month(np.array([300.0, 310.0, 320.0, 330.0]), np.array([0.0, 100.0, 200.0, 400.0]))
    3
    >>> payback_month(np.array([300.0, 310.0]), np.array([0.0, 100.0])) is None
    True
    """
    hits = np.nonzero(cumulative_onprem[1:] <= cumulative_cloud[1:])[0]
    return int(hits[0]) + 1 if hits.size else None


def break_even_month(cumulative_onprem: FloatArray, cumulative_cloud: FloatArray) -> float | None:
    """Fractional month in which cumulative on-prem spend first meets the cloud's.

    Linear between month ends: on-prem 300, 310, 320, 330 against cloud 0, 100,
    200, 400 crosses between months 2 (gap −120) and 3 (+70): 2 + 120 / 190.

    >>> round(break_even_month(np.array([300.0, 310.0, 320.0, 330.0]),
    ...     np.array([0.0, 100.0, 200.0, 400.0])), 4)
    2.6316
    >>> break_even_month(np.array([300.0, 310.0]), np.array([0.0, 100.0])) is None
    True
    """
    gap = np.asarray(cumulative_cloud, dtype=np.float64) - np.asarray(
        cumulative_onprem, dtype=np.float64
    )
    hits = np.nonzero(gap[1:] >= 0)[0]
    if not hits.size:
        return None
    m = int(hits[0]) + 1
    before, after = float(gap[m - 1]), float(gap[m])
    if before >= 0 or after == before:
        return float(m)
    return (m - 1) + (-before) / (after - before)


def crossing_months(
    cumulative_onprem: FloatArray, cumulative_clouds: FloatArray
) -> list[tuple[int | None, float | None]]:
    """:func:`payback_month` and :func:`break_even_month` of on-prem against each row of
    ``cumulative_clouds`` (offerings × months), in one pass over all rows instead of a
    few numpy calls per offering: the same comparisons and gaps element by element, and
    the same arithmetic on the crossing month's two gaps.

    >>> crossing_months(np.array([300.0, 310.0, 320.0, 330.0]),
    ...     np.array([[0.0, 100.0, 200.0, 400.0], [0.0, 100.0, 200.0, 300.0]]))
    [(3, 2.6315789473684212), (None, None)]
    """
    onprem = np.asarray(cumulative_onprem, dtype=np.float64)
    clouds = np.asarray(cumulative_clouds, dtype=np.float64)
    paid_back = onprem[1:] <= clouds[:, 1:]
    gaps = clouds - onprem
    caught_up = gaps[:, 1:] >= 0
    result: list[tuple[int | None, float | None]] = []
    for k, (paid, caught) in enumerate(
        zip(paid_back.any(axis=1).tolist(), caught_up.any(axis=1).tolist(), strict=True)
    ):
        payback = int(paid_back[k].argmax()) + 1 if paid else None
        month: float | None = None
        if caught:
            m = int(caught_up[k].argmax()) + 1
            before, after = float(gaps[k, m - 1]), float(gaps[k, m])
            if before >= 0 or after == before:
                month = float(m)
            else:
                month = (m - 1) + (-before) / (after - before)
        result.append((payback, month))
    return result
