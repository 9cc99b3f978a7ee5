"""Issue 29: a demand is never silently assumed. The verdict names it on the page and in
the PDF (English and Dutch) and in the API's and the CLI's text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from quotes.services.analysis import executive_summary
from tco.engine import evaluate
from tco.presentation.wording import note_text, verdict_headline
from tco.report import build_report
from tco.scenario.resolve import build_scenario

pytestmark = pytest.mark.django_db
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def workstation_document() -> dict[str, Any]:
    """A 1-GPU workstation in the buyer's server room, a LoRA run, no demand given."""
    return {
        "workload": {"kind": "lora", "params_billion": 8, "tokens_billion": 0.2},
        "server": {
            "key": "smc-821ge-tnhr-h100",
            "gpus_per_server": 1,
            "list_price": 35000,
            "max_power_kw": 1.2,
            "idle_power_kw": 0.25,
        },
        "site": "onprem-server-room",
        "cloud_offerings": ["aws-p5-48xlarge-od", "aws-p5e-48xlarge-cb"],
    }


def test_an_assumed_demand_is_named_in_english_and_dutch(seed_catalog: object) -> None:
    report = build_report(evaluate(build_scenario(workstation_document()).scenario))
    assert report.demand.pattern == "one_off"
    assert report.verdict.params["demand_assumed"] == "one_run"
    assert report.verdict.text.endswith(", assuming one run.")
    warnings = {w.code: w for w in report.warnings}
    with translation.override("en"):
        assert verdict_headline(report.verdict, "USD").endswith(", assuming one run.")
        assert executive_summary(report)["headline"].endswith(", assuming one run.")
    with translation.override("nl"):
        headline = verdict_headline(report.verdict, "USD")
        assert headline.endswith(", ervan uitgaande dat het één keer draait.")
        assert executive_summary(report)["headline"] == headline  # the PDF's words
        assert note_text(report.demand.notes[0]) == (
            "Geen vraag opgegeven: aangenomen is dat de training één keer draait."
        )
        # One GPU at a server room's data-centre defaults: the warning says so, in Dutch.
        small = note_text(warnings["datacentre_defaults_small_fleet"])
        assert small.startswith("Standaardwaarden van een datacenter") and "1 GPU:" in small


def test_a_served_model_without_demand_is_said_to_serve_around_the_clock(
    seed_catalog: object,
) -> None:
    document = json.loads((EXAMPLES / "serve-70b-overrides.json").read_text())
    del document["demand"]
    report = build_report(evaluate(build_scenario(document).scenario))
    assert report.demand.pattern == "continuous"
    with translation.override("nl"):
        assert verdict_headline(report.verdict, "USD").endswith(
            ", ervan uitgaande dat het dag en nacht draait."
        )
    assert report.verdict.text.endswith(", assuming it serves around the clock.")


def test_the_api_names_the_assumed_demand(seed_catalog: object, client: Client) -> None:
    response = client.post(
        "/api/v1/estimate", json.dumps(workstation_document()), content_type="application/json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["demand"]["pattern"] == "one_off"
    assert body["verdict"]["text"].endswith(", assuming one run.")
    assert body["owning_extras"]["networking"] == "front_end"
    assert body["owning_extras"]["staff_fte"] == 0.1
