"""The site fit's codes in the reader's language (tco/engine/site.py speaks in codes).

The rack plan line (racks, kW a rack, cooling, build-out), the reasons a site does not fit
or needs a build-out, the verdict's sentence when the site decided where the servers
stand, and the EU duties with their sources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from common.formatting import format_money, number
from tco.report import Note, Report

COOLING = {
    "air": gettext_lazy("air"),
    "direct_liquid": gettext_lazy("direct liquid"),
    "rack_liquid": gettext_lazy("rack liquid with CDU"),
}
SITE_COOLING = {
    "air": gettext_lazy("air only"),
    "rear_door": gettext_lazy("rear-door heat exchangers"),
    "direct_liquid": gettext_lazy("direct liquid (CDUs in place)"),
    "facility_water": gettext_lazy("facility water (no CDUs yet)"),
}
BUILD_OUT_ITEMS = {
    "cdu": gettext_lazy("coolant distribution units (CDUs)"),
    "liquid_cooling": gettext_lazy("liquid-cooling loop"),
    "rack_power": gettext_lazy("higher rack power feeds"),
    "facility_power": gettext_lazy("extra facility power"),
}
SOURCES = {
    "S-EED": gettext_lazy(
        "Directive (EU) 2023/1791, art. 12 and 26(6); Delegated Regulation (EU) 2024/1364"
    ),
    "S-EIA": "RVO, Energie-investeringsaftrek (EIA), rvo.nl/subsidies-financiering/eia",
}


def site_name(name: object) -> str:
    """A catalog site's name in the reader's language (the engine carries the English)."""
    from tco.scenario.resolve import CatalogSnapshot

    for site in CatalogSnapshot.current().sites.values():
        if site.name == name:
            return site.display_name()
    return str(name or "")


def _cooling(value: object) -> str:
    return str(COOLING.get(str(value), value))


def _site_cooling(value: object) -> str:
    return str(SITE_COOLING.get(str(value), value))


def _code_and_params(note: Note | Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """A report's note, or one frozen in a sent revision's snapshot (a dict)."""
    if isinstance(note, Note):
        return note.code, note.params
    return str(note.get("code") or ""), note.get("params") or {}


def site_reason(note: Note | Mapping[str, Any]) -> str:
    """Why a site does not fit, or what its build-out is for."""
    code, p = _code_and_params(note)
    if code == "needs_liquid_cooling":
        return _(
            "The %(server)s is cooled by %(cooling)s; the site has %(site_cooling)s, no water "
            "at the racks."
        ) % {
            "server": p.get("server"),
            "cooling": _cooling(p.get("cooling")),
            "site_cooling": _site_cooling(p.get("site_cooling")),
        }
    if code == "liquid_build_out":
        return ngettext(
            "Liquid cooling to build: %(cdus)s CDU and a liquid loop for %(kw)s kW of IT "
            "on the site's %(site_cooling)s.",
            "Liquid cooling to build: %(cdus)s CDUs and a liquid loop for %(kw)s kW of IT "
            "on the site's %(site_cooling)s.",
            int(p.get("cdus") or 0),
        ) % {
            "cdus": number(p.get("cdus")),
            "kw": number(p.get("it_kw"), 1),
            "site_cooling": _site_cooling(p.get("site_cooling")),
        }
    if code == "rack_beyond_air_cooling":
        return _(
            "A rack of %(server)s draws %(kw)s kW; %(site_cooling)s removes at most %(max)s kW "
            "a rack."
        ) % {
            "server": p.get("server"),
            "kw": number(p.get("rack_kw"), 1),
            "site_cooling": _site_cooling(p.get("site_cooling")),
            "max": number(p.get("max_kw")),
        }
    if code == "rack_power_upgrade":
        return ngettext(
            "Each rack draws %(kw)s kW, above the site's %(limit)s kW: %(racks)s rack feed "
            "to upgrade.",
            "Each rack draws %(kw)s kW, above the site's %(limit)s kW: %(racks)s rack feeds "
            "to upgrade.",
            int(p.get("racks") or 0),
        ) % {
            "kw": number(p.get("rack_kw"), 1),
            "limit": number(p.get("rack_power_limit_kw"), 1),
            "racks": number(p.get("racks")),
        }
    if code == "facility_power_upgrade":
        return _(
            "The fleet draws %(kw)s kW of IT power, above the %(available)s kW available: the "
            "rest comes from the grid connection's headroom."
        ) % {"kw": number(p.get("it_kw"), 1), "available": number(p.get("available_it_kw"), 1)}
    if code == "server_room_power":
        return ngettext(
            "The fleet draws %(kw)s kW of IT power in %(racks)s rack; a server room with no "
            "available power given is taken to hold %(assumed)s kW (an estimate). Give the "
            "room's available IT power if it has more.",
            "The fleet draws %(kw)s kW of IT power in %(racks)s racks; a server room with no "
            "available power given is taken to hold %(assumed)s kW (an estimate). Give the "
            "room's available IT power if it has more.",
            int(p.get("racks") or 0),
        ) % {
            "kw": number(p.get("it_kw"), 1),
            "racks": number(p.get("racks")),
            "assumed": number(p.get("assumed_kw")),
        }
    if code == "grid_connection":
        return _(
            "The fleet draws %(kw)s kW of IT power; the site has %(available)s kW and its grid "
            "connection %(headroom)s kW more: it needs a new connection."
        ) % {
            "kw": number(p.get("it_kw"), 1),
            "available": number(p.get("available_it_kw"), 1),
            "headroom": number(p.get("grid_headroom_kw"), 1),
        }
    return str(code or "")


def site_plan(report: Report) -> str:
    """The rack plan's site line: kW a rack, cooling, and the build-out or where it stands."""
    fit = report.site_fit
    if fit is None:
        return ""
    placed = fit.placed_at
    shown = placed or fit
    parts = [
        _("%(kw)s kW a rack, cooled by %(cooling)s; the site offers %(site_cooling)s.")
        % {
            "kw": number(shown.kw_per_rack, 1),
            "cooling": _cooling(shown.cooling),
            "site_cooling": _site_cooling(shown.site_cooling),
        }
    ]
    if placed:
        parts.append(
            (
                _("Your site cannot take it; the servers are costed at %(site)s.")
                if fit.described
                else _("The default site cannot take it; the servers are costed at %(site)s.")
            )
            % {"site": site_name(placed.site)}
        )
    elif fit.status == "build_out":
        items = ", ".join(
            str(BUILD_OUT_ITEMS.get(line.item, line.item)) for line in fit.build_out_lines
        )
        parts.append(
            _("Build-out: %(items)s, %(cost)s, about %(weeks)s weeks (included in owning).")
            % {
                "items": items,
                "cost": format_money(fit.build_out_cost, report.currency, 0),
                "weeks": number(fit.build_out_weeks),
            }
        )
    elif fit.status == "does_not_fit":
        parts.append(
            _("Your site cannot take it and no liquid-ready colocation can.")
            if fit.described
            else _("The default site cannot take it and no liquid-ready colocation can.")
        )
    return " ".join(parts)


