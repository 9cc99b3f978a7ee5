"""The JSON API: estimate = the CLI, catalog, tokens, auth and team scoping, rate limits."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse
from openpyxl import load_workbook

from quotes.models import Customer, Quote
from tco.report import Report

from .conftest import bearer

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "pretrain-7b-nl.json"
PROBLEM = "application/problem+json"


def post_json(client: Client, url: str, body: Any, **headers: Any) -> Any:
    return client.post(url, json.dumps(body), content_type="application/json", **headers)


# --- schema and docs ----------------------------------------------------------------------


def test_openapi_schema_is_3_1_and_lists_every_endpoint(api: Client) -> None:
    response = api.get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.1")
    paths = set(schema["paths"])
    for path in (
        "/api/v1/estimate",
        "/api/v1/estimate/workbook",
        "/api/v1/catalog/gpus",
        "/api/v1/catalog/servers",
        "/api/v1/catalog/sites",
        "/api/v1/catalog/cloud-offerings",
        "/api/v1/catalog/items",
        "/api/v1/catalog/fx-rates",
        "/api/v1/sales/customers",
        "/api/v1/sales/quotes",
        "/api/v1/sales/quotes/{quote_id}",
        "/api/v1/sales/revisions/{revision_id}",
        "/api/v1/sales/revisions/{revision_id}/workbook",
        "/api/v1/sales/leads",
    ):
        assert path in paths
    assert "post" in schema["paths"]["/api/v1/sales/quotes"]


def test_openapi_shows_the_scenario_documents_fields(api: Client) -> None:
    """The estimate body is the scenario schema itself (tco.scenario), not a loose object."""
    from tco.scenario import ScenarioDocument
    from tco.scenario.schema import Workload

    schema = api.get("/api/v1/openapi.json").json()
    components = schema["components"]["schemas"]
    for path in ("/api/v1/estimate", "/api/v1/estimate/workbook"):
        body = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]
        assert body["schema"] == {"$ref": "#/components/schemas/ScenarioDocument"}
    document = components["ScenarioDocument"]
    assert set(document["properties"]) == set(ScenarioDocument.model_fields)
    assert document["additionalProperties"] is False
    workload = components["Scenario.Workload"]
    assert set(workload["properties"]) == set(Workload.model_fields)
    assert workload["properties"]["params_billion"] == {
        "description": "model size, billions of parameters",
        "exclusiveMinimum": 0,
        "type": "number",
    }
    assert components["Scenario.WorkloadKind"]["enum"][0] == "pretrain"
    scenario = components["QuoteCreate"]["properties"]["scenario"]
    assert {"$ref": "#/components/schemas/ScenarioDocument"} in scenario["anyOf"]
    # Every reference resolves to a component.
    text = json.dumps(schema)
    for name in set(re.findall(r'"#/components/schemas/([^"]+)"', text)):
        assert name in components, name


def test_openapi_shows_the_reports_fields(api: Client) -> None:
    """The estimate's answer is the report (tco.report): its schema is the report's."""
    from tco.report import Option, Report, Sizing

    schema = api.get("/api/v1/openapi.json").json()
    components = schema["components"]["schemas"]
    answer = schema["paths"]["/api/v1/estimate"]["post"]["responses"]["200"]
    assert answer["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Report"
    }
    assert set(components["Report"]["properties"]) == set(Report.model_fields)
    assert set(components["Option"]["properties"]) == set(Option.model_fields)
    assert set(components["Sizing"]["properties"]) == set(Sizing.model_fields)
    kinds = components["Option"]["properties"]["kind"]["enum"]
    assert kinds == ["onprem", "cloud", "onprem_resell", "hybrid", "api"]
    assert "verdict" in components["Report"]["required"]
    # Time to capacity is typed: each option's bridge and timing, the report's capacity.
    option = components["Option"]["properties"]
    for field, component in (("bridge", "Bridge"), ("time", "Timing")):
        assert {"$ref": f"#/components/schemas/{component}"} in option[field]["anyOf"]
    assert {"type": "string", "format": "date"} in option["ready_date"]["anyOf"]
    capacity = components["Report"]["properties"]["capacity"]["anyOf"]
    assert {"$ref": "#/components/schemas/Capacity"} in capacity
    assert set(components["Bridge"]["required"]) == {
        "option",
        "instances",
        "start_in_days",
        "days",
        "hours",
        "price_per_instance_hour",
        "cost",
    }
    assert components["Capacity"]["properties"]["if_late"]["enum"] == [
        "bridge",
        "delay",
        "rule_out",
    ]


def test_interactive_docs_use_local_static_files_only(api: Client) -> None:
    response = api.get("/api/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower() and "https://" not in html
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        assert f"/static/ninja/{asset}" in html
        # A static file of the app (collectstatic gathers it; whitenoise serves it).
        assert finders.find(f"ninja/{asset}") is not None


# --- estimate -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "example", [EXAMPLE, EXAMPLE.parent / "lora-70b-eu-own-premises.json"], ids=lambda p: p.stem
)
def test_estimate_returns_what_the_cli_prints(
    seed_catalog: object, api: Client, example: Path
) -> None:
    document = json.loads(example.read_text())
    response = post_json(api, "/api/v1/estimate", document)
    assert response.status_code == 200, response.content
    out = io.StringIO()
    call_command("tco", "estimate", "--input", str(example), stdout=out)
    assert response.json() == json.loads(out.getvalue())
    assert response.json()["verdict"]["text"]
    report = Report.from_json(response.content)  # the answer is the report's JSON form
    assert report.to_json() == response.json()
    assert (
        report.onprem is not None
        and report.onprem.total_cost
        == response.json()["options"][
            [o["kind"] for o in response.json()["options"]].index("onprem")
        ]["total_cost"]
    )
    if "constraints" in document:  # the terms travel through the API too
        assert response.json()["constraints"]["decided_verdict"] is True


def test_estimate_of_a_served_model_with_hosted_apis_is_what_the_cli_prints(
    seed_catalog: object, api: Client
) -> None:
    serving = EXAMPLE.parent / "serve-customer-service.json"
    response = post_json(api, "/api/v1/estimate", json.loads(serving.read_text()))
    assert response.status_code == 200, response.content
    out = io.StringIO()
    call_command("tco", "estimate", "--input", str(serving), stdout=out)
    assert response.json() == json.loads(out.getvalue())
    assert response.json()["serving"]["peak_tokens_per_second"] == pytest.approx(1333.333)
    assert any(o["kind"] == "api" for o in response.json()["options"])
    sizing = response.json()["sizing"]  # issue 29: the chosen batch and the latency
    for key in (
        "tokens_per_second_capacity",
        "tokens_per_second_per_replica",
        "gpus_per_replica",
        "concurrent_sequences",
        "time_per_output_token_ms",
        "time_to_first_token_ms",
    ):
        assert sizing[key] is not None, key
    assert response.json()["serving"]["achieved_ms_per_token"] == sizing["time_per_output_token_ms"]


def test_estimate_of_an_8b_model_on_an_nvl72_rents_one_instance_and_warns(
    seed_catalog: object, api: Client
) -> None:
    """Issue 40 through the API: the customer-service users served by an 8B model from a
    GB300 NVL72. One B200 serves the 1,333.3 tokens/s peak, so each cloud option rents one
    8-GPU instance; the rack's warning and the smaller server
    come with the report."""
    document = json.loads((EXAMPLE.parent / "serve-customer-service.json").read_text())
    document.update(
        server="nvidia-gb300-nvl72",
        api_offerings=[],
        cloud_offerings=["lambda-b200-8x-od", "nebius-b200-8x-od"],
    )
    document["workload"]["params_billion"] = 8
    body = post_json(api, "/api/v1/estimate", document).json()
    clouds = [o for o in body["options"] if o["kind"] == "cloud"]
    assert [o["instances"] for o in clouds] == [1, 1]
    (idle,) = [w for w in body["warnings"] if w["code"] == "owned_mostly_idle"]
    assert (idle["params"]["idle_gpus"], idle["params"]["smaller_gpus"]) == (72, 8)
    assert body["verdict"]["params"]["smaller_server"] == idle["params"]["smaller_server"]
    assert idle["params"]["smaller_server"] in body["verdict"]["text"]


@pytest.mark.parametrize(
    ("change", "status", "field"),
    [
        ({"server": "no-such-server"}, 400, "server"),
        (
            {"workload": {"kind": "pretrain", "params_billion": "seven"}},
            400,
            "workload.params_billion",
        ),
        ({"cloud_offerings": ["aws-p5-48xlarge-od", "nope"]}, 400, "cloud_offerings[1]"),
        ({"finance": {"horizon_months": 60, "no_such_field": 1}}, 400, "finance.no_such_field"),
        ({"workload": None}, 400, "workload"),
        ({"colour": "blue"}, 400, "colour"),
    ],
)
def test_estimate_errors_are_problem_details_naming_the_field(
    seed_catalog: object, api: Client, change: dict[str, Any], status: int, field: str
) -> None:
    document = {**json.loads(EXAMPLE.read_text()), **change}
    response = post_json(api, "/api/v1/estimate", document)
    assert response.status_code == status
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    assert body["field"] == field


def test_estimate_missing_required_field(seed_catalog: object, api: Client) -> None:
    document = json.loads(EXAMPLE.read_text())
    del document["site"]
    response = post_json(api, "/api/v1/estimate", document)
    assert response.status_code == 400
    assert response.json()["field"] == "site"
    assert response.json()["detail"] == "site: is required"


def test_estimate_workbook_via_api(seed_catalog: object, api: Client) -> None:
    response = post_json(api, "/api/v1/estimate/workbook", json.loads(EXAMPLE.read_text()))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    book = load_workbook(io.BytesIO(response.content))
    assert "Cash flow" in book.sheetnames


# --- catalog --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["gpus", "sites", "cloud-offerings", "fx-rates"])
def test_catalog_lists_carry_source_date_and_estimate_flag(
    seed_catalog: object, api: Client, path: str
) -> None:
    """Third-party figures keep their source, date and estimate flag for everyone."""
    response = api.get(f"/api/v1/catalog/{path}", {"limit": 2})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] >= 1 and 1 <= len(body["items"]) <= 2
    for row in body["items"]:
        assert row["source"] and row["as_of"] and isinstance(row["is_estimate"], bool)


# The seed's DGX H100: its list price is an estimate (price_is_estimate), its row dated
# 1 December 2026, its specifications from the DGX user guide; installation per server is
# an estimated item dated 1 June 2026 (catalog/data/servers.csv, items.csv).
DGX_PRICE_SOURCE = "Estimate: a DGX H100 sold at about $270,000 in 2023"
DGX_SOURCE = "NVIDIA DGX H100/H200 user guide (6 × 3.3 kW PSU; 10.2 kW max)"


def _one(client: Client, path: str, key: str, **headers: Any) -> dict[str, Any]:
    body = client.get(f"/api/v1/catalog/{path}", {"key": key}, **headers).json()
    assert body["count"] == 1
    row: dict[str, Any] = body["items"][0]
    return row


def test_anonymous_callers_read_own_prices_as_the_price_list_without_flags_or_dates(
    seed_catalog: object, api: Client
) -> None:
    from catalog.models import InfrastructureItem, ServerModel

    server = _one(api, "servers", "nvidia-dgx-h100")
    assert server["price_source"] == "Our price list" and server["price_is_estimate"] is None
    assert server["as_of"] is None and server["is_estimate"] is None
    # The specifications' source as the catalog page names it: the publication, no remarks.
    assert server["source"] == "NVIDIA DGX H100/H200 user guide"
    assert server["list_price"] == 300000.0
    item = _one(api, "items", "installation-per-server")
    assert item["source"] == "Our price list" and item["price"] == 5000.0
    assert item["as_of"] is None and item["is_estimate"] is None
    # Even in Dutch the API answers in the catalog's language (English).
    dutch = _one(api, "items", "installation-per-server", HTTP_ACCEPT_LANGUAGE="nl")
    assert dutch["source"] == "Our price list"
    # The estimate filter does not tell which own prices are estimates: it is ignored.
    for path, model in (("servers", ServerModel), ("items", InfrastructureItem)):
        for flag in ("true", "false"):
            listed = api.get(f"/api/v1/catalog/{path}", {"is_estimate": flag}).json()
            assert listed["count"] == model.objects.count(), (path, flag)
            assert {row["is_estimate"] for row in listed["items"]} == {None}
    # A cloud price keeps its flags and date for anonymous callers.
    cloud = _one(api, "cloud-offerings", "aws-p5-48xlarge-od")
    assert cloud["as_of"] == "2025-07-01" and cloud["is_estimate"] is False
    assert cloud["source"].startswith("AWS price list via public price catalogs")


def test_sales_and_staff_read_own_prices_with_their_flags_and_dates(
    seed_catalog: object,
    api: Client,
    sales_user: User,
    make_sales_user: Callable[..., Any],
    make_token: Callable[..., str],
) -> None:
    from catalog.models import ServerModel

    by_token = bearer(make_token(sales_user, scope="read"))
    staff = User.objects.create_user("stef", "stef@distributor.example", "pw", is_staff=True)
    staff_session = Client()
    staff_session.force_login(staff)
    for client, headers in ((api, by_token), (staff_session, {})):
        server = _one(client, "servers", "nvidia-dgx-h100", **headers)
        assert server["price_source"].startswith(DGX_PRICE_SOURCE)
        assert server["price_is_estimate"] is True
        assert server["as_of"] == "2026-12-01" and server["is_estimate"] is False
        assert server["source"] == DGX_SOURCE
        item = _one(client, "items", "installation-per-server", **headers)
        assert item["source"] == "Estimate: distributor services rate"
        assert item["as_of"] == "2026-06-01" and item["is_estimate"] is True
        estimates = client.get("/api/v1/catalog/servers", {"is_estimate": "true"}, **headers)
        assert estimates.json()["count"] == ServerModel.objects.filter(is_estimate=True).count()
    # A signed-in visitor who is neither staff nor sales reads them as the public does.
    visitor = Client()
    visitor.force_login(make_sales_user("vera", team=None, sales=False))
    assert _one(visitor, "servers", "nvidia-dgx-h100")["price_is_estimate"] is None
    # A made-up token is no sales engineer either.
    fake = bearer("gtco_" + "x" * 40)
    assert _one(Client(), "items", "installation-per-server", **fake)["as_of"] is None


def test_openapi_schema_says_own_price_flags_may_be_null(api: Client) -> None:
    schemas = api.get("/api/v1/openapi.json").json()["components"]["schemas"]

    def nullable(schema: str, field: str) -> bool:
        spec = schemas[schema]["properties"][field]
        return {"type": "null"} in spec.get("anyOf", [])

    for schema, field in (
        ("ServerOut", "as_of"),
        ("ServerOut", "is_estimate"),
        ("ServerOut", "price_is_estimate"),
        ("ItemOut", "as_of"),
        ("ItemOut", "is_estimate"),
    ):
        assert nullable(schema, field), (schema, field)
        assert "null unless" in schemas[schema]["properties"][field]["description"]
    for schema in ("GpuOut", "SiteOut", "CloudOfferingOut", "FxRateOut"):
        assert not nullable(schema, "as_of") and not nullable(schema, "is_estimate"), schema


def test_catalog_filters_and_pagination(seed_catalog: object, api: Client) -> None:
    from catalog.models import CloudOffering

    everything = api.get("/api/v1/catalog/cloud-offerings", {"limit": 100}).json()
    assert everything["count"] == CloudOffering.objects.count()
    aws = api.get("/api/v1/catalog/cloud-offerings", {"provider": "aws", "limit": "100"}).json()
    assert aws["count"] == CloudOffering.objects.filter(provider__iexact="aws").count() > 0
    assert {o["provider"] for o in aws["items"]} == {"AWS"}
    page2 = api.get("/api/v1/catalog/cloud-offerings", {"limit": 3, "offset": 3}).json()
    assert [o["key"] for o in page2["items"]] == [o["key"] for o in everything["items"][3:6]]
    estimates = api.get("/api/v1/catalog/sites", {"is_estimate": "true"}).json()
    assert estimates["count"] >= 1 and all(s["is_estimate"] for s in estimates["items"])
    one = api.get("/api/v1/catalog/servers", {"key": "smc-821ge-tnhr-h100"}).json()
    assert one["count"] == 1 and one["items"][0]["gpu"] == "h100-sxm"  # the GPU by its key
    gpus = {g["key"] for g in api.get("/api/v1/catalog/gpus", {"limit": 100}).json()["items"]}
    assert {o["gpu"] for o in everything["items"]} <= gpus
    for name, value in (("limit", 0), ("limit", 101), ("offset", -1), ("offset", 10**20)):
        bad = api.get("/api/v1/catalog/gpus", {name: value})
        assert bad.status_code == 422 and bad.json()["field"] == name


# --- tokens ---------------------------------------------------------------------------------


def test_token_page_creates_a_token_shown_once_and_stored_hashed(
    client: Client, sales_user: User
) -> None:
    from api.models import ApiToken
    from common.tokens import token_digest

    client.force_login(sales_user)
    response = client.post(reverse("api_tokens"), {"name": "CRM", "scope": "read"})
    assert response.status_code == 200
    raw = response.context["created"]["raw"]
    assert raw.startswith("gtco_") and raw in response.content.decode()
    token = ApiToken.objects.get()
    assert token.token_sha256 == token_digest(raw)
    stored = json.dumps([str(v) for v in ApiToken.objects.values_list()[0]])
    assert raw not in stored
    again = client.get(reverse("api_tokens"))
    assert raw not in again.content.decode() and token.prefix in again.content.decode()
    # Revoked: the API no longer accepts it.
    assert Client().get("/api/v1/sales/me", **bearer(raw)).status_code == 200
    client.post(reverse("api_token_revoke", args=[token.public_id]))
    assert Client().get("/api/v1/sales/me", **bearer(raw)).status_code == 401


def test_token_page_needs_login_and_revoking_others_tokens_does_nothing(
    client: Client, make_sales_user: Callable[..., Any], make_token: Callable[..., str]
) -> None:
    from api.models import ApiToken

    assert client.get(reverse("api_tokens")).status_code == 302
    anna, bert = make_sales_user("anna"), make_sales_user("bert", team="Nordics")
    raw = make_token(bert)
    client.force_login(anna)
    client.post(reverse("api_token_revoke", args=[ApiToken.objects.get().public_id]))
    assert ApiToken.objects.get().revoked_at is None
    assert Client().get("/api/v1/sales/me", **bearer(raw)).status_code == 200


# --- sales endpoints: auth and team scoping --------------------------------------------------


def sales_endpoints(quote: Any) -> list[tuple[str, str]]:
    revision = quote.revisions.get()
    return [
        ("get", "/api/v1/sales/me"),
        ("get", "/api/v1/sales/customers"),
        ("get", "/api/v1/sales/quotes"),
        ("post", "/api/v1/sales/quotes"),
        ("get", f"/api/v1/sales/quotes/{quote.public_id}"),
        ("get", f"/api/v1/sales/revisions/{revision.public_id}"),
        ("get", f"/api/v1/sales/revisions/{revision.public_id}/workbook"),
        ("get", "/api/v1/sales/leads"),
    ]


def call(client: Client, method: str, url: str, **headers: Any) -> Any:
    if method == "post":
        return post_json(client, url, {"customer": str(_uuid())}, **headers)
    return client.get(url, **headers)


def _uuid() -> Any:
    import uuid

    return uuid.uuid4()


@override_settings(API_RATE_LIMIT_ANONYMOUS=1000)  # 32 refused requests from one address
@pytest.mark.dates
def test_every_sales_endpoint_needs_a_valid_token(
    api: Client, draft_quote: Quote, make_token: Callable[..., str], sales_user: User
) -> None:
    from django.utils import timezone

    from api.models import ApiToken

    revoked = make_token(sales_user)
    ApiToken.objects.update(revoked_at=timezone.now())
    for method, url in sales_endpoints(draft_quote):
        for headers in (
            {},
            bearer("gtco_not-a-token"),
            bearer(revoked),
            {"HTTP_AUTHORIZATION": "Basic YW5uYTpwdw=="},
        ):
            response = call(api, method, url, **headers)
            assert response.status_code == 401, (method, url, headers)
            assert response["Content-Type"] == PROBLEM
            assert response["WWW-Authenticate"] == "Bearer"


def test_every_sales_endpoint_refuses_users_outside_sales(
    api: Client,
    draft_quote: Quote,
    make_sales_user: Callable[..., Any],
    make_token: Callable[..., str],
) -> None:
    outsider = make_token(make_sales_user("olga", team="Benelux", sales=False))
    for method, url in sales_endpoints(draft_quote):
        if url.endswith("/me"):
            continue  # tells the token's owner who they are, sales or not
        response = call(api, method, url, **bearer(outsider))
        assert response.status_code == 403, (method, url)
        assert response.json()["status"] == 403


def test_sales_endpoints_are_scoped_to_the_users_teams(
    api: Client,
    draft_quote: Quote,
    other_team_quote: Any,
    sales_user: User,
    make_sales_user: Callable[..., Any],
    make_token: Callable[..., str],
) -> None:
    anna = bearer(make_token(sales_user))
    mine, theirs = draft_quote, other_team_quote
    listed = api.get("/api/v1/sales/quotes", **anna).json()
    assert [q["number"] for q in listed["items"]] == [mine.number]
    customers = api.get("/api/v1/sales/customers", **anna).json()
    assert [c["id"] for c in customers["items"]] == [str(mine.customer.public_id)]
    # The customer as the fixture made it: its public id, never the row's key; its team's name.
    (listed_customer,) = customers["items"]
    created = datetime.fromisoformat(listed_customer.pop("created_at"))
    assert timedelta(0) <= mine.customer.created_at - created < timedelta(milliseconds=1)
    assert listed_customer == {
        "id": str(mine.customer.public_id),
        "company": "Deep Learning BV",
        "contact_name": "Jan de Vries",
        "email": "jan@buyer.example",
        "country": "NL",
        "vat_number": "NL123456789B01",
        "language": "en",
        "team": "Benelux",
    }
    for method, url in sales_endpoints(theirs):
        if theirs.number in url or str(theirs.public_id) in url or "revisions/" in url:
            response = call(api, method, url, **anna)
            assert response.status_code == 404, url
    ok = api.get(f"/api/v1/sales/quotes/{mine.public_id}", **anna)
    assert ok.status_code == 200 and ok.json()["revisions"][0]["lines"]
    # A customer of another team cannot be quoted for.
    response = post_json(
        api,
        "/api/v1/sales/quotes",
        {"customer": str(theirs.customer.public_id), "calculator_query": "preset=serve-70b"},
        **anna,
    )
    assert response.status_code == 400 and response.json()["field"] == "customer"
    # Staff see every team's quotes, as on the web pages.
    boss = make_sales_user("boss", team=None)
    boss.is_staff = True
    boss.save()
    everything = api.get("/api/v1/sales/quotes", **bearer(make_token(boss))).json()
    assert {q["number"] for q in everything["items"]} == {mine.number, theirs.number}


@pytest.mark.dates
def test_leads_are_for_sales_engineers(
    api: Client, sales_user: User, make_token: Callable[..., str]
) -> None:
    from django.utils import timezone

    from quotes.models import Lead

    Lead.objects.create(
        name="@SUM(1+1)",
        company="Buyer",
        email="b@buyer.example",
        consent_at=timezone.now(),
        confirmed_at=timezone.now(),  # unconfirmed leads are not shown (issue 32)
        tco={"executive": {"headline": "Rent"}},
        team=sales_user.sales_teams.first(),  # leads are scoped to a team (docs/quotes.md)
    )
    body = api.get("/api/v1/sales/leads", **bearer(make_token(sales_user))).json()
    assert body["count"] == 1 and body["items"][0]["verdict"] == "Rent"


def test_draft_quote_from_calculator_query_and_from_scenario(
    api: Client,
    seed_catalog: object,
    customer: Customer,
    sales_user: User,
    make_token: Callable[..., str],
) -> None:
    from quotes.models import Quote

    read_only = bearer(make_token(sales_user, scope="read"))
    body = {"customer": str(customer.public_id), "calculator_query": "preset=serve-70b"}
    refused = post_json(api, "/api/v1/sales/quotes", body, **read_only)
    assert refused.status_code == 403 and Quote.objects.count() == 0

    write = bearer(make_token(sales_user))
    created = post_json(api, "/api/v1/sales/quotes", body, **write)
    assert created.status_code == 201, created.content
    quote = created.json()
    assert quote["status"] == "draft" and quote["revisions"][0]["lines"]
    assert quote["revisions"][0]["has_analysis"]

    scenario = json.loads(EXAMPLE.read_text())
    created = post_json(
        api,
        "/api/v1/sales/quotes",
        {"customer": str(customer.public_id), "scenario": scenario},
        **write,
    )
    assert created.status_code == 201, created.content
    revision = created.json()["revisions"][0]
    assert revision["lines"][0]["catalog_key"] == "server:smc-821ge-tnhr-h100"
    stored = Quote.objects.get(public_id=created.json()["id"]).revisions.get()
    assert stored.tco is not None
    assert stored.tco["summary"]["verdict"]["text"]
    workbook = api.get(f"/api/v1/sales/revisions/{revision['id']}/workbook", **write)
    assert workbook.status_code == 200
    assert "Inputs" in load_workbook(io.BytesIO(workbook.content)).sheetnames

    # The quote's options: option B, a copy of A, is returned with its lines, totals and
    # the analysis figures it is compared by (the same function as the PDF's comparison).
    from quotes import services as quote_services

    option = quote_services.option_add(revision=stored, name="Same again")
    detail = api.get(f"/api/v1/sales/revisions/{revision['id']}", **write).json()
    [b] = detail["options"]
    assert (b["letter"], b["name"], b["status"]) == ("B", "Same again", "draft")
    assert b["totals"] == detail["totals"] and len(b["lines"]) == len(detail["lines"])
    assert b["analysis"] == detail["analysis"]
    assert b["analysis"]["owning"] is not None and option.option_of_id == stored.pk
    # Leased over 36 months: its payment terms, P × 0.5 % ÷ (1 − 1.005^−36) a month.
    quote_services.option_set_lease(revision=option, term_months=36)
    detail = api.get(f"/api/v1/sales/revisions/{revision['id']}", **write).json()
    lease = detail["options"][0]["analysis"]["lease"]
    assert detail["analysis"]["lease"] is None and lease["term_months"] == 36
    financed = lease["financed"]
    assert lease["monthly_payment"] == pytest.approx(financed * 0.005 / (1 - 1.005**-36), abs=0.01)

    bad = {**scenario, "server": "nope"}
    response = post_json(
        api, "/api/v1/sales/quotes", {"customer": str(customer.public_id), "scenario": bad}, **write
    )
    assert response.status_code == 400 and response.json()["field"] == "server"
    assert Quote.objects.count() == 2
    both = {"customer": str(customer.public_id)}
    assert post_json(api, "/api/v1/sales/quotes", both, **write).status_code == 400


# --- rate limits ----------------------------------------------------------------------------


@override_settings(API_RATE_LIMIT_ANONYMOUS=3, API_RATE_LIMIT_TOKEN=5, API_RATE_LIMIT_WINDOW=60)
def test_rate_limits_per_client_and_per_token(
    api: Client, sales_user: User, make_token: Callable[..., str]
) -> None:
    here: dict[str, Any] = {"REMOTE_ADDR": "192.0.2.7"}
    for _ in range(3):
        assert api.get("/api/v1/catalog/gpus", **here).status_code == 200
    limited = api.get("/api/v1/catalog/gpus", **here)
    assert limited.status_code == 429
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert limited["Content-Type"] == PROBLEM
    # Another client, and a token, have their own counters.
    assert api.get("/api/v1/catalog/gpus", REMOTE_ADDR="192.0.2.8").status_code == 200
    token = bearer(make_token(sales_user))
    codes = [api.get("/api/v1/sales/me", **here, **token).status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]
    # Made-up tokens count against the client's address, not a counter of their own.
    other: dict[str, Any] = {"REMOTE_ADDR": "192.0.2.9"}
    codes = [
        api.get("/api/v1/catalog/gpus", **other, **bearer(f"gtco_fake{i}")).status_code
        for i in range(4)
    ]
    assert codes == [200, 200, 200, 429]
    # Pages outside the API are not limited.
    assert api.get("/ping", **here).status_code == 200


def test_quote_lists_show_the_latest_revision(
    api: Client,
    client: Client,
    draft_quote: Quote,
    sales_user: User,
    make_token: Callable[..., str],
) -> None:
    from quotes import services

    services.new_revision(quote=draft_quote, seq=2, currency="EUR", customer=draft_quote.customer)
    listed = api.get("/api/v1/sales/quotes", **bearer(make_token(sales_user))).json()
    assert [(q["number"], q["revision"], q["total"]) for q in listed["items"]] == [
        (draft_quote.number, "B", "0.00")
    ]
    client.force_login(sales_user)
    csv_text = client.get(reverse("quotes:quotes_export", args=["csv"])).content.decode()
    assert f"{draft_quote.number},B,draft" in csv_text
