"""The engine's codes in the reader's language: verdict, notes, warnings, option names.

The engine returns a code and its numbers (tco/engine/notes.py, verdict.py);
this module is the only place that turns them into sentences, so the page,
the quote and the PDF say the same thing, in English or Dutch.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.formatting import format_amounts, format_money, number, percent
from tco.presentation import wording_idle, wording_serving, wording_site

if TYPE_CHECKING:
    from tco.report import HorizonRow, Hybrid, Note, Option, Report, Verdict
    from tco.report.models import Parallelism

TERM_LABELS = {
    "on_demand": lambda: _("on demand"),
    "committed_1y": lambda: _("1-year commitment"),
    "committed_3y": lambda: _("3-year commitment"),
    "spot": lambda: _("spot"),
    "capacity_block": lambda: _("capacity block"),
    "api": lambda: _("per-token API"),
}
_TERM_IN_NAME = re.compile(r"\((on_demand|committed_1y|committed_3y|spot|capacity_block|api)\)$")


def option_label(option: Option | HorizonRow) -> str:
    """An option's name for people: owning options by kind, cloud terms spelled out."""
    return kind_label(option.kind, option.name)


def kind_label(kind: str, name: str) -> str:
    """The name for people of an option of that kind and (engine) name."""
    if kind == "onprem":
        return _("Buy and keep")
    if kind == "onprem_resell":
        return _("Buy, run and resell")
    if kind == "hybrid":
        return _("Hybrid: own part, rent the rest")
    return cloud_label(name)


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


# What the engine assumed when the scenario gave no demand (verdict.params.demand_assumed).
# Looked up with a verdict's param, which may be missing (None).
ASSUMED_DEMAND: dict[str | None, Callable[[], str]] = {
    "one_run": lambda: _("assuming one run"),
    "around_the_clock": lambda: _("assuming it serves around the clock"),
}


def verdict_headline(verdict: Verdict, currency: str) -> str:
    """The answer: buy, rent, buy-run-resell or hybrid with its numbers, what demand it
    assumed when none was given, and whether the buyer's terms rather than cost decided
    it."""
    headline = _cost_headline(verdict, currency)
    assumed = ASSUMED_DEMAND.get(verdict.params.get("demand_assumed"))
    if assumed is not None:
        headline = f"{headline.removesuffix('.')}, {assumed()}."
    decided = terms_decided_sentence(verdict, currency)
    idle = wording_idle.idle_verdict_sentence(verdict.params, currency)
    return " ".join(part for part in (headline, decided, idle) if part)


def _cost_headline(verdict: Verdict, currency: str) -> str:
    """The answer as a sentence that starts with what to do: "Rent X: €Y over 5 years, 3.1×
    cheaper than owning." or "Buy 2 × X: it saves €Y (48 %) over 5 years against …"."""
    p = verdict.params
    horizon = _years(int(p.get("horizon_months") or 60))
    option = cloud_label(str(p.get("option") or ""))
    if verdict.code == "rent":
        return _rent_headline(p, option, horizon, currency)
    saving = p.get("saving")
    values = {
        "servers": p.get("servers"),
        "server": p.get("server"),
        "owned": p.get("owned_servers"),
        "burst": cloud_label(str(p.get("hybrid_option") or "")),
        "months": p.get("resale_month"),
    }
    if verdict.code == "hybrid":
        action = _("Buy %(owned)s × %(server)s and rent the rest on %(burst)s") % values
    elif verdict.code == "buy_resell":
        action = (
            ngettext(
                "Buy %(servers)s × %(server)s, run the work and resell after %(months)s month",
                "Buy %(servers)s × %(server)s, run the work and resell after %(months)s months",
                int(p.get("resale_month") or 0),
            )
            % values
        )
    else:
        action = _("Buy %(servers)s × %(server)s") % values
    if saving is None or p.get("saving_pct") is None:  # no cloud option to compare with
        return f"{action}."
    against = {
        "action": action,
        "saving": format_money(saving, currency, 0),
        "pct": percent(p.get("saving_pct")),
        "h": horizon,
        "option": option,
        "month": number(p.get("payback_month"), 1),
    }
    if verdict.code == "buy" and p.get("payback_month"):
        return (
            _(
                "%(action)s: it saves %(saving)s (%(pct)s) over %(h)s against the cheapest "
                "fitting cloud option (%(option)s) and pays back after %(month)s months."
            )
            % against
        )
    return (
        _(
            "%(action)s: it saves %(saving)s (%(pct)s) over %(h)s against the cheapest fitting "
            "cloud option (%(option)s)."
        )
        % against
    )


