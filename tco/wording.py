"""The engine's codes in the reader's language: verdict, notes, warnings, option names.

The engine returns a code and its numbers (tco/engine/notes.py, verdict.py);
this module is the only place that turns them into sentences, so the page,
the quote and the PDF say the same thing, in English or Dutch.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from catalog.templatetags.formatting import format_money, number, percent

TERM_LABELS = {
    "on_demand": lambda: _("on demand"),
    "committed_1y": lambda: _("1-year commitment"),
    "committed_3y": lambda: _("3-year commitment"),
    "spot": lambda: _("spot"),
    "capacity_block": lambda: _("capacity block"),
}
_TERM_IN_NAME = re.compile(r"\((on_demand|committed_1y|committed_3y|spot|capacity_block)\)$")


def option_label(option: Mapping[str, Any]) -> str:
    """An option's name for people: owning options by kind, cloud terms spelled out."""
    kind = option.get("kind")
    if kind == "onprem":
        return _("Buy and keep")
    if kind == "onprem_resell":
        return _("Buy, run and resell")
    if kind == "hybrid":
        return _("Hybrid: own part, rent the rest")
    return cloud_label(str(option.get("name", "")))


def cloud_label(name: str) -> str:
    """'AWS p5.48xlarge (committed_3y)' → 'AWS p5.48xlarge, 3-year commitment'."""
    match = _TERM_IN_NAME.search(name)
    if not match:
        return name
    return f"{name[: match.start()].rstrip()}, {TERM_LABELS[match.group(1)]()}"


def _years(months: int) -> str:
    years = months / 12
    if years.is_integer():
        return ngettext("%(n)d year", "%(n)d years", int(years)) % {"n": int(years)}
    return _("%(n)d months") % {"n": months}


def verdict_headline(verdict: Mapping[str, Any], currency: str) -> str:
    """The one-line answer: buy, rent, buy-run-resell or hybrid, with its numbers."""
    code = verdict.get("code")
    p: Mapping[str, Any] = verdict.get("params") or {}
    horizon = _years(int(p.get("horizon_months") or 60))
    option = cloud_label(str(p.get("option") or ""))
    if code == "rent":
        cost = format_money(p.get("cost"), currency, 0)
        scope = _("for this work") if p.get("per_work") else _("over %(h)s") % {"h": horizon}
        ratio = p.get("ratio")
        if ratio:
            return _("Rent: %(option)s, %(cost)s %(scope)s (%(ratio)s× cheaper than owning).") % {
                "option": option,
                "cost": cost,
                "scope": scope,
                "ratio": number(ratio, 1),
            }
        return _("Rent: %(option)s, %(cost)s %(scope)s.") % {
            "option": option,
            "cost": cost,
            "scope": scope,
        }
    saving = p.get("saving")
    against = ""
    if saving is not None and p.get("saving_pct") is not None:
        against = _(
            "saves %(saving)s (%(pct)s) over %(h)s against the cheapest fitting cloud option "
            "(%(option)s)"
        ) % {
            "saving": format_money(saving, currency, 0),
            "pct": percent(p.get("saving_pct")),
            "h": horizon,
            "option": option,
        }
    values = {
        "servers": p.get("servers"),
        "server": p.get("server"),
        "against": against,
        "owned": p.get("owned_servers"),
        "burst": cloud_label(str(p.get("hybrid_option") or "")),
        "months": p.get("resale_month"),
        "month": number(p.get("payback_month"), 1),
    }
    if code == "hybrid":
        return _("Hybrid: own %(owned)s × %(server)s, rent the rest on %(burst)s; %(against)s.") % (
            values
        )
    if code == "buy_resell":
        return (
            _(
                "Buy, run and resell: %(servers)s × %(server)s, resold after %(months)s months; "
                "%(against)s."
            )
            % values
        )
    if p.get("payback_month"):
        return _("Buy: %(servers)s × %(server)s, %(against)s, pays back in month %(month)s.") % (
            values
        )
    if against:
        return _("Buy: %(servers)s × %(server)s, %(against)s.") % values
    return _("Buy: %(servers)s × %(server)s.") % values


def npv_caveat(summary: Mapping[str, Any]) -> str:
    """When discounting reverses the ranking: a close call, said plainly."""
    verdict = summary.get("verdict") or {}
    p = verdict.get("params") or {}
    if not p.get("npv_best"):
        return ""
    option = option_label(
        {"kind": _KIND_OF.get(p.get("npv_best_kind"), "cloud"), "name": p["npv_best"]}
    )
    return _(
        "A close call: in today's money (net present value) %(option)s costs less, because "
        "it spreads the payments over time."
    ) % {"option": option}


_KIND_OF = {"own": "onprem", "own_resell": "onprem_resell", "hybrid": "hybrid", "cloud": "cloud"}


