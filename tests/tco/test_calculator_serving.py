"""The calculator with a served load in users and requests, and hosted APIs (issue 16)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from catalog.models import ApiOffering
from tco.analysis.calculator import form_data
from tco.inputs.forms import CalculatorForm
from tco.inputs.presets import preset_data
from tco.scenario.resolve import CatalogSnapshot

pytestmark = pytest.mark.django_db


def page(client: Client, **params: Any) -> str:
    response = client.get("/calculator/", {"preset": "customer-service", **params})
    assert response.status_code == 200
    return response.content.decode()


def field_error(html: str, field: str) -> str:
    match = re.search(rf'id="error-{field}"[^>]*>(.*?)</div>', html, re.S)
    assert match, field
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("\u00a0", " ")


def test_the_page_shows_the_hand_derived_load_and_unit_costs(
    client: Client, seed_catalog: object
) -> None:
    html = text(page(client))
    # 2,000 × 20 = 40,000 requests × 400 = 16,000,000 tokens; ÷ 36,000 s = 444.4; × 3 = 1,333.3.
    assert "2,000 users × 20 requests a day = 40,000 requests a day" in html
    assert "16,000,000 output tokens a day" in html
    assert "444.4 tokens/s on average while people work" in html
    assert "× peak factor 3 = 1,333.3 tokens/s in the busiest hour" in html
    assert re.search(r"\d/day", html)  # the APIs' break-even in requests a day
    assert "per-token API" in html


def _form(query: dict[str, Any]) -> CalculatorForm:
    from django.http import QueryDict

    data = QueryDict(mutable=True)
    data.update({"preset": "customer-service"})
    for key, value in query.items():
        data[key] = value
    form = CalculatorForm(form_data(data), catalog=CatalogSnapshot.load())
    assert form.is_valid(), form.errors
    return form


def _document(form: CalculatorForm) -> dict[str, Any]:
    """The form's scenario document for the H100 server, as JSON (what the schema read)."""
    return form.to_document("smc-821ge-tnhr-h100").model_dump(mode="json", exclude_unset=True)


def test_the_document_carries_the_demand_and_the_apis_of_the_same_model_size(
    seed_catalog: object,
) -> None:
    form = _form({})
    document = _document(form)
    demand = document["workload"]["serving_demand"]
    assert demand == {
        "users": 2000,
        "requests_per_user_per_day": 20.0,
        "input_tokens_per_request": 1000,
        "output_tokens_per_request": 400,
        "peak_factor": 3.0,
        "hours_per_day": 10.0,
        "days_per_week": 5,
        "latency_ms_per_token": 50.0,
    }
    assert "target_tokens_per_second" not in document["workload"]
    assert "utilization" not in document["demand"]  # derived from the requests
    seventy = set(
        ApiOffering.objects.filter(params_billion__gte=63, params_billion__lte=77).values_list(
            "key", flat=True
        )
    )
    assert {api["key"] for api in document["api_offerings"]} == seventy and len(seventy) == 9
    eight = _document(_form({"params_billion": "8"}))
    assert all("3-1-8b" in api["key"] for api in eight["api_offerings"])
    none = _document(_form({"compare_apis": ""}))
    assert "api_offerings" not in none


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("users", "", "Enter how many users send requests."),
        ("users", "0", "Ensure this value is greater than or equal to 1."),
        ("requests_per_user_per_day", "", "Enter how many requests a user sends a day."),
        ("output_tokens_per_request", "", "Enter how long an answer is, in tokens."),
        ("hours_per_day", "25", "Ensure this value is less than or equal to 24."),
        ("days_per_week", "8", "Ensure this value is less than or equal to 7."),
        ("peak_factor", "0.5", "Ensure this value is greater than or equal to 1."),
        ("users", "many", "Enter a whole number."),
    ],
)
def test_bad_demand_is_refused_next_to_the_field(
    client: Client, seed_catalog: object, field: str, value: str, message: str
) -> None:
    html = page(client, **{field: value})
    assert field_error(html, field) == message
    assert 'id="verdict"' not in html


def test_the_expert_tokens_input_stays(client: Client, seed_catalog: object) -> None:
    html = page(client, serving_load="tokens", target_tokens_per_second="1333", users="")
    assert 'id="verdict"' in html and "serving-derivation" not in html
    assert "Per million tokens served" in html
    missing = page(client, serving_load="tokens", target_tokens_per_second="")
    assert field_error(missing, "target_tokens_per_second") == "Enter the throughput to serve."


