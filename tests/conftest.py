from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from datetime import date
from typing import TYPE_CHECKING, Any

import pytest

from tests.clock import travel_to

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps dialling out of this closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(autouse=True)
def empty_cache(request: pytest.FixtureRequest) -> None:
    """Each test starts with an empty shared cache (it lives in the suite's Redis)."""
    if request.config.pluginmanager.is_blocked("django"):
        return  # engine-only run: no Django, no cache
    from django.core.cache import caches

    from common.throttle import LOCAL_COUNTERS

    caches["default"].clear()
    caches["pages"].clear()
    LOCAL_COUNTERS.clear()  # the counters kept while Redis is away


@pytest.fixture(autouse=True)
def default_language(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test starts and ends in the default language.

    Django's LocaleMiddleware activates the request's language for the thread and leaves
    it active after the response, so a test-client request in Dutch would otherwise make
    every later test in the same thread run in Dutch (and fail or pass by test order).
    """
    if request.config.pluginmanager.is_blocked("django"):
        yield  # engine-only run: no Django, no translations
        return
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


class SharedSeedCatalog:
    """The seed catalog loaded once for a run of tests that use it, not once per test.

    Loading it costs about 0.15 s of CPU and some 800 tests ask for it. So between two tests
    (pytest_runtest_setup, before the next test's fixtures) a transaction is opened and the
    catalog loaded in it through the real loader; each test then runs in a savepoint inside
    that transaction, as in a Django TestCase with setUpTestData, and its changes are rolled
    back to the freshly loaded catalog. The transaction is rolled back before a test that
    should not see it: one that does not ask for the catalog, one that commits
    (transactional, live server) and one on a frozen clock (the load's price-history times
    would come after the test's own). A test run on another day (`dates`) gets a load made
    on its day, so every price-history time stays before the test's.
    """

    def __init__(self) -> None:
        self.blocker: Any = None  # pytest-django's database blocker, once the database exists
        self.atomic: Any = None
        self.loaded_on = date.min  # the day the open transaction's catalog was loaded on
        self.summary: Any = None
        self.item: pytest.Item | None = None  # the test the open transaction serves

    @staticmethod
    def day_for(item: pytest.Item) -> tuple[bool, date | None]:
        """Whether `item` may share the load, and the day it runs on (None: today)."""
        names = set(getattr(item, "fixturenames", ()))
        if "seed_catalog" not in names or names & PRIVATE_CATALOG_FIXTURES:
            return False, None
        marker = item.get_closest_marker("django_db")
        if marker is not None and (
            any(marker.args) or any(marker.kwargs.get(k) for k in COMMITTING_MARKER_ARGS)
        ):
            return False, None
        callspec = getattr(item, "callspec", None)
        day = callspec.params.get("calendar_day") if callspec is not None else None
        assert day is None or isinstance(day, date)
        return True, day

    def prepare(self, item: pytest.Item) -> None:
        """Keep, open or close the shared transaction for `item`, before its fixtures."""
        if self.blocker is None:
            return  # no database yet: the first test that asks loads its own
        shares, day = self.day_for(item)
        runs_on = day or date.today()  # a run past midnight loads again for the new day
        if shares and self.atomic is not None and self.loaded_on == runs_on:
            self.item = item
            return
        self.close()
        if shares:
            self.open(day)
            self.item = item
            self.loaded_on = runs_on

    def open(self, day: date | None) -> None:
        from django.db import transaction

        from catalog.loader import load_catalog

        with self.blocker.unblock():
            self.atomic = transaction.atomic()
            self.atomic.__enter__()
            with travel_to(day) if day is not None else contextlib.nullcontext():
                self.summary = load_catalog()

    def close(self) -> None:
        from django.db import connection, transaction

        atomic, self.atomic, self.item = self.atomic, None, None
        if atomic is None:
            return
        with self.blocker.unblock():
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
            assert not connection.in_atomic_block


# A test with one of these, or a django_db marker with one of these arguments, commits (or
# runs on a frozen clock) and loads the catalog itself.
PRIVATE_CATALOG_FIXTURES = {
    "transactional_db",
    "live_server",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "frozen_today",
}
COMMITTING_MARKER_ARGS = ("transaction", "reset_sequences", "serialized_rollback", "available_apps")

SHARED_CATALOG = SharedSeedCatalog()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    SHARED_CATALOG.prepare(item)


@pytest.fixture(scope="session")
def shared_catalog_database(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """Lets the tests after the first that asks for the catalog share one load."""
    SHARED_CATALOG.blocker = django_db_blocker
    yield
    SHARED_CATALOG.close()
    SHARED_CATALOG.blocker = None


@pytest.fixture
def seed_catalog(db: None, shared_catalog_database: None, request: pytest.FixtureRequest) -> Any:
    """The shipped seed catalog, loaded through the real loader (once for a run of tests
    that ask for it: SharedSeedCatalog)."""
    if SHARED_CATALOG.item is request.node:
        return copy.deepcopy(SHARED_CATALOG.summary)
    # Imported here so that engine-only runs (`-p no:django`) can load this conftest.
    from catalog.loader import load_catalog

    return load_catalog()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    context = chromium.new_context(locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()
