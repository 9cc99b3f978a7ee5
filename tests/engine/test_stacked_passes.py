"""Passes that cost several variants of one scenario side by side (stacked along an axis)
give each variant's own floats, bit for bit: the result page must not move."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine.costmodel import (
    CloudCostParams,
    CostModel,
    OnPremMonthly,
    break_even_lines,
    offering_lines,
    onprem_monthly,
    stack_clouds,
)


def same(a: object, b: object) -> bool:
    """The same float64 bits (signed zeros and NaNs included) and the same shape."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and x.tobytes() == y.tobytes()


offerings = st.lists(
    st.builds(
        CloudCostParams,
        name=st.just("c"),
        price_per_instance_hour=st.floats(0.01, 200.0),
        gpus_per_instance=st.sampled_from([1.0, 2.0, 4.0, 8.0]),
        committed=st.sampled_from([0.0, 1.0]),
        usage_multiplier=st.floats(1.0, 1.5),
        uplift_pct=st.floats(0.0, 0.2),
        term_months=st.sampled_from([0.0, 12.0, 36.0]),
        work_ratio=st.floats(0.2, 5.0),
        fleet_ratio=st.floats(0.2, 5.0),
        always_on=st.sampled_from([0.0, 1.0]),
    ),
    min_size=1,
    max_size=12,
)


@st.composite
def one_scenario(draw: st.DrawFn) -> CostModel:
    return CostModel(
        servers=float(draw(st.integers(1, 300))),
        gpus_per_server=float(draw(st.sampled_from([1, 4, 8]))),
        server_price=draw(st.floats(1_000.0, 1e6)),
        idle_power_kw=draw(st.floats(0.0, 3.0)),
        max_power_kw=draw(st.floats(3.0, 15.0)),
        pue=draw(st.floats(1.0, 2.0)),
        electricity_price_per_kwh=draw(st.floats(0.0, 0.6)),
        colocation_per_kw_month=draw(st.floats(0.0, 400.0)),
        utilization=draw(st.floats(0.0, 1.0)),
        horizon_months=float(draw(st.integers(1, 120))),
        discount_rate=draw(st.floats(0.0, 0.2)),
        networking_per_server=draw(st.floats(0.0, 50_000.0)),
        storage_total=draw(st.floats(0.0, 1e5)),
        installation_per_server=draw(st.floats(0.0, 5_000.0)),
        spares_pct=draw(st.floats(0.0, 0.1)),
        colocation_on_facility_kw=draw(st.sampled_from([0.0, 1.0])),
        support_pct_per_year=draw(st.floats(0.0, 0.2)),
        staff_fte=draw(st.floats(0.0, 3.0)),
        staff_annual_cost=draw(st.floats(0.0, 2e5)),
        software_per_gpu_year=draw(st.floats(0.0, 5_000.0)),
        insurance_pct_per_year=draw(st.floats(0.0, 0.02)),
        residual_pct=draw(st.floats(0.0, 0.5)),
        leased=draw(st.sampled_from([0.0, 1.0])),
        lease_annual_rate=draw(st.floats(0.0, 0.12)),
        lease_term_months=float(draw(st.sampled_from([12, 36, 60]))),
        cloud_price_scale=draw(st.floats(0.5, 1.5)),
        active_months=draw(st.sampled_from([1.0, 7.0, 1e9])),
        whole_terms=draw(st.sampled_from([0.0, 1.0])),
        fixed_monthly=draw(st.floats(0.0, 10_000.0)),
        one_off_cost=draw(st.floats(0.0, 1e5)),
        service_life_months=draw(st.sampled_from([36.0, 60.0, 1e9])),
    )


@settings(max_examples=200, deadline=None)
@given(one_scenario(), offerings)
def test_offering_lines_are_break_even_lines(m: CostModel, clouds: list[CloudCostParams]) -> None:
    """Both ends side by side give the lines of a pass at each end."""
    stacked = stack_clouds(clouds)
    fast = offering_lines(m, stacked)
    slow = break_even_lines(m, stacked)
    for x, y in zip(fast, slow, strict=True):
        assert same(x, y)
    assert type(fast[0]) is np.float64 and type(fast[1]) is np.float64


