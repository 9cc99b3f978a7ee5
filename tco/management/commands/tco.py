"""`python manage.py tco estimate --input scenario.json [--format json|table]`.

Every problem with the file ends the same way: a one-line message that names the file and
the field, and exit status 1 (Django's `CommandError`); never a traceback. The document is
read by its schema (tco.scenario), as the API reads its body.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from tco.analysis import OVERFLOW, SCENARIO, AnalysisError, analyse
from tco.engine import ScenarioResult
from tco.presentation.wording import owning_extras_sentence
from tco.report import Option, Report, Serving, Sizing

CATALOG_CURRENCIES = ("USD", "EUR")
"""Currencies the catalog has exchange rates for (catalog/data/fx_rates.csv: EUR→USD)."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def read_document(path: Path) -> Any:
    """The JSON in ``path``, or a `CommandError` that says in one line why not."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CommandError(f"{path}: file not found") from exc
    except IsADirectoryError as exc:
        raise CommandError(f"{path}: is a directory, not a scenario file") from exc
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path}: not a JSON file (not UTF-8 text)") from exc
    except OSError as exc:
        raise CommandError(f"{path}: cannot be read ({_one_line(exc.strerror or '')})") from exc
    try:
        # parse_constant refuses NaN and Infinity, which JSON does not have
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError as exc:
        raise CommandError(f"{path}: scenario: nested too deeply to be a scenario") from exc
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path}: not a JSON file ({_one_line(str(exc))})") from exc
    except ValueError as exc:  # e.g. an integer literal longer than Python converts
        raise CommandError(f"{path}: not a usable JSON file ({_one_line(str(exc))})") from exc


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def check_currencies(result: ScenarioResult) -> None:
    """Refuse currencies the catalog has no exchange rate for, naming the field."""
    scenario = result.scenario
    used = [
        ("finance.reporting_currency", scenario.finance.reporting_currency),
        ("finance.currency", scenario.finance.currency),
        ("site.currency", scenario.site.currency),
        ("server.currency", scenario.server.price.currency),
        *(
            (f"cloud_offerings[{i}].currency", offer.currency)
            for i, offer in enumerate(scenario.cloud_offerings)
        ),
    ]
    for field, currency in used:
        if currency not in CATALOG_CURRENCIES:
            raise AnalysisError(
                SCENARIO,
                field,
                f"{currency} is not supported: the catalog has exchange rates for "
                f"{' and '.join(CATALOG_CURRENCIES)} only",
            )


def analysis_error_text(exc: AnalysisError) -> str:
    """The line the command prints for an analysis that failed: "path: message", or for
    numbers no float holds, that they are too large (with Python's own words)."""
    if exc.code == OVERFLOW and exc.path is None:
        return f"scenario: the numbers are too large to compute ({exc.message})"
    return str(exc)


class Command(BaseCommand):
    help = "Size a workload and compare owning GPU servers with renting cloud GPUs."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        estimate = sub.add_parser("estimate", help="evaluate one scenario file (docs/scenario.md)")
        estimate.add_argument("--input", required=True, type=Path, help="scenario JSON file")
        estimate.add_argument("--format", choices=["json", "table"], default="json")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["input"]
        document = read_document(path)
        try:
            # Parsed and checked by the scenario schema; a total that overflowed to infinity
            # is refused naming its output (JSON has no infinity).
            analysis = analyse(document, finite=True)
            check_currencies(analysis.result)
            report = analysis.report
            text = (
                json.dumps(report.to_json(), indent=2, sort_keys=True, allow_nan=False)
                if options["format"] == "json"
                else render_table(report)
            )
        except AnalysisError as exc:
            raise CommandError(f"{path}: {_one_line(analysis_error_text(exc))}") from exc
        except DatabaseError as exc:
            raise CommandError(
                f"{path}: catalog: the catalog database is not ready; run `make setup` "
                f"(migrate and load_catalog) first ({_one_line(str(exc))})"
            ) from exc
        except (ArithmeticError, ValueError, RecursionError, RuntimeWarning) as exc:
            # Inputs valid one by one whose combination no float holds (e.g. 1e300 GPUs).
            raise CommandError(
                f"{path}: scenario: the numbers are too large to compute "
                f"({_one_line(str(exc)) or type(exc).__name__})"
            ) from exc
        self.stdout.write(text)


def _money(value: Any, width: int) -> str:
    return f"{'–':>{width}}" if value is None else f"{value:>{width},.0f}"


def render_table(report: Report) -> str:
    sizing = report.sizing
    memory = sizing.memory_per_gpu_gb
    lines = [report.verdict.text, ""]
    lines += [
        f"Memory per GPU: {'–' if memory is None else f'{memory:.1f}'} GB",
        f"GPUs required: {sizing.gpus_required}   servers: {sizing.servers_required}",
    ]
    plan = sizing.parallelism
    lines.append(
        f"Plan: TP {plan.tensor_parallel} × CP {plan.context_parallel} × "
        f"PP {plan.pipeline_parallel} × DP {plan.data_parallel}"
    )
    if sizing.training_days is not None:
        lines.append(f"Training time: {sizing.training_days:.1f} days")
    if sizing.gpu_hours is not None:
        lines.append(f"GPU-hours: {sizing.gpu_hours:,.0f}")
    lines += _latency_lines(sizing)
    demand = report.demand
    lines.append(
        f"Demand: {demand.pattern}, owned fleet busy {demand.utilization or 0.0:.2%} "
        f"({_utilization_basis(report)})"
    )
    for note in demand.notes:
        lines.append(f"Note: {note.text}")
    lines += _serving_lines(report.serving)
    for warning in report.warnings:
        lines.append(f"WARNING: {warning.text}")
    extras = owning_extras_sentence(report)  # what owning includes besides the servers
    if extras:
        lines.append(extras)
    lines.append("")
    header = (
        f"{'option (cheapest first)':<48} {'total':>14} {'extra':>12} {'NPV':>14} "
        f"{'break-even':>11}"
    )
    lines += [header, "-" * len(header)]
    for option in report.options:
        lines.append(
            f"{_mark(option)}{_cell(option.name, 47):<47} {_amount(option.total_cost):>14} "
            f"{_amount(option.saving_vs_best):>12} {_amount(option.npv):>14} "
            f"{_break_even(option):>11}"
        )
    lines.append("* recommended")
    if report.serving is not None:
        lines.append("break-even of an API: requests a day from which owning costs less")
        lines.append("")
        lines += [f"{'cost per request / per user a month':<48}", "-" * 48]
        for option in report.options:
            lines.append(
                f" {_cell(option.name, 47):<47} {option.cost_per_request or 0.0:>12.6f} "
                f"{option.cost_per_user_month or 0.0:>12,.2f}"
            )
    lines += _constraint_lines(report) + _horizon_lines(report)
    return "\n".join(lines)


def _mark(option: Option) -> str:
    return "*" if option.recommended else "x" if option.violations else " "


def _break_even(option: Option) -> str:
    """An option's break-even: requests a day (an API), runs a year or a utilization."""
    runs, be = option.break_even_runs_per_year, option.break_even_utilization
    if option.break_even_requests_per_day is not None:
        return f"{option.break_even_requests_per_day:,.0f}/day"
    if runs is not None:
        return f"{runs:.1f}/yr"
    if be is not None and 0 < be < 1:
        return f"{be:.0%}"
    return "–"


def _constraint_lines(report: Report) -> list[str]:
    """Which options the constraints ruled out, and why."""
    return [
        f"x {option.name}: {' '.join(n.text for n in option.violations)}"
        for option in report.constraints.excluded
    ]


def _horizon_lines(report: Report) -> list[str]:
    """Total cost of owning and of each cloud option at 3, 5, 7 and 10 years."""
    view = report.horizons
    if view is None:
        return []
    header = f"{'total by horizon':<48}" + "".join(
        f" {f'{m // 12} years':>14}" for m in view.months
    )
    lines = ["", header, "-" * len(header)]
    for option in view.options:
        cells = "".join(f" {_amount(t):>14}" for t in option.totals)
        lines.append(f" {_cell(option.name, 47):<47}{cells}")
    lines.append(
        f"The fleet is bought again every {view.service_life_months} months (service life)."
    )
    return lines


def _utilization_basis(report: Report) -> str:
    if report.serving is not None:
        return "derived from the requests"
    return "derived from the runs" if report.demand.utilization_derived else "stated"


def _serving_lines(serving: Serving | None) -> list[str]:
    """The derivation from users and requests to the tokens/s the fleet is sized for."""
    if serving is None:
        return []
    return [
        f"Serving: {serving.users:,} users × {serving.requests_per_user_per_day:g} "
        f"requests a day = {_amount(serving.requests_per_day)} requests × "
        f"{serving.output_tokens_per_request:g} output tokens = "
        f"{_amount(serving.output_tokens_per_day)} tokens a day",
        f"  over {serving.hours_per_day:g} h: {_tenths(serving.average_tokens_per_second)} "
        f"tokens/s on average, × peak factor {serving.peak_factor:g} = "
        f"{_tenths(serving.peak_tokens_per_second)} tokens/s at the peak (sized for "
        f"{_tenths(serving.sized_tokens_per_second)}); capacity "
        f"{_tenths(serving.capacity_tokens_per_second)} tokens/s",
    ]


def _latency_lines(sizing: Sizing) -> list[str]:
    """Serving: a copy's capacity and batch, and the latency at the peak beside its targets."""
    if sizing.time_per_output_token_ms is None:
        return []
    targets = sizing.latency_targets
    tpot = targets.time_per_output_token_ms if targets else None
    ttft = targets.time_to_first_token_ms if targets else None

    def against(value: float | None, target: float | None) -> str:
        return f"{_tenths(value)} ms" + (f" (target {target:g} ms)" if target else " (no target)")

    return [
        f"Copies: {sizing.replicas} × {sizing.gpus_per_replica} GPU(s), "
        f"{_amount(sizing.tokens_per_second_per_replica)} tokens/s each at up to "
        f"{sizing.max_concurrent_sequences or 0:,} sequences",
        f"At the peak: {sizing.concurrent_sequences or 0:,} sequences per copy, "
        f"{against(sizing.time_per_output_token_ms, tpot)} per output token, "
        + (
            f"first token after {against(sizing.time_to_first_token_ms, ttft)}"
            if sizing.prompts_sized is not False
            else "prompts not sized (give users and requests with their prompt length)"
        ),
    ]


def _tenths(value: float | None) -> str:
    return "–" if value is None else f"{value:,.1f}"


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _amount(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"
