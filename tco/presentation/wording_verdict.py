"""What the verdict says beside its headline, for outputs that carry the verdict without
the page around it (the workbook's summary): where the site put the servers, when the
capacity is ready and what bridges it, the bridge's risk, and an owned fleet that would
stand idle. The page and the PDF say the same sentences in their own places."""

from __future__ import annotations

from tco.presentation.wording_capacity import bridge_risk, time_sentence
from tco.presentation.wording_idle import idle_report_sentence
from tco.presentation.wording_site import site_verdict
from tco.report import Report


def verdict_notes(report: Report) -> list[str]:
    """The verdict's sentences after its headline, in the page's order; empty ones left out."""
    recommended = next((o for o in report.options if o.recommended), None)
    found = [
        site_verdict(report),
        time_sentence(report),
        bridge_risk(recommended) if recommended is not None else "",
        idle_report_sentence(report),
    ]
    return [text for text in found if text]
