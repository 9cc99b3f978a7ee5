"""The ranges every date and duration typed or imported must lie in (docs/catalog.md,
"Ranges of dates and durations").

One module, so that the stock feed, the catalog import and a quote line refuse the same
values: a lead time typed by hand on a quote line and the same lead time in an ERP export
meet the same limit. Pure: today's date is passed in.

>>> LEAD_TIME_WEEKS.problem(Decimal("9999.9"))
'9999.9 weeks is more than 260 weeks'
>>> OBSERVED_ON.problem(date(1, 1, 1), today=date(2026, 12, 6))
'0001-01-01 is before 2000-01-01'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal


@dataclass(frozen=True)
class NumberRange:
    """A closed range of a duration, in `unit`."""

    low: Decimal
    high: Decimal
    unit: str  # "weeks", "days"

    def contains(self, value: Decimal) -> bool:
        return self.low <= value <= self.high

    def problem(self, value: Decimal) -> str | None:
        """Why `value` is out of range, in plain words; None when it is in."""
        if value < self.low:
            return f"{value} {self.unit} is less than {self.low} {self.unit}"
        if value > self.high:
            return f"{value} {self.unit} is more than {self.high} {self.unit}"
        return None


@dataclass(frozen=True)
class DateRange:
    """From `earliest` (or today, when None) to today plus `latest_days`."""

    earliest: date | None
    latest_days: int

    def bounds(self, today: date) -> tuple[date, date]:
        return self.earliest or today, today + timedelta(days=self.latest_days)

    def contains(self, value: date, *, today: date) -> bool:
        low, high = self.bounds(today)
        return low <= value <= high

    def problem(self, value: date, *, today: date) -> str | None:
        """Why `value` is out of range, in plain words; None when it is in.

        >>> OBSERVED_ON.problem(date(2026, 12, 7), today=date(2026, 12, 6))
        '2026-12-07 is in the future'
        >>> VALID_UNTIL.problem(date(2028, 1, 1), today=date(2026, 12, 6))
        '2028-01-01 is after 2027-12-07'
        """
        low, high = self.bounds(today)
        if value < low:
            return f"{value.isoformat()} is before {low.isoformat()}"
        if value > high:
            if self.latest_days == 0:
                return f"{value.isoformat()} is in the future"
            return f"{value.isoformat()} is after {high.isoformat()}"
        return None


# Lead time of a server, out of stock: what a vendor quotes (4–52 weeks in the seed) with
# room for the worst published allocations; beyond five years it is a typing error.
LEAD_TIME_WEEKS = NumberRange(Decimal(0), Decimal(260), "weeks")
# Installation and burn-in of a delivered server (3–14 days in the seed).
INSTALL_DAYS = NumberRange(Decimal(0), Decimal(365), "days")
# Booking or provisioning lead of a cloud offering (0–14 days in the seed).
CLOUD_LEAD_DAYS = NumberRange(Decimal(0), Decimal(365), "days")
# Minimum duration of a capacity block or reserved term (up to 3 years in the seed).
MINIMUM_DAYS = NumberRange(Decimal(0), Decimal(5 * 366), "days")

# The day a figure was observed: a price, a specification, a stock count, an exchange rate
# (every catalog row's `as_of`). Not in the future; not before this century's GPU servers
# (the oldest seed row is of 2020).
OBSERVED_ON = DateRange(date(2000, 1, 1), 0)
# A proposal's validity: from today to a year ahead.
VALID_UNTIL = DateRange(None, 366)
# A scenario's days (its price date, the day its capacity is counted from): fixed, so that
# a scenario means the same on any day; its horizon (at most 10 years) and lead times (at
# most 5) then end well before the calendar does (a date of 9999-12-31 overflowed).
SCENARIO_DAYS = (date(2000, 1, 1), date(2100, 12, 31))

# A duration as a person or an ERP writes it: digits and at most a decimal point; no sign,
# no exponent (1e3 weeks is a spreadsheet's accident, not a lead time).
_PLAIN_DURATION = re.compile(r"[0-9]+(\.[0-9]+)?", re.ASCII)


def plain_duration(raw: str) -> bool:
    """Whether `raw` is written as a duration is written.

    >>> plain_duration("12.5"), plain_duration("1e3"), plain_duration("-1")
    (True, False, False)
    """
    return bool(_PLAIN_DURATION.fullmatch(raw))
