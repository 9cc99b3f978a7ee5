"""The idle owned fleet in the reader's language (tco/engine/scenario.py speaks in codes).

When the owned fleet would be busy less than a tenth of its capacity (an NVL72 rack for a
model one 8-GPU server serves), the warning gives the share, and the verdict names the
smaller owned option the catalog has for the work.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.formatting import format_money, number, percent

if TYPE_CHECKING:
    from tco.report import Report

SMALLEST_SHARE_SHOWN = 0.0001  # 0.01 %: below it the share reads "less than 0.01 %"


def share_text(share: float | None) -> str:
    """A busy share with the decimals it needs: 7.3 %, 0.14 %, less than 0.01 %."""
    if share is None:
        return "–"
    if share >= 0.01:
        return percent(share, 1)
    if share >= SMALLEST_SHARE_SHOWN:
        return percent(share, 2)
    return _("less than %(share)s") % {"share": percent(SMALLEST_SHARE_SHOWN, 2)}


def _units(servers: Any, server: Any, gpus: Any) -> str:
    n = int(gpus or 0)
    return ngettext(
        "%(servers)s × %(server)s (%(gpus)s GPU)",
        "%(servers)s × %(server)s (%(gpus)s GPUs)",
        n,
    ) % {"servers": number(servers), "server": server, "gpus": number(n)}


def _months_owned(p: Mapping[str, Any]) -> str:
    """The months a one-off run owns the fleet (bought, run and resold); empty when the
    share is over the horizon."""
    months = p.get("idle_months")
    if not months:
        return ""
    n = int(months)
    return ngettext("the month", "the %(n)s months", n) % {"n": number(n)}


def idle_warning(p: Mapping[str, Any]) -> str:
    """The warning: how little of the owned fleet's capacity the work would use (a
    service: even at its peak; training: of the time, or of the months a one-off run owns
    it)."""
    values = {
        "fleet": _units(p.get("idle_servers"), p.get("idle_server"), p.get("idle_gpus")),
        "share": share_text(p.get("idle_share")),
        "months": _months_owned(p),
    }
    if values["months"]:
        return (
            _(
                "Bought for this run and resold, the %(fleet)s would be busy %(share)s of "
                "%(months)s it is owned: almost all of its capacity would stand idle."
            )
            % values
        )
    if p.get("idle_basis") == "peak":
        return (
            _(
                "Bought, the %(fleet)s would use %(share)s of its capacity even at the peak: "
                "almost all of it would stand idle."
            )
            % values
        )
    return (
        _(
            "Bought, the %(fleet)s would be busy %(share)s of the time: almost all of its "
            "capacity would stand idle."
        )
        % values
    )


def idle_verdict_sentence(p: Mapping[str, Any], currency: str) -> str:
    """The verdict's sentence naming the smaller owned option; empty without one."""
    if not p.get("smaller_server"):
        return ""
    values = {
        "server": p.get("idle_server"),
        "share": share_text(p.get("idle_share")),
        "smaller": _units(p.get("smaller_servers"), p.get("smaller_server"), p.get("smaller_gpus")),
        "cost": format_money(p.get("smaller_cost"), currency, 0),
        "months": _months_owned(p),
    }
    if values["months"]:
        return (
            _(
                "Bought for this run and resold, the %(server)s would be busy %(share)s of "
                "%(months)s it is owned; a smaller system does this work: %(smaller)s, "
                "%(cost)s to own."
            )
            % values
        )
    if p.get("idle_basis") == "peak":
        return (
            _(
                "The %(server)s would use %(share)s of its capacity even at the peak; a "
                "smaller system does this work: %(smaller)s, %(cost)s to own."
            )
            % values
        )
    return (
        _(
            "The %(server)s would be busy %(share)s of the time; a smaller system does "
            "this work: %(smaller)s, %(cost)s to own."
        )
        % values
    )


def idle_report_sentence(report: Report) -> str:
    """The idle fleet's warning of a report, for outputs that show the verdict without the
    page's warnings (the PDF's summary); empty when the fleet is used enough."""
    for note in report.warnings:
        if note.code == "owned_mostly_idle":
            return idle_warning(note.params)
    return ""
