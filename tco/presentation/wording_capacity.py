"""Time to capacity in the reader's language: the verdict's delivery sentence, each
option's ready date and bridge, and the timeline (tco/engine/capacity.py's codes)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.formatting import format_money, number
from tco.presentation.wording import cloud_label, option_label

OWNED_KINDS = ("onprem", "onprem_resell", "hybrid")


def _get(block: Any, key: str) -> Any:
    """A field of the report (tco/report: typed models keep undeclared keys as
    attributes) or of its JSON form, None when absent."""
    if isinstance(block, Mapping):
        return block.get(key)
    return getattr(block, key, None)


def day_text(value: str | date | None) -> str:
    """An ISO date (as the JSON carries it) in the active language's date style."""
    if not value:
        return ""
    day = date.fromisoformat(value) if isinstance(value, str) else value
    return date_format(day, "DATE_FORMAT")


def _weeks(days: float | None) -> str:
    weeks = max(1, math.ceil((days or 0.0) / 7 - 1e-9))
    return ngettext("%(n)s week", "%(n)s weeks", weeks) % {"n": number(weeks)}


def _recommended(summary: Any) -> Any:
    return next((o for o in _get(summary, "options") or [] if _get(o, "recommended")), None)


def time_sentence(summary: Any) -> str:
    """The verdict's delivery line: "Buy 4 × SYS-821GE (ships in 44 weeks); rent 4 ×
    CoreWeave for the first 41 weeks ($1,234,567) to meet your 30-day deadline." Empty when
    the scenario gave no capacity block."""
    capacity = _get(summary, "capacity")
    option = _recommended(summary)
    if not capacity or option is None or not _get(option, "time"):
        return ""
    currency = _get(summary, "currency") or "EUR"
    time = _get(option, "time")
    params = _get(_get(summary, "verdict"), "params") or {}
    values = {
        "servers": number(params.get("owned_servers") or params.get("servers")),
        "server": params.get("server") or "",
        "ready": day_text(_get(option, "ready_date")),
        "deadline": number(_get(capacity, "needed_in_days")),
        "weeks_late": _weeks(_get(time, "late_days")),
        "delay": format_money(_get(time, "delay_cost"), currency, 0),
    }
    if _get(option, "kind") not in OWNED_KINDS:
        if _get(time, "late_days"):
            return _(
                "%(option)s is ready on %(ready)s, %(weeks_late)s after the work needs it; "
                "the delay costs %(delay)s."
            ) % {**values, "option": option_label(option)}
        return _("%(option)s is ready on %(ready)s.") % {**values, "option": option_label(option)}
    if _get(time, "code") == "lead_time":
        shipping = _("ships in %(weeks)s") % {
            "weeks": _weeks(float(_get(capacity, "lead_time_weeks") or 0) * 7)
        }
    elif _get(time, "code") == "site_readiness":
        shipping = _("the site is ready in %(weeks)s") % {
            "weeks": _weeks(float(_get(capacity, "site_readiness_weeks") or 0) * 7)
        }
    else:
        shipping = _("in stock")
    values["shipping"] = shipping
    bridge = _get(option, "bridge")
    if bridge:
        return _(
            "Buy %(servers)s × %(server)s (%(shipping)s, ready on %(ready)s); rent %(n)s × "
            "%(bridge)s for the first %(bridge_weeks)s (%(cost)s) to meet your %(deadline)s-day "
            "deadline."
        ) % {
            **values,
            "n": number(_get(bridge, "instances")),
            "bridge": cloud_label(str(_get(bridge, "option") or "")),
            "bridge_weeks": _weeks(_get(bridge, "days")),
            "cost": format_money(_get(bridge, "cost"), currency, 0),
        }
    if _get(time, "late_days"):
        return (
            _(
                "Buy %(servers)s × %(server)s (%(shipping)s, ready on %(ready)s, %(weeks_late)s "
                "after the work needs it; the delay costs %(delay)s)."
            )
            % values
        )
    return _("Buy %(servers)s × %(server)s (%(shipping)s, ready on %(ready)s).") % values


def ready_cell(option: Any) -> str:
    """An option's ready date for the options table ("–" without a capacity block)."""
    time = _get(option, "time")
    if not time:
        return "–"
    if _get(time, "ruled_out"):
        return _("%(ready)s: too late") % {"ready": day_text(_get(option, "ready_date"))}
    return day_text(_get(option, "ready_date"))


