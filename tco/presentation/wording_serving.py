"""Serving demand and hosted APIs in the reader's language (issue 16, parts 1 and 3).

Kept apart from tco/presentation/wording.py so that the serving figures have one home: the
derivation from users and requests, per-request costs and the break-even in requests
a day, worded the same on the page, in the PDF and in the quote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _

from common.formatting import format_money, number, percent

if TYPE_CHECKING:
    from tco.report import Option, Report, Serving, Sizing


def unit_cost(value: float | None, currency: str) -> str:
    """A cost per request or per user: cents and below get four decimals (€0.0008)."""
    if value is None:
        return "–"
    return format_money(value, currency, 4 if abs(value) < 0.1 else 2)


def _figure(value: Any) -> str:
    """A demand input as typed: 20, not 20.0; 2.5 stays 2.5."""
    if value is None:
        return "–"
    return number(value, 0 if float(value).is_integer() else 1)


def serving_derivation(serving: Serving) -> list[str]:
    """The steps from users and requests to the tokens per second the fleet is sized for."""
    hours = serving.hours_per_day
    days = serving.days_per_week
    when = (
        _("around the clock")
        if serving.around_the_clock
        else _("%(h)s hours a day, %(d)s days a week") % {"h": _figure(hours), "d": _figure(days)}
    )
    steps = [
        _("%(users)s users × %(requests)s requests a day = %(total)s requests a day")
        % {
            "users": number(serving.users),
            "requests": _figure(serving.requests_per_user_per_day),
            "total": number(serving.requests_per_day),
        },
        _("× %(out)s output tokens = %(tokens)s output tokens a day (and %(inp)s input tokens)")
        % {
            "out": number(serving.output_tokens_per_request),
            "tokens": number(serving.output_tokens_per_day),
            "inp": number(serving.input_tokens_per_day),
        },
        _("spread over %(when)s: %(avg)s tokens/s on average while people work")
        % {
            "when": when,
            "avg": number(serving.average_tokens_per_second, 1),
        },
        _(
            "× peak factor %(f)s = %(peak)s tokens/s in the busiest hour: the capacity is sized "
            "for this"
        )
        % {
            "f": _figure(serving.peak_factor),
            "peak": number(serving.peak_tokens_per_second, 1),
        },
    ]
    sized, peak = serving.sized_tokens_per_second, serving.peak_tokens_per_second
    if sized and peak and sized > peak * 1.0001:
        steps.append(
            _("with the yearly growth, %(sized)s tokens/s in the last year")
            % {"sized": number(sized, 1)}
        )
    steps.append(
        _(
            "over the whole week %(avg)s tokens/s on average: owned servers with %(cap)s tokens/s "
            "of capacity are busy %(u)s of the time"
        )
        % {
            "avg": number(serving.average_tokens_per_second_all_hours, 1),
            "cap": number(serving.capacity_tokens_per_second),
            "u": percent(serving.utilization, 1),
        }
    )
    achieved = serving.achieved_ms_per_token
    if achieved is not None:
        target = serving.target_ms_per_token
        if target is not None:
            steps.append(
                _("each answer streams at %(ms)s ms per token (target %(target)s ms)")
                % {
                    "ms": number(achieved, 1),
                    "target": _figure(target),
                }
            )
        else:
            steps.append(
                _("each answer streams at %(ms)s ms per token") % {"ms": number(achieved, 1)}
            )
    return steps


def _against(value: Any, target: Any, decimals: int = 1) -> str:
    """A latency beside its target: "18.2 ms (target 40 ms)", or "(no target)"."""
    values = {"ms": number(value, decimals), "target": _figure(target)}
    if target is None:
        return _("%(ms)s ms (no target)") % values
    return _("%(ms)s ms (target %(target)s ms)") % values


def latency_line(sizing: Sizing) -> str:
    """What each user sees at the sized peak, beside the targets, and the copy's batch."""
    targets = sizing.latency_targets
    tpot_target = targets.time_per_output_token_ms if targets else None
    ttft_target = targets.time_to_first_token_ms if targets else None
    if sizing.prompts_sized is False:
        return _(
            "At the peak each answer streams at %(tpot)s; the prompts are not sized (give the "
            "load in users and requests with their prompt length to size them and the time to "
            "the first token); %(batch)s sequences per model copy (at most %(max)s within the "
            "targets and memory)."
        ) % {
            "tpot": _against(sizing.time_per_output_token_ms, tpot_target),
            "batch": number(sizing.concurrent_sequences),
            "max": number(sizing.max_concurrent_sequences),
        }
    return _(
        "At the peak each answer streams at %(tpot)s and starts after %(ttft)s; "
        "%(batch)s sequences per model copy (at most %(max)s within the targets and memory)."
    ) % {
        "tpot": _against(sizing.time_per_output_token_ms, tpot_target),
        "ttft": _against(sizing.time_to_first_token_ms, ttft_target, 0),
        "batch": number(sizing.concurrent_sequences),
        "max": number(sizing.max_concurrent_sequences),
    }


