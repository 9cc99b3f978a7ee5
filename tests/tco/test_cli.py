"""`manage.py tco estimate`: the documented examples run; bad files name the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.json"))

pytestmark = pytest.mark.django_db


def estimate(path: Path, capsys: pytest.CaptureFixture[str], fmt: str = "json") -> str:
    call_command("tco", "estimate", "--input", str(path), "--format", fmt)
    return capsys.readouterr().out


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_documented_example_runs(
    seed_catalog: object, path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = json.loads(estimate(path, capsys))
    document = json.loads(path.read_text())
    sizing = result["sizing"]
    assert sizing["memory_per_gpu_gb"] > 0
    assert sizing["gpus_required"] == sizing["servers_required"] * 8
    if document["workload"]["kind"] != "inference":
        assert sizing["training_days"] > 0
    if "servers" in document:
        assert sizing["servers_required"] == document["servers"]
    options = result["options"]
    clouds = [o for o in options if o["kind"] == "cloud"]
    assert len(clouds) + len(result["excluded_offerings"]) == len(document["cloud_offerings"])
    assert sum(o["recommended"] for o in options) == 1
    assert [o["total_cost"] for o in options] == sorted(o["total_cost"] for o in options)
    for option in options:
        assert {"total_cost", "npv"} <= set(option)
        assert option["total_cost"] > 0
        if option["kind"] in ("onprem", "cloud"):  # resell and hybrid have no break-even
            assert {"break_even_utilization", "payback_month"} <= set(option)
    assert result["currency"] == document["finance"]["reporting_currency"]
    table = estimate(path, capsys, "table")
    assert "GPUs required" in table and "Buy and keep" in table
    assert table.splitlines()[0] == result["verdict"]["text"]


def test_pretrain_example_is_sized_for_the_deadline(
    seed_catalog: object, capsys: pytest.CaptureFixture[str]
) -> None:
    result = json.loads(estimate(ROOT / "docs/examples/pretrain-7b-nl.json", capsys))
    # 6 · 7e9 · 1e12 = 4.2e22 FLOPs at 989 TFLOPS × 40 % MFU × 90 % goodput per H100 is
    # 1.18e8 GPU-seconds = 1,365 GPU-days at perfect scaling: 30 days needs > 45.5 GPUs,
    # so 6 servers (48 GPUs), taking at least 1,365 / 48 = 28.4 days.
    assert result["sizing"]["servers_required"] == 6
    assert 28.4 <= result["sizing"]["training_days"] <= 30


def test_overrides_replace_catalog_values(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json.loads((ROOT / "docs/examples/pretrain-7b-nl.json").read_text())
    base = json.loads(estimate(ROOT / "docs/examples/pretrain-7b-nl.json", capsys))
    document["server"] = {"key": document["server"], "list_price": 380000}
    path = tmp_path / "dearer.json"
    path.write_text(json.dumps(document))
    dearer = json.loads(estimate(path, capsys))
    servers = base["sizing"]["servers_required"]
    extra_usd = (380000 - 280000) * servers
    # Options are sorted cheapest first: compare the owned fleet by its kind.
    own, dearer_own = (
        next(o for o in result["options"] if o["kind"] == "onprem") for result in (base, dearer)
    )
    assert dearer_own["total_cost"] > own["total_cost"] + extra_usd * 0.5
    clouds = [
        {o["name"]: o["total_cost"] for o in result["options"] if o["kind"] == "cloud"}
        for result in (base, dearer)
    ]
    assert clouds[0] == clouds[1]  # renting does not depend on the server price


def _broken(tmp_path: Path, change: Any) -> Path:
    document = json.loads((ROOT / "docs/examples/pretrain-7b-nl.json").read_text())
    change(document)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(colour="red"), "colour: unknown field"),
        (lambda d: d["workload"].update(param_billion=7), "workload.param_billion: unknown field"),
        (
            lambda d: d["workload"].update(params_billion="seven"),
            "workload.params_billion: expected a number, got 'seven'",
        ),
        (lambda d: d["workload"].update(params_billion=-7), "workload.params_billion: "),
        (lambda d: d["workload"].update(kind="pretraining"), "workload.kind: must be one of"),
        (lambda d: d["finance"].update(utilization=1.5), "finance.utilization: "),
        (lambda d: d["finance"].update(horizon_months=6), "finance.horizon_months: "),
        (lambda d: d.update(server="smc-999"), "server: unknown server model 'smc-999'"),
        (lambda d: d.update(site={"key": "nl-colo-amsterdam", "pue": 0.5}), "site.pue: "),
        (
            lambda d: d["cloud_offerings"].append("aws-p99"),
            "cloud_offerings[3]: unknown cloud offering 'aws-p99'",
        ),
        (lambda d: d.update(cloud_offerings=[]), "cloud_offerings: expected a list"),
        (lambda d: d.pop("workload"), "workload: is required"),
        (lambda d: d["workload"].pop("tokens_billion"), "workload.tokens_billion: "),
        (lambda d: d.update(servers=True), "servers: expected a whole number"),
    ],
)
def test_bad_scenario_names_the_field(
    seed_catalog: object, tmp_path: Path, change: Any, message: str
) -> None:
    with pytest.raises(CommandError) as caught:
        call_command("tco", "estimate", "--input", str(_broken(tmp_path, change)))
    assert f"broken.json: {message}" in str(caught.value)


def test_file_that_is_not_json_is_refused(seed_catalog: object, tmp_path: Path) -> None:
    path = tmp_path / "scenario.json"
    path.write_text("{ not json")
    with pytest.raises(CommandError, match="not a JSON file"):
        call_command("tco", "estimate", "--input", str(path))
    with pytest.raises(CommandError, match="file not found"):
        call_command("tco", "estimate", "--input", str(tmp_path / "missing.json"))


def test_impossible_workload_exits_with_an_explanation(
    seed_catalog: object, tmp_path: Path
) -> None:
    path = _broken(
        tmp_path,
        lambda d: d["workload"].update(
            params_billion=1900, tokens_billion=90000, deadline_days=0.5
        ),
    )
    with pytest.raises(CommandError) as caught:
        call_command("tco", "estimate", "--input", str(path))
    assert "broken.json: " in str(caught.value)
