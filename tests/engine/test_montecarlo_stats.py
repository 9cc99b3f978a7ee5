"""The Monte Carlo's own histogram, percentiles and stacked offerings equal numpy's and
the one-offering-at-a-time figures, to the last bit (the result page must not move)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tco.engine.costmodel import CloudCostParams, CostModel, cloud_total, stack_clouds
from tco.engine.montecarlo import distribution, histogram, percentiles

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False)
draws = hnp.arrays(np.float64, st.integers(1, 400), elements=finite)
# Few distinct values, signed zeros among them: ties and values on the histogram's edges.
tied_draws = hnp.arrays(
    np.float64, st.integers(1, 400), elements=st.sampled_from([-1.0, -0.0, 0.0, 2.5])
)


def same_bits(a: object, b: object) -> bool:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and x.tobytes() == y.tobytes()


@FAST
@given(draws, st.integers(1, 40))
def test_histogram_is_numpys(values: np.ndarray, bins: int) -> None:
    counts, edges = histogram(values, bins)
    try:
        np_counts, np_edges = np.histogram(values, bins=bins)
    except ValueError:  # a range a few subnormals wide: numpy cannot make finite-sized bins
        reject()
    assert counts.tolist() == np_counts.tolist()
    assert same_bits(edges, np_edges)


@FAST
@given(
    st.one_of(draws, tied_draws),
    st.lists(st.floats(0.0, 100.0), min_size=1, max_size=5),
)
def test_percentiles_are_numpys(values: np.ndarray, q: list[float]) -> None:
    before = values.copy()
    assert same_bits(percentiles(values, q), np.percentile(values, q))
    assert same_bits(values, before)  # the draws are left as they were


def test_histogram_and_percentiles_of_many_draws() -> None:
    """More draws than numpy's block of 65,536, and the Monte Carlo's own sizes."""
    rng = np.random.default_rng(7)
    for n in (10_000, 70_000):
        values = rng.normal(1e5, 3e5, n)
        counts, edges = histogram(values, 30)
        np_counts, np_edges = np.histogram(values, bins=30)
        assert counts.tolist() == np_counts.tolist() and same_bits(edges, np_edges)
        expected = np.percentile(values, [10, 50, 90])
        assert same_bits(percentiles(values, (10.0, 50.0, 90.0)), expected)
    constant = np.full(10_000, 3.0)  # an empty range: numpy widens it by ±0.5
    assert same_bits(histogram(constant, 30)[1], np.histogram(constant, bins=30)[1])


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


@settings(max_examples=200, deadline=None)
@given(finite, st.floats(1e-3, 1e9), st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_histogram_of_values_on_and_beside_the_edges(
    low: float, span: float, bins: int, seed: int
) -> None:
    """Values on each edge and one float either side of it, among others: the values the
    estimate may place in the wrong bin, which the histogram checks as numpy does."""
    high = low + span
    edges = np.linspace(low, high, bins + 1)
    beside = np.concatenate((edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)))
    inside = np.random.default_rng(seed).uniform(low, high, 300)
    values = np.clip(np.concatenate((beside, inside)), low, high)
    counts, got_edges = histogram(values, bins)
    try:
        np_counts, np_edges = np.histogram(values, bins=bins)
    except ValueError:  # a span lost in the rounding of ``low``: too narrow for numpy
        reject()
    assert counts.tolist() == np_counts.tolist()
    assert same_bits(got_edges, np_edges)


def _numpys(values: np.ndarray, bins: int, q: list[float]) -> tuple[list[int], np.ndarray, object]:
    np_counts, np_edges = np.histogram(values, bins=bins)
    return np_counts.tolist(), np_edges, np.percentile(values, q)


@FAST
@given(
    st.one_of(draws, tied_draws),
    st.integers(1, 40),
    st.lists(st.floats(0.0, 100.0), min_size=1, max_size=5),
)
def test_distribution_from_sorted_values_is_numpys(
    values: np.ndarray, bins: int, q: list[float]
) -> None:
    """The histogram and percentiles read from the sorted draws equal numpy's (and so the
    general functions'), signed zeros and ties included."""
    try:
        np_counts, np_edges, np_quantiles = _numpys(values, bins, q)
    except ValueError:  # a range a few subnormals wide (see test_histogram_is_numpys)
        reject()
    before = values.copy()
    counts, edges, quantiles = distribution(values, np.sort(values), bins, q)
    assert counts.tolist() == np_counts and same_bits(edges, np_edges)
    assert same_bits(quantiles, np_quantiles)
    assert same_bits(values, before)


