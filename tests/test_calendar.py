"""The suite's clock (tests/clock.py): a test marked ``dates`` runs today and on the other
days, and its clock, Django's and a frozen test's really are on the day they claim."""

from __future__ import annotations

import time
from datetime import date

import pytest

from tests.clock import FROZEN_DAY, OTHER_DAYS


@pytest.mark.dates
def test_a_dated_test_runs_on_the_day_it_claims(calendar_day: date) -> None:
    from django.utils import timezone

    before = timezone.now()
    assert date.today() == calendar_day
    assert before.date() == calendar_day
    time.sleep(0.01)
    assert timezone.now() > before  # the clock ticks (sessions and timeouts work)


def test_other_days_are_a_leap_day_and_a_year_end() -> None:
    leap, year_end = OTHER_DAYS
    assert (leap.month, leap.day) == (2, 29) and (year_end.month, year_end.day) == (12, 31)
    assert min(OTHER_DAYS) > FROZEN_DAY  # later than the day the suite's dates were worked out


@pytest.mark.dates
def test_a_frozen_test_runs_on_its_own_day_whatever_the_calendar(frozen_today: date) -> None:
    assert frozen_today == FROZEN_DAY == date.today()


def test_each_dated_test_runs_three_times(request: pytest.FixtureRequest) -> None:
    # (A run that deselects this test by name checks nothing here, and says so by passing
    # on an empty list; the whole suite always collects it.)
    ids = [
        item.name
        for item in request.session.items
        if item.name.startswith("test_a_dated_test_runs_on_the_day_it_claims")
    ]
    assert not ids or sorted(ids) == sorted(
        f"test_a_dated_test_runs_on_the_day_it_claims[{day}]"
        for day in ["today", *(d.isoformat() for d in OTHER_DAYS)]
    )
