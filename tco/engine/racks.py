"""Rack plan: servers per rack under power and space limits, facility power."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tco.engine.inputs import ServerSpec, SiteSpec, require_int
from tco.engine.notes import Note


@dataclass(frozen=True, slots=True)
class RackPlan:
    servers: int
    servers_per_rack: int
    racks_required: int
    it_kw: float
    facility_kw: float
    needs_liquid_cooling: bool
    server_exceeds_rack_power: bool
    limited_by: str  # "power" or "space"
    warnings: tuple[str, ...]
    warning_details: tuple[Note, ...] = ()  # the same warnings as codes + parameters


def plan_racks(servers: int, server: ServerSpec, site: SiteSpec) -> RackPlan:
    """Place ``servers`` in racks; IT kW at maximum power, facility kW = IT × PUE.

    Four 10.2 kW DGX H100 (8U) need 40.8 kW. Six servers with a 41 kW rack limit:
    min(floor(41 / 10.2) = 4, floor(42U / 8U) = 5) = 4 per rack, 2 racks,
    6 × 10.2 = 61.2 kW IT, 61.2 × 1.3 = 79.56 kW facility.

    >>> from tco.engine.inputs import GpuSpec
    >>> from tco.engine.units import Money
    >>> h100 = GpuSpec("H100 SXM5", 80.0, 3.35, 989.0, 1979.0, None, 700.0)
    >>> srv = ServerSpec("DGX H100", h100, 8, 8, 10.2, 2.5, False, Money(300_000.0))
    >>> site = SiteSpec(0.18, 1.3, 150.0, 41.0, "EUR")
    >>> p = plan_racks(6, srv, site)
    >>> p.servers_per_rack, p.racks_required, round(p.it_kw, 2), round(p.facility_kw, 2)
    (4, 2, 61.2, 79.56)
    """
    require_int("servers", servers, 1, None, "Number of servers")
    notes: list[Note] = []
    by_power = math.floor(site.rack_power_limit_kw / server.max_power_kw + 1e-9)
    # A rack-scale system (NVL72) is its own rack: one per rack position, whatever the
    # site's usable rack units (the site fit checks its power and cooling).
    by_space = 1 if server.whole_rack else site.rack_units_limit // server.rack_units
    exceeds = by_power < 1
    if exceeds and not server.whole_rack:
        # One server per rack is still planned, but the rack needs a higher power feed.
        notes.append(
            Note(
                "server_exceeds_rack_power",
                {
                    "server": server.name,
                    "max_power_kw": server.max_power_kw,
                    "rack_power_limit_kw": site.rack_power_limit_kw,
                },
                f"One {server.name} draws up to {server.max_power_kw:g} kW, more than the "
                f"site's {site.rack_power_limit_kw:g} kW rack limit: the plan assumes one "
                "server per rack on an upgraded power feed; confirm with the facility.",
            )
        )
    if by_space < 1:
        notes.append(
            Note(
                "server_exceeds_rack_space",
                {
                    "server": server.name,
                    "rack_units": server.rack_units,
                    "rack_units_limit": site.rack_units_limit,
                },
                f"A {server.rack_units}U {server.name} does not fit in "
                f"{site.rack_units_limit}U of usable rack space: the plan assumes one server "
                "per rack.",
            )
        )
    per_rack = max(1, min(by_power, by_space))
    limited_by = "power" if by_power <= by_space else "space"
    if server.liquid_cooled and not site.cooling.has_water:
        notes.append(
            Note(
                "liquid_cooling",
                {"server": server.name},
                f"The {server.name} needs liquid cooling: check that the site supports it.",
            )
        )
    it_kw = servers * server.max_power_kw
    return RackPlan(
        servers=servers,
        servers_per_rack=per_rack,
        racks_required=math.ceil(servers / per_rack),
        it_kw=it_kw,
        facility_kw=it_kw * site.pue,
        needs_liquid_cooling=server.liquid_cooled,
        server_exceeds_rack_power=exceeds,
        limited_by=limited_by,
        warnings=tuple(n.text for n in notes),
        warning_details=tuple(notes),
    )
