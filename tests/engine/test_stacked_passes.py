"""Passes that cost several variants of one scenario side by side (stacked along an axis)
give each variant's own floats, bit for bit: the result page must not move."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine.costmodel import (
    CloudCostParams,
    CostModel,
    break_even_lines,
    offering_lines,
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
    assert isinstance(fast[0], np.float64) and isinstance(fast[1], np.float64)


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
    onprem = (np.cumsum(rng.choice([0.0, 5.0, 10.0], months + 1)) + 50.0 * rng.random()).astype(
        np.float64
    )
    clouds = np.cumsum(rng.choice([0.0, 5.0, 20.0], (offerings, months + 1)), axis=1).astype(
        np.float64
    )
    clouds[:, 0] = (
        rng.choice([0.0, onprem[0], onprem[0] + 1.0], offerings) * (1.0 - tie) + tie * onprem[0]
    )
    for k, (payback, month) in enumerate(crossing_months(onprem, clouds)):
        assert payback == payback_month(onprem, clouds[k])
        expected = break_even_month(onprem, clouds[k])
        assert (month is None and expected is None) or same(month, expected)