def break_even_sentence(summary: Mapping[str, Any]) -> str:
    """Break-even in the buyer's own terms: runs a year, or average utilization."""
    verdict = summary.get("verdict") or {}
    reference = verdict.get("reference_cloud")
    if not reference:
        return ""
    option = cloud_label(reference)
    runs = summary.get("break_even_runs_per_year")
    demand = summary.get("demand") or {}
    if runs is not None:
        return _("Owning beats %(option)s from %(runs)s runs a year.") % {
            "option": option,
            "runs": number(runs, 1),
        }
    u = summary.get("break_even_utilization")
    if summary.get("owning_wins_above") is False:  # a flat cloud bill: owning wins when idle
        if u is not None and 0 < u < 1:
            return _("Owning beats %(option)s below %(u)s average utilization.") % {
                "option": option,
                "u": percent(u),
            }
        if u is None or u >= 1:
            return _("Owning beats %(option)s at any utilization.") % {"option": option}
        return _("Even idle, owning does not beat %(option)s.") % {"option": option}
    if u is not None and 0 < u < 1:
        if demand.get("utilization_derived"):
            return _("Owning beats %(option)s from %(u)s average utilization of the servers.") % {
                "option": option,
                "u": percent(u),
            }
        return _("Owning beats %(option)s from %(u)s average utilization.") % {
            "option": option,
            "u": percent(u),
        }
    if u is not None and u >= 1:
        return _("Even busy around the clock, owning does not beat %(option)s.") % {
            "option": option
        }
    return ""


def note_text(note: Mapping[str, Any], currency: str = "EUR") -> str:
    """A note or warning from the engine, in the reader's language."""
    code = note.get("code")
    p: Mapping[str, Any] = note.get("params") or {}
    if code == "demand_assumed_continuous":
        return _("No demand pattern given: treated as a fleet kept busy at %(u)s all the time.") % {
            "u": percent(p.get("utilization"))
        }
    if code == "run_exceeds_horizon":
        return _("One run takes %(days)s days, longer than the %(months)s months compared.") % {
            "days": number(p.get("run_days")),
            "months": p.get("horizon_months"),
        }
    if code == "demand_exceeds_fleet":
        return _(
            "%(runs)s runs a year do not fit on this fleet, which manages %(max)s; size for a "
            "shorter deadline or plan fewer runs."
        ) % {
            "runs": number(p.get("runs_per_year"), 1),
            "max": number(p.get("max_runs_per_year"), 1),
        }
    if code == "fleet_too_large_deadline":
        return _(
            "A %(days)s-day deadline needs %(servers)s servers; relax the deadline to "
            "%(relaxed)s days for %(relaxed_servers)s."
        ) % {
            "days": number(p.get("deadline_days"), 1),
            "servers": number(p.get("servers")),
            "relaxed": number(p.get("relaxed_days")),
            "relaxed_servers": number(p.get("relaxed_servers")),
        }
    if code == "fleet_too_large":
        return _("This plan needs %(servers)s servers, more than 1,000: check the inputs.") % {
            "servers": number(p.get("servers"))
        }
    if code == "power_too_high":
        return _("The fleet draws %(mw)s MW at the facility, more than 10 MW.") % {
            "mw": number(p.get("facility_mw"), 1)
        }
    if code == "cost_too_high":
        return _("Owning costs %(amount)s over the horizon, more than a billion.") % {
            "amount": format_money(p.get("amount"), str(p.get("currency") or currency), 0)
        }
    if code == "spot_needs_tolerance":
        return _(
            "Not recommended: spot capacity can be taken back at any time. Tick 'my work "
            "tolerates interruptions' to allow it."
        )
    if code == "cloud_gpu_lacks_precision":
        return _("The %(gpu)s cannot compute in %(precision)s.") % {
            "gpu": p.get("gpu"),
            "precision": str(p.get("precision", "")).upper(),
        }
    if code == "cloud_gpu_cannot_run":
        return _("The %(gpu)s cannot run this workload.") % {"gpu": p.get("gpu")}
    return str(note.get("text") or code or "")


def hybrid_reason(hybrid: Mapping[str, Any]) -> str:
    reason = hybrid.get("reason")
    if reason == "all_rent_cheapest":
        return _("Owning even one server costs more than renting its share of the demand.")
    if reason == "all_own_cheapest":
        return _("Owning enough servers for the busiest month is cheapest; renting adds cost.")
    return _(
        "Owning the servers that stay busy and renting the peaks costs less than either extreme."
    )


def confidence_sentence(summary: Mapping[str, Any]) -> str:
    """ "Owning is cheaper in 83 % of 10,000 plausible futures", with the saving's spread."""
    c = summary.get("confidence")
    if not c:
        return ""
    currency = summary.get("currency", "EUR")
    values = {
        "p": percent(c.get("probability")),
        "n": number(c.get("draws")),
        "low": format_money(c.get("saving_p10"), currency, 0),
        "high": format_money(c.get("saving_p90"), currency, 0),
    }
    if c.get("favours") == "own":
        return (
            _(
                "Owning is cheaper in %(p)s of %(n)s plausible futures; in 8 of 10 the saving "
                "lies between %(low)s and %(high)s."
            )
            % values
        )
    return (
        _(
            "Renting is cheaper in %(p)s of %(n)s plausible futures; in 8 of 10 the saving "
            "lies between %(low)s and %(high)s."
        )
        % values
    )
