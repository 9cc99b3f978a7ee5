"""Number and money formatting that follows the active language (1,234.50 vs 1.234,50).

For every app (wording, workbooks, PDFs, exports); templates reach the same functions as
filters of the `formatting` library (catalog/templatetags/formatting.py).
"""

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.utils import formats, translation

SYMBOLS = {"USD": "$", "EUR": "€"}
_QUANTA = [Decimal(1).scaleb(-decimals) for decimals in range(8)]  # 1, 0.1, 0.01…


def rounded(value: Decimal | float | int, decimals: int) -> Decimal | float | int:
    """The value rounded half away from zero to `decimals` places.

    Django's number_format cuts the digits it does not show (888.889 → "888.8"); rounding
    first makes the shown figure the nearest one (888.9).

    >>> rounded(888.889, 1), rounded(0.00078, 4), rounded(2.5, 0)
    (Decimal('888.9'), Decimal('0.0008'), Decimal('3'))
    """
    if isinstance(value, bool):
        return value
    quantum = _QUANTA[decimals] if 0 <= decimals < len(_QUANTA) else Decimal(1).scaleb(-decimals)
    try:
        return Decimal(str(value)).quantize(quantum, ROUND_HALF_UP)
    except (InvalidOperation, ValueError):  # inf, nan or digits beyond the context
        return value


def grouped(value: Decimal | float | int, decimals: int = 0, grouping: bool = True) -> str:
    """``value`` rounded half away from zero (:func:`rounded`) to ``decimals`` places, in
    the active language's marks: 1234567.891 → "1,234,568" (en), "1.234.568" (nl);
    0.29 × 100 → "29"; 2.5 → "3".

    Rounded, where Django's ``number_format`` cuts a float's digits off (it would show
    29 % as "28 %", from 28.999999999999996, and €99.999 as "€99.99").
    """
    return _grouped(value, decimals, grouping, translation.get_language() or "en")


def _grouped(value: Decimal | float | int, decimals: int, grouping: bool, language: str) -> str:
    number = rounded(value, decimals) if isinstance(value, int | float | Decimal) else value
    if not isinstance(number, Decimal) or formats.get_format("NUMBER_GROUPING", language) != 3:
        # Not a finite number, or a language that does not group digits in threes.
        return formats.number_format(number, decimals, use_l10n=True, force_grouping=grouping)
    text = f"{number:{',' if grouping else ''}.{decimals}f}"  # Python's marks: 1,234.5
    if text.startswith("-") and not text.strip("-0.,"):
        text = text[1:]  # −0.001 rounds to 0, not "-0"
    thousands = formats.get_format("THOUSAND_SEPARATOR", language)
    decimal_mark = formats.get_format("DECIMAL_SEPARATOR", language)
    if (thousands, decimal_mark) == (",", "."):
        return text
    return text.translate(str.maketrans(",.", thousands + decimal_mark))


def format_money(value: Decimal | float | int | None, currency: str, decimals: int = 2) -> str:
    if value is None or value == "":  # "": a missing template variable
        return "–"
    if isinstance(value, int | float | Decimal) and value < 0:  # "−€1,234", not "€-1,234"
        return "\u2212" + format_money(-value, currency, decimals)
    language = translation.get_language() or "en"
    number = _grouped(value, decimals, True, language)
    symbol = SYMBOLS.get(currency, currency + " ")
    # Dutch writes a space between symbol and amount ("€ 1.234,50"); English does not.
    separator = "\u00a0" if language == "nl" else ""
    return f"{symbol}{separator}{number}"


def format_amounts(
    values: Iterable[Decimal | float | int | None], currency: str, decimals: int = 2
) -> list[str]:
    """Each of ``values`` as :func:`format_money` writes it."""
    return [format_money(value, currency, decimals) for value in values]


def money(value: Decimal | float | int | None, currency: str) -> str:
    return format_money(value, currency)


def money0(value: Decimal | float | int | None, currency: str) -> str:
    return format_money(value, currency, decimals=0)


def number(value: Decimal | float | int | None, decimals: int = 0) -> str:
    if value is None:
        return "–"
    return grouped(value, decimals)


def percent(value: float | None, decimals: int = 0) -> str:
    """0.423 → "42 %" (en) / "42 %" (nl), with the locale's decimal mark."""
    if value is None:
        return "–"
    return grouped(value * 100, decimals) + "\u00a0%"


def price(value: Decimal | float | int | None) -> str:
    """A price with as many decimals as it has (at least 2, at most 6): 63.296, 55.04."""
    if value is None:
        return "–"
    exponent = Decimal(str(value)).normalize().as_tuple().exponent
    decimals = min(6, max(2, -exponent if isinstance(exponent, int) else 2))
    return grouped(value, decimals)
