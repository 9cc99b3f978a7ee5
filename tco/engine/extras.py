"""Owning costs that scale with the fleet: networking, installation and operations staff.

What the owned fleet needs besides its servers follows from the plan and the site, not
from flat per-server figures (docs/methodology.md, "Networking, installation and staff"):

- **networking**: every server but a workstation has its front-end NIC and two ports on
  a top-of-rack switch; a plan whose GPUs talk across servers (training on more than one
  server, or a served model copy split over servers) adds a GPU fabric priced per GPU
  port, a non-blocking fat tree whose tier count rises with the ports;
- **installation**: rack-and-stack and burn-in per server, none for a workstation;
- **staff**: FTE per server between a floor and a ceiling, none for a workstation (its
  user looks after it).

A workstation is one machine: a fleet of several servers at a workstation site is costed
as a server room, with the warning ``workstation_site_fleet``.

A figure the buyer gives in ``FinanceInputs`` is taken as it is. All amounts here are
in US dollars, per server; :func:`tco.engine.scenario.build_cost_model` converts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tco.engine import defaults
from tco.engine.inputs import FinanceInputs, SiteSpec
from tco.engine.notes import Note


class Networking(StrEnum):
    NONE = "none"  # a workstation: the office network
    FRONT_END = "front_end"  # NICs and a top-of-rack switch share
    FABRIC = "fabric"  # front end plus a GPU fabric between the servers
    GIVEN = "given"  # the buyer's own figure per server


class SiteClass(StrEnum):
    DATA_CENTRE = "data_centre"
    SERVER_ROOM = "server_room"
    WORKSTATION = "workstation"


def site_class(site: SiteSpec) -> SiteClass:
    """Colocation is a data centre; the buyer's own building a server room or a desk."""
    if site.workstation:
        return SiteClass.WORKSTATION
    return SiteClass.SERVER_ROOM if site.on_premises else SiteClass.DATA_CENTRE


def fabric_tiers(ports: int, switch_ports: int = defaults.FABRIC_SWITCH_PORTS) -> int:
    """Tiers of a non-blocking fat tree of ``switch_ports``-port switches for ``ports``
    GPU ports: the fewest t with 2·(k/2)^t ≥ ports.

    64-port switches: one tier up to 64 ports, two up to 2,048, three up to 65,536.

    >>> fabric_tiers(64), fabric_tiers(65), fabric_tiers(2048), fabric_tiers(2049)
    (1, 2, 2, 3)
    """
    half = switch_ports // 2
    tiers, reach = 1, switch_ports
    while reach < ports:
        tiers += 1
        reach *= half
    return tiers


def fabric_cost_per_gpu(tiers: int) -> float:
    """One GPU port of a t-tier fabric: a NIC, t links and 2t − 1 switch ports (the leaf's
    port down to the GPU, and a port up and one down on each tier above).

    Two tiers: $2,188 + 2 × $1,300 + 3 × $36,000 ÷ 64 = $6,475.50.

    >>> fabric_cost_per_gpu(1), fabric_cost_per_gpu(2), fabric_cost_per_gpu(3)
    (4050.5, 6475.5, 8900.5)
    """
    port = defaults.FABRIC_SWITCH_PRICE_USD / defaults.FABRIC_SWITCH_PORTS
    return defaults.FABRIC_NIC_USD + tiers * defaults.FABRIC_LINK_USD + (2 * tiers - 1) * port


def front_end_cost_per_server() -> float:
    """A server's front-end NIC and its ports on the top-of-rack switch, each port a copper
    link and a switch port: $1,550 + 2 × ($400 + $562.50) = $3,475.

    >>> front_end_cost_per_server()
    3475.0
    """
    port = defaults.FABRIC_SWITCH_PRICE_USD / defaults.FABRIC_SWITCH_PORTS
    return defaults.FRONT_END_NIC_USD + defaults.FRONT_END_PORTS_PER_SERVER * (
        defaults.FRONT_END_LINK_USD + port
    )


def staff_fte_for(servers: int) -> float:
    """Operations staff for a fleet: FTE per server, at least the floor, at most the
    ceiling. 1 server 0.1 FTE; 64 servers 2.048; 512 servers 12 (the ceiling).

    >>> staff_fte_for(1), round(staff_fte_for(64), 3), staff_fte_for(512)
    (0.1, 2.048, 12.0)
    """
    per_server = servers * defaults.STAFF_FTE_PER_SERVER
    return min(max(per_server, defaults.STAFF_FTE_FLOOR), defaults.STAFF_FTE_CEILING)


