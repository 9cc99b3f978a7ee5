"""Unit constants, money and currency conversion.

Units live in names throughout the engine: ``_gb`` is 1e9 bytes (the ZeRO
paper's convention), ``_kw`` kilowatts, ``_hours``, ``_months``, ``_per_kwh``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tco.engine.errors import InvalidInput

FloatArray = npt.NDArray[np.float64]
"""A float64 numpy array: the vectorized core computes on these."""

IntArray = npt.NDArray[np.intp]
"""Counts or indices (numpy's index type)."""

Number = float | FloatArray
"""A scalar or an array of scenarios; the cost formulas accept both."""

BYTES_PER_GB = 1e9
"""Decimal gigabytes, as in the ZeRO paper (7.5e9 params x 16 B = 120 GB)."""

HOURS_PER_MONTH = 730.0
"""8,760 hours a year / 12: the convention of cloud price lists."""

SECONDS_PER_HOUR = 3600.0
HOURS_PER_DAY = 24.0
MONTHS_PER_YEAR = 12.0

SUPPORTED_CURRENCIES = ("USD", "EUR", "GBP")


def check_currency(field: str, currency: str) -> None:
    """Raise :class:`InvalidInput` unless ``currency`` is supported.

    >>> check_currency("currency", "EUR")
    >>> check_currency("currency", "XYZ")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tco.engine.errors.InvalidInput: currency: Currency 'XYZ' is not supported; use one of ...
    """
    if currency not in SUPPORTED_CURRENCIES:
        supported = ", ".join(SUPPORTED_CURRENCIES)
        raise InvalidInput(
            field, f"Currency {currency!r} is not supported; use one of {supported}."
        )


@dataclass(frozen=True, slots=True)
class Money:
    """An amount with its currency code, e.g. a server's quoted price."""

    amount: float
    currency: str = "USD"

    def __post_init__(self) -> None:
        check_currency("currency", self.currency)
        if not np.isfinite(self.amount) or self.amount < 0:
            raise InvalidInput("amount", f"An amount must be zero or more, got {self.amount}.")


@dataclass(frozen=True, slots=True)
class FxRates:
    """Exchange rates, all quoted as US dollars per one unit of the currency.

    >>> fx = FxRates(usd_per_eur=1.10)
    >>> round(fx.convert(100.0, "EUR", "USD"), 6)
    110.0
    >>> round(fx.convert(110.0, "USD", "EUR"), 6)
    100.0
    """

    usd_per_eur: float = 1.08
    usd_per_gbp: float = 1.27

    def __post_init__(self) -> None:
        for name in ("usd_per_eur", "usd_per_gbp"):
            value = getattr(self, name)
            if not np.isfinite(value) or value <= 0:
                raise InvalidInput(name, f"An exchange rate must be above zero, got {value}.")

    def usd_per(self, currency: str) -> float:
        """US dollars per one unit of ``currency``.

        Compared in turn, without a dict made per call: a result page converts ~120
        amounts (every candidate server's prices), two look-ups each.
        """
        if currency == "USD":
            return 1.0
        if currency == "EUR":
            return self.usd_per_eur
        if currency == "GBP":
            return self.usd_per_gbp
        check_currency("currency", currency)  # raises: not a supported currency
        raise AssertionError(currency)  # pragma: no cover (check_currency raised)

    def convert(self, amount: float, from_currency: str, to_currency: str) -> float:
        """Convert ``amount`` from one currency to another through USD."""
        return amount * self.usd_per(from_currency) / self.usd_per(to_currency)
