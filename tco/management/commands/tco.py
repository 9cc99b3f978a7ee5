"""`python manage.py tco estimate --input scenario.json [--format json|table]`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tco.engine import EngineError, evaluate, result_to_dict
from tco.scenario_io import ScenarioError, build_scenario


class Command(BaseCommand):
    help = "Size a workload and compare owning GPU servers with renting cloud GPUs."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        estimate = sub.add_parser("estimate", help="evaluate one scenario file (docs/scenario.md)")
        estimate.add_argument("--input", required=True, type=Path, help="scenario JSON file")
        estimate.add_argument("--format", choices=["json", "table"], default="json")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["input"]
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise CommandError(f"{path}: file not found") from exc
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError(f"{path}: not a JSON file ({exc})") from exc
        try:
            built = build_scenario(document)
            result = evaluate(built.scenario)
        except ScenarioError as exc:
            raise CommandError(f"{path}: {exc.field}: {exc.message}") from exc
        except EngineError as exc:
            raise CommandError(f"{path}: {exc}") from exc
        summary = result_to_dict(result)
        if options["format"] == "json":
            self.stdout.write(json.dumps(summary, indent=2, sort_keys=True))
        else:
            self.stdout.write(render_table(summary))


def render_table(summary: dict[str, Any]) -> str:
    sizing = summary["sizing"]
    verdict = summary.get("verdict") or {}
    lines = [verdict.get("text", ""), ""] if verdict else []
    lines += [
        f"Memory per GPU: {sizing['memory_per_gpu_gb']:.1f} GB",
        f"GPUs required: {sizing['gpus_required']}   servers: {sizing['servers_required']}",
    ]
    if sizing.get("training_days") is not None:
        lines.append(f"Training time: {sizing['training_days']:.1f} days")
    demand = summary.get("demand") or {}
    if demand:
        lines.append(
            f"Demand: {demand['pattern']}, owned fleet busy {demand['utilization']:.2%} "
            f"({'derived from the runs' if demand['utilization_derived'] else 'stated'})"
        )
    for note in demand.get("notes", []):
        lines.append(f"Note: {note['text']}")
    for warning in summary.get("warnings", []):
        lines.append(f"WARNING: {warning['text']}")
    lines.append("")
    header = (
        f"{'option (cheapest first)':<48} {'total':>14} {'extra':>12} {'NPV':>14} "
        f"{'break-even':>11}"
    )
    lines += [header, "-" * len(header)]
    for option in summary["options"]:
        runs = option.get("break_even_runs_per_year")
        be = option.get("break_even_utilization")
        if runs is not None:
            be_text = f"{runs:.1f}/yr"
        elif be is not None and 0 < be < 1:
            be_text = f"{be:.0%}"
        else:
            be_text = "–"
        extra = option.get("saving_vs_best")
        mark = "*" if option.get("recommended") else " "
        lines.append(
            f"{mark}{_cell(option['name'], 47):<47} {_amount(option['total_cost']):>14} "
            f"{_amount(extra):>12} {_amount(option['npv']):>14} {be_text:>11}"
        )
    lines.append("* recommended")
    return "\n".join(lines)


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _amount(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"
