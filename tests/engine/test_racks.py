"""Rack plan: power and space limits, flags."""

from __future__ import annotations

import dataclasses

import pytest

from tco.engine import ServerSpec, SiteSpec, plan_racks


def site(limit_kw: float, units: int = 42) -> SiteSpec:
    return SiteSpec(0.1, 1.5, 100.0, limit_kw, "USD", rack_units_limit=units)


def test_power_limited(server: ServerSpec) -> None:
    # 40 kW / 10.2 kW = 3.92 → 3 per rack; 10 servers → 4 racks; IT 102 kW; facility 153 kW
    p = plan_racks(10, server, site(40.0))
    assert (p.servers_per_rack, p.racks_required, p.limited_by) == (3, 4, "power")
    assert p.it_kw == pytest.approx(102.0) and p.facility_kw == pytest.approx(153.0)
    assert not p.warnings


def test_space_limited(server: ServerSpec) -> None:
    # 100 kW allows 9, but 42U / 8U = 5
    p = plan_racks(12, server, site(100.0))
    assert (p.servers_per_rack, p.racks_required, p.limited_by) == (5, 3, "space")


def test_exact_power_fit(server: ServerSpec) -> None:
    # 4 × 10.2 = 40.8 kW exactly (NVIDIA SuperPOD DGX H100 rack)
    assert plan_racks(4, server, site(40.8)).servers_per_rack == 4


def test_server_above_rack_limit_is_flagged(server: ServerSpec) -> None:
    p = plan_racks(3, server, site(8.0))
    assert p.server_exceeds_rack_power
    assert p.servers_per_rack == 1 and p.racks_required == 3
    assert "more than the site's 8 kW rack limit" in p.warnings[0]


def test_liquid_cooling_flag(server: ServerSpec) -> None:
    liquid = dataclasses.replace(server, liquid_cooled=True)
    p = plan_racks(1, liquid, site(130.0))
    assert p.needs_liquid_cooling and "liquid cooling" in p.warnings[0]


def test_rack_warnings_carry_codes_and_parameters() -> None:
    from tco.engine import GpuSpec, Money, ServerSpec, SiteSpec, plan_racks

    b300 = GpuSpec("B300", 270.0, 7.7, 2250.0, 4500.0, 14000.0, 1100.0)
    hot = ServerSpec("NVL rack", b300, 72, 48, 120.0, 30.0, True, Money(3_000_000.0))
    plan = plan_racks(1, hot, SiteSpec(0.1, 1.2, 150.0, 40.0, rack_units_limit=42))
    codes = [n.code for n in plan.warning_details]
    assert codes == ["server_exceeds_rack_power", "server_exceeds_rack_space", "liquid_cooling"]
    assert plan.warning_details[0].params["max_power_kw"] == 120.0
    assert plan.warnings == tuple(n.text for n in plan.warning_details)
