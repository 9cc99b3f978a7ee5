"""Numbers on pages and PDFs: rounded (not cut off) and in the reader's marks."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.templatetags import formatting
from catalog.templatetags.formatting import (
    _fixed,
    format_amounts,
    format_money,
    grouped,
    money,
    money0,
    number,
    percent,
    rounded,
)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", ("1,234,568", "29\u00a0%", "−€1,235", "$100.00", "12,345.7", "0")),
        ("nl", ("1.234.568", "29\u00a0%", "−€\u00a01.235", "$\u00a0100,00", "12.345,7", "0")),
    ],
)
def test_numbers_round_and_use_the_languages_marks(
    language: str, expected: tuple[str, ...]
) -> None:
    with translation.override(language):
        shown = (
            grouped(1_234_567.891),
            percent(0.29),  # 0.29 × 100 = 28.999999999999996: 29 %, not 28 %
            money0(-1234.56, "EUR"),
            money(99.999, "USD"),  # $100.00, not $99.99
            number(Decimal("12345.67"), 1),
            grouped(-0.001),  # rounds to zero: no "-0"
        )
    assert shown == expected


def test_a_missing_template_variable_stays_empty() -> None:
    with translation.override("en"):
        assert number("") == ""


@given(
    st.one_of(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15),
        # Decimal ties and their neighbours: 2.675, 0.125, 1234.5 and the floats next to them.
        st.builds(
            lambda n, d, step: (
                math.nextafter(n / 10 ** (d + 1), math.inf * step) if step else n / 10 ** (d + 1)
            ),
            st.integers(-(10**9), 10**9).map(lambda k: k * 10 + 5),
            st.integers(0, 4),
            st.sampled_from([0, 1, -1]),
        ),
    ),
    st.integers(0, 6),
)
@settings(max_examples=2_000, deadline=None)
def test_a_float_written_by_python_rounds_as_the_decimal_rule(value: float, decimals: int) -> None:
    """The fast float path of the number filters gives what rounding half away from zero
    of the shortest decimal form gives (formatting._fixed against formatting.rounded)."""
    for separator in (",", ""):
        expected = f"{rounded(value, decimals):{separator}.{decimals}f}"
        assert _fixed(value, decimals, separator) == expected, (value, decimals)


@given(
    st.one_of(
        # Any magnitude: tiny ones are written with an exponent by repr (1e-05).
        st.floats(allow_nan=False, allow_infinity=False),
        st.builds(
            lambda mantissa, exponent: mantissa * 10.0**exponent,
            st.floats(-10, 10, allow_nan=False),
            st.integers(-12, 15),
        ),
        # Ties at up to 15 places and the floats next to them.
        st.builds(
            lambda n, d, step: (
                math.nextafter(n / 10 ** (d + 1), math.inf * step) if step else n / 10 ** (d + 1)
            ),
            st.integers(-(10**12), 10**12).map(lambda k: k * 10 + 5),
            st.integers(0, 15),
            st.sampled_from([0, 1, -1, 2, -2]),
        ),
    ),
    st.integers(0, 15),
)
@settings(max_examples=3_000, deadline=None)
def test_a_float_told_from_a_tie_without_its_shortest_form_rounds_as_the_decimal_rule(
    value: float, decimals: int
) -> None:
    """_fixed tells most floats from a tie by their scaled fraction, without repr: the
    same text as rounding their shortest decimal form half away from zero, at any
    magnitude and up to the 15 places it takes."""
    expected = f"{rounded(value, decimals):,.{decimals}f}"
    assert _fixed(value, decimals, ",") == expected, (value, decimals)


@pytest.mark.parametrize("decimals", range(16))
def test_the_fast_floats_are_those_spaced_finer_than_the_places(decimals: int) -> None:
    limit = formatting._SPACED[decimals]
    places = formatting._PLACES[decimals]
    assert math.ulp(math.nextafter(limit, 0.0)) < places <= math.ulp(limit)


class OtherFloat(float):
    """Not exactly a float: format_money takes its general path (the one before its fast
    path for plain floats and ints), which the test compares with."""


class OtherInt(int):
    pass


@pytest.mark.parametrize("language", ["en", "nl"])
@given(
    value=st.one_of(st.floats(), st.integers(-(10**18), 10**18), st.just(-0.0)),
    currency=st.sampled_from(["USD", "EUR", "GBP"]),
    decimals=st.integers(0, 3),
)
@settings(max_examples=300, deadline=None)
def test_money_of_a_plain_float_or_int_is_written_as_by_the_general_path(
    language: str, value: float | int, currency: str, decimals: int
) -> None:
    other = OtherFloat(value) if isinstance(value, float) else OtherInt(value)
    with translation.override(language):
        fast = format_money(value, currency, decimals)
        general = format_money(other, currency, decimals)
    assert fast == general


@pytest.mark.parametrize("language", ["en", "nl"])
@given(
    values=st.lists(
        st.one_of(
            st.floats(),
            st.integers(-(10**18), 10**18),
            st.just(-0.0),
            st.none(),
            st.decimals(allow_nan=False, places=3),
        ),
        max_size=8,
    ),
    currency=st.sampled_from(["USD", "EUR", "GBP"]),
    decimals=st.integers(0, 3),
)
@settings(max_examples=200, deadline=None)
def test_amounts_are_written_as_money_one_by_one(
    language: str, values: list[float | int | None], currency: str, decimals: int
) -> None:
    with translation.override(language):
        expected = [format_money(value, currency, decimals) for value in values]
        assert format_amounts(values, currency, decimals) == expected
