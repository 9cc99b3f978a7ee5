"""Number and money formatting that follows the active language (1,234.50 vs 1.234,50)."""

import math
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from django import template
from django.utils import formats
from django.utils.translation import gettext_lazy as _

from config.render_language import current_language

register = template.Library()

SYMBOLS = {"USD": "$", "EUR": "€"}


_QUANTA = [Decimal(1).scaleb(-decimals) for decimals in range(8)]  # 1, 0.1, 0.01…
_PLACES = [10.0**-decimals for decimals in range(16)]
_SCALES = [10.0**decimals for decimals in range(16)]  # exact


def _spaced(places: float) -> float:
    """The smallest power of two whose spacing (math.ulp) reaches ``places``: floats below
    it in magnitude are spaced finer than that."""
    limit = 1.0
    while math.ulp(limit) < places:
        limit *= 2.0
    while limit > 1.0 and math.ulp(limit / 2.0) >= places:
        limit /= 2.0
    return limit


_SPACED = [_spaced(places) for places in _PLACES]
# A tie's scaled float is within |scaled| · 2**-52 (its shortest form's distance, the
# scaling's rounding) + 2**-53 (the fraction's) of k + ½; four times that, to be sure.
_NOT_A_TIE = 2.0**-50
# Format specs by thousands separator ("," or none) and places, made once: ",.2f".
_FLOAT_SPECS = {sep: [f"{sep}.{decimals}f" for decimals in range(16)] for sep in (",", "")}
_INT_SPECS = {sep: f"{sep}d" for sep in (",", "")}


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


# (decimal mark, thousands separator) per language, read once from the format modules.
_SEPARATORS: dict[str, tuple[str, str]] = {}
# From Python's marks (1,234.5) to the language's; None where they are the same.
_MARKS: dict[str, dict[int, str] | None] = {}


def _separators(language: str) -> tuple[str, str] | None:
    """The language's marks, or None when it does not group digits in threes (Django's
    formatter then does it)."""
    if language not in _SEPARATORS:
        if formats.get_format("NUMBER_GROUPING", language) != 3:
            return None
        decimal_mark = formats.get_format("DECIMAL_SEPARATOR", language)
        thousands = formats.get_format("THOUSAND_SEPARATOR", language)
        _SEPARATORS[language] = (decimal_mark, thousands)
        same = (decimal_mark, thousands) == (".", ",")
        _MARKS[language] = None if same else {ord(","): thousands, ord("."): decimal_mark}
    return _SEPARATORS[language]


def _fixed(value: Decimal | float | int, decimals: int, separator: str) -> str:
    """``value`` to ``decimals`` places, half away from zero, in Python's marks (1,234.5).

    A float is written by Python's own formatting, which rounds its exact binary value
    half to even; that equals :func:`rounded` (its shortest decimal form, half away from
    zero) unless that form ends on a 5 one place past the cut (2.675 → 2.68, not 2.67) or
    the float's spacing reaches the places shown (562949953421312.75 is written
    562949953421312.8): those, non-finite floats and other types take the Decimal path.
    The float path is several times faster (tests compare the two over random floats).

    Most floats are told apart from a tie without their shortest form (``repr``, the
    dearest step, ~half of a number's cost): a tie's shortest form is k + ½ units of the
    last place shown, so the float scaled to those units lies within a few of its own
    spacings of k + ½; one whose scaled fraction is further from ½ than that
    (`_NOT_A_TIE`) is no tie, whatever its form. The rest are checked on their form.
    """
    if isinstance(value, float) and 0 <= decimals <= 15:
        number = value if type(value) is float else float(value)
        if -_SPACED[decimals] < number < _SPACED[decimals]:  # false for inf and nan too
            scaled = number * _SCALES[decimals]
            if decimals == 0:  # scaled exactly: a tie is k + ½ itself
                not_a_tie = scaled % 1.0 != 0.5
            else:
                not_a_tie = abs(scaled % 1.0 - 0.5) > (abs(scaled) + 1.0) * _NOT_A_TIE
            if not_a_tie:
                return format(number, _FLOAT_SPECS[separator][decimals])
            text = repr(number)
            point = text.find(".")
            tie = len(text) - point == decimals + 2 and text[-1] == "5"
            if point > 0 and "e" not in text and not tie:
                return format(number, _FLOAT_SPECS[separator][decimals])
    elif type(value) is int and decimals == 0:
        return format(value, _INT_SPECS[separator])
    return f"{rounded(value, decimals):{separator}.{decimals}f}"


# Per language: (its marks for Python's, None when the same; what separates a currency
# symbol from the amount), for the languages that group digits in threes.
_STYLES: dict[str, tuple[dict[int, str] | None, str]] = {}


def _style(language: str) -> tuple[dict[int, str] | None, str] | None:
    style = _STYLES.get(language)
    if style is None:
        if _separators(language) is None:
            return None
        # Dutch writes a space between symbol and amount ("€ 1.234,50"); English does not.
        style = _STYLES[language] = (_MARKS[language], "\u00a0" if language == "nl" else "")
    return style


