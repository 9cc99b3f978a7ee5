"""Site fit: can the buyer's site take the owned fleet, what would make it fit, which duties follow.

Every owned option is checked against the site (docs/methodology.md § 3h):

- **cooling** — air-cooled racks are filled up to what air removes (40 kW, 60 kW with a
  rear door): more racks rather than hotter ones; one air-cooled server above that does
  not fit. A liquid-cooled server (direct liquid or a rack-scale NVL72) needs water at
  the racks: an air-only room (``SiteCooling.AIR``) cannot take it (``does_not_fit``). A
  site with facility water or rear-door heat exchangers but no CDUs gets CDUs
  (⌈IT kW ÷ CDU capacity⌉ at the CDU price) and the liquid-cooling loop (IT kW × the
  unit cost per kW) as a build-out; a site with CDUs in place (``DIRECT_LIQUID``) fits.
- **rack power** — a rack that draws more than the site's rack limit (one server or one
  NVL72 above it) gets a higher feed: (rack kW − limit) × racks × the power unit cost.
- **facility power** — a fleet above the site's available IT power takes the rest from
  the grid connection's headroom at the power unit cost per kW; beyond the headroom it does
  not fit (a new grid connection is not a build-out line: in the Netherlands it waits years).
  A server room of the buyer's own with no available power given is taken to hold
  ``SERVER_ROOM_IT_KW`` (30 kW, an estimate); a fleet above it does not fit the room
  (``server_room_power``): nothing is built out on a guessed figure.

When the site does not fit and its liquid-ready colocation does, the fleet is placed there
and the result says so (``placed_elsewhere``: which site, where, and the blocking reason).

The status is ``does_not_fit`` when any check blocks, ``build_out`` when a line is priced,
else ``fits``; the build-out's weeks are those of its longest line (the works run side by
side). PUE follows the cooling: liquid-cooled racks at a site with water use the site's
``pue_liquid``.

EU duties (S-EED) follow the fleet's IT power at an EU site: at ≥ 500 kW the Energy
Efficiency Directive's yearly reporting, above 1 MW the waste-heat reuse assessment; Dutch
buyers with liquid cooling or heat-reuse work are pointed to the energy-investment deduction
(EIA, S-EIA) as information, never as a computed figure.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from tco.engine import defaults
from tco.engine.constraints import EU_COUNTRIES
from tco.engine.inputs import ServerCooling, ServerSpec, SiteCooling, SiteSpec
from tco.engine.notes import Note
from tco.engine.racks import RackPlan, plan_racks

FITS, BUILD_OUT, DOES_NOT_FIT = "fits", "build_out", "does_not_fit"

__all__ = [
    "BUILD_OUT",
    "DOES_NOT_FIT",
    "FITS",
    "BuildOutLine",
    "SiteFit",
    "available_it_kw",
    "placed",
    "placed_elsewhere",
    "site_duties",
    "site_fit",
]


@dataclass(frozen=True, slots=True)
class BuildOutLine:
    """One priced piece of making the site fit: ``item`` is the catalog's facility item."""

    item: str  # cdu | liquid_cooling | rack_power | facility_power
    quantity: float  # CDUs, or kW
    unit_price: float  # in the build-out prices' currency
    weeks: float

    @property
    def cost(self) -> float:
        return self.quantity * self.unit_price


@dataclass(frozen=True, slots=True)
class SiteFit:
    """Whether one owned fleet fits a site, and what making it fit costs (build-out currency)."""

    status: str
    site: str
    racks: RackPlan  # facility kW at the PUE below
    rack_kw: float  # one rack at full load
    pue: float
    cooling: str  # the server's cooling
    site_cooling: str
    lines: tuple[BuildOutLine, ...] = ()
    reasons: tuple[Note, ...] = ()
    currency: str = "USD"
    rack_power_limit_kw: float = 0.0  # the site's
    described: bool = True  # the site's: the buyer described it (not a default)

    @property
    def build_out_cost(self) -> float:
        return sum(line.cost for line in self.lines)

    @property
    def build_out_weeks(self) -> float:
        return max((line.weeks for line in self.lines), default=0.0)

    @property
    def fits(self) -> bool:
        return self.status != DOES_NOT_FIT


