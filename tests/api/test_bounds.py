"""Bounded work for every API input (issue 32): offerings, nesting, body size, names, file
names, formula text, and rate limits keyed on the real client and on the user.

In-process through Django's test client; tests/hardening/test_bounds_served.py sends the
same hostile bodies to gunicorn under the production settings and times the answers.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from openpyxl import load_workbook
from pytest_django.fixtures import Settings

from tco.limits import MAX_API_OFFERINGS, MAX_CLOUD_OFFERINGS, MAX_TEXT_LENGTH

from .conftest import bearer

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"
BASE: dict[str, Any] = {
    "name": "bounds",
    "workload": {
        "kind": "pretrain",
        "params_billion": 7,
        "tokens_billion": 1000,
        "deadline_days": 30,
    },
    "server": "smc-821ge-tnhr-h100",
    "site": "nl-colo-amsterdam",
    "cloud_offerings": ["aws-p5-48xlarge-od", "coreweave-h100-8x-od"],
}


def post(client: Client, url: str, body: Any, **extra: Any) -> Any:
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(url, data, content_type="application/json", **extra)


def many_offerings(count: int) -> list[dict[str, Any]]:
    """`count` different entries: one catalog offering at `count` different prices."""
    return [{"key": "aws-p5-48xlarge-od", "price_per_hour": 50 + i} for i in range(count)]


@pytest.fixture
def api_unlimited(settings: Settings) -> Client:
    settings.API_RATE_LIMIT_WINDOW = 0
    return Client(raise_request_exception=False)


@pytest.mark.parametrize("url", ["/api/v1/estimate", "/api/v1/estimate/workbook"])
def test_more_offerings_than_the_bound_are_refused_naming_the_field(
    seed_catalog: object, api_unlimited: Client, url: str
) -> None:
    at_bound = post(api_unlimited, url, {**BASE, "cloud_offerings": many_offerings(5)})
    assert at_bound.status_code == 200
    for count in (MAX_CLOUD_OFFERINGS + 1, 2000):
        started = time.perf_counter()
        response = post(api_unlimited, url, {**BASE, "cloud_offerings": many_offerings(count)})
        assert time.perf_counter() - started < 2
        assert response.status_code == 400, response.content[:300]
        assert response["Content-Type"] == PROBLEM
        body = response.json()
        assert body["field"] == "cloud_offerings"
        assert f"at most {MAX_CLOUD_OFFERINGS}" in body["detail"]


@pytest.mark.parametrize(
    ("field", "body"),
    [
        ("as_of", {"as_of": "9999-12-31"}),
        ("capacity.as_of", {"capacity": {"as_of": "9999-12-31", "needed_in_days": 30}}),
        ("capacity.as_of", {"capacity": {"as_of": "0001-01-01", "needed_in_days": 30}}),
    ],
)
def test_a_scenario_date_outside_its_range_is_refused_naming_the_field(
    seed_catalog: object, api_unlimited: Client, field: str, body: dict[str, Any]
) -> None:
    """The audit answered 9999-12-31 with 422 "date value out of range" (an internal
    message); common/bounds.py SCENARIO_DAYS is 2000-01-01 to 2100-12-31."""
    response = post(api_unlimited, "/api/v1/estimate", {**BASE, **body})
    assert response.status_code == 400, response.content[:300]
    assert response.json()["field"] == field
    assert "a date from 2000-01-01 to 2100-12-31" in response.json()["detail"]


def test_more_api_offerings_than_the_bound_are_refused(
    seed_catalog: object, api_unlimited: Client
) -> None:
    document = {**BASE, "api_offerings": [{"key": "x", "n": i} for i in range(1000)]}
    response = post(api_unlimited, "/api/v1/estimate", document)
    assert response.status_code == 400
    assert response.json()["field"] == "api_offerings"
    assert f"at most {MAX_API_OFFERINGS}" in response.json()["detail"]


def test_repeated_offerings_are_costed_once(seed_catalog: object, api_unlimited: Client) -> None:
    twice = post(api_unlimited, "/api/v1/estimate", BASE).json()
    repeated = {**BASE, "cloud_offerings": BASE["cloud_offerings"] * 500}
    response = post(api_unlimited, "/api/v1/estimate", repeated)
    assert response.status_code == 200
    assert [o["name"] for o in response.json()["options"]] == [o["name"] for o in twice["options"]]


def test_the_schema_documents_the_bounds(api_unlimited: Client) -> None:
    schema = api_unlimited.get("/api/v1/openapi.json").json()
    document = schema["components"]["schemas"]["ScenarioDocument"]["properties"]
    assert document["cloud_offerings"]["maxItems"] == MAX_CLOUD_OFFERINGS
    assert document["api_offerings"]["maxItems"] == MAX_API_OFFERINGS
    assert document["name"]["maxLength"] == MAX_TEXT_LENGTH
    estimate = schema["paths"]["/api/v1/estimate"]["post"]["responses"]
    assert PROBLEM in estimate["413"]["content"]


def nested(depth: int) -> str:
    """A scenario whose `finance` object is `depth` objects deep."""
    inner = '{"a":' * depth + "1" + "}" * depth
    return json.dumps(BASE)[:-1] + ', "finance": ' + inner + "}"


@pytest.mark.parametrize("depth", [300, 1000, 100_000])
def test_deeply_nested_bodies_are_refused_as_problem_details(
    seed_catalog: object, api_unlimited: Client, depth: int
) -> None:
    response = post(api_unlimited, "/api/v1/estimate", nested(depth))
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == PROBLEM
    assert "nested more than" in response.json()["detail"]


def test_shallow_nesting_still_reaches_the_scenario_checks(
    seed_catalog: object, api_unlimited: Client
) -> None:
    response = post(api_unlimited, "/api/v1/estimate", nested(5))
    assert response.status_code == 400
    assert response.json()["field"] == "finance.a"  # unknown field, named


def test_a_body_over_the_upload_limit_is_a_413_problem(
    api_unlimited: Client, settings: Settings
) -> None:
    big = json.dumps({**BASE, "name": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)})
    for url in ("/api/v1/estimate", "/api/v1/estimate/workbook"):
        response = post(api_unlimited, url, big)
        assert response.status_code == 413
        assert response["Content-Type"] == PROBLEM
        assert "larger than" in response.json()["detail"]


def test_long_names_and_control_characters_are_refused(
    seed_catalog: object, api_unlimited: Client
) -> None:
    for name, reason in [("x" * 2_000_000, "longer than"), ("a\r\nb", "control characters")]:
        response = post(api_unlimited, "/api/v1/estimate/workbook", {**BASE, "name": name})
        assert response.status_code == 400
        assert response.json()["field"] == "name"
        assert reason in response.json()["detail"]


def test_the_workbook_file_name_is_short_ascii_with_the_full_name_as_utf8(
    seed_catalog: object, api_unlimited: Client
) -> None:
    name = "Модель ≥ 7B " + "x" * 150
    response = post(api_unlimited, "/api/v1/estimate/workbook", {**BASE, "name": name})
    assert response.status_code == 200
    header = response["Content-Disposition"]
    assert header.isascii() and len(header) < 400
    ascii_part = header.split('filename="')[1].split('"')[0]
    assert ascii_part.endswith("-tco-model.xlsx") and ascii_part.isascii()
    utf8 = unquote(header.split("filename*=UTF-8''")[1])
    assert utf8.startswith("Модель---7B-") and utf8.endswith("-tco-model.xlsx")


def test_override_names_that_start_a_formula_are_refused(
    seed_catalog: object, api_unlimited: Client
) -> None:
    hostile = '=HYPERLINK("http://evil.example","x")'
    document = {**BASE, "cloud_offerings": [{"key": "aws-p5-48xlarge-od", "provider": hostile}]}
    for url in ("/api/v1/estimate", "/api/v1/estimate/workbook"):
        response = post(api_unlimited, url, document)
        assert response.status_code == 400
        assert response.json()["field"] == "cloud_offerings[0].provider"


def test_workbook_cells_from_outside_are_text_never_formulas(
    seed_catalog: object, api_unlimited: Client
) -> None:
    """A provider name stored before the import refused such names (or by an admin edit):
    the option's name starts with it, and the workbook writes it as text everywhere."""
    from catalog.models import CloudOffering

    hostile = '=HYPERLINK("http://evil.example","x")'
    CloudOffering.objects.filter(key="aws-p5-48xlarge-od").update(provider=hostile)
    response = post(api_unlimited, "/api/v1/estimate/workbook", BASE)
    assert response.status_code == 200
    workbook = load_workbook(io.BytesIO(response.content))
    seen = 0
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and "evil.example" in cell.value:
                    seen += 1
                    assert cell.data_type == "s", (sheet.title, cell.coordinate, cell.value)
    assert seen >= 3  # labels on Inputs, the cash-flow headers, the summary row


