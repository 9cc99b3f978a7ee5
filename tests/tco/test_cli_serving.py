"""`tco estimate` on a demand in users and requests with hosted APIs (issue 16, parts 1 and 3).

The example docs/examples/serve-customer-service.json is the issue's demand: 2,000 users ×
20 requests × 400 output tokens (1,000 input), peak factor 3 over 10 working hours, five
days a week. By hand: 444.44 tokens/s on average in working hours, 1,333.33 at the peak;
869,047.62 requests a month (40,000 × 5 × 730 ÷ 168).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import ApiOffering, FxRate

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "serve-customer-service.json"
REQUESTS_PER_MONTH = 40_000 * 5 * 730 / 168
HORIZON = 60

pytestmark = pytest.mark.django_db


def _run(path: Path, capsys: pytest.CaptureFixture[str], fmt: str = "json") -> Any:
    call_command("tco", "estimate", "--input", str(path), "--format", fmt)
    out = capsys.readouterr().out
    return json.loads(out) if fmt == "json" else out


def test_json_carries_the_derived_demand(
    seed_catalog: object, capsys: pytest.CaptureFixture[str]
) -> None:
    serving = _run(EXAMPLE, capsys)["serving"]
    assert serving["requests_per_day"] == 40_000
    assert serving["output_tokens_per_day"] == 16_000_000
    assert serving["average_tokens_per_second"] == pytest.approx(444.444, abs=1e-3)
    assert serving["peak_tokens_per_second"] == pytest.approx(1333.333, abs=1e-3)
    assert serving["requests_per_month"] == pytest.approx(REQUESTS_PER_MONTH, abs=0.01)
    # Little's law: 1,333.33 tokens/s × 0.050 s a token = 66.67 answers streaming at the peak.
    assert serving["concurrent_requests_at_peak"] == pytest.approx(66.67, abs=0.01)
    assert serving["capacity_tokens_per_second"] >= serving["peak_tokens_per_second"]


def test_api_cost_is_volume_times_catalog_prices_in_the_reporting_currency(
    seed_catalog: object, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _run(EXAMPLE, capsys)
    usd_per_eur = float(FxRate.objects.filter(base="EUR", quote="USD").latest("as_of").rate)
    groq = ApiOffering.objects.get(key="groq-llama-3-3-70b")
    per_request_usd = (
        1000 * float(groq.price_input_per_million) + 400 * float(groq.price_output_per_million)
    ) / 1e6
    row = next(o for o in result["options"] if o["name"] == "Groq Llama 3.3 70B (api)")
    assert row["kind"] == "api" and row["jurisdiction"] == "US"
    expected = REQUESTS_PER_MONTH * HORIZON * per_request_usd / usd_per_eur
    assert row["total_cost"] == pytest.approx(expected, abs=0.01)
    assert row["price_per_request"] == pytest.approx(per_request_usd / usd_per_eur, rel=1e-6)
    # An override of one price is used (IONOS output 0.70 instead of the catalog's 0.65).
    ionos = next(o for o in result["options"] if o["name"].startswith("IONOS"))
    assert ionos["total_cost"] == pytest.approx(
        REQUESTS_PER_MONTH * HORIZON * (1000 * 0.65 + 400 * 0.70) / 1e6, abs=0.01
    )


def test_every_option_has_per_request_and_per_user_costs_and_apis_a_break_even(
    seed_catalog: object, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _run(EXAMPLE, capsys)
    for option in result["options"]:
        assert option["cost_per_request"] == pytest.approx(
            option["total_cost"] / (REQUESTS_PER_MONTH * HORIZON), rel=1e-5
        )
        assert option["cost_per_user_month"] == pytest.approx(
            option["total_cost"] / (2000 * HORIZON), rel=1e-5
        )
        if option["kind"] == "api":
            assert option["break_even_requests_per_day"] > 40_000
    assert result["verdict"]["code"] == "rent"
    recommended = next(o for o in result["options"] if o["recommended"])
    assert recommended["kind"] == "api"
    assert result["break_even_requests_per_day"] == recommended["break_even_requests_per_day"]
    table = _run(EXAMPLE, capsys, "table")
    assert "1,333.3 tokens/s at the peak" in table and "/day" in table


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["workload"]["serving_demand"].update(users="many"),
            "workload.serving_demand.users: expected a whole number",
        ),
        (
            lambda d: d["workload"]["serving_demand"].update(hours_per_day=30),
            "workload.serving_demand.hours_per_day: Hours a day must be above 0 and at most 24",
        ),
        (
            lambda d: d["workload"]["serving_demand"].pop("output_tokens_per_request"),
            "workload.serving_demand.output_tokens_per_request: is required",
        ),
        (
            lambda d: d["api_offerings"].append("nobody-llama"),
            "api_offerings[4]: unknown hosted API offering 'nobody-llama'",
        ),
        (
            lambda d: d["workload"].pop("serving_demand"),
            "api_offerings: Hosted APIs are priced per token",
        ),
        (
            lambda d: d["api_offerings"].append({"key": "groq-llama-3-3-70b", "price": 1}),
            "api_offerings[4].price: unknown field",
        ),
    ],
)
def test_bad_serving_inputs_name_the_field(
    seed_catalog: object, tmp_path: Path, change: Any, message: str
) -> None:
    document = json.loads(EXAMPLE.read_text())
    change(document)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CommandError) as caught:
        call_command("tco", "estimate", "--input", str(path))
    assert f"broken.json: {message}" in str(caught.value)


def test_json_carries_the_chosen_batch_and_the_latency_at_the_peak(
    seed_catalog: object, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 29: the engine chooses each copy's batch; what users see at the sized peak is
    # reported beside the targets (50 ms given, 450 ms the interactive default).
    result = _run(EXAMPLE, capsys)
    sizing, serving = result["sizing"], result["serving"]
    assert sizing["latency_targets"] == {
        "use": "interactive",
        "time_per_output_token_ms": 50.0,
        "time_to_first_token_ms": 450.0,
        "met": True,
    }
    assert 1 <= sizing["concurrent_sequences"] <= sizing["max_concurrent_sequences"]
    assert sizing["max_concurrent_sequences"] <= sizing["memory_concurrent_sequences"]
    assert sizing["context_tokens"] == 1400  # 1,000 input + 400 output tokens
    assert sizing["time_per_output_token_ms"] <= 50.0
    assert sizing["time_to_first_token_ms"] <= 450.0
    assert serving["achieved_ms_per_token"] == sizing["time_per_output_token_ms"]
    assert serving["time_to_first_token_ms"] == sizing["time_to_first_token_ms"]
    assert serving["target_ms_per_token"] == 50.0
    assert sizing["tokens_per_second_capacity"] == pytest.approx(
        sizing["replicas"] * sizing["tokens_per_second_per_replica"], abs=0.05 * sizing["replicas"]
    )
    step = sizing["decode_step_ms"]
    parts = step["weights"] + step["experts"] + step["kv_cache"] + step["communication"]
    assert step["total"] == pytest.approx(parts, abs=1e-3)
    assert sizing["time_per_output_token_ms"] == pytest.approx(
        step["total"] + step["prefill_share"], abs=2e-3
    )
    assert not [w for w in result["warnings"] if w["code"] == "latency_target_missed"]