def test_fields_carry_their_show_rules(seed_catalog: object) -> None:
    form = _form({})
    assert form.relevance("users") == 'data-show-kind="inference" data-show-load="users"'
    # Served in users and requests: the tokens/s fields come hidden (the script shows them
    # when the load is switched to tokens/s).
    assert form.relevance("target_tokens_per_second") == (
        'hidden data-show-kind="inference" data-show-load="tokens"'
    )
    assert form.relevance("utilization_pct") == (
        'hidden data-show-pattern="continuous" data-show-load="tokens"'
    )
    serve = preset_data("serve-70b")
    assert serve is not None and serve["serving_load"] == "tokens"


def test_dutch_page_words_the_derivation(client: Client, seed_catalog: object) -> None:
    client.cookies["django_language"] = "nl"
    html = text(page(client))
    assert "2.000 gebruikers × 20 verzoeken per dag = 40.000 verzoeken per dag" in html
    assert re.search(r"\d/dag", html) and "Per verzoek" in html


def test_the_page_shows_the_latency_beside_its_target(client: Client, seed_catalog: object) -> None:
    # Issue 29: what each user sees at the sized peak, next to the 50 ms target of the
    # preset and the interactive default of 450 ms to the first token.
    html = text(page(client))
    match = re.search(
        r"Latency: At the peak each answer streams at ([\d.]+) ms \(target 50 ms\) and starts "
        r"after ([\d,]+) ms \(target 450 ms\); (\d+) sequences per model copy \(at most (\d+)",
        html,
    )
    assert match, html[:2000]
    assert float(match.group(1)) <= 50.0
    assert int(match.group(3)) <= int(match.group(4))
    batch = text(page(client, serving_use="batch", latency_ms_per_token=""))
    assert "(no target)" in batch


def test_the_dutch_page_shows_the_latency_in_dutch(client: Client, seed_catalog: object) -> None:
    client.cookies["django_language"] = "nl"
    html = text(page(client))
    assert re.search(
        r"Latentie: Op het drukste moment verschijnt elk antwoord met [\d,]+ ms \(doel 50 ms\)",
        html,
    )


def test_a_latency_target_no_server_reaches_is_a_warning(
    client: Client, seed_catalog: object
) -> None:
    html = text(page(client, latency_ms_per_token="1"))
    assert "slower than the 1.0 ms target: this server needs at least" in html


def test_the_engine_chooses_the_batch_and_context_unless_they_are_given(
    seed_catalog: object,
) -> None:
    workload = _document(_form({}))["workload"]
    assert "concurrent_sequences" not in workload and "context_tokens" not in workload
    assert workload["serving_use"] == "interactive" and workload["serving_efficiency"] == 1.0
    given = _document(
        _form(
            {
                "concurrency": "32",
                "context_tokens": "4096",
                "serving_use": "batch",
                "time_to_first_token_ms": "900",
            }
        )
    )["workload"]
    assert given["concurrent_sequences"] == 32 and given["context_tokens"] == 4096
    assert given["serving_use"] == "batch"
    assert given["serving_demand"]["time_to_first_token_ms"] == 900.0


def test_a_cheaper_server_that_misses_the_latency_target_is_not_chosen(
    client: Client, seed_catalog: object
) -> None:
    # At 15 ms per token the 8 × L40S server (PCIe, 0.86 TB/s per GPU) is the cheapest to
    # own but cannot stream that fast; a server that can is chosen, and the list says why.
    from django.http import QueryDict

    from tco.analysis.calculator import analyse_query

    query = QueryDict(mutable=True)
    query.update({"preset": "customer-service", "latency_ms_per_token": "15"})
    outcome = analyse_query(query)[1]
    analysis = outcome.analysis
    assert analysis is not None
    cheapest = min(
        (c for c in analysis.candidates if c.onprem_total is not None),
        key=lambda c: c.onprem_total or 0.0,
    )
    assert not cheapest.meets_latency_targets
    chosen = analysis.built.server_model.key
    assert chosen != cheapest.server.key
    assert next(c for c in analysis.candidates if c.server.key == chosen).meets_latency_targets
    assert not [w for w in analysis.report.warnings if w.code == "latency_target_missed"]
    assert "(misses the latency targets)" in text(page(client, latency_ms_per_token="15"))


def test_a_load_in_tokens_per_second_says_its_prompts_are_not_sized(
    client: Client, seed_catalog: object
) -> None:
    """Without a prompt length no prefill is sized, so the page must not present one
    decode step as the time a user waits for the first token."""
    page = client.get("/calculator/", {"preset": "serve-70b"}).content.decode()
    latency = re.search(r'<li id="serving-latency">(.*?)</li>', page, re.S)
    assert latency is not None
    assert "the prompts are not sized" in latency.group(1)
    assert "starts after" not in latency.group(1)
