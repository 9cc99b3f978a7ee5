"""The decisions a frozen analysis' verdict states beside its headline, for the summaries
that show a frozen analysis (the proposal and the lead PDF, the buyer page, the sales
engineer's analysis block, the emails). Its own module: the PDF module reads it and the
services import the PDF module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def analysis_decisions(tco: Mapping[str, Any] | None) -> list[str]:
    """The decisions (wording_verdict.verdict_decisions) of a frozen analysis, as frozen with
    it, in its headline's language. An analysis frozen before they were states none here:
    a sent proposal never changes, so it keeps saying what it said (its delivery schedule
    still states the ready date and the bridge's risk, see ``decisions_frozen``)."""
    executive = (tco or {}).get("executive") or {}
    return [str(text) for text in executive.get("decisions") or []]


def decisions_frozen(tco: Mapping[str, Any] | None) -> bool:
    """Whether the analysis was frozen with its decisions (since 6 Dec 2026)."""
    return "decisions" in ((tco or {}).get("executive") or {})
