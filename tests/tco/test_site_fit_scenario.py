"""The site fit through a scenario document (issue 34): the catalog's sites and facility
items reach the engine, `site` overrides change the answer, and the JSON carries each owned
option's `site_fit` and the result's `site_duties`. Figures from catalog/data by hand."""

from __future__ import annotations

from typing import Any

import pytest

from tco.engine import evaluate, result_to_dict
from tco.scenario.resolve import build_scenario

pytestmark = pytest.mark.django_db

USD_PER_EUR = 1.16  # the catalog's newest EUR→USD rate


def _document(site: Any) -> dict[str, Any]:
    return {
        "name": "One GB300 NVL72",
        "workload": {"kind": "inference", "params_billion": 70},
        "server": "nvidia-gb300-nvl72",
        "site": site,
        "servers": 1,
        "cloud_offerings": ["aws-p5-48xlarge-od"],
        "finance": {"horizon_months": 60, "reporting_currency": "EUR", "utilization": 0.7},
        "demand": {"pattern": "continuous"},
    }


def test_an_air_cooled_server_room_sends_the_rack_to_the_liquid_ready_colocation(
    seed_catalog: object,
) -> None:
    """The NVL72 (140 kW, 38 kW idle) in the 10 kW air-cooled server room: does not fit; at
    the liquid-ready colocation 140 kW × €175 = €24,500 a month, 60 months €1,470,000;
    energy (38 + 102 × 0.7) kW × 1.15 × 730 h × 60 = 5,531,721.0 kWh."""
    result = evaluate(build_scenario(_document("onprem-server-room")).scenario)
    out = result_to_dict(result)
    own = next(o for o in out["options"] if o["kind"] == "onprem")
    fit = own["site_fit"]
    assert fit["status"] == "does_not_fit"
    assert [r["code"] for r in fit["reasons"]] == ["needs_liquid_cooling"]
    placed = fit["placed_at"]
    assert placed["site"] == "Liquid-ready colocation Amsterdam area (NL)"
    assert (placed["status"], placed["pue"]) == ("fits", 1.15)
    assert placed["colocation_cost"] == pytest.approx(140 * 175 * 60)
    assert result.energy_kwh == pytest.approx((38 + 102 * 0.7) * 1.15 * 730 * 60)
    assert out["site_duties"] == []  # 140 kW: below the EED's 500 kW


def test_facility_water_in_the_room_makes_it_a_priced_build_out(seed_catalog: object) -> None:
    """Facility water and a 150 kW feed: one CDU ($90,000) and 140 kW × $400 of loop =
    $146,000 = €125,862.07 at 1.16, in 26 weeks; the PUE of liquid racks is the override's."""
    site = {
        "key": "onprem-server-room",
        "cooling": "facility_water",
        "rack_power_limit_kw": 150,
        "pue_liquid": 1.2,
    }
    out = result_to_dict(evaluate(build_scenario(_document(site)).scenario))
    fit = out["site_fit"]
    assert fit["status"] == "build_out" and "placed_at" not in fit
    assert [(x["item"], x["quantity"]) for x in fit["build_out_lines"]] == [
        ("cdu", 1.0),
        ("liquid_cooling", 140.0),
    ]
    assert fit["build_out_cost"] == pytest.approx(146_000 / USD_PER_EUR, abs=0.01)
    assert (fit["build_out_weeks"], fit["pue"]) == (26.0, 1.2)


def test_five_racks_bring_the_eed_reporting_duty(seed_catalog: object) -> None:
    """5 × 140 = 700 kW of IT at a Dutch colocation: at least 500 kW, so the yearly EED
    report (by the operator); not above 1 MW, so no heat-reuse assessment."""
    document = {**_document("nl-colo-liquid-amsterdam"), "servers": 5}
    out = result_to_dict(evaluate(build_scenario(document).scenario))
    assert out["site_fit"]["status"] == "fits"
    duties = [(d["code"], d["params"]["on_premises"]) for d in out["site_duties"]]
    assert duties == [("eed_reporting", False)]


def _site_rows(site: Any) -> dict[str, str]:
    from django.utils import translation

    from tco.services import analyse_document

    with translation.override("en"):
        analysis = analyse_document(_document(site))
        return {
            str(row.label): row.value
            for row in analysis.assumption_table(internal=True)
            if "electricity" in str(row.label)
            or "PUE" in str(row.label)
            or "colocation per" in str(row.label)
        }


def test_the_assumptions_list_the_site_the_costs_used(seed_catalog: object) -> None:
    """Sent to the liquid-ready colocation, the rack is costed at its €0.18/kWh, PUE 1.15
    and €175 per kW-month: those are listed, not the server room's PUE 1.58 and €0 (which
    the costs did not use)."""
    colo = "Liquid-ready colocation Amsterdam area (NL)"
    assert _site_rows("onprem-server-room") == {
        f"{colo}: electricity price": "0.1800\u00a0EUR/kWh",
        f"{colo}: colocation per kW-month": "175\u00a0EUR",
        f"{colo}: PUE with liquid cooling": "1.15",
    }
    # With facility water the rack stays in the room (a build-out): the room's figures.
    room = "On-premises server room (NL)"
    site = {"key": "onprem-server-room", "cooling": "facility_water", "rack_power_limit_kw": 150}
    assert _site_rows(site) == {
        f"{room}: electricity price": "0.1800\u00a0EUR/kWh",
        f"{room}: PUE": "1.58",
        f"{room}: colocation per kW-month": "0\u00a0EUR",
    }
    # The liquid racks' PUE typed for the room is listed beside the room's own.
    site["pue_liquid"] = 1.2
    assert _site_rows(site)[f"{room}: PUE with liquid cooling"] == "1.20"
