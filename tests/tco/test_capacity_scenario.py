"""The scenario document's capacity block and the catalog's availability reach the engine
(tco/scenario/resolve.py): stock, lead time, installation, booking leads, the Monte Carlo's
late end from the catalog's published range, and the document's own overrides."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from tco.engine import LatePolicy
from tco.scenario.resolve import build_scenario

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def document(**changes: object) -> dict[str, object]:
    doc: dict[str, object] = json.loads((ROOT / "docs/examples/pretrain-7b-nl.json").read_text())
    doc["cloud_offerings"] = ["coreweave-h100-8x-od", "aws-p5e-48xlarge-cb"]
    doc.update(changes)
    return doc


def test_catalog_availability_and_the_capacity_block_reach_the_engine(
    seed_catalog: object,
) -> None:
    built = build_scenario(document(capacity={"as_of": "2026-12-03", "needed_in_days": 30}))
    scenario = built.scenario
    # Supermicro SYS-821GE-TNHR (H100): none in stock, 44 weeks, up to 52; 7 days' install.
    assert (scenario.server.units_in_stock, scenario.server.lead_time_weeks) == (0, 44.0)
    capacity = scenario.capacity
    assert capacity is not None
    assert (capacity.as_of, capacity.needed_in_days, capacity.if_late) == (
        date(2026, 12, 3),
        30,
        LatePolicy.BRIDGE,
    )
    assert capacity.install_days == 7.0
    assert capacity.lead_time_range == pytest.approx((0.85, 52 / 44))
    # A capacity block is booked 14 days ahead (estimate); on demand is ready at once.
    ready = {o.instance_type: o.ready_in_days for o in scenario.cloud_offerings}
    assert ready == {"HGX H100 8-GPU": 0.0, "p5e.48xlarge": 14.0}


def test_the_document_overrides_the_catalogs_availability(seed_catalog: object) -> None:
    built = build_scenario(
        document(
            server={"key": "smc-821ge-tnhr-h100", "units_in_stock": 8, "lead_time_weeks": 3},
            capacity={"needed_in_days": 10, "install_days": 2, "lead_time_range": [1, 1]},
        )
    )
    scenario = built.scenario
    assert (scenario.server.units_in_stock, scenario.server.lead_time_weeks) == (8, 3.0)
    assert scenario.capacity is not None
    assert (scenario.capacity.install_days, scenario.capacity.lead_time_range) == (2, (1, 1))


def test_no_capacity_block_means_ready_on_day_one(seed_catalog: object) -> None:
    assert build_scenario(document()).scenario.capacity is None


def test_a_bridge_too_large_for_on_demand_books_the_catalogs_capacity_block(
    seed_catalog: object,
) -> None:
    # With on demand taken to hold at most 8 GPUs, the H100 fleet's bridge (more than one
    # 8-GPU instance) is booked as the catalog's p5e capacity block (14 days' booking lead,
    # at least one day). Needed on day 30 (after the lead), the servers ready on day
    # 44 × 7 + 7 = 315: held 285 days, 285 × 24 = 6,840 hours per instance.
    from tco.engine.scenario import OWN_NAME, evaluate

    capacity = {"as_of": "2026-12-03", "needed_in_days": 30, "on_demand_bridge_gpus": 8}
    result = evaluate(build_scenario(document(capacity=capacity)).scenario)
    assert result.capacity is not None
    own = result.capacity.timing(OWN_NAME)
    assert own is not None and own.bridge is not None
    assert own.bridge.instances > 1
    assert (own.bridge.code, own.bridge.minimum_days, own.bridge.risk) == (
        "capacity_block",
        1.0,
        "",
    )
    assert (own.bridge.start_in_days, own.bridge.days) == (30, 285)
    assert own.bridge.hours == pytest.approx(6_840.0)
