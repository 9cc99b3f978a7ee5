"""Issue 43 item 1, in Chromium (1366 px English, 390 px Dutch): the calculator's state is
the form's state.

It failed before: a workload switch sent the previous workload's values (htmx read the
form before the new workload's defaults were in it), so a LoRA switch showed "1 B tokens in
2 days" beside the verdict of 1,000 B tokens in 30 days, a serving switch showed "enter
how many users" beside a box holding 2000, and the PDF, workbook and quote links carried
the hidden values until the next edit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every workload, each reached from the one before (the page starts at pre-training).
SWITCHES = ["lora", "qlora", "full_finetune", "inference", "pretrain"]
FORM_QUERY = (
    "() => new URLSearchParams(new FormData(document.getElementById('calculator-form'))).toString()"
)
# The verdict the server gives for a query, read from a full page of it (no htmx).
VERDICT_OF = """async (query) => {
  const page = await (await fetch('/calculator/?' + query)).text();
  const doc = new DOMParser().parseFromString(page, 'text/html');
  return ['.verdict-headline', '.verdict-demand']
    .map((s) => doc.querySelector(s).textContent.trim());
}"""
VERDICT_SHOWN = """() => ['.verdict-headline', '.verdict-demand']
  .map((s) => document.querySelector(s).textContent.trim())"""


@pytest.fixture(params=[(1366, "en", "sales engineer"), (390, "nl", "visitor")], ids=str)
def visitor(request: Any, chromium: Any, live_server: Any) -> Iterator[tuple[Any, bool]]:
    """A page at the width and in the language; the sales engineer also gets "Start a
    quote"."""
    width, language, who = request.param
    context = chromium.new_context(viewport={"width": width, "height": 800})
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(30_000)
    sales = who == "sales engineer"
    if sales:
        from django.contrib.auth.models import Group, User

        user = User.objects.create_user("anna", "anna@distributor.example", "pw-anna")
        user.groups.add(Group.objects.get_or_create(name="sales")[0])
        page.goto(f"{live_server.url}/accounts/login/?next=/calculator/")
        page.fill("#id_username", "anna")
        page.fill("#id_password", "pw-anna")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url("**/calculator/")
    yield page, sales
    context.close()


def pairs(query: str) -> list[tuple[str, str]]:
    """A query's name/value pairs, in a fixed order (htmx and FormData order them apart)."""
    return sorted(parse_qsl(query, keep_blank_values=True))


def action_queries(page: Any) -> list[str]:
    """The queries the PDF, workbook and quote links act on."""
    workbook = page.locator("#download-workbook").get_attribute("href")
    pdf = page.locator("#email-pdf-link").get_attribute("href")
    queries = [urlsplit(workbook).query, urlsplit(pdf).query]
    if page.locator("#start-quote").count():  # offered to sales engineers only
        quote = page.locator("#start-quote").get_attribute("href")
        queries.append(dict(parse_qsl(urlsplit(quote).query))["calc"])
    return queries


def is_calculation(response: Any) -> bool:
    return "/calculator/?" in response.url and "hx-request" in response.request.headers


def test_every_workload_switch_sends_and_shows_the_inputs_shown(
    visitor: tuple[Any, bool], live_server: Any, seed_catalog: object
) -> None:
    page, sales = visitor
    page.goto(f"{live_server.url}/calculator/")
    assert page.locator("#id_kind").input_value() == "pretrain"
    assert page.locator("#start-quote").count() == (1 if sales else 0)
    for kind in SWITCHES:
        with page.expect_response(is_calculation) as sent:
            page.select_option("#id_kind", kind)
        assert sent.value.ok, kind
        shown = page.evaluate(FORM_QUERY)
        # The request carried exactly the fields on the page, the new workload's defaults
        # among them.
        assert pairs(urlsplit(sent.value.url).query) == pairs(shown), kind
        assert ("kind", kind) in pairs(shown)
        # The result was swapped in and its URL (the share link) is the inputs shown.
        page.wait_for_function("(k) => location.search.includes('kind=' + k)", arg=kind)
        assert pairs(urlsplit(page.url).query) == pairs(shown), kind
        assert page.locator(".field-error span").count() == 0, kind
        assert page.locator("#results-stale").inner_text() == "", kind
        # The PDF, workbook and quote act on the same inputs.
        for query in action_queries(page):
            assert pairs(query) == pairs(shown), kind
        # The verdict is the one the server gives for the inputs shown.
        assert page.evaluate(VERDICT_SHOWN) == page.evaluate(VERDICT_OF, shown), kind


def test_a_refused_field_offers_no_action_on_the_earlier_result(
    page: Any, live_server: Any, seed_catalog: object
) -> None:
    page.goto(f"{live_server.url}/calculator/")
    assert page.locator("#download-workbook").is_visible()
    page.fill("#id_params_billion", "-3")
    page.locator("#id_params_billion").dispatch_event("change")
    page.wait_for_selector("#error-params_billion span")
    # The result kept is for 7 B parameters, not the -3 shown: nothing may act on it.
    assert page.locator("#results-stale").is_visible()
    assert not page.locator("#download-workbook").is_visible()
    assert not page.locator("#email-pdf-link").is_visible()


def test_the_actions_wait_for_the_answer_to_an_edit(
    page: Any, live_server: Any, seed_catalog: object
) -> None:
    page.goto(f"{live_server.url}/calculator/")
    # The answer to the edit is held back until the actions have been looked at.
    held: list[Any] = []
    page.route("**/calculator/?*", lambda route: held.append(route))
    page.fill("#id_params_billion", "13")
    page.locator("#id_params_billion").dispatch_event("change")
    page.wait_for_function("() => document.querySelector('#results .quote-actions').inert")
    held[0].continue_()
    # The new result's actions carry the new inputs and can be used.
    page.wait_for_function("() => location.search.includes('params_billion=13')")
    assert not page.evaluate("() => document.querySelector('#results .quote-actions').inert")
    assert "params_billion=13" in str(page.locator("#download-workbook").get_attribute("href"))
