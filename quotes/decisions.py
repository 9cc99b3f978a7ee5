"""The decisions a frozen analysis' verdict states beside its headline, for the summaries
that show a frozen analysis (the proposal and the lead PDF, the buyer page, the sales
engineer's analysis block, the emails). Its own module: the PDF module reads it and the
services import the PDF module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tco.presentation.wording_verdict import verdict_decisions
from tco.report import Report


def analysis_decisions(tco: Mapping[str, Any] | None) -> list[str]:
    """The decisions (wording_verdict.verdict_decisions) of a frozen analysis: as frozen with
    it, in its headline's language; for an analysis frozen before they were, worded now from
    its report in the active language. Empty without a verdict."""
    executive = (tco or {}).get("executive") or {}
    if "decisions" in executive:
        return [str(text) for text in executive["decisions"]]
    summary = (tco or {}).get("summary")
    report = Report.from_json(summary) if summary else None
    if report is None or report.onprem is None:
        return []
    return [decision.text for decision in verdict_decisions(report)]
