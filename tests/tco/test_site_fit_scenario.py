"""The site fit through a scenario document (issue 34): the catalog's sites and facility
items reach the engine, `site` overrides change the answer, and the JSON carries each owned
option's `site_fit` and the result's `site_duties`. Figures from catalog/data by hand."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from tco.engine import evaluate
from tco.report import build_report
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
    out = build_report(result).to_json()
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
    """Facility water, a 150 kW feed and 150 kW of IT power free: one CDU ($90,000) and
    140 kW × $400 of loop = $146,000 = €125,862.07 at 1.16, in 26 weeks; the PUE of liquid
    racks is the override's."""
    site = {
        "key": "onprem-server-room",
        "cooling": "facility_water",
        "rack_power_limit_kw": 150,
        "available_it_kw": 150,
        "pue_liquid": 1.2,
    }
    out = build_report(evaluate(build_scenario(_document(site)).scenario)).to_json()
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
    out = build_report(evaluate(build_scenario(document).scenario)).to_json()
    assert out["site_fit"]["status"] == "fits"
    duties = [(d["code"], d["params"]["on_premises"]) for d in out["site_duties"]]
    assert duties == [("eed_reporting", False)]


def _site_rows(site: Any) -> dict[str, str]:
    from django.utils import translation

    from tco.analysis import analyse

    with translation.override("en"):
        analysis = analyse(_document(site))
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
    site = {
        "key": "onprem-server-room",
        "cooling": "facility_water",
        "rack_power_limit_kw": 150,
        "available_it_kw": 150,
    }
    assert _site_rows(site) == {
        f"{room}: electricity price": "0.1800\u00a0EUR/kWh",
        f"{room}: PUE": "1.58",
        f"{room}: colocation per kW-month": "0\u00a0EUR",
    }
    # The liquid racks' PUE typed for the room is listed beside the room's own.
    site["pue_liquid"] = 1.2
    assert _site_rows(site)[f"{room}: PUE with liquid cooling"] == "1.20"


SERVER_ROOM = "On-premises server room (NL)"
LIQUID_COLO = "Liquid-ready colocation Amsterdam area (NL)"


def _seventeen_b200() -> dict[str, Any]:
    """The walkthrough's case: 17 HGX B200 servers in the server room, no power given."""
    return {
        **_document("onprem-server-room"),
        "name": "17 B200 in the server room",
        "server": "smc-822gs-nbrt-b200",
        "servers": 17,
    }


def test_a_server_room_without_a_power_figure_sends_17_servers_to_the_colocation(
    seed_catalog: object,
) -> None:
    """17 × 14.3 kW = 243.1 kW of IT, above the 30 kW a server room with no available power
    given is taken to hold: the room does not fit; at the colocation 243.1 kW × €175 × 60
    months = €2,552,550 of colocation fees, and a warning says where and why."""
    result = evaluate(build_scenario(_seventeen_b200()).scenario)
    out = build_report(result).to_json()
    fit = out["site_fit"]
    assert fit["status"] == "does_not_fit" and fit["described"] is True
    assert [(r["code"], r["params"]) for r in fit["reasons"]][-1] == (
        "server_room_power",
        {"it_kw": 243.1, "assumed_kw": 30.0, "racks": 17},
    )
    assert fit["placed_at"]["site"] == LIQUID_COLO
    assert fit["placed_at"]["colocation_cost"] == pytest.approx(243.1 * 175 * 60)
    moved = [w for w in out["warnings"] if w["code"] == "placed_elsewhere"]
    assert [
        (w["params"]["site"], w["params"]["placed_at"], w["params"]["reason"]) for w in moved
    ] == [(SERVER_ROOM, LIQUID_COLO, "server_room_power")]
    # With the room's power typed, the 17 servers stay (each on an upgraded rack feed).
    typed = {**_seventeen_b200(), "site": {"key": "onprem-server-room", "available_it_kw": 250}}
    out = build_report(evaluate(build_scenario(typed).scenario)).to_json()
    assert "placed_at" not in out["site_fit"]
    assert [w for w in out["warnings"] if w["code"] == "placed_elsewhere"] == []


