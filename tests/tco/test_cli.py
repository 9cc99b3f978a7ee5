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
    # 6 · 7e9 · 1e12 = 4.2e22 FLOPs at 989 TFLOPS × 45 % MFU × 90 % goodput per H100 is
    # 1.049e8 GPU-seconds = 1,213.6 GPU-days at perfect scaling: 30 days needs > 40.45 GPUs,
    # so 6 servers (48 GPUs), taking at least 1,213.6 / 48 = 25.3 days.
    assert result["sizing"]["servers_required"] == 6
    assert 25.3 <= result["sizing"]["training_days"] <= 30
    # GPU-hours = hours × GPUs
    sizing = result["sizing"]
    assert sizing["gpu_hours"] == pytest.approx(sizing["training_hours"] * 48, rel=1e-4)


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


# --- never a traceback ------------------------------------------------------------------


def _refused(path: Path) -> str:
    """Run `tco estimate`; it must refuse with a one-line message (exit status 1)."""
    with pytest.raises(CommandError) as caught:
        call_command("tco", "estimate", "--input", str(path), "--format", "table")
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    assert caught.value.returncode == 1
    return message


def test_deeply_nested_json_is_refused(seed_catalog: object, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in _refused(path)
    # deep but within Python's parser: refused by the scenario check, naming the field
    document = json.loads((ROOT / "docs/examples/pretrain-7b-nl.json").read_text())
    nested: Any = 1
    for _ in range(50):
        nested = {"x": nested}
    document["workload"]["params_billion"] = nested
    path.write_text(json.dumps(document))
    assert "workload.params_billion.x" in _refused(path)


def test_huge_integer_literal_is_refused(seed_catalog: object, tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    text = (ROOT / "docs/examples/pretrain-7b-nl.json").read_text()
    path.write_text(text.replace('"params_billion": 7', '"params_billion": ' + "9" * 5000))
    assert "not a usable JSON file" in _refused(path)


def test_integer_too_large_for_a_float_names_the_field(
    seed_catalog: object, tmp_path: Path
) -> None:
    path = _broken(tmp_path, lambda d: d["workload"].update(tokens_billion=10**400))
    assert "workload.tokens_billion: the number is too large" in _refused(path)


def test_totals_overflowing_to_infinity_name_the_output(
    seed_catalog: object, tmp_path: Path
) -> None:
    path = _broken(tmp_path, lambda d: d.update(server={"key": d["server"], "list_price": 1e308}))
    message = _refused(path)
    assert "options[0]" in message and "too large" in message


def test_directory_as_input_is_refused(seed_catalog: object, tmp_path: Path) -> None:
    assert "is a directory" in _refused(tmp_path)


def test_unsupported_reporting_currency_is_refused(seed_catalog: object, tmp_path: Path) -> None:
    path = _broken(tmp_path, lambda d: d["finance"].update(reporting_currency="GBP"))
    message = _refused(path)
    assert "finance.reporting_currency: GBP is not supported" in message


def test_table_shows_a_dash_for_missing_numbers() -> None:
    from tco.engine import evaluate
    from tco.engine.examples import reference_scenario
    from tco.management.commands.tco import render_table
    from tco.report import Report, build_report

    data = build_report(evaluate(reference_scenario())).to_json()
    data["sizing"]["memory_per_gpu_gb"] = None
    data["options"][0].update(total_cost=None, npv=None, saving_vs_best=None)
    table = render_table(Report.from_json(data))
    assert "Memory per GPU: – GB" in table
    first = next(line for line in table.splitlines() if data["options"][0]["name"][:40] in line)
    assert first.split()[-4:-1] == ["–", "–", "–"]  # total, extra, NPV


def test_percent_where_a_fraction_belongs_is_refused(seed_catalog: object, tmp_path: Path) -> None:
    path = _broken(tmp_path, lambda d: d["finance"].update(support_pct_per_year=7.5))
    message = _refused(path)
    assert "finance.support_pct_per_year: 7.5 looks like a percentage" in message
    assert "write 0.075" in message
    path = _broken(tmp_path, lambda d: d["workload"].update(mfu=45))
    assert "workload.mfu: 45 looks like a percentage" in _refused(path)


def test_gpu_override_by_catalog_key(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _broken(tmp_path, lambda d: d.update(server={"key": d["server"], "gpu": "a100-80gb"}))
    result = json.loads(estimate(path, capsys))
    # A100: 312 dense BF16 TFLOPS instead of 989: 4.2e22 / (312e12 × 0.405) = 92,330 GPU-h
    # at perfect scaling; 30 days = 720 h needs > 128 GPUs → at least 17 servers
    assert result["sizing"]["servers_required"] >= 17
    assert result["sizing"]["gpu_memory_gb"] == 80.0
    missing = _broken(tmp_path, lambda d: d.update(server={"key": d["server"], "gpu": "a999"}))
    assert "server.gpu: unknown GPU 'a999'" in _refused(missing)
    # a catalog GPU with one field overridden: an A100 with 40 GB
    smaller = _broken(
        tmp_path,
        lambda d: d.update(
            server={"key": d["server"], "gpu": {"key": "a100-80gb", "memory_gb": 40}}
        ),
    )
    assert json.loads(estimate(smaller, capsys))["sizing"]["gpu_memory_gb"] == 40.0
    wrong = _broken(
        tmp_path,
        lambda d: d.update(server={"key": d["server"], "gpu": {"key": "l40s", "memory_gb": -1}}),
    )
    assert "server.gpu.memory_gb: " in _refused(wrong)


@pytest.mark.parametrize("server", ["nvidia-dgx-a100-640gb", "smc-521ge-tnrt-l40s"])
def test_a100_and_l40s_servers_from_the_catalog(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str], server: str
) -> None:
    path = _broken(tmp_path, lambda d: d.update(server=server))
    result = json.loads(estimate(path, capsys))
    sizing = result["sizing"]
    # A100 80 GB or L40S 48 GB, 10 % headroom kept free
    assert sizing["usable_memory_gb"] == pytest.approx(sizing["gpu_memory_gb"] * 0.9)
    assert sizing["memory_per_gpu_gb"] <= sizing["usable_memory_gb"]
    assert sizing["gpus_required"] == sizing["servers_required"] * 8


def test_constraint_outcome_and_horizons_are_in_the_json(
    seed_catalog: object, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ROOT / "docs/examples/lora-70b-eu-own-premises.json"
    result = json.loads(estimate(path, capsys))
    outcome = result["constraints"]
    assert outcome["eu_data_only"] and outcome["own_premises_only"]
    # Every cloud leaves the premises; AWS's region is also outside the EU, Hyperstack's unknown.
    reasons = {e["name"]: [n["code"] for n in e["violations"]] for e in outcome["excluded"]}
    assert reasons == {
        "AWS p5.48xlarge (on_demand)": ["data_outside_eu", "not_own_premises"],
        "Nebius 8x H100 SXM (on_demand)": ["not_own_premises"],
        "Scaleway 8x H100 SXM (on_demand)": ["not_own_premises"],
        "Hyperstack 8x H100 SXM (on_demand)": ["data_country_unknown", "not_own_premises"],
    }
    options = {o["name"]: o for o in result["options"]}
    cheapest = min(result["options"], key=lambda o: o["total_cost"])
    best = next(o for o in result["options"] if o["recommended"])
    assert cheapest["kind"] == "cloud" and not cheapest["eligible"]
    assert best["kind"] in ("onprem", "onprem_resell")
    assert outcome["decided_verdict"] is True
    assert outcome["cheapest_overall"] == cheapest["name"]
    assert outcome["cheapest_compliant"] == best["name"]
    assert outcome["cost_of_constraints"] == pytest.approx(
        best["total_cost"] - cheapest["total_cost"], abs=0.02
    )
    assert "Your constraints decided this" in result["verdict"]["text"]
    assert all(o["eligible"] is False for n, o in options.items() if o["kind"] == "cloud")
    horizons = result["horizons"]
    assert horizons["months"] == [36, 60, 84, 120] and horizons["refreshes"] == [0, 0, 1, 1]
    own = next(o for o in horizons["options"] if o["kind"] == "onprem")
    assert own["totals"][1] == pytest.approx(options["Buy and keep"]["total_cost"], abs=0.01)
    table = estimate(path, capsys, "table")
    assert "x Scaleway 8x H100 SXM (on_demand): Data would leave your own premises." in table
    assert "total by horizon" in table