@dataclass(frozen=True, slots=True)
class OwningExtras:
    """What owning costs besides the servers, and where each figure came from.

    Amounts in USD unless the buyer gave them (``*_given``: in ``finance.currency``).
    """

    site: SiteClass
    networking: Networking
    fabric_tiers: int  # 0 without a fabric
    fabric_ports: int  # GPU ports on the fabric (0 without one)
    networking_per_server: float
    networking_given: bool
    installation_per_server: float
    installation_given: bool
    staff_fte: float
    staff_given: bool
    notes: tuple[Note, ...] = ()


def owning_extras(
    finance: FinanceInputs,
    site: SiteSpec,
    *,
    servers: int,
    gpus_per_server: int,
    needs_fabric: bool,
) -> OwningExtras:
    """Networking, installation and staff of an owned fleet (module docstring).

    ``needs_fabric``: the plan's GPUs exchange data across servers. One 8-GPU server:
    the front end only, $3,475; 64 servers for training: two tiers, $3,475 + 8 ×
    $6,475.50 = $55,279 a server and 2.048 FTE.

    >>> site = SiteSpec(0.2, 1.3, 150.0, 20.0)
    >>> one = owning_extras(FinanceInputs(), site, servers=1, gpus_per_server=8,
    ...     needs_fabric=False)
    >>> one.networking.value, one.networking_per_server, one.staff_fte
    ('front_end', 3475.0, 0.1)
    >>> fleet = owning_extras(FinanceInputs(), site, servers=64, gpus_per_server=8,
    ...     needs_fabric=True)
    >>> fleet.fabric_tiers, fleet.networking_per_server, round(fleet.staff_fte, 3)
    (2, 55279.0, 2.048)
    """
    kind = site_class(site)
    notes: list[Note] = []
    if kind is SiteClass.WORKSTATION and servers > 1:
        # A desk holds one machine: a fleet at a workstation site is costed as a server room.
        kind = SiteClass.SERVER_ROOM
        notes.append(Note("workstation_site_fleet", {"servers": servers}, warning=True))
    desk = kind is SiteClass.WORKSTATION
    gpus = servers * gpus_per_server
    fabric = needs_fabric and servers > 1 and not desk
    tiers = fabric_tiers(gpus) if fabric else 0
    if finance.networking_per_server is not None:
        networking, per_server = Networking.GIVEN, finance.networking_per_server
    elif desk:
        networking, per_server = Networking.NONE, 0.0
    else:
        networking = Networking.FABRIC if fabric else Networking.FRONT_END
        per_server = front_end_cost_per_server()
        if fabric:
            per_server += gpus_per_server * fabric_cost_per_gpu(tiers)
    installation = finance.installation_per_server
    if installation is None:
        installation = 0.0 if desk else defaults.INSTALLATION_PER_SERVER_USD
    staff = finance.staff_fte
    if staff is None:
        staff = 0.0 if desk else staff_fte_for(servers)
    defaulted = finance.networking_per_server is None or finance.staff_fte is None
    if not desk and gpus < defaults.SMALL_FLEET_GPUS and defaulted:
        notes.append(
            Note(
                "datacentre_defaults_small_fleet",
                {"gpus": gpus, "site": kind.value, "threshold": defaults.SMALL_FLEET_GPUS},
                warning=True,
            )
        )
    return OwningExtras(
        site=kind,
        networking=networking,
        fabric_tiers=tiers,
        fabric_ports=gpus if fabric else 0,
        networking_per_server=per_server,
        networking_given=finance.networking_per_server is not None,
        installation_per_server=installation,
        installation_given=finance.installation_per_server is not None,
        staff_fte=staff,
        staff_given=finance.staff_fte is not None,
        notes=tuple(notes),
    )


def needs_fabric(training: bool, servers: int, gpus_per_replica: int | None, gps: int) -> bool:
    """Whether the plan's GPUs exchange data across servers: training on more than one
    server, or a served model copy that spans servers.

    >>> needs_fabric(True, 2, None, 8), needs_fabric(False, 4, 8, 8), needs_fabric(False, 2, 16, 8)
    (True, False, True)
    """
    if training:
        return servers > 1
    return gpus_per_replica is not None and gpus_per_replica > gps and servers > 1