def _rent_headline(p: dict[str, Any], option: str, horizon: str, currency: str) -> str:
    """Renting wins: "Rent X: €Y for this work, 3.1× cheaper than owning."; a per-token API
    is used, not rented."""
    values = {
        "option": option,
        "cost": format_money(p.get("cost"), currency, 0),
        "scope": _("for this work") if p.get("per_work") else _("over %(h)s") % {"h": horizon},
        "ratio": number(p.get("ratio"), 1),
    }
    api = str(p.get("option") or "").endswith("(api)")
    if p.get("ratio"):
        if api:
            return _("Use %(option)s: %(cost)s %(scope)s, %(ratio)s× cheaper than owning.") % values
        return _("Rent %(option)s: %(cost)s %(scope)s, %(ratio)s× cheaper than owning.") % values
    if api:
        return _("Use %(option)s: %(cost)s %(scope)s.") % values
    return _("Rent %(option)s: %(cost)s %(scope)s.") % values


def npv_caveat(report: Report) -> str:
    """When discounting reverses the ranking: a close call, said plainly."""
    p = report.verdict.params
    if not p.get("npv_best"):
        return ""
    option = kind_label(_KIND_OF.get(p.get("npv_best_kind"), "cloud"), str(p["npv_best"]))
    return _(
        "A close call: in today's money (net present value) %(option)s costs less, because "
        "it spreads the payments over time."
    ) % {"option": option}


_KIND_OF: dict[str | None, str] = {
    "own": "onprem",
    "own_resell": "onprem_resell",
    "hybrid": "hybrid",
    "cloud": "cloud",
}


def break_even_sentence(report: Report) -> str:
    """Break-even in the buyer's own terms: runs a year, or average utilization."""
    reference = report.verdict.reference_cloud
    if not reference:
        return ""
    option = cloud_label(reference)
    if reference.endswith("(api)"):
        return wording_serving.api_break_even_sentence(report, option)
    runs = report.break_even_runs_per_year
    if runs is not None:
        return _("Owning beats %(option)s from %(runs)s runs a year.") % {
            "option": option,
            "runs": number(runs, 1),
        }
    u = report.break_even_utilization
    if report.owning_wins_above is False:  # a flat cloud bill: owning wins when idle
        if u is not None and 0 < u < 1:
            return _("Owning beats %(option)s below %(u)s average utilization.") % {
                "option": option,
                "u": percent(u),
            }
        if u is None or u >= 1:
            return _("Owning beats %(option)s at any utilization.") % {"option": option}
        return _("Even idle, owning does not beat %(option)s.") % {"option": option}
    if u is not None and 0 < u < 1:
        if report.demand.utilization_derived:
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


def note_text(note: Note, currency: str = "EUR") -> str:
    """A note or warning from the engine, in the reader's language."""
    code = note.code
    p = note.params
    if code == "demand_assumed_continuous":
        return _(
            "No demand given: the service is assumed to run around the clock, the servers "
            "busy %(u)s of the time."
        ) % {"u": percent(p.get("utilization"))}
    if code == "demand_assumed_one_run":
        return _("No demand given: the training is assumed to run once.")
    if code == "workstation_site_fleet":
        return _(
            "A workstation site holds one machine; this plan needs %(n)s servers, so they are "
            "costed as a server room (network, installation, operations staff)."
        ) % {"n": number(p.get("servers"))}
    if code == "datacentre_defaults_small_fleet":
        return ngettext(
            "Data-centre defaults (network ports, installation, operations staff) are applied "
            "to %(n)s GPU: for a workstation choose a workstation site, or enter your own "
            "figures.",
            "Data-centre defaults (network ports, installation, operations staff) are applied "
            "to %(n)s GPUs: for a workstation choose a workstation site, or enter your own "
            "figures.",
            int(p.get("gpus") or 0),
        ) % {"n": number(p.get("gpus"))}
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
    if code in CONSTRAINT_CODES:
        return violation_text(note)
    if code == "latency_target_missed":
        return wording_serving.latency_note(p)
    if code == "owned_mostly_idle":
        return wording_idle.idle_warning(p)
    if code == "placed_elsewhere":
        return wording_site.placed_elsewhere(note)
    return note.text or code