def bridge_text(option: Any, currency: str) -> str:
    """ "Bridge: 4 × CoreWeave 8 × H100 for 40 days, $132,357" (empty without a bridge)."""
    bridge = _get(option, "bridge")
    if not bridge:
        return ""
    return ngettext(
        "Bridge: %(n)s × %(option)s for %(days)s day, %(cost)s",
        "Bridge: %(n)s × %(option)s for %(days)s days, %(cost)s",
        math.ceil(_get(bridge, "days") or 0),
    ) % {
        "n": number(_get(bridge, "instances")),
        "option": cloud_label(str(_get(bridge, "option") or "")),
        "days": number(math.ceil(_get(bridge, "days") or 0)),
        "cost": format_money(_get(bridge, "cost"), currency, 0),
    }


def timeline(summary: Any) -> dict[str, Any] | None:
    """The timeline chart's rows, from the order (today) to each option's ready date, the
    bridge, and the need date, as percentages of the span drawn; None without capacity.

    Each row: its label, the ready date's text, and segments (css class, left %, width %,
    text). The span runs to the latest ready date plus a fifth, at least to the need date.
    """
    capacity = _get(summary, "capacity")
    if not capacity:
        return None
    options = [o for o in _get(summary, "options") or [] if _get(o, "time")]
    if not options:
        return None
    # Owning (the recommended or cheapest first), then the three soonest-ready clouds.
    owned = sorted(
        (o for o in options if _get(o, "kind") in OWNED_KINDS),
        key=lambda o: (not _get(o, "recommended"), (_get(o, "total_cost") or 0.0)),
    )
    clouds = sorted(
        (o for o in options if _get(o, "kind") not in OWNED_KINDS),
        key=lambda o: (
            not _get(o, "recommended"),
            _get(o, "ready_in_days") or 0,
            (_get(o, "total_cost") or 0.0),
        ),
    )[:3]
    shown = owned + clouds
    needed = _get(capacity, "needed_in_days")
    latest = max(float(_get(o, "ready_in_days") or 0) for o in shown)
    span = max(latest * 1.2, float(needed or 0) * 1.2, 14.0)

    def pct(days: float) -> float:
        return round(min(max(days / span * 100, 0.0), 100.0), 2)

    rows = []
    bridges_drawn = set()
    for o in shown:
        ready = float(_get(o, "ready_in_days") or 0)
        segments = []
        if ready > 0:
            label = _("order to ready") if _get(o, "kind") in OWNED_KINDS else _("booking lead")
            segments.append(("wait", 0.0, pct(ready), label))
        segments.append(("work", pct(ready), round(100 - pct(ready), 2), _("working")))
        rows.append(
            {
                "label": option_label(o),
                "recommended": bool(_get(o, "recommended")),
                "ruled_out": bool(_get(_get(o, "time"), "ruled_out")),
                "ready": day_text(_get(o, "ready_date")),
                "segments": [
                    {"kind": kind, "left": left, "width": width, "text": text}
                    for kind, left, width, text in segments
                ],
            }
        )
        bridge = _get(o, "bridge")
        drawn = tuple(sorted(bridge.items())) if bridge else None
        if bridge and drawn not in bridges_drawn:
            bridges_drawn.add(drawn)
            rows.append(_bridge_row(bridge, pct, _get(summary, "currency") or "EUR"))
    return {
        "rows": rows,
        "start": day_text(_get(capacity, "as_of")),
        "needed": day_text(_get(capacity, "needed_date")),
        "needed_left": pct(float(needed)) if needed is not None else None,
        "end_days": math.ceil(span),
    }


def _bridge_row(bridge: Any, pct: Callable[[float], float], currency: str) -> dict[str, Any]:
    """The timeline's row of a bridge: rented from its start until the servers are ready."""
    start = float(_get(bridge, "start_in_days") or 0)
    left = pct(start)
    return {
        "label": _("Bridge: %(n)s × %(option)s")
        % {
            "n": number(_get(bridge, "instances")),
            "option": cloud_label(str(_get(bridge, "option") or "")),
        },
        "recommended": False,
        "ruled_out": False,
        "ready": format_money(_get(bridge, "cost"), currency, 0),
        "segments": [
            {
                "kind": "bridge",
                "left": left,
                "width": round(pct(start + float(_get(bridge, "days") or 0)) - left, 2),
                "text": _("rented until the servers are ready"),
            }
        ],
    }
