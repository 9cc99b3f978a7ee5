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
