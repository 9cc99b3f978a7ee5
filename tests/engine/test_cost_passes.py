"""The cost core's passes over many values at once (the Monte Carlo's draws, offerings
stacked along an axis) and its shortcuts give the plain formulas' floats, to the last bit."""

from __future__ import annotations

from typing import cast

import numpy as np
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tco.engine.costmodel import CloudCostParams, CostModel, cloud_total, stack_clouds
from tco.engine.units import FloatArray


def same_bits(a: object, b: object) -> bool:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and x.tobytes() == y.tobytes()


CLOUDS = (
    CloudCostParams("on demand", 55.04, 8.0, 0.0),
    CloudCostParams("committed", 38.86, 8.0, 1.0, term_months=36.0, uplift_pct=0.03),
    CloudCostParams("spot", 20.0, 8.0, 0.0, usage_multiplier=1.15, uplift_pct=0.05),
    CloudCostParams("per gpu", 3.99, 1.0, 0.0, work_ratio=1.7, fleet_ratio=2.0),
    CloudCostParams("service", 30.0, 8.0, 0.0, always_on=1.0),
)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.3, 1.8),
    st.floats(0.01, 1.0),
    st.sampled_from([1.0, 7.0, 1e9]),
    st.sampled_from([0.0, 1.0]),
    st.integers(0, 2**32 - 1),
)
def test_stacked_offerings_cost_as_each_alone(
    scale: float, utilization: float, active: float, whole: float, seed: int
) -> None:
    """The Monte Carlo costs its offerings stacked (offerings × draws): each row is that
    offering's own total over the draws, bit for bit."""
    rng = np.random.default_rng(seed)
    model = CostModel(
        servers=6.0,
        gpus_per_server=8.0,
        server_price=300_000.0,
        idle_power_kw=2.5,
        max_power_kw=10.2,
        pue=1.3,
        electricity_price_per_kwh=0.2,
        colocation_per_kw_month=150.0,
        utilization=np.clip(utilization * rng.uniform(0.8, 1.2, 500), 0.0, 1.0),
        horizon_months=60.0,
        discount_rate=0.08,
        cloud_price_scale=scale * rng.uniform(0.85, 1.05, 500),
        active_months=active,
        whole_terms=whole,
    )
    # With and without the service: an offerings' field alike in every row (always_on
    # without it) is broadcast from one row, with the same products.
    for clouds in (CLOUDS, CLOUDS[:4]):
        stacked = cloud_total(model, stack_clouds(clouds, ndim=2))
        assert stacked.shape == (len(clouds), 500)
        for k, cloud in enumerate(clouds):
            assert same_bits(stacked[k], cloud_total(model, cloud))


def _numpys(values: np.ndarray, bins: int, q: list[float]) -> tuple[list[int], np.ndarray, object]:
    np_counts, np_edges = np.histogram(values, bins=bins)
    return np_counts.tolist(), np_edges, np.percentile(values, q)


signed = st.sampled_from([0.0, -0.0, 1.5, -2.0, 1e-300, np.inf, np.nan])


@settings(max_examples=300, deadline=None)
@given(st.lists(signed, min_size=7, max_size=7), st.lists(st.booleans(), min_size=7, max_size=7))
def test_opex_passes_over_plus_zero_with_the_same_bits(
    values: list[float], arrays: list[bool]
) -> None:
    """opex skips a single +0.0 only where the sum cannot hold −0.0: the same bits as the
    plain left-to-right sum, for single numbers and arrays, signed zeros included."""
    from tco.engine.costmodel import OnPremMonthly

    terms = [
        np.array([v, -0.0, 0.0, v]) if as_array else np.float64(v)
        for v, as_array in zip(values, arrays, strict=True)
    ]
    mo = object.__new__(OnPremMonthly)
    names = ("energy", "colocation", "support", "staff", "software", "insurance", "fixed")
    for name, term in zip(names, terms, strict=True):
        mo.__dict__[name] = term
    with np.errstate(all="ignore"):  # inf − inf
        plain = terms[0]
        for term in terms[1:]:
            plain = plain + term
        opex = mo.opex
    assert same_bits(np.broadcast_to(opex, np.shape(plain)), plain)


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(1, 20), elements=st.one_of(st.floats(-3.0, 3.0), signed)),
    st.sampled_from([0.0, -0.0, 1.0]),
    st.sampled_from([0.0, -0.0, 6.0]),
)
def test_colocation_on_it_kw_against_pue_draws_is_the_formula(
    pue: np.ndarray, facility: float, servers: float
) -> None:
    """Billed on IT kW, PUE draws leave the uplift at 1.0 (the formula's floats), and an
    inf or NaN among them takes the formula itself."""
    from tco.engine.costmodel import colocation_cost_per_month

    with np.errstate(all="ignore"):  # 0 × inf
        got = colocation_cost_per_month(servers, 10.2, pue, 150.0, facility)
        uplift = 1.0 + np.float64(facility) * (pue - 1.0)
        expected = np.float64(servers) * np.float64(10.2) * uplift * np.float64(150.0)
    assert same_bits(np.broadcast_to(got, expected.shape), expected)


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(np.float64, st.sampled_from([(), (3,), (2, 3), (2, 1)]), elements=signed),
    hnp.arrays(
        np.float64,
        st.sampled_from([(), (1,), (3,), (2, 1), (2, 3), (4, 2, 3)]),
        elements=st.sampled_from([1.0, 1.0, 0.5, -0.0, np.nan]),
    ),
)
def test_times_one_is_the_product(
    x: np.ndarray | np.float64, factor: np.ndarray | np.float64
) -> None:
    """A factor of exactly 1.0 everywhere leaves the values as the product gives them."""
    from tco.engine.costmodel import _times  # noqa: PLC2701  (the cost core's own helper)

    try:
        with np.errstate(all="ignore"):  # inf × 0
            expected = x * factor
    except ValueError:  # shapes that do not broadcast
        reject()
    x = np.float64(x) if x.ndim == 0 else x
    factor = np.float64(factor) if factor.ndim == 0 else factor
    with np.errstate(all="ignore"):
        # The cost core passes 0-d values as float64 scalars, which FloatArray does not name.
        got = _times(cast(FloatArray, x), cast(FloatArray, factor))
    assert same_bits(got, expected)
