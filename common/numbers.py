"""Decimal fields a person types into in their own language, refusing what can be read
two ways.

Django's localised number fields drop the thousands separator before they parse: "2,5"
typed as a discount in the English form becomes 25, "1.5" in the Dutch form 15, and
"1,234" is a thousand in one language and one and a bit in the other. A value is refused,
with what to type instead, when

- one separator is followed by exactly three digits ("1,234", "1.234"): a thousands
  group in one language, a decimal in the other;
- the language's thousands separator is not a thousands grouping ("2,5" in English,
  "1.5" in Dutch): the other language's decimal mark.

A grouping that is whole ("1,234,567.5" in English, "1.234.567,5" in Dutch) and a value
with the language's own decimal mark only ("2.5", "2,5") are read as Django reads them.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django import forms
from django.utils import formats
from django.utils.translation import gettext as _

_AMBIGUOUS = re.compile(r"^[-+]?[1-9]\d{0,2}[.,]\d{3}$")


def ambiguity(value: str) -> str | None:
    """Why ``value`` (as typed) cannot be read for sure in the active language, or None.

    >>> from django.utils import translation
    >>> with translation.override("en"):
    ...     ambiguity("2.5") is None, ambiguity("1,234,567.5") is None, bool(ambiguity("2,5"))
    (True, True, True)
    """
    text = value.strip()
    decimal_mark = str(formats.get_format("DECIMAL_SEPARATOR"))
    thousands = str(formats.get_format("THOUSAND_SEPARATOR"))
    if _AMBIGUOUS.match(text):
        whole = text.replace(",", "").replace(".", "")
        return _(
            "“%(value)s” can be read as %(whole)s or as %(decimal)s: type it without a "
            "thousands separator."
        ) % {
            "value": text,
            "whole": whole,
            "decimal": re.sub(r"[.,]", decimal_mark, text),
        }
    if thousands and thousands in text:
        grouped = re.compile(
            rf"^[-+]?[1-9]\d{{0,2}}({re.escape(thousands)}\d{{3}})+"
            rf"({re.escape(decimal_mark)}\d+)?$"
        )
        if grouped.match(text):
            return None
        mark = _("a comma") if decimal_mark == "," else _("a point")
        if text.count(thousands) == 1 and decimal_mark not in text:
            return _("Write decimals with %(mark)s: %(suggestion)s.") % {
                "mark": mark,
                "suggestion": text.replace(thousands, decimal_mark),
            }
        return _("Write decimals with %(mark)s, without other separators.") % {"mark": mark}
    return None


class LocalizedDecimalField(forms.DecimalField):
    """A localised DecimalField that refuses an ambiguous value (:func:`ambiguity`)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("localize", True)
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Decimal | None:  # type: ignore[override]
        # django-stubs type DecimalField.to_python as IntegerField's (int | None); it
        # returns a Decimal.
        if isinstance(value, str):
            problem = ambiguity(value)
            if problem:
                raise forms.ValidationError(problem, code="ambiguous")
        return super().to_python(value)
