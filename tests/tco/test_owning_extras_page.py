"""Issue 29 as the buyer reads it: the page says what owning includes, in English and Dutch."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from tco.engine import evaluate
from tco.inputs.presets import preset_data
from tco.presentation.wording import owning_extras_sentence
from tco.report import build_report
from tco.scenario.resolve import build_scenario

pytestmark = pytest.mark.django_db


def page(client: Client, language: str, **changes: Any) -> str:
    data = preset_data("serve-70b")
    assert data is not None
    response = client.get("/calculator/", {**data, **changes}, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def extras_line(html: str) -> str:
    match = re.search(r'<p class="help" id="owning-extras">(.*?)</p>', html, re.S)
    assert match, "the page says what owning includes"
    return match.group(1)


def test_the_page_says_which_extras_owning_includes(client: Client, seed_catalog: object) -> None:
    english = extras_line(page(client, "en"))
    assert english.startswith("Owning includes, besides the servers: a front-end NIC and a")
    assert "installation €" in english and "0.10 FTE of operations staff" in english
    dutch = extras_line(page(client, "nl"))
    assert dutch.startswith("Bezit omvat naast de servers: een front-end-netwerkkaart")
    assert "0,10 fte beheerpersoneel" in dutch


def test_a_workstation_site_includes_no_data_centre_extras(
    client: Client, seed_catalog: object
) -> None:
    english = extras_line(page(client, "en", site="office-workstation-nl"))
    assert english.startswith("A workstation: owning includes no network fabric")
    dutch = extras_line(page(client, "nl", site="office-workstation-nl"))
    assert dutch.startswith("Een werkstation: bezit omvat geen GPU-netwerk")


def test_the_command_line_table_says_what_owning_includes(
    seed_catalog: object, tmp_path: Path
) -> None:
    document = {
        "workload": {"kind": "lora", "params_billion": 8, "tokens_billion": 0.2},
        "server": {"key": "smc-821ge-tnhr-h100", "gpus_per_server": 1, "list_price": 35000},
        "site": "office-workstation-nl",
        "cloud_offerings": ["aws-p5-48xlarge-od"],
        "demand": {"pattern": "continuous"},
    }
    path = tmp_path / "workstation.json"
    path.write_text(json.dumps(document))
    out = io.StringIO()
    call_command("tco", "estimate", "--input", str(path), "--format", "table", stdout=out)
    assert "A workstation: owning includes no network fabric" in out.getvalue()


def test_a_given_networking_figure_is_named_as_given(seed_catalog: object) -> None:
    """A quote's analysis prices the quoted networking lines: the sentence says it is the
    figure given, not the plan's."""
    document = json.loads(
        (Path(__file__).resolve().parents[2] / "docs/examples/serve-70b-overrides.json").read_text()
    )
    document["finance"]["networking_per_server"] = 12_000
    report = build_report(evaluate(build_scenario(document).scenario))
    assert report.owning_extras is not None and report.owning_extras.networking == "given"
    with translation.override("en"):
        assert "the networking figure given ($12,000 per server)" in owning_extras_sentence(report)
    with translation.override("nl"):
        assert "het opgegeven netwerkbedrag" in owning_extras_sentence(report)
