"""One cost of owning: with a bridge, the owned option's row, the verdict, the saving beside
every other row and the owning components all carry the same total, bridge included
(tco/report/option_rows.py ``timed``; the audit found €12.68 M in the row and €13.30 M in the
verdict of one proposal)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tco.analysis import analyse, owning_components

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_the_owned_row_includes_its_bridge_and_every_saving_adds_up(seed_catalog: object) -> None:
    document = json.loads((ROOT / "docs/examples/pretrain-7b-nl.json").read_text())
    document["cloud_offerings"] = ["coreweave-h100-8x-od", "aws-p5e-48xlarge-cb"]
    document["capacity"] = {"as_of": "2026-12-03", "needed_in_days": 30}
    analysis = analyse(document)
    report = analysis.report
    own = report.onprem
    assert own is not None and own.time is not None and own.bridge is not None
    bridge = own.bridge
    assert bridge.cost is not None and bridge.price_per_instance_hour is not None
    # The bridge is billed for every hour it is held: instances × hours × price an hour
    # (the hours and the price are rounded in the report, hence 1e-5).
    assert bridge.cost == pytest.approx(
        bridge.instances * bridge.hours * bridge.price_per_instance_hour, rel=1e-5
    )
    # The row's total is the engine's cost of buying and keeping plus that bridge (no cost
    # of delay under "bridge").
    untimed = analysis.result.onprem.total_cost
    assert own.time.extra_cost == pytest.approx(bridge.cost, abs=0.01)
    assert own.total_cost == pytest.approx(untimed + bridge.cost, abs=0.02)
    # The verdict states that figure, and "more than the best" is each row minus the best.
    best = next(o for o in report.options if o.recommended)
    assert best.total_cost is not None
    if report.verdict.action == "buy":
        assert report.verdict.params["cost"] == pytest.approx(own.total_cost, abs=0.01)
    for option in report.options:
        if option.eligible and option.total_cost is not None:
            assert option.saving_vs_best == pytest.approx(
                option.total_cost - best.total_cost, abs=0.02
            )
    # The proposal's owning components add up to the row, the bridge as its own component.
    components = owning_components(analysis, "en")
    assert components[-1]["key"] == "time_to_capacity"
    assert sum(c["amount"] for c in components) == pytest.approx(own.total_cost, abs=0.1)
