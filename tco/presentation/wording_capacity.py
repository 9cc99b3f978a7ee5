"""Time to capacity in the reader's language: the verdict's delivery sentence, each
option's ready date and bridge, and the timeline (tco/engine/capacity.py's codes, as the
typed report carries them: Option.ready_date, .bridge, .time and Report.capacity)."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date
from typing import Any

from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.dates import iso_date
from common.formatting import format_money, number
from tco.presentation.wording import cloud_label, option_label
from tco.report import Bridge, Option, Report

OWNED_KINDS = ("onprem", "onprem_resell", "hybrid")


def day_text(value: str | date | None) -> str:
    """A date (or an ISO date) in the active language's date style; empty when there is
    none or the text is not a date (a stored document's text is not trusted).

    >>> day_text("2027-02-30"), day_text(None)
    ('', '')
    """
    day = iso_date(value) if isinstance(value, str) else value
    return date_format(day, "DATE_FORMAT") if day else ""


def _weeks(days: float | None) -> str:
    weeks = max(1, math.ceil((days or 0.0) / 7 - 1e-9))
    return ngettext("%(n)s week", "%(n)s weeks", weeks) % {"n": number(weeks)}


def time_sentence(report: Report) -> str:
    """The verdict's delivery line: "Buy 4 × SYS-821GE (ships in 44 weeks); rent 4 ×
    CoreWeave for the first 41 weeks ($1,234,567) to meet your 30-day deadline." Empty when
    the scenario gave no capacity block."""
    capacity = report.capacity
    option = next((o for o in report.options if o.recommended), None)
    if capacity is None or option is None or option.time is None:
        return ""
    currency = report.currency
    time = option.time
    params = report.verdict.params
    values = {
        "servers": number(params.get("owned_servers") or params.get("servers")),
        "server": params.get("server") or "",
        "ready": day_text(option.ready_date),
        "deadline": number(capacity.needed_in_days),
        "weeks_late": _weeks(time.late_days),
        "delay": format_money(time.delay_cost, currency, 0),
    }
    if option.kind not in OWNED_KINDS:
        if time.late_days:
            return _(
                "%(option)s is ready on %(ready)s, %(weeks_late)s after the work needs it; "
                "the delay costs %(delay)s."
            ) % {**values, "option": option_label(option)}
        return _("%(option)s is ready on %(ready)s.") % {**values, "option": option_label(option)}
    if time.code == "lead_time":
        shipping = _("ships in %(weeks)s") % {"weeks": _weeks(capacity.lead_time_weeks * 7)}
    elif time.code == "site_readiness":
        shipping = _("the site is ready in %(weeks)s") % {
            "weeks": _weeks(capacity.site_readiness_weeks * 7)
        }
    else:
        shipping = _("in stock")
    values["shipping"] = shipping
    bridge = option.bridge
    if bridge is not None and bridge.start_in_days > (capacity.needed_in_days or 0.0):
        return _(
            "Buy %(servers)s × %(server)s (%(shipping)s, ready on %(ready)s); rent %(n)s × "
            "%(bridge)s from day %(start)s, as soon as it can be booked, until then "
            "(%(cost)s); the work starts %(weeks_late)s after your %(deadline)s-day deadline "
            "(%(delay)s)."
        ) % {
            **values,
            "n": number(bridge.instances),
            "bridge": cloud_label(bridge.option),
            "start": number(math.ceil(bridge.start_in_days)),
            "weeks_late": _weeks(bridge.start_in_days - (capacity.needed_in_days or 0.0)),
            "cost": format_money(bridge.cost, currency, 0),
        }
    if bridge is not None:
        return _(
            "Buy %(servers)s × %(server)s (%(shipping)s, ready on %(ready)s); rent %(n)s × "
            "%(bridge)s for the first %(bridge_weeks)s (%(cost)s) to meet your %(deadline)s-day "
            "deadline."
        ) % {
            **values,
            "n": number(bridge.instances),
            "bridge": cloud_label(bridge.option),
            "bridge_weeks": _weeks(bridge.days),
            "cost": format_money(bridge.cost, currency, 0),
        }
    if time.late_days:
        return (
            _(
                "Buy %(servers)s × %(server)s (%(shipping)s, ready on %(ready)s, %(weeks_late)s "
                "after the work needs it; the delay costs %(delay)s)."
            )
            % values
        )
    return _("Buy %(servers)s × %(server)s (%(shipping)s, ready on %(ready)s).") % values


def ready_cell(option: Option) -> str:
    """An option's ready date for the options table ("–" without a capacity block)."""
    if option.time is None:
        return "–"
    if option.time.ruled_out:
        return _("%(ready)s: too late") % {"ready": day_text(option.ready_date)}
    return day_text(option.ready_date)


def bridge_text(option: Option, currency: str) -> str:
    """ "Bridge: 4 × CoreWeave 8 × H100 for 40 days, $132,357" (empty without a bridge)."""
    bridge = option.bridge
    if bridge is None:
        return ""
    days = math.ceil(bridge.days)
    return ngettext(
        "Bridge: %(n)s × %(option)s for %(days)s day, %(cost)s",
        "Bridge: %(n)s × %(option)s for %(days)s days, %(cost)s",
        days,
    ) % {
        "n": number(bridge.instances),
        "option": cloud_label(bridge.option),
        "days": number(days),
        "cost": format_money(bridge.cost, currency, 0),
    }


def bridge_terms(option: Option) -> str:
    """How the bridge is obtained and billed: "On demand, billed for every hour held:
    1,128 hours per instance." (empty without a bridge)."""
    bridge = option.bridge
    if bridge is None:
        return ""
    minimum = math.ceil(bridge.minimum_days)
    values = {
        "hours": number(round(bridge.hours)),
        "start": number(math.ceil(bridge.start_in_days)),
        "minimum": ngettext("%(n)s day", "%(n)s days", minimum) % {"n": number(minimum)},
    }
    if bridge.obtained == "capacity_block":
        return (
            _(
                "Booked as a capacity block from day %(start)s, billed for every hour held "
                "and at least %(minimum)s: %(hours)s hours per instance."
            )
            % values
        )
    if bridge.obtained == "reserved":
        return (
            _(
                "Booked as a reserved term from day %(start)s and paid whole (%(minimum)s): "
                "%(hours)s hours per instance."
            )
            % values
        )
    return _("On demand, billed for every hour held: %(hours)s hours per instance.") % values


def bridge_risk(option: Option, short: bool = False) -> str:
    """The bridge's risk in words (empty when there is none): on-demand capacity of its
    size is not guaranteed and nothing in the comparison can be booked. ``short``: one
    clause for the options table, whose verdict above says it in full."""
    bridge = option.bridge
    if bridge is None or bridge.risk != "not_guaranteed":
        return ""
    if short:
        return _("On-demand capacity of %(gpus)s GPUs is not guaranteed.") % {
            "gpus": number(bridge.gpus or 0)
        }
    return _(
        "On-demand capacity of %(gpus)s GPUs is not guaranteed: no provider can be counted on "
        "to have more than %(limit)s GPUs free at once, and no capacity block or reserved "
        "term in this comparison fits. Book capacity before relying on this bridge, or the "
        "work may wait for the servers."
    ) % {
        "gpus": number(bridge.gpus or 0),
        "limit": number(bridge.on_demand_limit_gpus or 0),
    }


def timeline(report: Report) -> dict[str, Any] | None:
    """The timeline chart's rows, from the order (today) to each option's ready date, the
    bridge, and the need date, as percentages of the span drawn; None without capacity.

    Each row: its label, the ready date's text, and segments (css class, left %, width %,
    text). The span runs to the latest ready date plus a fifth, at least to the need date.
    """
    capacity = report.capacity
    if capacity is None:
        return None
    options = [o for o in report.options if o.time is not None]
    if not options:
        return None
    # Owning (the recommended or cheapest first), then the three soonest-ready clouds.
    owned = sorted(
        (o for o in options if o.kind in OWNED_KINDS),
        key=lambda o: (not o.recommended, o.total_cost or 0.0),
    )
    clouds = sorted(
        (o for o in options if o.kind not in OWNED_KINDS),
        key=lambda o: (not o.recommended, o.ready_in_days or 0.0, o.total_cost or 0.0),
    )[:3]
    shown = owned + clouds
    needed = capacity.needed_in_days
    latest = max(o.ready_in_days or 0.0 for o in shown)
    span = max(latest * 1.2, (needed or 0.0) * 1.2, 14.0)

    def pct(days: float) -> float:
        return round(min(max(days / span * 100, 0.0), 100.0), 2)

    rows = []
    bridges_drawn: set[Bridge] = set()
    for o in shown:
        ready = o.ready_in_days or 0.0
        segments = []
        if ready > 0:
            label = _("order to ready") if o.kind in OWNED_KINDS else _("booking lead")
            segments.append(("wait", 0.0, pct(ready), label))
        segments.append(("work", pct(ready), round(100 - pct(ready), 2), _("working")))
        rows.append(
            {
                "label": option_label(o),
                "recommended": o.recommended,
                "ruled_out": bool(o.time and o.time.ruled_out),
                "ready": day_text(o.ready_date),
                "segments": [
                    {"kind": kind, "left": left, "width": width, "text": text}
                    for kind, left, width, text in segments
                ],
            }
        )
        # The same bridge (a hybrid's may equal owning's) is drawn once.
        if o.bridge is not None and o.bridge not in bridges_drawn:
            bridges_drawn.add(o.bridge)
            rows.append(_bridge_row(o.bridge, pct, report.currency))
    return {
        "rows": rows,
        "start": day_text(capacity.as_of),
        "needed": day_text(capacity.needed_date),
        "needed_left": pct(needed) if needed is not None else None,
        "end_days": math.ceil(span),
    }


def _bridge_row(bridge: Bridge, pct: Callable[[float], float], currency: str) -> dict[str, Any]:
    """The timeline's row of a bridge: rented from its start until the servers are ready."""
    left = pct(bridge.start_in_days)
    return {
        "label": _("Bridge: %(n)s × %(option)s")
        % {"n": number(bridge.instances), "option": cloud_label(bridge.option)},
        "recommended": False,
        "ruled_out": False,
        "ready": format_money(bridge.cost, currency, 0),
        "segments": [
            {
                "kind": "bridge",
                "left": left,
                "width": round(pct(bridge.start_in_days + bridge.days) - left, 2),
                "text": _("rented until the servers are ready"),
            }
        ],
    }