def _air_limit_kw(cooling: SiteCooling) -> float:
    return (
        defaults.REAR_DOOR_RACK_MAX_KW
        if cooling is SiteCooling.REAR_DOOR
        else (defaults.AIR_RACK_MAX_KW)
    )


def site_fit(servers: int, server: ServerSpec, site: SiteSpec) -> SiteFit:
    """Check ``servers`` of ``server`` against ``site`` (see the module docstring).

    One GB300 NVL72 (132 kW, rack liquid) in a 20 kW air-cooled server room does not fit:

    >>> from tco.engine.inputs import GpuSpec
    >>> from tco.engine.units import Money
    >>> gb300 = GpuSpec("GB300", 288.0, 8.0, 2500.0, 5000.0, 15000.0, 1400.0, 1800.0)
    >>> nvl = ServerSpec("GB300 NVL72", gb300, 72, 48, 132.0, 38.0, True, Money(3.5e6),
    ...                  cooling=ServerCooling.RACK_LIQUID, whole_rack=True)
    >>> room = SiteSpec(0.18, 1.58, 0.0, 20.0, "EUR", on_premises=True)
    >>> fit = site_fit(1, nvl, room)
    >>> fit.status, [r.code for r in fit.reasons]
    ('does_not_fit', ['needs_liquid_cooling'])

    With facility water but no CDUs and 300 kW free for IT, 2 racks (264 kW) need
    ⌈264 ÷ 250⌉ = 2 CDUs at $90,000 and 264 kW × $400 of liquid loop, plus (132 − 20) × 2 =
    224 kW of rack feed at $250: 180,000 + 105,600 + 56,000 = $341,600, in 26 weeks (the
    loop's):

    >>> water = dataclasses.replace(
    ...     room, cooling=SiteCooling.FACILITY_WATER, available_it_kw=300.0
    ... )
    >>> fit = site_fit(2, nvl, water)
    >>> fit.status, round(fit.build_out_cost), fit.build_out_weeks
    ('build_out', 341600, 26.0)

    Without the free power given, the room is taken to hold 30 kW (``SERVER_ROOM_IT_KW``):
    264 kW is more, and nothing is built out on that guess:

    >>> fit = site_fit(2, nvl, dataclasses.replace(water, available_it_kw=None))
    >>> fit.status, [r.code for r in fit.reasons][-1]
    ('does_not_fit', 'server_room_power')
    """
    cooling = server.cooling_type
    liquid = cooling is not ServerCooling.AIR
    air_limit = _air_limit_kw(site.cooling)
    if not liquid and site.rack_power_limit_kw > air_limit:
        # Air-cooled racks are filled only as far as air (or a rear door) removes the heat.
        racks = plan_racks(
            servers, server, dataclasses.replace(site, rack_power_limit_kw=air_limit)
        )
    else:
        racks = plan_racks(servers, server, site)
    rack_kw = racks.servers_per_rack * server.max_power_kw
    if racks.servers < racks.servers_per_rack:
        rack_kw = racks.servers * server.max_power_kw
    it_kw = racks.it_kw
    blocked, lines, reasons = _cooling_build_out(server, site, it_kw, rack_kw, air_limit)
    power_blocked, power_lines, power_reasons = _power_build_out(
        site, it_kw, rack_kw, racks.racks_required, check_racks=not blocked
    )
    blocked = blocked or power_blocked
    lines += power_lines
    reasons += power_reasons
    status = DOES_NOT_FIT if blocked else (BUILD_OUT if lines else FITS)
    pue = site.pue_liquid if liquid and site.pue_liquid is not None else site.pue
    return SiteFit(
        status=status,
        site=site.name,
        racks=dataclasses.replace(racks, facility_kw=it_kw * pue),
        rack_kw=rack_kw,
        pue=pue,
        cooling=cooling.value,
        site_cooling=site.cooling.value,
        lines=() if blocked else tuple(lines),
        reasons=tuple(reasons),
        currency=site.build_out.currency,
        rack_power_limit_kw=site.rack_power_limit_kw,
        described=site.described,
    )


