"""The cost core's shortcuts for one scenario give the numpy formulation's floats, bit for
bit: ufunc calls on two scalars replaced by comparisons, np.where by the branch taken."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine.costmodel import (
    CostModel,
    active_months,
    refresh_plan,
)
from tco.engine.finance import annuity_factor, as_array, maximum, minimum

SPECIAL = [-0.0, 0.0, 1.0, -1.0, 1e-300, -2.5, math.inf, -math.inf, math.nan]


def same(a: object, b: object) -> bool:
    """The same float64 bits (signed zeros and NaNs included) and the same shape."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and x.tobytes() == y.tobytes()


def test_maximum_and_minimum_of_scalars_are_numpys() -> None:
    for a, b in itertools.product(SPECIAL, SPECIAL):
        for x, y in ((np.float64(a), np.float64(b)), (np.float64(a), b), (a, np.float64(b))):
            assert same(maximum(x, y), np.maximum(x, y)), (x, y)
            assert same(minimum(x, y), np.minimum(x, y)), (x, y)
            assert type(maximum(x, y)) is np.float64 and type(minimum(x, y)) is np.float64


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=True), st.floats(allow_nan=True))
def test_maximum_and_minimum_of_any_floats_are_numpys(a: float, b: float) -> None:
    assert same(maximum(np.float64(a), b), np.maximum(np.float64(a), b))
    assert same(minimum(np.float64(a), b), np.minimum(np.float64(a), b))
    arrays = np.array([a, b])
    assert same(maximum(arrays, b), np.maximum(arrays, b))  # arrays still go to numpy


def model(**fields: float) -> CostModel:
    base = dict(
        servers=4.0,
        gpus_per_server=8.0,
        server_price=250_000.0,
        idle_power_kw=2.0,
        max_power_kw=10.0,
        pue=1.3,
        electricity_price_per_kwh=0.2,
        colocation_per_kw_month=150.0,
        utilization=0.6,
        horizon_months=60.0,
        discount_rate=0.08,
    )
    return CostModel(**{**base, **fields})  # type: ignore[arg-type]


def old_refresh(m: CostModel) -> tuple[object, object]:
    """refresh_plan's count and kept share as numpy computed them before the shortcut."""
    h, life = as_array(m.horizon_months), as_array(m.service_life_months)
    count = np.maximum(np.ceil(h / life - 1e-9) - 1.0, 0.0)
    r = as_array(m.residual_pct)
    kept = np.where(count > 0, r + (1.0 - r) * (1.0 - (h - count * life) / life), r)
    return count, kept


def old_annuity(i: object, n: object) -> object:
    i, n = as_array(i), as_array(n)  # type: ignore[arg-type]
    positive = i > 1e-12
    safe_i = np.where(positive, i, 1.0)
    return np.where(positive, -np.expm1(-n * np.log1p(safe_i)) / safe_i, n)


@settings(max_examples=400, deadline=None)
@given(
    st.floats(1.0, 240.0),
    st.floats(1.0, 120.0) | st.just(1e9),
    st.floats(0.0, 1.0),
    st.floats(-0.01, 0.05),
    st.floats(1.0, 1e9),
)
def test_one_scenario_shortcuts_equal_numpy(
    horizon: float, life: float, residual: float, rate: float, active: float
) -> None:
    m = model(
        horizon_months=horizon,
        service_life_months=life,
        residual_pct=residual,
        active_months=active,
    )
    with np.errstate(all="ignore"):  # a negative rate over 1e9 months overflows (both ways)
        check_one_scenario(m, horizon, life, rate, active)


def check_one_scenario(
    m: CostModel, horizon: float, life: float, rate: float, active: float
) -> None:
    plan = refresh_plan(m, as_array(100.0), as_array(105.0))
    count, kept = old_refresh(m)
    assert same(plan.count, count) and same(plan.kept_pct, kept)
    old_active = np.maximum(np.minimum(as_array(active), as_array(horizon)), 1)
    assert same(active_months(m), old_active)
    months = np.array([0.0, 1.0, 12.0, horizon])
    for n in (as_array(horizon), months):  # one rate, one or several horizons
        assert same(annuity_factor(rate, n), old_annuity(rate, n))


