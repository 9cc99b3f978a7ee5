"""Revisions store the report's JSON form, and a revision keeps reading as it was written.

The two stored analyses in data/ were written by the calculator on 6 December 2026 (quote
snapshots, ``tco_snapshot``): the 70B pre-training preset and the customer-service preset,
each needed in 30 days with the servers 10 weeks away and none in stock, late capacity
bridged. They hold every block of today's report: options of four kinds, a bridge with its
risk, the buyer's site that does not fit and the colocation the fleet moves to, serving
from users, hosted APIs, horizons, the Monte Carlo's ranges. A revision must read back
and write back exactly what was stored, whatever the code that builds new reports.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from quotes.services import stored_report

DATA = Path(__file__).parent / "data"
STORED = ("revision_tco_2026_12_06_pretrain_bridge.json", "revision_tco_2026_12_06_serving.json")


def stored(name: str) -> dict[str, Any]:
    tco: dict[str, Any] = json.loads((DATA / name).read_text())
    return tco


@pytest.mark.parametrize("name", STORED)
def test_a_stored_revision_reads_and_writes_back_identically(name: str) -> None:
    tco = stored(name)
    report = stored_report(tco)
    assert report is not None
    assert report.to_json() == tco["summary"]
    # and once more through the text a revision's JSON field holds
    assert type(report).from_json(json.dumps(report.to_json())).to_json() == tco["summary"]


def test_the_stored_bridge_reads_as_the_hand_figures() -> None:
    report = stored_report(stored(STORED[0]))
    assert report is not None and report.capacity is not None
    own = report.onprem
    assert own is not None and own.bridge is not None and own.time is not None
    # Ordered 6 Dec 2026; 10 weeks' lead time + 14 days' installation = day 84:
    # 6 Dec 2026 + 84 days = 28 Feb 2027. Needed on day 30 (5 Jan 2027): 54 days late.
    assert (report.capacity.as_of, report.capacity.needed_date) == (
        date(2026, 12, 6),
        date(2027, 1, 5),
    )
    assert (own.ready_date, own.ready_in_days, own.time.late_days) == (
        date(2027, 2, 28),
        84.0,
        54.0,
    )
    # 17 instances held 54 × 24 = 1,296 h each at ≈ 46.1379 an instance-hour:
    # 17 × 1,296 × 46.1379 = 1,016,510 (the price is stored rounded to 4 digits).
    b = own.bridge
    assert (b.instances, b.hours, b.gpus) == (17, 1296.0, 17 * 8)
    assert b.cost == pytest.approx(17 * 1296 * 46.1379, abs=1.0)
    assert own.time.extra_cost == b.cost
    # 136 GPUs on demand above the 64 a provider is taken to hold: not guaranteed.
    assert (b.risk, b.on_demand_limit_gpus) == ("not_guaranteed", 64.0)
    site = report.site_fit
    assert site is not None and site.status == "does_not_fit"
    assert site.placed_at is not None and site.placed_at.status == "fits"


def test_the_stored_serving_reads_as_the_hand_figures() -> None:
    report = stored_report(stored(STORED[1]))
    assert report is not None and report.serving is not None
    s = report.serving
    # 2,000 users × 20 requests a day = 40,000 requests a working day; 5 days a week:
    # 40,000 × 5 × 365 / 7 / 12 = 869,047.62 requests a month.
    assert s.requests_per_day == 40_000.0
    assert s.requests_per_month == pytest.approx(40_000 * 5 * 365 / 7 / 12, abs=0.01)
    api = report.options[0]
    assert api.kind == "api" and api.total_cost is not None
    # cost per request: the total over 60 months of requests.
    assert api.cost_per_request == pytest.approx(api.total_cost / (869_047.62 * 60), rel=1e-6)