def site_reasons(report: Report) -> list[str]:
    fit = report.site_fit
    return [site_reason(n) for n in fit.reasons] if fit else []


# The reasons that keep a fleet off a site (tco/engine/site.py BLOCKING; the others are
# priced build-out lines).
BLOCKING = (
    "needs_liquid_cooling",
    "rack_beyond_air_cooling",
    "grid_connection",
    "server_room_power",
)


def cannot_take(described: object, site: object, server: object) -> str:
    """Whose site cannot take the server: "Your site, …" when the buyer described it, "The
    default site, …" (which the buyer never chose) otherwise."""
    values = {"site": site_name(site), "server": server}
    if described is False:
        return (
            _(
                "The default site, %(site)s, cannot take the %(server)s (describe your own "
                "under “Your site”)."
            )
            % values
        )
    return _("Your site, %(site)s, cannot take the %(server)s.") % values


def site_verdict(report: Report) -> str:
    """When the site decided where the servers stand (or that owning cannot be advised):
    whose site, why it cannot take them, and where they are costed instead."""
    fit = report.site_fit
    if fit is None or fit.status != "does_not_fit":
        return ""
    server = report.verdict.params.get("server")
    reason = next((n for n in fit.reasons if n.code in BLOCKING), None)
    said = [cannot_take(fit.described, fit.site, server)]
    if reason is not None:
        said.append(site_reason(reason))
    placed = fit.placed_at
    if placed:
        said.append(
            _(
                "The servers are costed at %(colo)s: %(extra)s in colocation fees over the "
                "horizon, included above."
            )
            % {
                "colo": site_name(placed.site),
                "extra": format_money(placed.colocation_cost, report.currency, 0),
            }
        )
    else:
        said.append(_("No liquid-ready colocation can take them either: buying is not advised."))
    return " ".join(said)


def placed_elsewhere(note: Note | Mapping[str, Any]) -> str:
    """The warning that the fleet is costed at another site: whose site, why, where."""
    _code, p = _code_and_params(note)
    reason = str(p.get("reason") or "")
    why = site_reason({"code": reason, "params": p}) if reason else ""
    where = _("The owned servers are costed at %(colo)s.") % {"colo": site_name(p.get("placed_at"))}
    return " ".join(
        x
        for x in (cannot_take(p.get("described"), p.get("site"), p.get("server")), why, where)
        if x
    )


def site_duty(note: Note | Mapping[str, Any]) -> str:
    """An EU duty (or the Dutch EIA pointer), with its source; a report's note or one frozen
    in a sent revision's snapshot."""
    code, p = _code_and_params(note)
    source = str(SOURCES.get(str(p.get("source")), ""))
    if code == "eed_reporting":
        who = (
            _("by you, for your own site")
            if p.get("on_premises")
            else _("by the data centre's operator, for the whole site")
        )
        text = _(
            "%(kw)s kW of IT power, at least %(threshold)s kW: under the EU Energy Efficiency "
            "Directive energy use, PUE, water and waste heat are reported yearly to the EU "
            "database (%(who)s)."
        ) % {
            "kw": number(p.get("it_kw"), 1),
            "threshold": number(p.get("threshold_kw")),
            "who": who,
        }
    elif code == "eed_heat_reuse":
        text = _(
            "Above %(threshold)s kW: the data centre must use its waste heat or show that this "
            "is not technically or economically feasible."
        ) % {"threshold": number(p.get("threshold_kw"))}
    elif code == "nl_eia":
        text = _(
            "In the Netherlands, investments in efficient cooling or heat reuse may qualify for "
            "the energy-investment deduction (EIA) if they are on that year's Energielijst; "
            "ask your tax adviser (no amount is computed here)."
        )
    else:
        return str(code or "")
    return f"{text} ({source})" if source else text
