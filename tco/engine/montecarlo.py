"""How sure the verdict is: a seeded Monte Carlo over the inputs nobody knows exactly.

Every draw changes several inputs at once (cloud price trend, electricity,
demand, server price, resale value, PUE) within documented ranges and
recomputes the nominal cost of owning and of the cheapest eligible cloud
options in one vectorized pass of the cost core (the same closed forms as
every other figure). A discount rate range is drawn too, but nominal totals do
not read it. See docs/methodology.md, "Confidence".
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tco.engine.costmodel import (
    NO_REFRESH,
    CostModel,
    active_months,
    cloud_total,
    onprem_monthly,
    onprem_total,
    stack_clouds,
)
from tco.engine.errors import InvalidInput
from tco.engine.finance import as_array, broadcast
from tco.engine.inputs import UncertaintyRanges
from tco.engine.onprem import scalar
from tco.engine.ownership import resale_fraction
from tco.engine.units import HOURS_PER_MONTH, FloatArray, IntArray, Number


@dataclass(frozen=True, slots=True)
class Confidence:
    favours: str  # "own" or "rent": the verdict's side
    probability: float  # share of draws in which the verdict's side is cheaper
    draws: int
    saving_p10: float  # the verdict side's saving over the other side, percentiles
    saving_p50: float
    saving_p90: float
    saving_mean: float
    histogram_edges: tuple[float, ...]
    histogram_counts: tuple[int, ...]


@functools.lru_cache(maxsize=4)
def _seeded_stream(seed: int, count: int) -> FloatArray:
    """The first ``count`` uniform numbers in [0, 1) of the seeded generator: the same for
    every analysis with this seed, so drawn once per process (read-only)."""
    stream = np.random.default_rng(seed).random(count)
    stream.flags.writeable = False
    return stream


class _Draws:
    """Uniform draws within ranges, taken in turn from one seeded stream.

    ``rng.uniform(low, high, n)`` is ``low + (high - low) * u`` for the generator's next
    ``n`` numbers ``u`` (numpy's `random_uniform`); taking them from the cached stream gives
    the same values, without drawing 70,000 numbers for every result. A zero-width range
    takes no numbers, as before.
    """

    def __init__(self, seed: int, n: int, ranges: int) -> None:
        self.n = n
        self.stream = _seeded_stream(seed, n * ranges)
        self.taken = 0

    def uniform(self, bounds: tuple[float, float]) -> FloatArray:
        low, high = bounds
        if not high > low:
            return np.full(self.n, low)
        if self.taken + self.n > len(self.stream):
            raise ValueError("more ranges drawn than the stream was made for")
        units = self.stream[self.taken : self.taken + self.n]
        self.taken += self.n
        return as_array(low + (high - low) * units)

    def skip(self, bounds: tuple[float, float]) -> None:
        """Pass over the numbers :meth:`uniform` would take for ``bounds``, unused."""
        if bounds[1] > bounds[0]:
            self.taken += self.n


@functools.lru_cache(maxsize=4)
def _drawn_once(ranges: UncertaintyRanges) -> tuple[FloatArray, ...]:
    draws = _Draws(ranges.seed, ranges.draws, ranges=7)  # the seven ranges
    drawn = [
        draws.uniform(ranges.cloud_price_trend),
        draws.uniform(ranges.demand),
        draws.uniform(ranges.resale),
        draws.uniform(ranges.electricity),
        draws.uniform(ranges.server_price),
    ]
    # The totals compared are nominal: a drawn discount rate would change none of them, so
    # its numbers are passed over (the PUE's after them stay the ones it always drew).
    draws.skip(ranges.discount_rate)
    drawn.append(draws.uniform(ranges.pue))
    for values in drawn:
        values.flags.writeable = False
    return tuple(drawn)


def drawn(ranges: UncertaintyRanges) -> tuple[FloatArray, ...]:
    """The draws of the cloud price trend, demand, resale, electricity, server price and
    PUE (read-only): they depend only on the ranges, their seed and count, so each set of
    ranges is drawn once per process (every result with the default ranges shares them).
    Ranges with a zero bound are drawn afresh: a cache key does not tell 0.0 from -0.0."""
    bounds = (
        ranges.cloud_price_trend,
        ranges.demand,
        ranges.resale,
        ranges.electricity,
        ranges.server_price,
        ranges.discount_rate,
        ranges.pue,
    )
    if any(0.0 in pair for pair in bounds):
        return _drawn_once.__wrapped__(ranges)
    return _drawn_once(ranges)


def _times(values: FloatArray, factor: Number) -> FloatArray:
    """``factor × values``, written into ``values`` (an array made for it) when the factor is
    one number: the same product, without a new array."""
    kind = type(factor)
    if kind is float or kind is np.float64:
        return np.multiply(values, factor, out=values)
    return as_array(as_array(factor) * values)


def monte_carlo(
    model: CostModel,
    ranges: UncertaintyRanges,
    *,
    favours: str,
    clouds: Sequence[int],
    run_hours: float | None = None,
    resale_by_year: Sequence[float] = (),
    resell_months: int | None = None,
    bins: int = 30,
) -> Confidence | None:
    """Share of plausible futures in which the verdict's side (own or rent) is cheaper.

    ``clouds`` are the indices of the eligible cloud offerings in ``model``;
    renting costs the cheapest of them in each draw. Owning costs the
    cheaper of keeping and (with ``resell_months``) buy-run-resell. None when
    the amounts overflow.
    """
    if favours not in ("own", "rent"):
        raise InvalidInput("favours", "The verdict favours 'own' or 'rent'.")
    if not clouds:
        raise InvalidInput("cloud_offerings", "The confidence needs an eligible cloud option.")
    n = ranges.draws
    trend, demand, resale, electricity, server_price, pue = drawn(ranges)
    horizon = scalar(model.horizon_months, "horizon_months")
    # Prices move along a straight line to the trend's end value; the work pays the
    # average over the months it runs.
    runs_share = scalar(active_months(model), "active_months") / horizon
    # Each varied field is the scenario's value times (or plus) its draws, worked in the
    # array the first step makes: the same operations (a product or sum of two numbers
    # does not depend on their order), without a new array for each.
    scale = trend * runs_share
    scale /= 2.0
    scale += 1.0
    utilization = as_array(model.utilization) * demand
    residual = as_array(model.residual_pct) * resale
    shifted_pue = as_array(model.pue) + pue
    varied = model.replace(
        cloud_price_scale=_times(scale, model.cloud_price_scale),
        electricity_price_per_kwh=as_array(model.electricity_price_per_kwh) * electricity,
        utilization=np.clip(utilization, 0.0, 1.0, out=utilization),
        server_price=as_array(model.server_price) * server_price,
        residual_pct=np.clip(residual, 0.0, 1.0, out=residual),
        pue=np.maximum(shifted_pue, 1.0, out=shifted_pue),
    )
    varied_monthly = onprem_monthly(varied)
    own = onprem_total(varied, varied_monthly)
    if resell_months is not None and run_hours:
        fraction = resale_fraction(resale_by_year, resell_months)
        run_utilization = run_hours * demand
        run_utilization /= resell_months * HOURS_PER_MONTH
        resold_residual = fraction * resale
        resold = varied.replace(
            horizon_months=float(resell_months),
            utilization=np.clip(run_utilization, 0, 1, out=run_utilization),
            residual_pct=np.clip(resold_residual, 0.0, 1.0, out=resold_residual),
            active_months=1e9,
            leased=0.0,
            service_life_months=NO_REFRESH,  # sold after the run, never bought again
        )
        # The same fleet (hardware, fees) owned for the run: only its energy and resale differ.
        own = np.minimum(own, onprem_total(resold, onprem_monthly(resold, varied_monthly)))
    # The offerings stacked along a first axis (offerings × draws): one pass of the closed
    # form for all of them, element by element the arithmetic of each offering's own.
    totals = cloud_total(varied, stack_clouds(model.clouds, ndim=2, pick=clouds))
    rent = broadcast(_cheapest(totals), (n,))
    own = broadcast(own, (n,))
    favour = (rent - own) if favours == "own" else (own - rent)
    # One sorted copy answers the finiteness, the histogram, the percentiles and the share
    # above zero (see distribution); the mean sums the draws in their own order.
    ordered = np.sort(favour)
    if not (math.isfinite(ordered[0]) and math.isfinite(ordered[-1])):
        return None  # amounts beyond what a float holds (NaNs sort last): no distribution
    counts, edges, (p10, p50, p90) = distribution(favour, ordered, bins, (10.0, 50.0, 90.0))
    return Confidence(
        favours=favours,
        probability=(n - int(np.searchsorted(ordered, 0.0, side="right"))) / n,
        draws=n,
        saving_p10=p10,
        saving_p50=p50,
        saving_p90=p90,
        saving_mean=float(favour.sum() / favour.size),  # np.mean's own sum and division
        histogram_edges=tuple(edges.tolist()),
        histogram_counts=tuple(counts.tolist()),
    )


def _cheapest(totals: FloatArray) -> FloatArray:
    """``np.min(totals, axis=0)``: numpy's reduction over the first axis takes the minimum
    of the accumulated row and the next, row after row; the same steps over whole rows
    (the same floats, NaNs and signed zeros included) cost a third of its strided walk."""
    if totals.ndim < 2 or len(totals) < 2:
        return as_array(np.min(totals, axis=0))
    cheapest = as_array(np.minimum(totals[0], totals[1]))
    for row in totals[2:]:
        np.minimum(cheapest, row, out=cheapest)
    return cheapest


def distribution(
    values: FloatArray, ordered: FloatArray, bins: int, q: Sequence[float]
) -> tuple[IntArray, FloatArray, list[float]]:
    """:func:`histogram` and :func:`percentiles` of finite ``values``, read from
    ``ordered`` (the values sorted): the same counts, edges and floats.

    A sort costs less than numpy's partition around the percentiles' places and the
    histogram's per-value bins together. The percentiles' neighbours are the values of
    their ranks, which the sorted values hold in place: the same floats unless the values
    hold a zero (0.0 and −0.0 rank alike, and which of them numpy's partition puts on a
    place depends on its steps), and then :func:`percentiles` partitions as numpy does.

    The histogram: in :func:`histogram`'s wide bins every value ends in the bin its edges
    bound (numpy's estimate is within a bin of it, and numpy's check against the edges
    moves it there), edges[i] ≤ value < edges[i + 1], the last bin closed; the edges rise
    (rounding keeps their order, and a bin is far wider than their rounding). So a bin's
    count is the number of sorted values below its upper edge less those below its lower
    one. The range is the values' minimum and maximum, numpy's own reductions of them where
    one is a zero (of either sign); other ranges take :func:`histogram` itself.
    """
    n = len(ordered)
    zero = int(np.searchsorted(ordered, 0.0))
    if zero < n and ordered[zero] == 0.0:
        quantiles = percentiles(values, q)
    else:
        lower, upper, gamma, rest, upper_half, _partitioned = _places(n, tuple(q))
        quantiles = _interpolate(ordered[lower], ordered[upper], gamma, rest, upper_half)
    first, last = ordered[0], ordered[-1]
    if first == 0.0 or last == 0.0:  # which zero numpy's reductions give depends on the order
        first, last = values.min(), values.max()
    if first == last:  # numpy widens an empty range by ±0.5
        first, last = first - 0.5, last + 0.5
    width = last - first
    largest = max(abs(first), abs(last))
    if not (np.isfinite(width) and (5 * bins + largest * bins / width) < _WIDE_BINS):
        counts, edges = histogram(values, bins)
        return counts, edges, quantiles
    edges = _edges(first, last, bins, np.result_type(first, last, ordered))
    below = np.empty(bins + 1, dtype=np.intp)  # values below each edge; all below the end
    below[0] = 0
    below[bins] = n
    below[1:bins] = np.searchsorted(ordered, edges[1:bins], side="left")
    return below[1:] - below[:-1], edges, quantiles


_HISTOGRAM_BLOCK = 65536  # numpy.histogram's block of values
# Values whose estimated place lies within this share of a bin from an edge are checked
# against the edges; the others are in the bin the estimate names (see histogram).
_NEAR_EDGE = 2.0**-30
_WIDE_BINS = 2.0**20


def histogram(values: FloatArray, bins: int) -> tuple[IntArray, FloatArray]:
    """``np.histogram(values, bins=bins)`` of finite values, by numpy's own steps.

    Its equal-width path, less the step that drops values outside the range: the range
    is the values' own minimum and maximum, so none is outside. Each value's bin is
    estimated from its distance to the first edge, then moved by one where the value
    falls on the other side of an edge (a value on an edge belongs to the bin above it,
    the maximum to the last bin), and the bins are counted: the same counts and edges
    (tests compare the two).

    Bins wide against the values' rounding (the Monte Carlo's, by far) skip numpy's
    look-up of every value's edges: the estimate is within (5 × bins + largest magnitude
    ÷ bin width) × 2⁻⁵³ bins of the value's place, as is each edge of its own, so a value
    estimated farther than 2⁻³⁰ of a bin from an edge is in the bin the estimate names and
    numpy would not move it. Only the values near an edge (and the extremes, which sit on
    one) are checked against the edges as numpy does.
    """
    first, last = values.min(), values.max()
    if first == last:  # numpy widens an empty range by ±0.5
        first, last = first - 0.5, last + 0.5
    edges = _edges(first, last, bins, np.result_type(first, last, values))
    width = last - first
    largest = max(abs(first), abs(last))
    if np.isfinite(width) and (5 * bins + largest * bins / width) < _WIDE_BINS:
        place = (values - first) / width * bins  # numpy's estimate, in bins
        index = place.astype(np.intp)
        off = np.rint(place)  # how far from the nearest edge, in bins
        np.subtract(place, off, out=off)
        np.abs(off, out=off)
        near = np.flatnonzero(off < _NEAR_EDGE)
        counts = np.bincount(index, minlength=bins + 1)
        if near.size:
            guessed = index[near]
            counts -= np.bincount(guessed, minlength=bins + 1)
            counts += np.bincount(
                _onto_edges(values[near], guessed, edges, bins), minlength=bins + 1
            )
        return counts[:bins], edges
    counts = np.zeros(bins, np.intp)
    for start in range(0, len(values), _HISTOGRAM_BLOCK):
        block = values[start : start + _HISTOGRAM_BLOCK]
        index = ((block - first) / width * bins).astype(np.intp)
        counts += np.bincount(_onto_edges(block, index, edges, bins), minlength=bins)
    return counts, edges


def _edges(first: np.float64, last: np.float64, bins: int, dtype: np.dtype[Any]) -> FloatArray:
    """``np.linspace(first, last, bins + 1, dtype=dtype)`` by its own steps for float64
    (the Monte Carlo's), without its conversions of the arguments."""
    if dtype != np.float64 or bins < 1:
        return np.linspace(first, last, bins + 1, endpoint=True, dtype=dtype)
    step = (last - first) / bins
    edges = np.arange(bins + 1, dtype=np.float64)
    if step == 0:  # subnormal steps: as numpy, divide first
        edges /= bins
        edges *= last - first
    else:
        edges *= step
    edges += first
    edges[-1] = last
    return edges


def _onto_edges(values: FloatArray, index: IntArray, edges: FloatArray, bins: int) -> IntArray:
    """numpy.histogram's correction of estimated bins (``index``, changed in place)."""
    index[index == bins] -= 1
    index[values < edges[index]] -= 1
    index[(values >= edges[index + 1]) & (index != bins - 1)] += 1
    return index


def percentiles(values: FloatArray, q: Sequence[float]) -> list[float]:
    """``np.percentile(values, q)`` (linear method) of a 1-D float array, by numpy's steps.

    The value at (n − 1) × q / 100 in sorted order, interpolated linearly between its two
    neighbours: one partition of a copy around the neighbours, then numpy's interpolation,
    which computes from the upper neighbour when the fraction is at least one half. The
    same floats as numpy for finite values (tests compare the two), without its
    general-purpose steps.

    numpy partitions around the first and last place too (to find NaNs, which sort
    last); that is a third of the partition's work. Without them each neighbour is still
    the value of its rank, the same float, unless the values hold a zero: 0.0 and -0.0
    rank alike, and which of them lands on a place depends on the partition's steps, so
    then the places are numpy's own.
    """
    lower, upper, gamma, rest, upper_half, places = _places(len(values), tuple(q))
    if np.count_nonzero(values == 0.0):
        places = np.unique(np.concatenate(([0, -1], places)))
    ordered = np.partition(values, places)
    return _interpolate(ordered[lower], ordered[upper], gamma, rest, upper_half)


def _interpolate(
    a: FloatArray,
    b: FloatArray,
    gamma: FloatArray,
    rest: FloatArray,
    upper_half: npt.NDArray[np.bool_],
) -> list[float]:
    """numpy's linear interpolation between the neighbours ``a`` and ``b``: from the upper
    one where the fraction is at least one half."""
    diff = b - a
    result = np.add(a, diff * gamma)
    np.subtract(b, diff * rest, out=result, where=upper_half, casting="unsafe")
    return result.tolist()  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=8)
def _places(
    count: int, q: tuple[float, ...]
) -> tuple[IntArray, IntArray, FloatArray, FloatArray, npt.NDArray[np.bool_], IntArray]:
    """The places in sorted order that :func:`percentiles` interpolates between, by numpy's
    steps: the neighbours, the fraction and 1 − it, where the upper neighbour is the base,
    and the places to partition around. They depend only on the count and the quantiles
    (the Monte Carlo's are fixed), so each pair is worked out once (read-only)."""
    virtual = (count - 1) * np.true_divide(np.asarray(q, dtype=np.float64), 100)
    below = np.floor(virtual)
    above = below + 1
    high = virtual >= count - 1  # a quantile at (or past) the end takes the last value
    below[high] = -1
    above[high] = -1
    below[virtual < 0] = 0
    above[virtual < 0] = 0
    lower, upper = below.astype(np.intp), above.astype(np.intp)
    gamma = as_array(virtual - lower)
    made = (lower, upper, gamma, 1 - gamma, gamma >= 0.5, np.unique(np.concatenate((lower, upper))))
    for array in made:
        array.flags.writeable = False
    return made