def owning_extras_sentence(report: Report) -> str:
    """What owning includes besides the servers: network, installation, operations staff."""
    extras = report.owning_extras
    if extras is None:
        return ""
    currency = report.currency
    given = (extras.networking_given, extras.installation_given, extras.staff_given)
    if extras.site == "workstation" and not any(given):
        return _(
            "A workstation: owning includes no network fabric, no installation and no "
            "operations staff, only the machine, its energy, support and insurance."
        )
    amount = format_money(extras.networking_per_server, currency, 0)
    networking = extras.networking
    if networking == "fabric":
        network = _(
            "a front-end NIC, a top-of-rack switch share and a %(tiers)s-tier GPU fabric "
            "(%(amount)s per server)"
        ) % {"tiers": extras.fabric_tiers, "amount": amount}
    elif networking == "front_end":
        network = _("a front-end NIC and a top-of-rack switch share (%(amount)s per server)") % {
            "amount": amount
        }
    elif networking == "given":
        network = _("the networking figure given (%(amount)s per server)") % {"amount": amount}
    else:
        network = _("no network equipment")
    installation = _("installation %(amount)s per server") % {
        "amount": format_money(extras.installation_per_server, currency, 0)
    }
    staff = _("%(fte)s FTE of operations staff (%(cost)s a year)") % {
        "fte": number(extras.staff_fte, 2),
        "cost": format_money(extras.staff_cost_per_year, currency, 0),
    }
    return _("Owning includes, besides the servers: %(network)s; %(installation)s; %(staff)s.") % {
        "network": network,
        "installation": installation,
        "staff": staff,
    }


def hybrid_reason(hybrid: Hybrid) -> str:
    reason = hybrid.reason
    if reason == "all_rent_cheapest":
        return _("Owning even one server costs more than renting its share of the demand.")
    if reason == "all_own_cheapest":
        return _("Owning enough servers for the busiest month is cheapest; renting adds cost.")
    return _(
        "Owning the servers that stay busy and renting the peaks costs less than either extreme."
    )


def confidence_sentence(report: Report) -> str:
    """ "Owning is cheaper in 83 % of 10,000 plausible futures", with the saving's spread."""
    c = report.confidence
    if c is None:
        return ""
    currency = report.currency
    values = {
        "p": percent(c.probability),
        "n": number(c.draws),
        "low": format_money(c.saving_p10, currency, 0),
        "high": format_money(c.saving_p90, currency, 0),
    }
    if c.saving_p10 is not None and c.saving_p10 < 0:
        # A negative "saving" is an extra cost: said as one, not as a saving of −€42,494.
        values["low"] = format_money(-c.saving_p10, currency, 0)
        if c.favours == "own":
            return (
                _(
                    "Owning is cheaper in %(p)s of %(n)s plausible futures; in 8 of 10 it "
                    "ranges from %(low)s dearer to %(high)s cheaper."
                )
                % values
            )
        return (
            _(
                "Renting is cheaper in %(p)s of %(n)s plausible futures; in 8 of 10 it "
                "ranges from %(low)s dearer to %(high)s cheaper."
            )
            % values
        )
    if c.favours == "own":
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


_SHARDING = {
    "ddp": lambda: _("whole model states on every GPU"),
    "zero1": lambda: _("ZeRO-1 (optimizer state sharded)"),
    "zero2": lambda: _("ZeRO-2 (optimizer state and gradients sharded)"),
    "zero3": lambda: _("ZeRO-3 / FSDP (all model states sharded)"),
}


def plan_layout(plan: Parallelism) -> str:
    """Language-neutral shorthand of a plan: 'TP 8 × CP 2 × PP 16 × DP 1'."""
    parts = [
        f"TP {plan.tensor_parallel or 1}",
        f"CP {plan.context_parallel or 1}",
        f"PP {plan.pipeline_parallel or 1}",
        f"DP {plan.data_parallel or 1}",
    ]
    return " × ".join(p for p in parts if not p.endswith(" 1") or p.startswith("DP"))


def plan_sentence(plan: Parallelism) -> str:
    """Why the plan looks the way it does, in the reader's language."""
    code = plan.reason_code
    p = plan.reason_params
    if code.startswith("inference_"):
        values = {
            "gb": number(p.get("total_gb"), 1),
            "n": p.get("replicas"),
            "t": p.get("tensor_parallel"),
            "p": p.get("pipeline_parallel"),
            "batch": number(p.get("batch")),
        }
        if code == "inference_replicas":
            return (
                _(
                    "Each GPU serves its own copy of the model (%(gb)s GB with the KV cache of "
                    "up to %(batch)s sequences); %(n)s copies run side by side."
                )
                % values
            )
        if code == "inference_tensor_parallel":
            return (
                _(
                    "Each copy is split with tensor parallel %(t)s (%(gb)s GB with the KV cache "
                    "of up to %(batch)s sequences); %(n)s copies in total."
                )
                % values
            )
        return (
            _(
                "%(gb)s GB exceeds one server, so each copy uses tensor parallel %(t)s inside a "
                "server and %(p)s pipeline stages across servers; %(n)s copies in total."
            )
            % values
        )
    if not p:
        return plan.reason
    sharding = _SHARDING.get(str(p.get("sharding")), lambda: str(p.get("sharding")))()
    values = {
        "layout": plan_layout(plan),
        "sharding": sharding,
        "gb": number(p.get("memory_gb"), 1),
        "gpu_gb": number(p.get("gpu_memory_gb")),
        "states": number(p.get("states_gb"), 1),
        "bubble": number(p.get("bubble_pct"), 1),
    }
    if (p.get("pipeline_parallel") or 1) > 1:
        return (
            _(
                "Plan %(layout)s with %(sharding)s: %(gb)s GB per %(gpu_gb)s GB GPU; the pipeline "
                "bubble costs %(bubble)s %% of throughput."
            )
            % values
        )
    return (
        _(
            "Plan %(layout)s with %(sharding)s: %(states)s GB of model states and %(gb)s GB in "
            "all per %(gpu_gb)s GB GPU."
        )
        % values
    )