def _cooling_build_out(
    server: ServerSpec, site: SiteSpec, it_kw: float, rack_kw: float, air_limit: float
) -> tuple[bool, list[BuildOutLine], list[Note]]:
    """What cooling the site lacks: (blocked, build-out lines, reasons). A liquid-cooled
    server needs water at the racks (CDUs and a loop where only facility water is there);
    an air-cooled rack must stay within what air removes."""
    cooling = server.cooling_type
    liquid = cooling is not ServerCooling.AIR
    prices = site.build_out
    if liquid and not site.cooling.has_water:
        note = Note(
            "needs_liquid_cooling",
            {"server": server.name, "cooling": cooling.value, "site_cooling": "air"},
        )
        return True, [], [note]
    if liquid and site.cooling is not SiteCooling.DIRECT_LIQUID:
        cdus = math.ceil(it_kw / prices.cdu_capacity_kw - 1e-9)
        lines = [
            BuildOutLine("cdu", float(cdus), prices.cdu_price, defaults.CDU_WEEKS),
            BuildOutLine(
                "liquid_cooling", it_kw, prices.liquid_cooling_per_kw, defaults.LIQUID_COOLING_WEEKS
            ),
        ]
        note = Note(
            "liquid_build_out",
            {"cdus": cdus, "it_kw": round(it_kw, 1), "site_cooling": site.cooling.value},
        )
        return False, lines, [note]
    if not liquid and rack_kw > air_limit + 1e-9:
        note = Note(
            "rack_beyond_air_cooling",
            {
                "server": server.name,
                "rack_kw": round(rack_kw, 1),
                "max_kw": air_limit,
                "site_cooling": site.cooling.value,
            },
        )
        return True, [], [note]
    return False, [], []


def _power_build_out(
    site: SiteSpec, it_kw: float, rack_kw: float, racks_required: int, *, check_racks: bool
) -> tuple[bool, list[BuildOutLine], list[Note]]:
    """What power the site lacks: (blocked, build-out lines, reasons). Rack feeds above the
    site's limit are upgraded (unless the racks cannot stand there anyway: ``check_racks``
    false); IT power beyond what is available comes from the grid connection's headroom, or
    the site needs a new connection. A server room of the buyer's own with no available
    power given holds ``SERVER_ROOM_IT_KW``; beyond it the fleet does not fit the room."""
    prices = site.build_out
    lines: list[BuildOutLine] = []
    reasons: list[Note] = []
    if check_racks and rack_kw > site.rack_power_limit_kw + 1e-9:
        extra = (rack_kw - site.rack_power_limit_kw) * racks_required
        lines.append(BuildOutLine("rack_power", extra, prices.power_per_kw, defaults.POWER_WEEKS))
        reasons.append(
            Note(
                "rack_power_upgrade",
                {
                    "rack_kw": round(rack_kw, 1),
                    "rack_power_limit_kw": site.rack_power_limit_kw,
                    "racks": racks_required,
                },
            )
        )
    available, assumed = available_it_kw(site)
    if available is None or it_kw <= available + 1e-9 or (assumed and not check_racks):
        # Also when the racks cannot stand there anyway: a guessed figure adds nothing.
        return False, lines, reasons
    if assumed:  # the room's power is not known: no build-out is priced on a guess
        note = Note(
            "server_room_power",
            {"it_kw": round(it_kw, 1), "assumed_kw": available, "racks": racks_required},
        )
        return True, lines, [*reasons, note]
    extra = it_kw - available
    headroom = site.grid_headroom_kw
    if headroom is not None and extra > headroom + 1e-9:
        note = Note(
            "grid_connection",
            {
                "it_kw": round(it_kw, 1),
                "available_it_kw": available,
                "grid_headroom_kw": headroom,
            },
        )
        return True, lines, [*reasons, note]
    lines.append(BuildOutLine("facility_power", extra, prices.power_per_kw, defaults.POWER_WEEKS))
    reasons.append(
        Note(
            "facility_power_upgrade",
            {"it_kw": round(it_kw, 1), "available_it_kw": available},
        )
    )
    return False, lines, reasons


