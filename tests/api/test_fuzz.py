"""Schema-driven fuzzing: schemathesis against the live app (PostgreSQL behind it).

The app runs in pytest-django's live server (a real HTTP server on 127.0.0.1) over the
suite's PostgreSQL database with the seed catalog, a sales engineer's token, a customer
and a draft quote. Schemathesis reads /api/v1/openapi.json and generates requests for
every operation, valid and invalid; every response must be free of 5xx and match the
schema (status code, content type, headers, body). The run is bounded: a fixed number of
examples per operation, derandomized, so it takes the same time every run; `make test` sends
3/10 of the examples `make fuzz` sends (API_FUZZ_SCALE), and every operation is
requested at least once either way. Then issue 32's
hostile bodies (too many offerings, repeats, deep nesting, a body over the upload limit,
control characters, formula text in overrides) go to every POST operation: each answer
must be a documented 4xx (or the repeats' 200) matching the schema.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from pytest_django.fixtures import Settings
from pytest_django.live_server_helper import LiveServer
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# Examples per operation: valid requests, invalid ones, and valid ones on the real quote,
# API_FUZZ_SCALE times (4, 3, 3): 3 in `make test` (the suite's time limit), 10 in `make fuzz`.
SCALE = int(os.environ.get("API_FUZZ_SCALE", "3"))
POSITIVE, NEGATIVE, KNOWN_IDS = 4 * SCALE, 3 * SCALE, 3 * SCALE
MIN_REQUESTS = 100 * SCALE  # 1,000 in `make fuzz`, as before it was scaled


@pytest.fixture
def fuzz_world(transactional_db: None, settings: Settings) -> dict[str, Any]:
    from django.contrib.auth.models import Group, User

    from api.services import token_create
    from catalog.loader import load_catalog
    from quotes import services
    from quotes.models import Team

    settings.API_RATE_LIMIT_WINDOW = 0  # the fuzzer is one client sending a thousand requests
    load_catalog()
    user = User.objects.create_user("fuzz", "fuzz@distributor.example", "pw")
    user.groups.add(Group.objects.get_or_create(name="sales")[0])
    team = Team.objects.create(name="Fuzz")
    team.members.add(user)
    customer = services.customer_create(
        team=team, company="Fuzz BV", contact_name="F", email="f@buyer.example", country="NL"
    )
    quote = services.quote_create_from_calculator(
        customer=customer, owner=user, query="preset=serve-70b"
    )
    _token, raw = token_create(user=user, name="fuzz", scope="read_write")
    return {
        "headers": {"Authorization": f"Bearer {raw}"},
        "ids": {
            "quote_id": str(quote.public_id),
            "revision_id": str(quote.revisions.get().public_id),
        },
    }


def strategies(operation: Any, ids: dict[str, str]) -> list[tuple[Any, int]]:
    """(strategy, examples) to run for one operation."""
    runs = [(operation.as_strategy(), POSITIVE)]
    if operation.path_parameters or operation.query or operation.body:
        runs.append((operation.as_strategy(GenerationMode.NEGATIVE), NEGATIVE))
    known = {name: value for name, value in ids.items() if "{" + name + "}" in operation.path}
    if known:
        runs.append((operation.as_strategy(path_parameters=known), KNOWN_IDS))
    return runs


BASE = {
    "workload": {"kind": "pretrain", "params_billion": 7, "tokens_billion": 1000},
    "server": "smc-821ge-tnhr-h100",
    "site": "nl-colo-amsterdam",
    "cloud_offerings": ["aws-p5-48xlarge-od"],
}


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def _hostile_bodies(schema: Any, base_url: str, session: Any, headers: Any) -> Counter[int]:
    """Issue 32's classes, sent to the estimate, the workbook and the sales quote: each
    refusal must be a documented 4xx whose body matches the schema (problem details)."""
    offerings = [{"key": "aws-p5-48xlarge-od", "price_per_hour": 50 + i} for i in range(300)]
    bodies = [
        {**BASE, "cloud_offerings": offerings},  # too many different offerings
        {**BASE, "cloud_offerings": ["aws-p5-48xlarge-od"] * 5000},  # repeats: one
        {**BASE, "api_offerings": [{"key": "x", "n": i} for i in range(300)]},
        {**BASE, "finance": _deep(300)},  # nesting
        {**BASE, "name": "x" * 3_000_000},  # over the upload limit
        {**BASE, "name": "a\r\nb"},
        {**BASE, "cloud_offerings": [{"key": "aws-p5-48xlarge-od", "provider": "=1+1"}]},
    ]
    statuses: Counter[int] = Counter()
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result
        operation = result.ok()
        if operation.method.upper() != "POST":
            continue
        for body in bodies:
            if operation.path.endswith("/sales/quotes"):
                body = {"customer": "00000000-0000-0000-0000-000000000000", "scenario": body}
            case = operation.Case(body=body, media_type="application/json")
            response = case.call(base_url=base_url, session=session, headers=headers)
            statuses[response.status_code] += 1
            case.validate_response(response, checks=CHECKS)
            assert response.status_code < 500
    assert statuses[413] >= 2 and statuses[400] >= 10, statuses
    return statuses


def test_schemathesis_fuzz_finds_no_server_error_and_no_schema_mismatch(
    live_server: LiveServer, fuzz_world: dict[str, Any]
) -> None:
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/v1/openapi.json")
    session = requests.Session()
    session.headers["Connection"] = "close"
    statuses: Counter[int] = Counter()
    requested: Counter[str] = Counter()  # requests per operation
    operations = 0
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result
        operation = result.ok()
        operations += 1
        for strategy, examples in strategies(operation, fuzz_world["ids"]):

            @settings(
                max_examples=examples,
                deadline=None,
                derandomize=True,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            @given(case=strategy)
            def run(case: Any) -> None:
                response = case.call(
                    base_url=live_server.url, session=session, headers=fuzz_world["headers"]
                )
                statuses[response.status_code] += 1
                requested[case.operation.label] += 1
                case.validate_response(response, checks=CHECKS)

            run()
    statuses.update(_hostile_bodies(schema, live_server.url, session, fuzz_world["headers"]))
    total = sum(statuses.values())
    print(f"schemathesis: {total} requests over {operations} operations, statuses {statuses}")
    assert operations >= 15 and len(requested) == operations, requested
    assert not [code for code in statuses if code >= 500]
    assert total >= MIN_REQUESTS
    assert statuses[200] > 0 and statuses[422] > 0  # valid and invalid requests both ran
