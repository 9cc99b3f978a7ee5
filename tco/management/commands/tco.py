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
    lines = [
        f"Memory per GPU: {sizing['memory_per_gpu_gb']:.1f} GB",
        f"GPUs required: {sizing['gpus_required']}   servers: {sizing['servers_required']}",
    ]
    if sizing.get("training_days") is not None:
        lines.append(f"Training time: {sizing['training_days']:.1f} days")
    lines.append("")
    header = f"{'option':<48} {'total':>14} {'NPV':>14} {'break-even':>11} {'payback':>8}"
    lines += [header, "-" * len(header)]
    for option in summary["options"]:
        be = option.get("break_even_utilization")
        payback = option.get("payback_month")
        lines.append(
            f"{option['name'][:48]:<48} {option['total_cost']:>14,.0f} {option['npv']:>14,.0f} "
            f"{'–' if be is None else f'{be:.0%}':>11} {'–' if payback is None else payback:>8}"
        )
    return "\n".join(lines)