@settings(max_examples=50, deadline=None)
@given(one_scenario(), st.floats(0.0, 1.0), offerings)
def test_model_replace_is_dataclasses_replace(
    m: CostModel, utilization: float, clouds: list[CloudCostParams]
) -> None:
    """CostModel.replace writes the slots directly: the copy dataclasses.replace makes."""
    changes = {"utilization": utilization, "clouds": tuple(clouds), "pue": np.array([1.1, 1.2])}
    fast, slow = m.replace(**changes), dataclasses.replace(m, **changes)  # type: ignore[arg-type]
    assert all(getattr(fast, f.name) is getattr(slow, f.name) for f in dataclasses.fields(m))
    assert m.replace() == m and m.replace() is not m
    with pytest.raises(TypeError):
        m.replace(no_such_field=1.0)  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.pue = 1.0  # type: ignore[misc]


def amounts(mo: OnPremMonthly) -> list[object]:
    """Every amount of ``mo``, those computed when read included."""
    refresh = mo.refresh
    skip = ("model", "refresh")
    return [
        *(getattr(mo, f.name) for f in dataclasses.fields(mo) if f.name not in skip),
        refresh.count,
        refresh.life,
        refresh.purchase,
        refresh.resale,
        refresh.kept_pct,
        mo.energy_idle,
        mo.energy_active,
        mo.lease_payment,
    ]


@settings(max_examples=150, deadline=None)
@given(
    one_scenario(),
    st.floats(1.0, 120.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 0.9),
    st.sampled_from([1.0, 1e9]),
    st.booleans(),
)
def test_amounts_like_another_models_are_their_own(
    m: CostModel, horizon: float, utilization: float, residual: float, life: float, draws: bool
) -> None:
    """onprem_monthly(m, like): a model made by changing the horizon, demand, residual or
    life shares its fleet's amounts with the one it was made from; the same floats as its
    own amounts, and a changed fleet field makes it compute them all again."""
    if draws:  # the Monte Carlo's: the fleet's fields as arrays of draws
        rng = np.random.default_rng(int(horizon * 1000))
        m = m.replace(
            server_price=m.server_price * rng.uniform(0.9, 1.05, 50),  # type: ignore[operator]
            pue=np.maximum(m.pue + rng.uniform(-0.05, 0.15, 50), 1.0),  # type: ignore[operator]
        )
    base = onprem_monthly(m)
    changed = m.replace(
        horizon_months=horizon,
        utilization=utilization,
        residual_pct=residual,
        active_months=1e9,
        leased=0.0,
        service_life_months=life,
    )
    shared = onprem_monthly(changed, base)
    assert shared.hardware_value is base.hardware_value
    for x, y in zip(amounts(shared), amounts(onprem_monthly(changed)), strict=True):
        assert same(x, y)
    other_fleet = changed.replace(servers=float(m.servers) + 1.0)  # type: ignore[arg-type]
    again = onprem_monthly(other_fleet, base)
    assert again.hardware_value is not base.hardware_value
    for x, y in zip(amounts(again), amounts(onprem_monthly(other_fleet)), strict=True):
        assert same(x, y)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 8),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 0.5, 1.0]),
)
def test_crossing_months_are_each_offerings(
    months: int, offerings: int, seed: int, tie: float
) -> None:
    """The payback and break-even months of all offerings in one pass are those of each
    offering alone: crossings, ties (a gap of exactly 0), no crossing, month 0."""
    from tco.engine.finance import break_even_month, crossing_months, payback_month

    rng = np.random.default_rng(seed)
    onprem = np.cumsum(rng.choice([0.0, 5.0, 10.0], months + 1)) + 50.0 * rng.random()
    clouds = np.cumsum(rng.choice([0.0, 5.0, 20.0], (offerings, months + 1)), axis=1)
    clouds[:, 0] = (
        rng.choice([0.0, onprem[0], onprem[0] + 1.0], offerings) * (1.0 - tie) + tie * onprem[0]
    )
    for k, (payback, month) in enumerate(crossing_months(onprem, clouds)):
        assert payback == payback_month(onprem, clouds[k])
        expected = break_even_month(onprem, clouds[k])
        assert (month is None and expected is None) or same(month, expected)