def sizing_note(note: Note) -> str:
    """A sizing or rack note (code and parameters) in the reader's language."""
    code = note.code
    p = note.params
    if code == "past_deadline":
        return ngettext(
            "The run takes %(days)s days on %(servers)s server, past the %(deadline)s-day "
            "deadline.",
            "The run takes %(days)s days on %(servers)s servers, past the %(deadline)s-day "
            "deadline.",
            int(p.get("servers") or 0),
        ) % {
            "days": number(p.get("days"), 1),
            "servers": p.get("servers"),
            "deadline": number(p.get("deadline_days"), 1),
        }
    if code == "idle_gpus":
        return _("%(idle)s of the %(gpus)s GPUs do not fit the plan's groups and stay idle.") % p
    if code == "no_precision_cores":
        return _(
            "The %(gpu)s has no %(precision)s tensor cores: throughput uses its BF16 peak "
            "(weight-only quantization)."
        ) % {"gpu": p.get("gpu"), "precision": str(p.get("precision", "")).upper()}
    if code == "below_target":
        return ngettext(
            "%(servers)s server delivers %(capacity)s tokens/s, below the %(target)s tokens/s "
            "target.",
            "%(servers)s servers deliver %(capacity)s tokens/s, below the %(target)s tokens/s "
            "target.",
            int(p.get("servers") or 0),
        ) % {
            "servers": p.get("servers"),
            "capacity": number(p.get("capacity")),
            "target": number(p.get("target")),
        }
    if code == "batch_below_data_parallel":
        return _(
            "The global batch of %(seqs)s sequences is smaller than %(dp)s data-parallel "
            "copies; raise the global batch or the run cannot use every copy."
        ) % {"seqs": number(p.get("global_batch_sequences")), "dp": number(p.get("data_parallel"))}
    if code == "server_exceeds_rack_power":
        return _(
            "One %(server)s draws up to %(kw)s kW, more than the site's %(limit)s kW rack limit: "
            "the plan assumes one server per rack on an upgraded power feed; confirm with the "
            "facility."
        ) % {
            "server": p.get("server"),
            "kw": number(p.get("max_power_kw"), 1),
            "limit": number(p.get("rack_power_limit_kw"), 1),
        }
    if code == "server_exceeds_rack_space":
        return _(
            "A %(u)sU %(server)s does not fit in %(limit)sU of usable rack space: the plan "
            "assumes one server per rack."
        ) % {
            "u": p.get("rack_units"),
            "server": p.get("server"),
            "limit": p.get("rack_units_limit"),
        }
    if code == "liquid_cooling":
        return _("The %(server)s needs liquid cooling: check that the site supports it.") % p
    return note.text or code


def break_even_cell(option: Option) -> str:
    """An option's break-even for the options table: runs a year, a utilization, "below …",
    "always" or "none" (owning options: a dash)."""
    if option.kind == "api":
        return wording_serving.api_break_even_cell(option)
    if option.kind != "cloud":
        return "–"
    runs = option.break_even_runs_per_year
    if runs is not None:
        return _("%(n)s runs/yr") % {"n": number(runs, 1)}
    u = option.break_even_utilization
    if u is None:
        return _("none")
    below = option.owning_wins_above is False
    if 0 < u < 1:
        return _("below %(u)s") % {"u": percent(u)} if below else percent(u)
    if (below and u >= 1) or (not below and u <= 0):
        return _("always")
    return _("none")


# --- the buyer's terms (tco/engine/constraints.py) and horizons --------------------------