def test_the_command_line_table_says_where_the_servers_went_and_why(
    seed_catalog: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "room.json"
    path.write_text(json.dumps(_seventeen_b200()))
    call_command("tco", "estimate", "--input", str(path), "--format", "table")
    table = capsys.readouterr().out
    assert (
        f"WARNING: Your site ({SERVER_ROOM}) cannot take the Supermicro SYS-822GS-NBRT: the "
        "fleet draws 243.1 kW of IT power in 17 rack(s); a server room with no available "
        "power given is taken to hold 30 kW (an estimate). The owned servers are costed at "
        f"{LIQUID_COLO}."
    ) in table


def test_the_api_says_the_default_site_could_not_take_the_rack(
    seed_catalog: object, client: Client
) -> None:
    """A document may say its site is a default the buyer never chose (``described``
    false); the warning and the site fit carry it, with the reason's figures."""
    document = _document({"key": "onprem-server-room", "described": False})
    response = client.post(
        "/api/v1/estimate", json.dumps(document), content_type="application/json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["site_fit"]["described"] is False
    moved = next(w for w in body["warnings"] if w["code"] == "placed_elsewhere")
    assert moved["params"]["described"] is False
    assert (moved["params"]["reason"], moved["params"]["site_cooling"]) == (
        "needs_liquid_cooling",
        "air",
    )
    assert moved["text"].startswith(
        f"The default site ({SERVER_ROOM}) cannot take the NVIDIA GB300 NVL72: the NVIDIA "
        "GB300 NVL72 is liquid-cooled; the site has air cooling only"
    )


VERDICT_SITE = re.compile(r'<p class="verdict-site" id="verdict-site">(.*?)</p>', re.S)


def _verdict_site(client: Client, language: str, **changes: str) -> str:
    response = client.get(
        "/calculator/",
        {"preset": "rack-scale-nvl72", **changes},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    html = response.content.decode()
    match = VERDICT_SITE.search(html)
    assert match, "the verdict says the site decided where the racks stand"
    # Said once: the warnings box does not repeat the move.
    assert html.count(match.group(1)[:40]) == 1
    return unescape(match.group(1))


@pytest.mark.parametrize(
    ("language", "default", "yours"),
    [
        (
            "en",
            f"The default site, {SERVER_ROOM}, cannot take the NVIDIA GB300 NVL72 (describe "
            "your own under “Your site”). The NVIDIA GB300 NVL72 is cooled by rack liquid with "
            "CDU; the site has air only, no water at the racks. The servers are costed at "
            f"{LIQUID_COLO}: €35,280,000 in colocation fees over the horizon, included above.",
            f"Your site, {SERVER_ROOM}, cannot take the NVIDIA GB300 NVL72.",
        ),
        (
            "nl",
            "De standaardlocatie, Eigen serverruimte (NL), kan de NVIDIA GB300 NVL72 niet aan "
            "(beschrijf uw eigen locatie onder ‘Uw locatie’).",
            "Uw locatie, Eigen serverruimte (NL), kan de NVIDIA GB300 NVL72 niet aan.",
        ),
    ],
)
def test_the_verdict_says_your_site_only_when_the_buyer_described_it(
    seed_catalog: object, client: Client, language: str, default: str, yours: str
) -> None:
    """The rack-scale preset's server room is the preset's, not the visitor's: "the default
    site". Typing a rack power limit other than the preset's 20 kW describes the site. 24
    racks (the 400 B run's fleet once its gradient exchange across racks counts) × 140 kW ×
    €175 × 60 months = €35,280,000 of colocation fees."""
    assert _verdict_site(client, language).startswith(default)
    assert _verdict_site(client, language, rack_power_limit="30").startswith(yours)
    # The preset's own figures typed again are still the preset's site.
    assert _verdict_site(client, language, rack_power_limit="20").startswith(default[:40])


def test_the_assumptions_list_the_server_rooms_assumed_power_and_the_colocation_used(
    seed_catalog: object,
) -> None:
    """17 air-cooled B200 sent to the colocation by the server room's assumed 30 kW: the
    assumptions list the 30 kW (an estimate) and the colocation's figures the costs used;
    with the room's power typed, no assumed row."""
    from django.utils import translation

    from tco.analysis import analyse

    def rows(document: dict[str, Any]) -> dict[str, tuple[str, bool]]:
        with translation.override("en"):
            table = analyse(document).assumption_table(internal=True)
            return {str(row.label): (row.value, row.is_estimate) for row in table}

    moved = rows(_seventeen_b200())
    assert moved[f"{SERVER_ROOM}: available IT power"] == ("30\u00a0kW", True)
    assert moved[f"{LIQUID_COLO}: colocation per kW-month"][0] == "175\u00a0EUR"
    assert f"{SERVER_ROOM}: PUE" not in moved  # the room's PUE was not used
    typed = {**_seventeen_b200(), "site": {"key": "onprem-server-room", "available_it_kw": 250}}
    assert f"{SERVER_ROOM}: available IT power" not in rows(typed)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "en",
            "The default site, On-premises server room (NL), cannot take the Supermicro "
            "SYS-822GS-NBRT (describe your own under “Your site”). The fleet draws 243.1 kW of "
            "IT power in 17 racks; a server room with no available power given is taken to "
            "hold 30 kW (an estimate).",
        ),
        (
            "nl",
            "De standaardlocatie, Eigen serverruimte (NL), kan de Supermicro SYS-822GS-NBRT "
            "niet aan (beschrijf uw eigen locatie onder ‘Uw locatie’). De servers vragen 243,1 "
            "kW IT-vermogen in 17 racks; voor een serverruimte zonder opgegeven beschikbaar "
            "vermogen wordt 30 kW aangenomen (een schatting).",
        ),
    ],
)
def test_the_form_asks_for_the_rooms_power_when_the_terms_need_the_room(
    seed_catalog: object, language: str, said: str
) -> None:
    """Own premises required and 17 B200 (243.1 kW) for the preset's server room with no
    power given: no option meets the terms, and the available-power field says why."""
    from django.http import QueryDict
    from django.utils import translation

    from tco.analysis.calculator import analyse_query

    query = (
        "preset=eu-own-premises&kind=pretrain&params_billion=70&tokens_billion=2000"
        "&deadline_days=90&server=smc-822gs-nbrt-b200"
    )
    with translation.override(language):
        _form, outcome = analyse_query(QueryDict(query))
        assert outcome.analysis is None
        assert outcome.field_errors["available_it_kw"].startswith(said)
        _form, typed = analyse_query(QueryDict(f"{query}&available_it_kw=250"))
        assert typed.analysis is not None and typed.analysis.report.verdict.action != "rent"
