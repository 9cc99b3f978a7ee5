"""Numbers on pages and PDFs: rounded (not cut off) and in the reader's marks."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from common.formatting import grouped, money, money0, number, percent


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


@pytest.mark.parametrize("language", ["en", "nl"])
@given(
    value=st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12),
    decimals=st.integers(0, 4),
)
@settings(max_examples=300, deadline=None)
def test_a_number_is_its_shortest_decimal_rounded_half_away_from_zero(
    language: str, value: float, decimals: int
) -> None:
    """The text read back (without its marks) is the value as written (repr: 2.675 is
    2.675, whatever its binary value) rounded to the places shown, ties away from zero."""
    with translation.override(language):
        text = grouped(value, decimals)
    thousands, mark = (",", ".") if language == "en" else (".", ",")
    read = Decimal(text.replace(thousands, "").replace(mark, "."))
    exact = Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP)
    assert read == exact or (read == 0 and exact == 0)
    assert not text.startswith("-0") or read != 0
