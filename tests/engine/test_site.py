"""Site fit (tco/engine/site.py): what the buyer's site takes, what making it fit costs, and
the EU duties of the fleet's IT power. Expected numbers are worked out by hand."""

from __future__ import annotations

import dataclasses

import pytest

from tco.engine import NoCompliantOption, evaluate
from tco.engine.constraints import Constraints
from tco.engine.costmodel import onprem_monthly
from tco.engine.inputs import (
    BuildOutPrices,
    CloudOfferingSpec,
    CloudTerm,
    Demand,
    DemandPattern,
    FinanceInputs,
    GpuSpec,
    Scenario,
    ServerCooling,
    ServerSpec,
    SiteCooling,
    SiteSpec,
    Workload,
    WorkloadKind,
)
from tco.engine.site import BUILD_OUT, DOES_NOT_FIT, FITS, site_duties, site_fit
from tco.engine.sizing import size_training
from tco.engine.units import FxRates, Money
from tco.report import build_report

GB300 = GpuSpec("GB300", 288.0, 8.0, 2500.0, 5000.0, 15000.0, 1400.0, 1800.0)
B200 = GpuSpec("B200", 180.0, 7.7, 2250.0, 4500.0, 9000.0, 1000.0, 1800.0)
NVL72 = ServerSpec(
    "GB300 NVL72",
    GB300,
    72,
    48,
    132.0,
    40.0,
    True,
    Money(3_500_000.0),
    cooling=ServerCooling.RACK_LIQUID,
    whole_rack=True,
)
DGX_B200 = ServerSpec("DGX B200", B200, 8, 10, 14.3, 3.5, False, Money(515_000.0))
AIR_ROOM = SiteSpec(
    0.18, 1.58, 0.0, 20.0, "EUR", name="Server room", country="NL", on_premises=True
)
LIQUID_COLO = SiteSpec(
    0.18,
    1.30,
    175.0,
    150.0,
    "EUR",
    name="Liquid-ready colocation",
    country="NL",
    cooling=SiteCooling.DIRECT_LIQUID,
    pue_liquid=1.15,
)


def test_an_nvl72_does_not_fit_a_20_kw_air_cooled_room() -> None:
    fit = site_fit(1, NVL72, AIR_ROOM)
    assert fit.status == DOES_NOT_FIT
    assert [(r.code, r.params["site_cooling"]) for r in fit.reasons] == [
        ("needs_liquid_cooling", "air")
    ]
    assert fit.build_out_cost == 0.0 and fit.lines == ()
    # One NVL72 is one rack of 132 kW, whatever the room's 42 U.
    assert (fit.racks.racks_required, fit.rack_kw) == (1, 132.0)


def test_an_nvl72_fits_the_liquid_ready_colocation_at_its_liquid_pue() -> None:
    fit = site_fit(3, NVL72, LIQUID_COLO)
    assert fit.status == FITS and fit.reasons == ()
    assert fit.pue == 1.15
    assert (fit.racks.racks_required, fit.racks.servers_per_rack) == (3, 1)
    assert fit.racks.facility_kw == pytest.approx(3 * 132.0 * 1.15)


def _scenario(site: SiteSpec, server: ServerSpec = NVL72, servers: int = 1) -> Scenario:
    return Scenario(
        workload=Workload(WorkloadKind.INFERENCE, 70.0),
        server=server,
        site=site,
        cloud_offerings=(CloudOfferingSpec("Cloud", "72 × GB300", CloudTerm.ON_DEMAND, 72, 900.0),),
        finance=FinanceInputs(
            horizon_months=60,
            utilization=0.7,
            reporting_currency="EUR",
            currency="EUR",
            fx=FxRates(usd_per_eur=1.25),
        ),
        servers=servers,
        demand=Demand(DemandPattern.CONTINUOUS),
    )


def test_the_room_that_cannot_take_it_sends_owning_to_the_liquid_colocation() -> None:
    """Energy and colocation as at the colocation: 40 + (132 − 40) × 0.7 = 104.4 kW average,
    × PUE 1.15 × 730 h × 60 months = 5,258,628 kWh; colocation 132 kW × €175 = €23,100 a
    month."""
    room = dataclasses.replace(AIR_ROOM, fallback=LIQUID_COLO)
    result = evaluate(_scenario(room))
    assert result.own_site_fit is not None and result.own_site_fit.status == DOES_NOT_FIT
    assert result.site_fit is not None and result.site_fit.status == FITS
    assert result.site_fit.site == "Liquid-ready colocation"
    assert result.energy_kwh == pytest.approx(104.4 * 1.15 * 730.0 * 60)
    monthly = onprem_monthly(result.cost_model)
    assert float(monthly.colocation) == pytest.approx(132.0 * 175.0)
    assert result.cost_model.pue == 1.15
    out = build_report(result).to_json()
    own = next(o for o in out["options"] if o["kind"] == "onprem")
    assert own["site_fit"]["status"] == "does_not_fit"
    assert own["site_fit"]["reasons"][0]["code"] == "needs_liquid_cooling"
    assert own["site_fit"]["placed_at"]["status"] == "fits"
    assert own["site_fit"]["placed_at"]["site"] == "Liquid-ready colocation"