def _text(value: Decimal | float | int, decimals: int, grouping: bool, table: Any) -> str:
    """grouped()'s text, the language's marks (``table``) known."""
    text = _fixed(value, decimals, "," if grouping else "")
    if text[0] == "-" and not text.strip("-0.,"):
        text = text[1:]  # −0.001 rounds to 0, not "-0"
    return text if table is None else text.translate(table)


def grouped(value: Decimal | float | int, decimals: int = 0, grouping: bool = True) -> str:
    """``value`` rounded half away from zero (:func:`rounded`) to ``decimals`` places, in
    the active language's marks: 1234567.891 → "1,234,568" (en), "1.234.568" (nl);
    0.29 × 100 → "29"; 2.5 → "3".

    Rounded, where Django's ``number_format`` cuts a float's digits off (it would show
    29 % as "28 %", from 28.999999999999996, and €99.999 as "€99.99"), and several times
    faster than it: a result page formats about 150 numbers.
    """
    language = current_language()
    style = _STYLES.get(language) or _style(language)
    kind = type(value)
    if style is not None and (kind is float or kind is int or kind is Decimal):
        return _text(value, decimals, grouping, style[0])
    if style is None or isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return formats.number_format(value, decimals, use_l10n=True, force_grouping=grouping)
    return _text(value, decimals, grouping, style[0])


def format_money(value: Decimal | float | int | None, currency: str, decimals: int = 2) -> str:
    kind = type(value)
    if kind is float or kind is int:  # most amounts: the checks below in one step
        if value < 0:
            return "\u2212" + format_money(-value, currency, decimals)
        language = current_language()
        style = _STYLES.get(language) or _style(language)
        if style is not None:  # _text, in line
            text = _fixed(value, decimals, ",")
            if text[0] == "-" and not text.strip("-0.,"):
                text = text[1:]  # −0.0
            if style[0] is not None:
                text = text.translate(style[0])
            return f"{SYMBOLS.get(currency) or currency + ' '}{style[1]}{text}"
    if value is None or value == "":  # "": a missing template variable
        return "–"
    if isinstance(value, int | float | Decimal) and value < 0:  # "−€1,234", not "€-1,234"
        return "\u2212" + format_money(-value, currency, decimals)
    number = grouped(value, decimals)
    symbol = SYMBOLS.get(currency, currency + " ")
    # Dutch writes a space between symbol and amount ("€ 1.234,50"); English does not.
    separator = "\u00a0" if current_language() == "nl" else ""
    return f"{symbol}{separator}{number}"


def format_amounts(
    values: Iterable[Decimal | float | int | None], currency: str, decimals: int = 2
) -> list[str]:
    """``[format_money(v, currency, decimals) for v in values]``, the language's marks and
    the symbol looked up once for all (a result's horizon table has ~90 amounts)."""
    language = current_language()
    style = _STYLES.get(language) or _style(language)
    if style is None:
        return [format_money(value, currency, decimals) for value in values]
    table, space = style
    prefix = f"{SYMBOLS.get(currency) or currency + ' '}{space}"
    texts = []
    for value in values:
        kind = type(value)
        # format_money's plain path (NaN, negatives and other types take format_money).
        if (kind is float or kind is int) and value >= 0:  # type: ignore[operator]
            text = _fixed(value, decimals, ",")  # type: ignore[arg-type]
            if text[0] == "-" and not text.strip("-0.,"):
                text = text[1:]  # −0.0
            if table is not None:
                text = text.translate(table)
            texts.append(prefix + text)
        else:
            texts.append(format_money(value, currency, decimals))
    return texts


@register.filter
def money(value: Decimal | float | int | None, currency: str) -> str:
    return format_money(value, currency)


@register.filter
def money0(value: Decimal | float | int | None, currency: str) -> str:
    return format_money(value, currency, decimals=0)


@register.filter
def number(value: Decimal | float | int | None, decimals: int = 0) -> str:
    if value is None:
        return "–"
    return grouped(value, decimals)


@register.filter
def percent(value: float | None, decimals: int = 0) -> str:
    """0.423 → "42 %" (en) / "42 %" (nl), with the locale's decimal mark."""
    if value is None:
        return "–"
    return grouped(value * 100, decimals) + "\u00a0%"


@register.filter
def price(value: Decimal | float | int | None) -> str:
    """A price with as many decimals as it has (at least 2, at most 6): 63.296, 55.04."""
    if value is None:
        return "–"
    exponent = Decimal(str(value)).normalize().as_tuple().exponent
    decimals = min(6, max(2, -exponent if isinstance(exponent, int) else 2))
    return grouped(value, decimals)


_PUBLIC_SOURCES = {
    "seed catalog": _("seed catalog"),
    "price list import": _("price list import"),
    "catalog edit": _("catalog edit"),
    "catalog update": _("catalog update"),
}


@register.filter
def public_source(source: str) -> str:
    """The kind of a price change, without file names (catalog.selectors)."""
    from catalog.selectors import public_change_source

    return str(_PUBLIC_SOURCES[public_change_source(source or "")])