@settings(max_examples=200, deadline=None)
@given(finite, st.floats(1e-3, 1e9), st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_distribution_of_values_on_and_beside_the_edges(
    low: float, span: float, bins: int, seed: int
) -> None:
    """Values on each edge and one float either side of it: counted in the bin numpy's
    check against the edges gives them."""
    high = low + span
    edges = np.linspace(low, high, bins + 1)
    beside = np.concatenate((edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)))
    inside = np.random.default_rng(seed).uniform(low, high, 300)
    values = np.clip(np.concatenate((beside, inside)), low, high)
    np.random.default_rng(seed).shuffle(values)
    try:
        np_counts, np_edges, np_quantiles = _numpys(values, bins, [10.0, 50.0, 90.0])
    except ValueError:
        reject()
    counts, got_edges, quantiles = distribution(values, np.sort(values), bins, (10.0, 50.0, 90.0))
    assert counts.tolist() == np_counts and same_bits(got_edges, np_edges)
    assert same_bits(quantiles, np_quantiles)


def test_distribution_of_many_draws() -> None:
    """The Monte Carlo's sizes, more than numpy's histogram block, and an empty range."""
    rng = np.random.default_rng(11)
    for values in (rng.normal(1e5, 3e5, 10_000), rng.normal(-2e4, 1e3, 70_000), np.full(500, 3.0)):
        np_counts, np_edges, np_quantiles = _numpys(values, 30, [10.0, 50.0, 90.0])
        counts, edges, quantiles = distribution(values, np.sort(values), 30, (10.0, 50.0, 90.0))
        assert counts.tolist() == np_counts and same_bits(edges, np_edges)
        assert same_bits(quantiles, np_quantiles)


def test_drawn_once_per_ranges_as_drawn_afresh() -> None:
    """The draws kept per set of ranges are those a fresh stream gives, read-only; ranges
    with a zero bound (whose sign a cache key would lose) are drawn afresh each time."""
    from tco.engine.inputs import UncertaintyRanges
    from tco.engine.montecarlo import _Draws, drawn

    for ranges in (
        UncertaintyRanges(),
        UncertaintyRanges.none(),
        UncertaintyRanges(pue=(-0.0, 0.1)),
    ):
        draws = _Draws(ranges.seed, ranges.draws, ranges=7)
        fresh = [
            draws.uniform(getattr(ranges, name))
            for name in ("cloud_price_trend", "demand", "resale", "electricity", "server_price")
        ]
        draws.skip(ranges.discount_rate)
        fresh.append(draws.uniform(ranges.pue))
        got = drawn(ranges)
        assert all(same_bits(a, b) for a, b in zip(got, fresh, strict=True))
        assert not any(values.flags.writeable for values in got)
        assert (drawn(ranges)[0] is got[0]) == (ranges == UncertaintyRanges())


def test_picked_offerings_stack_as_the_picked_list() -> None:
    """stack_clouds(..., pick=) gives the fields of the offerings picked, in their order."""
    for ndim in (1, 2):
        picked = stack_clouds(CLOUDS, ndim=ndim, pick=[3, 0, 4])
        listed = stack_clouds([CLOUDS[3], CLOUDS[0], CLOUDS[4]], ndim=ndim)
        assert picked.name == listed.name
        for name in ("price_per_instance_hour", "committed", "usage_multiplier", "always_on"):
            assert same_bits(getattr(picked, name), getattr(listed, name))


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
def test_times_one_is_the_product(x: np.ndarray, factor: np.ndarray) -> None:
    """A factor of exactly 1.0 everywhere leaves the values as the product gives them."""
    from tco.engine.costmodel import _times

    try:
        with np.errstate(all="ignore"):  # inf × 0
            expected = x * factor
    except ValueError:  # shapes that do not broadcast
        reject()
    x = np.float64(x) if x.ndim == 0 else x
    factor = np.float64(factor) if factor.ndim == 0 else factor
    with np.errstate(all="ignore"):
        got = _times(x, factor)
    assert same_bits(got, expected)


@FAST
@given(
    hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(1, 50)),
        elements=st.one_of(finite, signed, st.sampled_from([-np.inf])),
    )
)
def test_cheapest_row_by_row_is_numpys_minimum(totals: np.ndarray) -> None:
    """The cheapest offering per draw, row after row: np.min over the first axis, bit for
    bit (NaNs and signed zeros included)."""
    from tco.engine.montecarlo import _cheapest

    assert same_bits(_cheapest(totals), np.min(totals, axis=0))