def test_the_move_to_the_colocation_is_a_warning_with_where_and_why() -> None:
    """One GB300 NVL72 (rack liquid) in the 20 kW air-only room: the room has no water at
    the racks, so the rack is costed at the liquid-ready colocation, and a warning says
    which site, where it went and why (the room's cooling and the server's)."""
    room = dataclasses.replace(AIR_ROOM, fallback=LIQUID_COLO)
    result = evaluate(_scenario(room))
    moved = [n for n in result.warnings if n.code == "placed_elsewhere"]
    assert len(moved) == 1 and moved[0].warning
    p = moved[0].params
    assert (p["site"], p["placed_at"], p["server"]) == (
        "Server room",
        "Liquid-ready colocation",
        "GB300 NVL72",
    )
    assert (p["reason"], p["cooling"], p["site_cooling"], p["described"]) == (
        "needs_liquid_cooling",
        "rack_liquid",
        "air",
        True,
    )
    assert moved[0].text == (
        "Your site (Server room) cannot take the GB300 NVL72: the GB300 NVL72 is "
        "liquid-cooled; the site has air cooling only, no water at the racks. The owned "
        "servers are costed at Liquid-ready colocation."
    )
    warnings = build_report(result).to_json()["warnings"]
    assert [w["code"] for w in warnings if w["code"] == "placed_elsewhere"] == ["placed_elsewhere"]


def test_a_default_site_is_called_the_default_site() -> None:
    """A site the buyer never described (``described`` false) is "the default site"."""
    room = dataclasses.replace(AIR_ROOM, fallback=LIQUID_COLO, described=False)
    result = evaluate(_scenario(room))
    moved = next(n for n in result.warnings if n.code == "placed_elsewhere")
    assert moved.params["described"] is False
    assert moved.text.startswith("The default site (Server room) cannot take the GB300 NVL72")
    assert result.own_site_fit is not None and result.own_site_fit.described is False


def test_a_fleet_that_stays_on_its_site_brings_no_warning() -> None:
    result = evaluate(_scenario(LIQUID_COLO))
    assert [n.code for n in result.warnings if n.code == "placed_elsewhere"] == []


def test_a_server_room_without_a_power_figure_holds_30_kw() -> None:
    """The buyer's own room, air only, no available power given: taken to hold 30 kW of IT
    (SERVER_ROOM_IT_KW, an estimate). 2 DGX B200 = 2 × 14.3 = 28.6 kW fit; 3 = 42.9 kW do
    not (3 racks: one 14.3 kW server in a 20 kW rack); 17 = 243.1 kW (the audit's case) do
    not either. A typed 250 kW takes the 17."""
    assert site_fit(2, DGX_B200, AIR_ROOM).status == FITS
    three = site_fit(3, DGX_B200, AIR_ROOM)
    assert three.status == DOES_NOT_FIT
    assert [(r.code, dict(r.params)) for r in three.reasons] == [
        ("server_room_power", {"it_kw": 42.9, "assumed_kw": 30.0, "racks": 3})
    ]
    seventeen = site_fit(17, DGX_B200, AIR_ROOM)
    assert seventeen.reasons[-1].params["it_kw"] == pytest.approx(243.1)
    typed = dataclasses.replace(AIR_ROOM, available_it_kw=250.0)
    assert site_fit(17, DGX_B200, typed).status == FITS
    # A colocation has no such default: its power is the operator's to sell.
    colo = dataclasses.replace(AIR_ROOM, on_premises=False)
    assert site_fit(17, DGX_B200, colo).status == FITS


def test_seventeen_servers_do_not_land_silently_in_a_server_room() -> None:
    """17 DGX B200 (243.1 kW) in the room with no power given: costed at the colocation,
    and the warning gives both figures."""
    room = dataclasses.replace(AIR_ROOM, fallback=LIQUID_COLO)
    result = evaluate(_scenario(room, DGX_B200, servers=17))
    assert result.site_fit is not None and result.site_fit.site == "Liquid-ready colocation"
    moved = next(n for n in result.warnings if n.code == "placed_elsewhere")
    assert (moved.params["reason"], moved.params["it_kw"], moved.params["assumed_kw"]) == (
        "server_room_power",
        243.1,
        30.0,
    )
    assert "243.1 kW" in moved.text and "30 kW (an estimate)" in moved.text


