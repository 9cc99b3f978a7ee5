"""The typed report (tco/report): built once from the engine's result, block by block,
one JSON form that reads back as the same report (stored revisions: tests/quotes).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from django.http import QueryDict
from pydantic import BaseModel, ValidationError

from tco.analysis.calculator import analyse_query
from tco.engine import evaluate
from tco.engine.examples import reference_scenario
from tco.inputs.presets import PRESETS
from tco.report import Bridge, Capacity, Option, Report, Timing, build_report
from tco.report.rounding import figure

# Each option's time to capacity (tco/report/capacity_blocks.py).
TIME_KEYS = ("ready_date", "ready_in_days", "bridge", "time")


def untimed(data: dict[str, Any]) -> bool:
    """Without a capacity block: the keys are there, null (as stored revisions have them)."""
    return data["capacity"] is None and all(
        o[k] is None for o in data["options"] for k in TIME_KEYS
    )


def undeclared(model: BaseModel, path: str = "") -> list[str]:
    """Every key of the JSON that a model of the report does not declare."""
    found = [f"{path}.{key}" for key in model.model_extra or {}]
    for name in type(model).model_fields:
        value = getattr(model, name)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, BaseModel):
                found += undeclared(item, f"{path}.{name}")
    return found


def test_the_reference_scenario_reads_as_typed_figures() -> None:
    # tests/engine/test_scenario.py derives these by hand.
    report = build_report(evaluate(reference_scenario()))
    onprem = report.onprem
    assert onprem is not None and onprem.kind == "onprem"
    assert onprem.total_cost == pytest.approx(4_850_339.12, abs=0.01)
    assert onprem.npv == pytest.approx(4_389_212.06, abs=0.01)
    aws = report.option("AWS p5.48xlarge (on-demand)")
    clouds = list(report.options_of("cloud"))
    assert len(clouds) == 3
    costs = sorted(c.total_cost or 0.0 for c in clouds)
    assert costs == pytest.approx([9_058_190.40, 10_125_158.40, 10_212_408.00], abs=0.01)
    assert aws is None or aws.kind == "cloud"
    assert sorted(c.payback_month or 0 for c in clouds) == [17, 18, 21]
    assert report.sizing.training_days is not None and report.sizing.replicas is None
    assert len(report.tornado.bars) == 10
    # cheapest first, as the engine ranks them
    totals = [o.total_cost for o in report.options if o.total_cost is not None]
    assert totals == sorted(totals)


def test_the_json_form_is_json_and_reads_back() -> None:
    result = evaluate(reference_scenario())
    for cashflows in (False, True):
        report = build_report(result, include_cashflows=cashflows)
        assert untimed(report.to_json())
        text = json.dumps(report.to_json(), sort_keys=True, allow_nan=False)
        assert Report.from_json(text) == report
        assert Report.from_json(json.loads(text)).to_json() == report.to_json()
    with_cashflows = build_report(result, include_cashflows=True)
    onprem = with_cashflows.onprem
    assert onprem is not None and onprem.cashflow is not None
    # Month 0 (the purchase) and the 60 months of the horizon.
    assert onprem.cashflow["month"][:3] == [0, 1, 2] and len(onprem.cashflow["month"]) == 61
    # The monthly totals add up to the option's total (tests/engine/test_scenario.py:
    # 4,850,339.12 by hand), each month rounded to the cent.
    assert sum(onprem.cashflow["total"]) == pytest.approx(4_850_339.12, abs=61 * 0.005)
    assert "cashflow" not in build_report(result).to_json()["options"][0]


def test_figures_are_rounded_once_by_the_report() -> None:
    # tco/report/rounding.py: money to the cent, shares to 4 digits, not finite: None.
    assert figure(4_850_339.1249, 2) == 4_850_339.12
    assert figure(0.362_349_9, 4) == 0.3623
    assert figure(float("nan"), 2) is None and figure(float("-inf"), 2) is None
    assert figure(None) is None
    report = build_report(evaluate(reference_scenario()))
    aws = report.option("AWS p5.48xlarge (on_demand)")
    # tests/engine/test_scenario.py: AWS on demand breaks even at 32.286 % utilization
    # by hand: 0.3229 at 4 digits.
    assert aws is not None and aws.break_even_utilization == 0.3229


def test_fields_of_another_kind_stay_out_of_the_json() -> None:
    report = build_report(evaluate(reference_scenario()))
    onprem = report.to_json()["options"][[o.kind for o in report.options].index("onprem")]
    assert "provider" not in onprem and "model" not in onprem
    # a training run's sizing has no serving fields, and they read as None
    assert "replicas" not in report.to_json()["sizing"]
    assert report.sizing.latency_targets is None


def test_a_field_a_newer_engine_adds_is_kept() -> None:
    data = build_report(evaluate(reference_scenario())).to_json()
    data["site_duties"] = [{"code": "x"}]
    data["options"][0]["water_litres"] = 42  # a field no model declares yet
    report = Report.from_json(data)
    assert report.to_json() == data
    assert report.options[0].model_extra == {"water_litres": 42}


def test_a_broken_report_is_refused_with_its_path() -> None:
    data = build_report(evaluate(reference_scenario())).to_json()
    data["options"][1]["kind"] = "lease"
    del data["verdict"]["recommended"]
    with pytest.raises(ValidationError) as caught:
        Report.from_json(data)
    locations = {tuple(e["loc"]) for e in caught.value.errors()}
    assert ("options", 1, "kind") in locations
    assert ("verdict", "recommended") in locations


def test_the_report_is_read_only() -> None:
    report = build_report(evaluate(reference_scenario()))
    with pytest.raises(ValidationError):
        field = "total_cost"  # any field: the report is frozen (what the test checks)
        setattr(report.options[0], field, 1.0)
    changed = report.model_copy(update={"currency": "EUR"})
    assert changed.currency == "EUR" and report.currency == "USD"


@pytest.mark.django_db
@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
@pytest.mark.parametrize("server", ["", "&server=auto"])
def test_every_preset_round_trips(seed_catalog: object, preset: str, server: str) -> None:
    _form, outcome = analyse_query(QueryDict(f"preset={preset}{server}"))
    assert outcome.analysis is not None, outcome.problem
    result = outcome.analysis.result
    for cashflows in (False, True):
        report = build_report(result, include_cashflows=cashflows)
        text = json.dumps(report.to_json(), sort_keys=True, allow_nan=False)
        assert untimed(report.to_json())  # a preset asks for no date
        assert Report.from_json(text) == report
        # every key of the summary is typed
        assert undeclared(report) == []
    # the analysis carries the report built from its result
    assert outcome.analysis.report == build_report(result)
    assert isinstance(outcome.analysis.report.options[0], Option)


def test_a_served_model_has_its_serving_blocks() -> None:
    from tco.engine import Workload, WorkloadKind

    scenario = reference_scenario()
    w = Workload(WorkloadKind.INFERENCE, 70.0, target_tokens_per_second=20_000.0)
    report = build_report(evaluate(dataclasses.replace(scenario, workload=w)))
    assert report.sizing.tokens_per_second_capacity is not None
    assert report.sizing.tokens_per_second_capacity >= 20_000.0
    assert report.sizing.training_days is None
    assert all((o.cost_per_million_tokens or 0) > 0 for o in report.options_of("onprem", "cloud"))


def test_a_bridge_booked_after_the_need_date_says_the_work_starts_late() -> None:
    # The reference scenario's 4 servers (32 GPUs) with on demand taken to hold 8 GPUs:
    # the bridge is its first cloud as a capacity block booked 14 days ahead. Needed at
    # once, ready on day 70 (10 weeks, no installation): the block runs days 14-70, and
    # the first 2 weeks pay the cost of delay, 2 × $7,000 = $14,000; 56 × 24 = 1,344 h held.
    from datetime import date

    from tco.engine.capacity import CapacityInputs
    from tco.engine.inputs import CloudTerm
    from tco.presentation.wording_capacity import bridge_terms, time_sentence

    base = reference_scenario()
    block = dataclasses.replace(
        base.cloud_offerings[0],
        term=CloudTerm.CAPACITY_BLOCK,
        ready_in_days=14.0,
        min_billed_hours=24.0,
    )
    server = dataclasses.replace(base.server, units_in_stock=0, lead_time_weeks=10)
    when = CapacityInputs(
        date(2026, 12, 3),
        needed_in_days=0,
        install_days=0,
        cost_of_delay_per_week=7_000.0,
        on_demand_bridge_gpus=8,
    )
    scenario = dataclasses.replace(
        base,
        servers=4,
        server=server,
        cloud_offerings=(block, *base.cloud_offerings[1:]),
        capacity=when,
    )
    report = build_report(evaluate(scenario))
    own = report.onprem
    assert own is not None and own.bridge is not None and own.time is not None
    assert (own.bridge.obtained, own.bridge.start_in_days, own.bridge.days) == (
        "capacity_block",
        14.0,
        56.0,
    )
    assert own.time.delay_cost == 14_000.0
    assert bridge_terms(own) == (
        "Booked as a capacity block from day 14, billed for every hour held and at least "
        "1 day: 1,344 hours per instance."
    )
    assert own.recommended
    sentence = time_sentence(report)
    assert "from day 14, as soon as it can be booked" in sentence
    assert "the work starts 2 weeks after your 0-day deadline ($14,000)" in sentence


def test_time_to_capacity_is_built_typed_from_the_engines_plan() -> None:
    # tests/engine/test_capacity.py: 4 servers, none in stock, 10 weeks' lead time, no
    # installation, needed in 30 days: ready on day 70, bridged from day 30 by 4 CoreWeave
    # instances on demand (32 GPUs, within the 64 taken to be free), every hour held:
    # 40 × 24 = 960 hours each at $49.24: 4 × 960 × 49.24 = $189,081.60.
    from datetime import date

    from tco.engine.capacity import CapacityInputs

    base = reference_scenario()
    server = dataclasses.replace(base.server, units_in_stock=0, lead_time_weeks=10)
    when = CapacityInputs(date(2026, 12, 3), needed_in_days=30, install_days=0)
    result = evaluate(dataclasses.replace(base, servers=4, server=server, capacity=when))
    report = build_report(result)
    own = report.onprem
    assert own is not None
    assert (own.ready_date, own.ready_in_days) == (date(2027, 2, 11), 70.0)
    assert own.bridge == Bridge(
        option="CoreWeave 8x H100 (on_demand)",
        instances=4,
        start_in_days=30.0,
        days=40.0,
        hours=960.0,
        price_per_instance_hour=49.24,
        cost=189_081.60,
        obtained="on_demand",
        gpus=32,
        minimum_days=0.0,
        risk=None,
        on_demand_limit_gpus=64.0,
    )
    assert own.time == Timing(
        code="lead_time", late_days=40.0, delay_cost=0.0, extra_cost=189_081.60, ruled_out=False
    )
    assert report.capacity == Capacity(
        as_of=date(2026, 12, 3),
        needed_in_days=30.0,
        needed_date=date(2027, 1, 2),
        if_late="bridge",
        cost_of_delay_per_week=0.0,
        site_readiness_weeks=0.0,
        install_days=0.0,
        lead_time_range=[0.85, 1.35],
        units_in_stock=0,
        lead_time_weeks=10.0,
    )
    # An on-demand cloud is ready at once: on time, no bridge.
    coreweave = report.option("CoreWeave 8x H100 (on_demand)")
    assert coreweave is not None and coreweave.bridge is None
    assert coreweave.time == Timing(
        code="on_demand", late_days=0.0, delay_cost=0.0, extra_cost=0.0, ruled_out=False
    )
    assert undeclared(report) == []
    data = report.to_json()
    assert data["capacity"]["needed_date"] == "2027-01-02"  # dates as ISO text in the JSON
    assert Report.from_json(json.dumps(data)) == report
