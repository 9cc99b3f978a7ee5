"""A quote revision's TCO analysis as the Excel model (tco.workbook).

The analysis is evaluated again from what the revision keeps: the calculator query it was
started from, or the scenario document of a draft created through the API. Catalog prices
are today's, as on the calculator page; the sent proposal (PDF) keeps the figures of the
day it was sent.
"""

from __future__ import annotations

from typing import Any

from tco.engine import EngineError, evaluate
from tco.scenario_io import ScenarioError, build_scenario
from tco.workbook import build_workbook, provenance_for

from .models import QuoteRevision
from .services import QuoteError, analyse_calculator_query


def revision_workbook(*, revision: QuoteRevision) -> tuple[bytes, str]:
    """(xlsx bytes, name for the file) of the revision's analysis, or QuoteError."""
    tco: dict[str, Any] = revision.tco or {}
    name = f"{revision.quote.number}-{revision.letter}"
    if tco.get("scenario"):
        try:
            built = build_scenario(tco["scenario"])
            result = evaluate(built.scenario)
        except (ScenarioError, EngineError) as exc:
            raise QuoteError(str(exc)) from exc
    elif tco.get("query"):
        analysis = analyse_calculator_query(query=tco["query"])
        built, result = analysis.built, analysis.result
    else:
        raise QuoteError("This revision has no TCO analysis.")
    content = build_workbook(
        result, provenance_for(built, result), title=f"GPU TCO model, quote {name}"
    )
    return content, name