def available_it_kw(site: SiteSpec) -> tuple[float | None, bool]:
    """The IT power free for the fleet (None: not limited), and whether it is the default
    of a server room of the buyer's own whose figure was not given (a workstation is one
    machine at a desk: its socket is its rack limit)."""
    if site.available_it_kw is not None or not site.on_premises or site.workstation:
        return site.available_it_kw, False
    return defaults.SERVER_ROOM_IT_KW, True


def placed(servers: int, server: ServerSpec, site: SiteSpec) -> tuple[SiteSpec, SiteFit, SiteFit]:
    """Where the owned fleet runs: the site if it fits (as is or built out), else its
    liquid-ready ``fallback`` when that fits. Returns (site used, its fit, the own site's fit).
    """
    own = site_fit(servers, server, site)
    if own.fits or site.fallback is None:
        return site, own, own
    alternative = site_fit(servers, server, site.fallback)
    if not alternative.fits:
        return site, own, own
    return site.fallback, alternative, own


# The reasons that keep a fleet off a site (the others are priced build-out lines).
BLOCKING = frozenset(
    {"needs_liquid_cooling", "rack_beyond_air_cooling", "grid_connection", "server_room_power"}
)


def placed_elsewhere(own: SiteFit, used: SiteFit, server: str) -> Note | None:
    """The warning that the fleet is costed at another site than the scenario's, with the
    reason the own site cannot take it; None when it stays.

    ``described``: whether the buyer described the own site (the wording says "your site")
    or it is a default ("the default site").
    """
    if used is own:
        return None
    reason = next((n for n in own.reasons if n.code in BLOCKING), None)
    # The reason's figures with its code: one flat set of parameters, as every note has.
    params = {
        **(reason.params if reason is not None else {}),
        "site": own.site,
        "placed_at": used.site,
        "server": server,
        "described": own.described,
        "reason": reason.code if reason is not None else "",
    }
    who = "Your site" if own.described else "The default site"
    why = f": {reason.text}" if reason is not None else ""
    message = (
        f"{who} ({own.site}) cannot take the {server}{why}. The owned servers are costed "
        f"at {used.site}."
    )
    return Note("placed_elsewhere", params, message, warning=True)


def site_duties(it_kw: float, site: SiteSpec, fit: SiteFit | None = None) -> tuple[Note, ...]:
    """The EU duties the fleet's IT power brings at ``site`` (S-EED), and for Dutch sites
    the EIA pointer when liquid cooling or heat reuse is in play (S-EIA).

    A 32 × 14.3 kW = 457.6 kW fleet stays below the 500 kW reporting threshold; 600 kW
    reaches it; 1.2 MW also owes the waste-heat assessment:

    >>> nl = SiteSpec(0.18, 1.3, 150.0, 20.0, "EUR", country="NL")
    >>> [d.code for d in site_duties(457.6, nl)], [d.code for d in site_duties(600.0, nl)]
    ([], ['eed_reporting'])
    >>> [d.code for d in site_duties(1200.0, nl)]
    ['eed_reporting', 'eed_heat_reuse', 'nl_eia']
    """
    if site.country not in EU_COUNTRIES:
        return ()
    duties: list[Note] = []
    params = {"it_kw": round(it_kw, 1), "on_premises": site.on_premises}
    if it_kw >= defaults.EED_REPORTING_KW - 1e-9:
        duties.append(
            Note(
                "eed_reporting",
                {**params, "threshold_kw": defaults.EED_REPORTING_KW, "source": "S-EED"},
            )
        )
    heat_reuse = it_kw > defaults.EED_HEAT_REUSE_KW + 1e-9
    if heat_reuse:
        duties.append(
            Note(
                "eed_heat_reuse",
                {**params, "threshold_kw": defaults.EED_HEAT_REUSE_KW, "source": "S-EED"},
            )
        )
    liquid_work = fit is not None and any(
        line.item in ("cdu", "liquid_cooling") for line in fit.lines
    )
    if site.country == "NL" and (heat_reuse or liquid_work):
        duties.append(Note("nl_eia", {"source": "S-EIA"}))
    return tuple(duties)