def test_terms_broken_by_the_move_say_why_the_fleet_left_the_premises() -> None:
    """Own premises required, 17 DGX B200 (243.1 kW) in a room with no power given (30 kW
    assumed): the fleet goes to the colocation, off the premises, and the cloud is off
    them too: no option meets the terms, and the error carries the move and its reason."""
    room = dataclasses.replace(AIR_ROOM, fallback=LIQUID_COLO)
    scenario = dataclasses.replace(
        _scenario(room, DGX_B200, servers=17), constraints=Constraints(own_premises_only=True)
    )
    with pytest.raises(NoCompliantOption) as caught:
        evaluate(scenario)
    assert caught.value.field == "constraints"
    assert caught.value.site is not None
    assert (caught.value.site.code, caught.value.site.params["reason"]) == (
        "placed_elsewhere",
        "server_room_power",
    )
    assert caught.value.message.startswith(
        "No option meets the constraints. Your site (Server room) cannot take the DGX B200: "
        "the fleet draws 243.1 kW of IT power in 17 rack(s)"
    )
    # The room's power typed: the fleet stays, on the premises, and owning is advised.
    typed = dataclasses.replace(room, available_it_kw=250.0)
    result = evaluate(dataclasses.replace(scenario, site=typed))
    assert result.verdict.action == "buy"


def test_without_a_colocation_owning_is_never_advised_where_it_does_not_fit() -> None:
    result = evaluate(_scenario(AIR_ROOM))
    own = next(o for o in result.verdict.options if o.kind == "own")
    assert [n.code for n in own.violations] == ["site_does_not_fit"]
    assert result.verdict.action == "rent" and result.verdict.params["constraint_decided"] in (
        True,
        False,
    )


def test_build_out_cost_is_kw_times_the_unit_cost() -> None:
    """Facility water but no CDUs, two NVL72 (264 kW): ⌈264 ÷ 250⌉ = 2 CDUs × $90,000 =
    $180,000; the loop 264 kW × $400 = $105,600; the rack feed (132 − 100) × 2 = 64 kW ×
    $250 = $16,000. Total $301,600; the loop's 26 weeks set the time."""
    water = SiteSpec(
        0.18, 1.4, 0.0, 100.0, "EUR", cooling=SiteCooling.FACILITY_WATER, pue_liquid=1.2
    )
    fit = site_fit(2, NVL72, water)
    assert fit.status == BUILD_OUT
    costs = {line.item: (line.quantity, line.cost) for line in fit.lines}
    assert costs == {
        "cdu": (2.0, 180_000.0),
        "liquid_cooling": (264.0, 105_600.0),
        "rack_power": (64.0, 16_000.0),
    }
    assert fit.build_out_cost == pytest.approx(301_600.0)
    assert fit.build_out_weeks == 26.0
    assert fit.pue == 1.2  # liquid racks once the loop is there


def test_extra_facility_power_within_the_grid_headroom_is_priced_per_kw() -> None:
    """32 DGX B200 draw 457.6 kW; 400 kW available, so 57.6 kW × €300 = €17,280 more."""
    site = SiteSpec(
        0.18,
        1.3,
        150.0,
        20.0,
        "EUR",
        available_it_kw=400.0,
        grid_headroom_kw=100.0,
        build_out=BuildOutPrices(power_per_kw=300.0, currency="EUR"),
    )
    fit = site_fit(32, DGX_B200, site)
    assert fit.status == BUILD_OUT
    assert [(line.item, round(line.quantity, 1)) for line in fit.lines] == [
        ("facility_power", 57.6)
    ]
    assert fit.build_out_cost == pytest.approx(57.6 * 300.0)
    tight = dataclasses.replace(site, grid_headroom_kw=50.0)
    blocked = site_fit(32, DGX_B200, tight)
    assert blocked.status == DOES_NOT_FIT
    assert blocked.reasons[-1].code == "grid_connection"


def test_the_build_out_is_part_of_the_cost_of_owning() -> None:
    """The build-out is a one-off in the reporting currency: $301,600 at 1.25 $/€ = €241,280."""
    water = SiteSpec(
        0.18, 1.4, 0.0, 100.0, "EUR", cooling=SiteCooling.FACILITY_WATER, pue_liquid=1.2
    )
    with_build_out = evaluate(_scenario(water, servers=2))
    ready = evaluate(
        _scenario(
            dataclasses.replace(
                water, cooling=SiteCooling.DIRECT_LIQUID, rack_power_limit_kw=140.0
            ),
            servers=2,
        )
    )
    assert with_build_out.cost_model.one_off_cost == pytest.approx(301_600.0 / 1.25)
    assert ready.cost_model.one_off_cost == 0.0
    out = build_report(with_build_out).to_json()
    fit = out["site_fit"]
    assert fit["status"] == "build_out" and fit["build_out_cost"] == pytest.approx(241_280.0)
    assert fit["build_out_weeks"] == 26.0


