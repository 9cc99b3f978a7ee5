"""A revision's frozen analysis reads its time to capacity back as typed blocks (tco.report:
Option.bridge, Option.time, Report.capacity), whether it was written with them (today's
shape) or before time to capacity existed (no such keys: every option ready on day one).

The stored JSON (data/revision_tco_time_to_capacity.json) was written by the report as it
was before these blocks were typed: the reference scenario on a fixed fleet of 4 servers,
none in stock, 10 weeks' lead time, no installation time, ordered on 3 December 2026 and
needed in 30 days (tests/engine/test_capacity.py derives its figures by hand).
"""

from __future__ import annotations

import copy
import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from quotes.services import stored_report
from tco.presentation.wording_capacity import bridge_text, ready_cell, time_sentence, timeline
from tco.report import Bridge, Capacity, Report, Timing

STORED = Path(__file__).parent / "data" / "revision_tco_time_to_capacity.json"
TIME_KEYS = ("ready_date", "ready_in_days", "bridge", "time")


def todays_revision() -> dict[str, Any]:
    tco: dict[str, Any] = json.loads(STORED.read_text())
    return tco


def revision_before_time_to_capacity() -> dict[str, Any]:
    """The same analysis as a revision written before time to capacity: no keys at all."""
    tco = copy.deepcopy(todays_revision())
    del tco["summary"]["capacity"]
    for option in tco["summary"]["options"]:
        for key in TIME_KEYS:
            del option[key]
    return tco


def test_a_revision_in_todays_shape_reads_typed_time_to_capacity() -> None:
    tco = todays_revision()
    report = stored_report(tco)
    assert report is not None
    own = report.onprem
    assert own is not None and own.recommended
    # Ships in 10 weeks (day 70), needed on day 30: 3 Dec 2026 + 70 days = 11 Feb 2027.
    assert own.ready_date == date(2027, 2, 11)
    assert own.ready_in_days == 70.0
    # 4 CoreWeave instances for days 30 to 70 at the fleet's 70 % use: 40 × 24 × 0.70 =
    # 672 hours each, at $49.24 an instance-hour: 4 × 672 × 49.24 = $132,357.12.
    assert own.bridge == Bridge(
        option="CoreWeave 8x H100 (on_demand)",
        instances=4,
        start_in_days=30.0,
        days=40.0,
        hours=672.0,
        price_per_instance_hour=49.24,
        cost=132_357.12,
    )
    assert own.time == Timing(
        code="lead_time", late_days=40.0, delay_cost=0.0, extra_cost=132_357.12, ruled_out=False
    )
    capacity = report.capacity
    assert isinstance(capacity, Capacity)
    assert (capacity.as_of, capacity.needed_date) == (date(2026, 12, 3), date(2027, 1, 2))
    assert (capacity.if_late, capacity.units_in_stock, capacity.lead_time_weeks) == (
        "bridge",
        0,
        10.0,
    )
    clouds = [o for o in report.options if o.kind == "cloud"]
    assert clouds and all(o.bridge is None and o.time is not None for o in clouds)
    # Nothing is lost or added: the report writes back exactly what was stored.
    assert report.to_json() == tco["summary"]
    assert Report.from_json(json.dumps(tco["summary"])) == report


def test_todays_revision_is_worded_and_rendered_from_the_typed_blocks() -> None:
    report = stored_report(todays_revision())
    assert report is not None and report.onprem is not None
    with translation.override("en"):
        bridge = bridge_text(report.onprem, report.currency)
        assert bridge == "Bridge: 4 × CoreWeave 8x H100, on demand for 40 days, $132,357"
        assert ready_cell(report.onprem) == "11 Feb 2027"
        sentence = time_sentence(report)
        assert "ships in 10 weeks, ready on 11 Feb 2027" in sentence
        assert "for the first 6 weeks ($132,357) to meet your 30-day deadline" in sentence
        chart = timeline(report)
        assert chart is not None
        assert (chart["start"], chart["needed"]) == ("3 Dec 2026", "2 Jan 2027")
        # The span: the latest ready date (day 70) plus a fifth, 84 days; the need date at
        # 30 / 84 = 35.71 %; the bridge drawn once, from 35.71 % to 70 / 84 = 83.33 %.
        assert chart["end_days"] == 84 and chart["needed_left"] == 35.71
        (bridge_row,) = [r for r in chart["rows"] if r["segments"][0]["kind"] == "bridge"]
        assert bridge_row["segments"][0]["left"] == 35.71
        assert bridge_row["segments"][0]["width"] == pytest.approx(83.33 - 35.71)
        html = render_to_string(
            "quotes/pdf/_delivery_schedule.html", {"s": report, "cur": report.currency}
        )
    text = " ".join(html.split())
    assert "rent 4 × CoreWeave 8x H100, on demand for 40 days: $132,357" in text
    assert "11 Feb 2027" in text and "2 Jan 2027" in text


def test_a_revision_from_before_time_to_capacity_still_reads() -> None:
    tco = revision_before_time_to_capacity()
    report = stored_report(tco)
    assert report is not None and report.capacity is None
    for option in report.options:
        assert (option.ready_date, option.ready_in_days, option.bridge, option.time) == (
            None,
            None,
            None,
            None,
        )
    # The defaults stay out of its JSON form: it writes back what was stored.
    assert report.to_json() == tco["summary"]
    assert report.onprem is not None
    with translation.override("en"):
        assert time_sentence(report) == ""
        assert timeline(report) is None
        assert ready_cell(report.onprem) == "–"
        assert bridge_text(report.onprem, report.currency) == ""


def test_a_stored_bridge_missing_a_figure_is_refused_with_its_path() -> None:
    tco = todays_revision()
    own = next(o for o in tco["summary"]["options"] if o["kind"] == "onprem")
    del own["bridge"]["days"]
    with pytest.raises(ValueError) as caught:
        stored_report(tco)
    assert "options.0.bridge.days" in str(caught.value)