@settings(max_examples=100, deadline=None)
@given(st.floats(0.0, 1.0), st.floats(12.0, 120.0))
def test_arrays_keep_the_numpy_path(residual: float, horizon: float) -> None:
    """A sweep's arrays (the Monte Carlo's residual, the horizons' months) as before."""
    residuals = np.array([residual, residual / 2, 0.0])
    m = model(horizon_months=horizon, service_life_months=48.0, residual_pct=residuals)  # type: ignore[arg-type]
    plan = refresh_plan(m, as_array(100.0), as_array(105.0))
    count, kept = old_refresh(m)
    assert same(plan.count, count) and same(plan.kept_pct, kept)
    horizons = np.array([36.0, 60.0, 84.0, horizon])
    m = model(horizon_months=horizons, service_life_months=48.0, residual_pct=residual)  # type: ignore[arg-type]
    plan = refresh_plan(m, as_array(100.0), as_array(105.0))
    count, kept = old_refresh(m)
    assert same(plan.count, count) and same(plan.kept_pct, kept)
    assert same(active_months(m), np.maximum(np.minimum(as_array(1e9), horizons), 1))


def test_amounts_read_later_are_the_formulas() -> None:
    """OnPremMonthly computes the idle draw, the active months' energy and the lease
    payment when first read: the same formulas on the same model, once."""
    from tco.engine.costmodel import energy_cost_per_month, onprem_monthly
    from tco.engine.finance import lease_payment

    draws = np.random.default_rng(5).uniform(0.8, 1.2, 1_000)
    for m in (
        model(active_months=7.0, lease_annual_rate=0.06, one_off_cost=5_000.0),
        model(utilization=0.6 * draws, server_price=250_000.0 * draws),  # type: ignore[arg-type]
    ):
        mo = onprem_monthly(m)
        idle = energy_cost_per_month(
            m.servers, m.idle_power_kw, m.max_power_kw, 0.0, m.pue, m.electricity_price_per_kwh
        )
        assert same(mo.energy_idle, idle)
        assert same(
            mo.energy_active, (mo.energy - idle) * as_array(m.horizon_months) / mo.active_months
        )
        payment = lease_payment(mo.upfront, m.lease_annual_rate, m.lease_term_months)
        assert same(mo.lease_payment, payment)
        assert mo.energy_idle is mo.energy_idle  # computed once


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0) | st.just(-0.0), min_size=1, max_size=8),
    st.integers(0, 150) | st.floats(0.0, 150.0),
)
def test_resale_fraction_interpolates_the_curve_by_year(curve: list[float], months: float) -> None:
    """The fraction of a curve (one value a year) at an age is np.interp's."""
    from tco.engine.ownership import resale_fraction

    expected = float(
        np.interp(max(months, 0.0) / 12.0, np.arange(len(curve), dtype=np.float64), curve)
    )
    assert same(resale_fraction(curve, months), expected)
    assert same(resale_fraction(tuple(curve), months), expected)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.01, 100.0), st.integers(1, 8), st.sampled_from([0.0, 1.0])),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from([1, 2]),
)
def test_stacked_offerings_are_their_fields(
    specs: list[tuple[float, int, float]], ndim: int
) -> None:
    """stack_clouds: each field's values in order, as float64, from a tuple or a list."""
    from tco.engine.costmodel import CloudCostParams, stack_clouds

    clouds = tuple(
        CloudCostParams(f"c{k}", price, gpus, committed, term_months=12.0 * committed)
        for k, (price, gpus, committed) in enumerate(specs)
    )
    shape = (len(clouds),) + (1,) * (ndim - 1)
    numbers = [f.name for f in dataclasses.fields(CloudCostParams) if f.name != "name"]
    for given_clouds in (clouds, list(clouds)):
        stacked = stack_clouds(given_clouds, ndim=ndim)
        assert stacked.name == ", ".join(c.name for c in clouds)
        for name in numbers:
            expected = np.array([getattr(c, name) for c in clouds], dtype=np.float64)
            assert same(getattr(stacked, name), expected.reshape(shape))