def test_air_cooled_racks_are_filled_only_as_far_as_air_removes_the_heat() -> None:
    """Six 14.3 kW servers with a 50 kW rack feed: air removes 40 kW a rack, so 2 per rack
    (28.6 kW; 3 would be 42.9) in 3 racks; a rear door takes 60 kW, so the feed's 3 per
    rack in 2 racks. A 45 kW air-cooled server is more than air removes from any rack: it
    does not fit."""
    air = SiteSpec(0.18, 1.3, 150.0, 50.0, "EUR")
    fit = site_fit(6, DGX_B200, air)
    assert fit.status == FITS
    assert (fit.racks.servers_per_rack, fit.racks.racks_required) == (2, 3)
    rear = site_fit(6, DGX_B200, dataclasses.replace(air, cooling=SiteCooling.REAR_DOOR))
    assert (rear.racks.servers_per_rack, rear.racks.racks_required) == (3, 2)
    hot = dataclasses.replace(DGX_B200, max_power_kw=45.0)
    blocked = site_fit(1, hot, air)
    assert blocked.status == DOES_NOT_FIT
    assert blocked.reasons[0].code == "rack_beyond_air_cooling"


def test_eu_duties_follow_the_fleets_it_power() -> None:
    """32 × 14.3 = 457.6 kW: below the EED's 500 kW; 42 × 14.3 = 600.6 kW: reports yearly."""
    nl = SiteSpec(0.18, 1.3, 150.0, 20.0, "EUR", country="NL")
    small = site_fit(32, DGX_B200, nl)
    large = site_fit(42, DGX_B200, nl)
    assert site_duties(small.racks.it_kw, nl, small) == ()
    duties = site_duties(large.racks.it_kw, nl, large)
    assert [(d.code, d.params["threshold_kw"]) for d in duties] == [("eed_reporting", 500.0)]
    assert site_duties(600.0, dataclasses.replace(nl, country="US")) == ()
    big = [d.code for d in site_duties(1_100.0, nl)]
    assert big == ["eed_reporting", "eed_heat_reuse", "nl_eia"]
    result = evaluate(_scenario(LIQUID_COLO, DGX_B200, servers=42))
    assert [d["code"] for d in build_report(result).to_json()["site_duties"]] == ["eed_reporting"]


def test_an_nvl72_keeps_the_expert_exchange_inside_its_nvlink_domain() -> None:
    """A mixture of experts trained on 72 GPUs: on one NVL72 every expert is a GPU of the
    same NVLink domain; on nine 8-GPU servers 64 of every 72 experts are across the
    network, so the exchange takes longer."""
    w = Workload(
        WorkloadKind.PRETRAIN,
        400.0,
        active_params_billion=60.0,
        experts=64,
        experts_per_token=8,
        tokens_billion=100.0,
    )
    hgx = dataclasses.replace(
        NVL72,
        name="8 × GB300",
        gpus_per_server=8,
        whole_rack=False,
        rack_units=8,
        max_power_kw=15.0,
        idle_power_kw=4.0,
    )
    rack = size_training(w, NVL72, servers=1)
    nodes = size_training(w, hgx, servers=9)
    assert rack.all_to_all_hours is not None and nodes.all_to_all_hours is not None
    assert rack.all_to_all_hours < nodes.all_to_all_hours


def test_a_site_build_out_delays_the_owned_fleet_until_it_is_done() -> None:
    """Two NVL72 in stock, installed the same day, at a hall that needs a 26-week liquid
    build-out: the owned fleet is ready in 26 × 7 = 182 days, not on day one; at a hall
    with CDUs in place, at once."""
    from datetime import date

    from tco.engine.capacity import CapacityInputs
    from tco.engine.scenario import OWN_NAME

    water = SiteSpec(
        0.18, 1.4, 0.0, 100.0, "EUR", cooling=SiteCooling.FACILITY_WATER, pue_liquid=1.2
    )
    stocked = dataclasses.replace(NVL72, units_in_stock=2, lead_time_weeks=20.0)
    when = CapacityInputs(date(2026, 12, 3), install_days=0.0)
    built_out = evaluate(dataclasses.replace(_scenario(water, stocked, 2), capacity=when))
    ready_site = dataclasses.replace(
        water, cooling=SiteCooling.DIRECT_LIQUID, rack_power_limit_kw=140.0
    )
    at_once = evaluate(dataclasses.replace(_scenario(ready_site, stocked, 2), capacity=when))
    assert built_out.capacity is not None and at_once.capacity is not None
    late, now = built_out.capacity.timing(OWN_NAME), at_once.capacity.timing(OWN_NAME)
    assert late is not None and now is not None
    assert late.ready_in_days == pytest.approx(182.0)
    assert now.ready_in_days == pytest.approx(0.0)
