"""How the report rounds the engine's figures (the engine keeps full precision).

Every figure is rounded once, here, when the report is built; the JSON form, the pages,
the PDF, the API and the command line show the rounded figure. The digits per kind of
figure (docs/api.md, "The report"):

- money (totals, NPVs, savings, prices per month or per instance): 2 digits (cents); a
  price per GPU-hour or per million tokens: 4; a price per request: 10; per user-month: 6;
- energy: kWh 1 digit, tonnes of CO₂ 3, kW 3;
- time: days and weeks 1 digit (site readiness 2), hours 2, milliseconds 3 (a decode
  step's parts 4);
- shares and factors (utilization 6, break-even utilization, probabilities, efficiencies,
  resale fraction, pipeline bubble: 4); a verdict parameter that is a float: 4.

A figure that is not finite (absurd inputs may overflow) is None: JSON has no NaN or
infinity.
"""

from __future__ import annotations

import math


def figure(x: float | None, digits: int = 6) -> float | None:
    """A figure as the report carries it: rounded, None when missing or not finite.

    >>> figure(1234.5678, 2), figure(float("inf"), 2), figure(None)
    (1234.57, None, None)
    """
    if x is None or not math.isfinite(x):
        return None
    return round(float(x), digits)


def fixed(x: float, digits: int) -> float:
    """A figure of validated, finite inputs (days, weeks), rounded as a float.

    >>> fixed(70, 1)
    70.0
    """
    return round(float(x), digits)