CONSTRAINT_CODES = frozenset(
    {
        "data_outside_eu",
        "data_country_unknown",
        "not_own_premises",
        "not_air_gapped",
        "jurisdiction_outside_eu",
        "jurisdiction_unknown",
        "provider_not_preferred",
    }
)


def violation_text(note: Note) -> str:
    """Why an option breaks one of the buyer's terms."""
    code = note.code
    p = note.params
    if code == "data_outside_eu":
        return _("Data would be processed outside the EU (%(country)s).") % {
            "country": p.get("country")
        }
    if code == "data_country_unknown":
        return _("It is not known in which country the data would be processed.")
    if code == "not_own_premises":
        if p.get("owned"):
            return _("This site is a colocation data centre, not your own premises.")
        return _("Data would leave your own premises.")
    if code == "not_air_gapped":
        return _("A rented service cannot be cut off from outside networks.")
    if code == "jurisdiction_outside_eu":
        return _("%(provider)s is under the law of %(country)s, outside the EU.") % {
            "provider": p.get("provider"),
            "country": p.get("country"),
        }
    if code == "jurisdiction_unknown":
        return _("It is not known under which country's law %(provider)s falls.") % {
            "provider": p.get("provider")
        }
    if code == "provider_not_preferred":
        return _("%(provider)s is not one of your preferred providers.") % {
            "provider": p.get("provider")
        }
    if code == "site_does_not_fit":
        if p.get("described") is False:
            return _("The default site cannot take the %(server)s.") % {"server": p.get("server")}
        return _("Your site cannot take the %(server)s.") % {"server": p.get("server")}
    return note.text or code


def violations_text(option: Option) -> str:
    """Every term an option breaks, in one line ("" when it meets them all)."""
    return " ".join(violation_text(n) for n in option.violations)


def terms_decided_sentence(verdict: Verdict, currency: str) -> str:
    """When the buyer's terms, not cost, decided: the cheapest option overall and the
    extra cost of meeting the terms (cheapest compliant − cheapest overall)."""
    p = verdict.params
    if not p.get("constraint_decided"):
        return ""
    kind = _KIND_OF.get(p.get("cheapest_overall_kind"), "cloud")
    return _(
        "Your terms decided this, not cost: the cheapest option overall, %(option)s at "
        "%(cost)s, breaks them; meeting them costs %(extra)s more."
    ) % {
        "option": kind_label(kind, str(p.get("cheapest_overall") or "")),
        "cost": format_money(p.get("cheapest_overall_cost"), currency, 0),
        "extra": format_money(p.get("constraint_cost"), currency, 0),
    }


def terms_sentence(report: Report) -> str:
    """What the buyer's terms ruled out when they did not change the answer."""
    c = report.constraints
    excluded = len(c.excluded)
    if not excluded or c.decided_verdict:
        return ""
    return ngettext(
        "Your terms rule out %(n)s option; the cheapest option meets them.",
        "Your terms rule out %(n)s options; the cheapest option meets them.",
        excluded,
    ) % {"n": excluded}


def refresh_sentence(report: Report) -> str:
    """The refresh cycle behind the longer horizons."""
    life = report.horizons.service_life_months if report.horizons else None
    if not life:
        return ""
    return _(
        "Servers are replaced after %(life)s of service: a longer horizon includes buying "
        "the fleet again at today's price, less what the old one fetches (the residual "
        "value); the last fleet counts at its remaining book value."
    ) % {"life": _years(int(life))}


def horizon_table(report: Report) -> dict[str, Any] | None:
    """The horizon view as table rows: each option's total at 3, 5, 7 and 10 years.

    Cheapest first, as the options table: by the total at the scenario's own horizon (the
    last column when that horizon is not one of them), options that break a requirement
    after the others; equal totals keep the engine's order (owning, then the catalog's).
    """
    view = report.horizons
    if view is None:
        return None
    months = view.months
    headers = [_years(m) for m in months]
    own = report.horizon_months
    column = months.index(own) if own in months else len(months) - 1

    def rank(option: HorizonRow) -> tuple[bool, float]:
        total = option.totals[column]
        return (not option.eligible, math.inf if total is None else total)

    rows = []
    for o in sorted(view.options, key=rank):
        cells = list(zip(headers, format_amounts(o.totals, report.currency, 0), strict=True))
        # The same total at every horizon (buying, running and reselling for one run):
        # one figure rather than a row of repeats.
        same = len({total for _h, total in cells}) == 1 and o.totals[0] is not None
        rows.append(
            {
                "label": option_label(o),
                "kind": o.kind,
                "eligible": o.eligible,
                "cells": cells,
                "same": cells[0][1] if same and len(cells) > 1 else None,
            }
        )
    return {"headers": headers, "rows": rows}
