"""Owning costs that scale with the fleet (issue 29).

Hand-checked: one 8-GPU server for serving, one 1-GPU workstation, a 64-server training
fleet; the extras' rules as properties.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine import (
    Demand,
    DemandPattern,
    FinanceInputs,
    InvalidInput,
    Scenario,
    ServerSpec,
    SiteSpec,
    Workload,
    WorkloadKind,
    evaluate,
)
from tco.engine import defaults as d
from tco.engine.examples import CLOUD_OFFERINGS, H100_SXM, HGX_H100_SERVER, SITE_NL
from tco.engine.extras import (
    Networking,
    fabric_cost_per_gpu,
    fabric_tiers,
    front_end_cost_per_server,
    owning_extras,
    staff_fte_for,
)
from tco.engine.units import FxRates, Money
from tco.report import build_report

FINANCE = FinanceInputs(
    horizon_months=60, discount_rate=0.08, utilization=0.7, fx=FxRates(usd_per_eur=1.08)
)
CONTINUOUS = Demand(DemandPattern.CONTINUOUS)
# A deskside machine with one H100 (the buyer's own figures): $35,000, 1.2 kW at most.
WORKSTATION = ServerSpec("H100 workstation", H100_SXM, 1, 4, 1.2, 0.25, False, Money(35_000.0))
DESK = SiteSpec(0.18, 1.0, 0.0, 3.6, currency="EUR", on_premises=True, workstation=True)
SERVER_ROOM = SiteSpec(0.18, 1.58, 0.0, 10.0, currency="EUR", on_premises=True)
EUR = 1.08  # USD per EUR


def test_the_extras_formulas_by_hand() -> None:
    port = 36_000 / 64  # $562.50 a switch port
    assert front_end_cost_per_server() == 1_550 + 2 * (400 + port)
    assert fabric_cost_per_gpu(1) == 2_188 + 1_300 + port
    assert fabric_cost_per_gpu(2) == 2_188 + 2 * 1_300 + 3 * port
    assert [fabric_tiers(n) for n in (8, 64, 512, 2_048, 4_096, 65_536)] == [1, 1, 2, 2, 3, 3]
    assert [staff_fte_for(n) for n in (1, 3, 4, 100, 375, 512)] == [
        0.1,
        0.1,
        4 * 0.032,
        100 * 0.032,
        12.0,
        12.0,
    ]


def test_one_eight_gpu_server_serving_by_hand() -> None:
    """A 70B model served on one HGX H100 server in a Dutch colocation site: the front
    end only ($3,475), installation $5,000, 0.1 FTE. Before issue 29: $40,000 of
    InfiniBand and 0.5 FTE: $1,052,640 over five years instead of $700,592."""
    w = Workload(WorkloadKind.INFERENCE, 70.0, target_tokens_per_second=1_000.0)
    r = evaluate(Scenario(w, HGX_H100_SERVER, SITE_NL, CLOUD_OFFERINGS, FINANCE, demand=CONTINUOUS))
    assert r.sizing.servers_required == 1 and r.extras is not None
    assert r.extras.networking is Networking.FRONT_END and r.extras.staff_fte == 0.1
    hardware = 300_000 + 3_475
    energy = (3.0 + 7.2 * 0.7) * 1.3 * 730 * 0.18 * EUR
    colocation = 10.2 * 150 * EUR
    support, insurance = hardware * 0.10 / 12, hardware * 0.005 / 12
    staff = 0.1 * 150_000 / 12
    monthly = energy + colocation + support + staff + insurance
    total = hardware + 5_000 + 60 * monthly - 0.10 * hardware
    assert r.onprem.monthly_opex == pytest.approx(monthly, rel=1e-12)
    assert r.onprem.total_cost == pytest.approx(total, rel=1e-12)
    assert round(total) == 700_592
    assert not r.warnings  # eight GPUs: the data-centre defaults fit
    extras = build_report(r).to_json()["owning_extras"]
    assert extras["networking"] == "front_end" and extras["networking_per_server"] == 3_475.0
    assert extras["installation_per_server"] == 5_000.0
    assert extras["staff_cost_per_year"] == 15_000.0


def test_one_gpu_workstation_costs_within_four_times_its_price() -> None:
    """At a workstation site: no network, no installation, no staff; five years of
    energy, support and insurance on top of the $35,000 machine, less its residual."""
    w = Workload(WorkloadKind.LORA, 8.0, tokens_billion=0.2)
    s = Scenario(w, WORKSTATION, DESK, CLOUD_OFFERINGS, FINANCE, demand=CONTINUOUS)
    r = evaluate(s)
    assert r.sizing.servers_required == 1 and r.sizing.gpus_required == 1
    energy = (0.25 + 0.95 * 0.7) * 1.0 * 730 * 0.18 * EUR
    monthly = energy + 35_000 * 0.10 / 12 + 35_000 * 0.005 / 12
    total = 35_000 + 60 * monthly - 3_500
    assert r.onprem.total_cost == pytest.approx(total, rel=1e-12)
    assert round(total) == 57_666 and total < 4 * 35_000
    assert r.extras is not None and r.extras.networking is Networking.NONE
    assert (r.extras.installation_per_server, r.extras.staff_fte) == (0.0, 0.0)
    assert not r.warnings
    # The same machine at a data centre's defaults: the small-fleet warning says so.
    colo = evaluate(dataclasses.replace(s, site=SITE_NL))
    assert [n.code for n in colo.warnings] == ["datacentre_defaults_small_fleet"]
    assert colo.warnings[0].params["gpus"] == 1
    assert colo.onprem.total_cost > r.onprem.total_cost
    # Its own figures for the extras: nothing was defaulted, no warning.
    own = dataclasses.replace(
        FINANCE, networking_per_server=0.0, installation_per_server=0.0, staff_fte=0.0
    )
    assert not evaluate(dataclasses.replace(s, site=SITE_NL, finance=own)).warnings


def test_sixty_four_server_training_fleet_by_hand() -> None:
    """512 GPUs on a two-tier fabric: $3,475 + 8 × $6,475.50 = $55,279 a server; 2.048
    FTE. Before: $40,000 a server and 0.5 FTE for the whole fleet."""
    w = Workload(WorkloadKind.PRETRAIN, 70.0, tokens_billion=2_000.0)
    s = Scenario(
        w, HGX_H100_SERVER, SITE_NL, CLOUD_OFFERINGS, FINANCE, servers=64, demand=CONTINUOUS
    )
    r = evaluate(s)
    assert r.extras is not None
    assert (r.extras.networking, r.extras.fabric_tiers, r.extras.fabric_ports) == (
        Networking.FABRIC,
        2,
        512,
    )
    assert r.cost_model.networking_per_server == 3_475 + 8 * 6_475.5 == 55_279
    assert r.extras.staff_fte == pytest.approx(64 * 0.032)
    hardware = 64 * (300_000 + 55_279)
    assert r.onprem.upfront_cost == pytest.approx(hardware + 64 * 5_000, rel=1e-12)
    assert r.onprem.cashflow["staff"][1] == pytest.approx(2.048 * 150_000 / 12)  # 25,600


def test_a_fleet_beyond_two_thousand_gpus_gets_a_third_tier_and_the_staff_ceiling() -> None:
    extras = owning_extras(FINANCE, SITE_NL, servers=512, gpus_per_server=8, needs_fabric=True)
    assert extras.fabric_tiers == 3 and extras.staff_fte == d.STAFF_FTE_CEILING
    assert extras.networking_per_server == 3_475 + 8 * fabric_cost_per_gpu(3)


def test_serving_copies_inside_servers_need_no_fabric_but_split_copies_do() -> None:
    inside = owning_extras(FINANCE, SITE_NL, servers=4, gpus_per_server=8, needs_fabric=False)
    assert inside.networking is Networking.FRONT_END and inside.fabric_tiers == 0
    w = Workload(WorkloadKind.INFERENCE, 405.0, target_tokens_per_second=500.0)
    r = evaluate(Scenario(w, HGX_H100_SERVER, SITE_NL, CLOUD_OFFERINGS, FINANCE))
    assert r.sizing.gpus_per_replica is not None and r.sizing.gpus_per_replica > 8
    assert r.extras is not None and r.extras.networking is Networking.FABRIC


def test_a_server_room_gets_the_plans_network_and_staff_and_warns_below_eight_gpus() -> None:
    w = Workload(WorkloadKind.LORA, 8.0, tokens_billion=0.2)
    r = evaluate(Scenario(w, WORKSTATION, SERVER_ROOM, CLOUD_OFFERINGS, FINANCE))
    assert r.extras is not None and r.extras.networking is Networking.FRONT_END
    # One short run on a workstation owned for a month also leaves it idle (issue 40).
    assert [n.code for n in r.warnings] == ["datacentre_defaults_small_fleet", "owned_mostly_idle"]


def test_a_fleet_at_a_workstation_site_is_costed_as_a_server_room_with_a_warning() -> None:
    fleet = owning_extras(FINANCE, DESK, servers=3, gpus_per_server=8, needs_fabric=True)
    room = owning_extras(FINANCE, SERVER_ROOM, servers=3, gpus_per_server=8, needs_fabric=True)
    assert fleet.site.value == "server_room" and fleet.networking is Networking.FABRIC
    assert (fleet.networking_per_server, fleet.staff_fte) == (
        room.networking_per_server,
        room.staff_fte,
    )
    assert [(n.code, n.params) for n in fleet.notes] == [("workstation_site_fleet", {"servers": 3})]


def test_a_workstation_must_stand_on_the_buyers_premises() -> None:
    with pytest.raises(InvalidInput) as caught:
        SiteSpec(0.18, 1.0, 0.0, 3.6, workstation=True)
    assert caught.value.field == "workstation"


@settings(max_examples=60, deadline=None)
@given(
    servers=st.integers(1, 4_000),
    more=st.integers(0, 4_000),
    gps=st.sampled_from([1, 2, 4, 8]),
    training=st.booleans(),
)
def test_extras_never_shrink_as_the_fleet_grows(
    servers: int, more: int, gps: int, training: bool
) -> None:
    """Per server the network never gets cheaper with more servers (more tiers), and the
    fleet's staff never falls; staff stays between the floor and the ceiling; one machine
    at a desk has none of them."""
    small = owning_extras(
        FINANCE, SITE_NL, servers=servers, gpus_per_server=gps, needs_fabric=training
    )
    large = owning_extras(
        FINANCE, SITE_NL, servers=servers + more, gpus_per_server=gps, needs_fabric=training
    )
    assert large.networking_per_server >= small.networking_per_server
    assert large.staff_fte >= small.staff_fte
    assert d.STAFF_FTE_FLOOR <= small.staff_fte <= d.STAFF_FTE_CEILING
    desk = owning_extras(FINANCE, DESK, servers=1, gpus_per_server=gps, needs_fabric=training)
    assert (desk.networking_per_server, desk.installation_per_server, desk.staff_fte) == (0, 0, 0)
