from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

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


@pytest.fixture
def seed_catalog(db: None) -> Any:
    """The shipped seed catalog, loaded through the real loader."""
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
