"""Building the report from the engine's result, once per evaluation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tco.report.models import Report

if TYPE_CHECKING:
    from tco.engine import ScenarioResult


def build_report(result: ScenarioResult, *, include_cashflows: bool = False) -> Report:
    """The report of an evaluation: the engine's figures (rounded, NaN and infinities as
    None, by ``tco.engine.result_to_dict``) as typed models. ``include_cashflows``: each
    option's monthly table too (``tco estimate --cashflows``)."""
    # Imported here: reading a stored report (the PDF, the API's schema) needs no engine.
    from tco.engine import result_to_dict

    return Report.model_validate(result_to_dict(result, include_cashflows=include_cashflows))