def serving_summary(report: Report) -> str:
    """One line for the verdict box: the demand in the customer's own terms."""
    s = report.serving
    if s is None:
        return ""
    return _(
        "%(requests)s requests a day from %(users)s users; capacity sized for %(peak)s tokens/s "
        "at the peak; bought servers would be busy %(u)s of the time."
    ) % {
        "requests": number(s.requests_per_day),
        "users": number(s.users),
        "peak": number(s.sized_tokens_per_second),
        "u": percent(s.utilization, 1),
    }


def api_break_even_cell(option: Option) -> str:
    """An API's break-even in the options table: requests a day from which owning wins."""
    requests = option.break_even_requests_per_day
    if requests is None:
        return _("none")
    return _("%(n)s/day") % {"n": number(requests)}


def api_break_even_sentence(report: Report, option: str) -> str:
    """The verdict's break-even when the reference option is a hosted API."""
    requests = report.break_even_requests_per_day
    if requests is None:
        return _("Owning does not beat %(option)s at any number of requests.") % {"option": option}
    values = {"option": option, "n": number(requests)}
    if report.break_even_beyond_capacity:
        cap = report.serving.fleet_capacity_requests_per_day if report.serving else None
        values["cap"] = number(cap)
        return (
            _(
                "Owning beats %(option)s only from %(n)s requests a day, more than these servers "
                "can take (%(cap)s a day): up to there the API costs less."
            )
            % values
        )
    return _("Owning beats %(option)s from %(n)s requests a day.") % values


def latency_note(params: Mapping[str, Any]) -> str:
    """A latency target the sized fleet misses (code latency_target_missed)."""
    values = {
        "ms": number(params.get("achieved_ms"), 1),
        "target": number(params.get("target_ms"), 1),
        "best": number(params.get("best_ms"), 1),
    }
    first_token = params.get("metric") == "time_to_first_token"
    if params.get("best_ms") is not None:
        if first_token:
            return (
                _(
                    "The first token comes after %(ms)s ms, later than the %(target)s ms "
                    "target: this server needs at least %(best)s ms for such prompts, so the "
                    "fleet is sized without that target. Shorter prompts, a faster GPU or a "
                    "lower precision would shorten it."
                )
                % values
            )
        return (
            _(
                "Each answer streams at %(ms)s ms per output token, slower than the "
                "%(target)s ms target: this server needs at least %(best)s ms even with one "
                "sequence per copy, so the fleet is sized without that target. A faster GPU "
                "or a lower precision would reach it."
            )
            % values
        )
    if first_token:
        return (
            _(
                "The first token comes after %(ms)s ms, later than the %(target)s ms target: "
                "hold fewer sequences per model copy."
            )
            % values
        )
    return (
        _(
            "Each answer streams at %(ms)s ms per output token, slower than the %(target)s ms "
            "target: hold fewer sequences per model copy."
        )
        % values
    )
