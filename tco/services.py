"""Business rules of the calculator: pick the server, run the engine, explain failures."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import ServerModel
from tco.engine import (
    DeadlineInfeasible,
    DoesNotFit,
    EngineError,
    ScenarioResult,
    evaluate,
    result_to_dict,
)
from tco.forms import CalculatorForm
from tco.scenario_io import Assumption, BuiltScenario, ScenarioError, build_scenario

# Scenario paths (docs/scenario.md) → the calculator field that sets them.
FORM_FIELD_FOR_PATH = {
    "workload.params_billion": "params_billion",
    "workload.tokens_billion": "tokens_billion",
    "workload.deadline_days": "deadline_days",
    "workload.target_tokens_per_second": "target_tokens_per_second",
    "workload.mfu": "mfu_pct",
    "workload.goodput": "goodput_pct",
    "workload.sequence_length": "sequence_length",
    "workload.context_tokens": "context_tokens",
    "workload.concurrent_sequences": "concurrency",
    "workload.serving_efficiency": "serving_efficiency_pct",
    "site.pue": "pue",
    "site.electricity_price_per_kwh": "electricity_price",
    "site.colocation_per_kw_month": "colocation_price",
    "finance.utilization": "utilization_pct",
    "finance.discount_rate": "discount_rate_pct",
}


@dataclass(frozen=True)
class Candidate:
    """A server model the calculator considered, and why it was or was not chosen."""

    server: ServerModel
    onprem_total: float | None
    reason: str


@dataclass
class Analysis:
    built: BuiltScenario
    result: ScenarioResult
    summary: dict[str, Any]
    candidates: list[Candidate]

    @property
    def stale_assumptions(self) -> list[Assumption]:
        limit = settings.PRICE_STALE_AFTER_DAYS
        today = timezone.localdate()
        return [a for a in self.built.assumptions if a.as_of and (today - a.as_of).days > limit]


@dataclass
class CalculatorOutcome:
    analysis: Analysis | None = None
    problem: str | None = None
    field_errors: dict[str, str] = field(default_factory=dict)
    non_field_errors: list[str] = field(default_factory=list)


def analyse_form(form: CalculatorForm) -> CalculatorOutcome:
    """Evaluate a valid calculator form: the chosen server, or every catalog server on "auto"."""
    chosen = form.cleaned_data["server"]
    keys = list(form.catalog.servers) if chosen == "auto" else [chosen]
    candidates: list[Candidate] = []
    best: tuple[float, BuiltScenario, ScenarioResult] | None = None
    for key in keys:
        server = form.catalog.servers[key]
        document = form.to_document(key)
        if not document["cloud_offerings"]:
            candidates.append(
                Candidate(
                    server,
                    None,
                    _("No cloud prices for %(gpu)s with the chosen providers and terms.")
                    % {"gpu": server.gpu.name},
                )
            )
            continue
        try:
            built = build_scenario(document, form.catalog)
            result = evaluate(built.scenario)
        except ScenarioError as exc:
            return _field_problem(exc.field, exc.message)
        except (DoesNotFit, DeadlineInfeasible) as exc:
            candidates.append(Candidate(server, None, str(exc)))
            continue
        except EngineError as exc:
            return CalculatorOutcome(problem=str(exc))
        total = result.onprem.total_cost
        candidates.append(Candidate(server, total, ""))
        if best is None or total < best[0]:
            best = (total, built, result)
    if best is None:
        reasons = " ".join(dict.fromkeys(c.reason for c in candidates if c.reason))
        return CalculatorOutcome(
            problem=_("No server in the catalog can run this workload: ") + reasons
        )
    _total, built, result = best
    candidates.sort(key=lambda c: (c.onprem_total is None, c.onprem_total or 0.0))
    return CalculatorOutcome(analysis=Analysis(built, result, result_to_dict(result), candidates))


def _field_problem(path: str, message: str) -> CalculatorOutcome:
    form_field = FORM_FIELD_FOR_PATH.get(path)
    if form_field:
        return CalculatorOutcome(field_errors={form_field: message})
    return CalculatorOutcome(non_field_errors=[message])
