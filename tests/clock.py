"""The suite's clock: tests pass on any day.

Three tools, all on time-machine (it replaces the C-level clock functions, so Django's
``timezone.now()``, ``date.today()`` and the live server's threads all see the same time):

- ``frozen_today``: a test whose expectation was worked out on a fixed day (a ready date
  "4 Mar 2027" from 3 Dec 2026) runs on that day. The clock still ticks from there, so
  sessions, signed links and timeouts behave as they do in production.
- ``@pytest.mark.dates``: a test that reads today's date runs today and again on a leap day
  and on New Year's Eve of a later year (``OTHER_DAYS``), so that an expectation tied to the
  real calendar fails today rather than on the day it turns false.
- ``GPUTCO_TEST_TODAY=YYYY-MM-DD``: the whole run's clock is moved to that day (same time of
  day, ticking), as if the suite were run then: how the dated tests were found.

Only this test process is moved: the browser, PostgreSQL, Redis and the Celery worker keep
the machine's clock, as a client and the services would in production.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, date, datetime, time

import pytest
import time_machine

# The day the suite's fixed dates were worked out on (a Thursday, 10:00 in Amsterdam).
FROZEN_DAY = date(2026, 12, 3)
FROZEN_AT = datetime.combine(FROZEN_DAY, time(9, 0), tzinfo=UTC)
OTHER_DAYS = (date(2028, 2, 29), date(2030, 12, 31))
TODAY_VARIABLE = "GPUTCO_TEST_TODAY"
_TRAVELLER = pytest.StashKey[time_machine.travel]()


def travel_to(day: date) -> time_machine.travel:
    """Travel to ``day`` at the present time of day, the clock ticking on from there."""
    return time_machine.travel(
        datetime.combine(day, datetime.now(UTC).time(), tzinfo=UTC), tick=True
    )


def pytest_configure(config: pytest.Config) -> None:
    day = os.environ.get(TODAY_VARIABLE)
    if day:
        traveller = travel_to(date.fromisoformat(day))
        traveller.start()
        config.stash[_TRAVELLER] = traveller


def pytest_unconfigure(config: pytest.Config) -> None:
    traveller = config.stash.get(_TRAVELLER, None)
    if traveller is not None:
        traveller.stop()


def pytest_report_header(config: pytest.Config) -> str | None:
    day = os.environ.get(TODAY_VARIABLE)
    return f"clock moved to {day} ({TODAY_VARIABLE})" if day else None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("dates") is not None:
        days = [None, *OTHER_DAYS]
        ids = ["today", *(d.isoformat() for d in OTHER_DAYS)]
        metafunc.parametrize("calendar_day", days, ids=ids, indirect=True)


def day_rank(item: pytest.Item) -> int:
    """0 for a test run today, 1, 2, … for one run on OTHER_DAYS."""
    callspec = getattr(item, "callspec", None)
    day = callspec.params.get("calendar_day") if callspec is not None else None
    if day is None:
        return 0
    return 1 + OTHER_DAYS.index(day) if day in OTHER_DAYS else 1 + len(OTHER_DAYS)


def database_group(item: pytest.Item) -> int:
    """pytest-django's order, which this reordering keeps (as Django's runner does): tests in
    a rolled-back transaction first (0), then tests that commit (1), whose flush empties the
    tables that migrations seeded (the company profile, the price tiers), then the rest (2)."""
    fixtures = getattr(item, "fixturenames", ())
    marker = item.get_closest_marker("django_db")
    committing = "transactional_db" in fixtures or "live_server" in fixtures
    if marker is not None:
        committing = committing or bool(
            marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")
        )
    if committing:
        return 1
    return 0 if marker is not None or "db" in fixtures else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Within each file (and each of pytest-django's groups: database_group), today's tests
    run first, then those of each of OTHER_DAYS: tests on the same day follow one another
    and share one load of the seed catalog (tests/conftest.py's SharedSeedCatalog). Files
    keep their order."""
    first_in_file: dict[tuple[int, str], int] = {}
    for index, item in enumerate(items):
        first_in_file.setdefault((database_group(item), item.nodeid.split("::")[0]), index)
    order = {id(item): index for index, item in enumerate(items)}
    items.sort(
        key=lambda item: (
            database_group(item),
            first_in_file[(database_group(item), item.nodeid.split("::")[0])],
            day_rank(item),
            order[id(item)],
        )
    )


@pytest.fixture(autouse=True)
def calendar_day(request: pytest.FixtureRequest) -> Iterator[date]:
    """The day a test runs on: today, or one of ``OTHER_DAYS`` for a test marked ``dates``."""
    day = getattr(request, "param", None)
    if day is None:
        yield date.today()
        return
    with travel_to(day):
        yield day


@pytest.fixture
def frozen_today() -> Iterator[date]:
    """Today is 3 Dec 2026 for this test (the clock ticks on from 09:00 UTC)."""
    with time_machine.travel(FROZEN_AT, tick=True):
        yield FROZEN_DAY