# --- rate limits ----------------------------------------------------------------------------


@override_settings(API_RATE_LIMIT_ANONYMOUS=3, API_RATE_LIMIT_WINDOW=60, TRUSTED_PROXY_COUNT=1)
def test_the_anonymous_limit_is_per_client_behind_the_proxy() -> None:
    client = Client()
    proxy = {"REMOTE_ADDR": "10.0.0.2"}  # every request arrives from the proxy
    first: dict[str, Any] = {"HTTP_X_FORWARDED_FOR": "198.51.100.1", **proxy}
    codes = [client.get("/api/v1/catalog/gpus", **first).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    other: dict[str, Any] = {"HTTP_X_FORWARDED_FOR": "198.51.100.2", **proxy}
    assert client.get("/api/v1/catalog/gpus", **other).status_code == 200
    # A spoofed entry before the proxy's own does not buy a new budget.
    spoofed: dict[str, Any] = {"HTTP_X_FORWARDED_FOR": "203.0.113.50, 198.51.100.1", **proxy}
    assert client.get("/api/v1/catalog/gpus", **spoofed).status_code == 429


@override_settings(API_RATE_LIMIT_TOKEN=4, API_RATE_LIMIT_WINDOW=60)
def test_a_users_tokens_share_one_budget(
    sales_user: User, make_token: Callable[..., str], make_sales_user: Callable[..., Any]
) -> None:
    client = Client()
    tokens = [bearer(make_token(sales_user, name=f"t{i}")) for i in range(3)]
    codes = [client.get("/api/v1/sales/me", **tokens[i % 3]).status_code for i in range(6)]
    assert codes == [200] * 4 + [429] * 2
    # Another user's budget is their own.
    bert = bearer(make_token(make_sales_user("bert")))
    assert client.get("/api/v1/sales/me", **bert).status_code == 200
