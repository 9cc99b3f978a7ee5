"""The decisions the verdict states beside its headline, in the reader's language: one list
that every summary reads (the calculator page, the lead PDF and the proposal, the buyer
page, the sales engineer's analysis block, the emails and the workbook's summary sheet),
so none of them leaves out a decision the page states.

The headline itself says what to do, the demand it assumed when none was given ("assuming
one run") and whether the buyer's terms rather than cost decided (wording.verdict_headline);
the decisions after it are:

- ``site``: where the site put the servers when the chosen site cannot take them (another
  site, its fees), or what it needs (wording_site.site_verdict);
- ``time``: when the capacity is ready and what bridges it until then
  (wording_capacity.time_sentence);
- ``bridge-risk``: that a large on-demand bridge is not guaranteed
  (wording_capacity.bridge_risk);
- ``terms``: what the buyer's terms ruled out when they did not change the answer
  (wording.terms_sentence).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from tco.presentation.wording import terms_sentence
from tco.presentation.wording_capacity import bridge_risk, time_sentence
from tco.presentation.wording_idle import idle_report_sentence
from tco.presentation.wording_site import site_verdict
from tco.report import Report

# The page's class and id of each decision's paragraph (tests and the page's script find
# them by these).
_PAGE_CLASS = {
    "site": "verdict-site",
    "time": "verdict-time",
    "bridge-risk": "verdict-time bridge-risk",
    "terms": "verdict-terms",
}
_PAGE_ID = {"site": "verdict-site", "time": "verdict-time", "bridge-risk": "bridge-risk"}


@dataclass(frozen=True)
class Decision:
    """One decision the verdict states: its code and its sentence."""

    code: str
    text: str

    @property
    def page_class(self) -> str:
        return _PAGE_CLASS[self.code]

    @property
    def page_id(self) -> str:
        return _PAGE_ID.get(self.code, "")

    def __str__(self) -> str:
        return self.text


def verdict_decisions(report: Report) -> list[Decision]:
    """The verdict's decisions after its headline, in the page's order; those that do not
    apply are left out."""
    recommended = next((o for o in report.options if o.recommended), None)
    when = time_sentence(report)
    found = [
        Decision("site", site_verdict(report)),
        Decision("time", when),
        # The bridge's risk qualifies the time sentence's bridge: said with it only.
        Decision("bridge-risk", bridge_risk(recommended) if when and recommended else ""),
        Decision("terms", terms_sentence(report)),
    ]
    return [decision for decision in found if decision.text]


def verdict_notes(report: Report) -> list[str]:
    """The workbook's sentences after the headline: the decisions, then an owned fleet that
    would stand idle (the page says that among its warnings)."""
    texts = [decision.text for decision in verdict_decisions(report)]
    idle = idle_report_sentence(report)
    return [*texts, idle] if idle else texts


def verdict_action_label(action: str) -> str:
    """The engine's verdict action (tco.engine.verdict: "buy", "rent" or "hybrid") in one
    word or two, for a table of several verdicts side by side; an unknown code as it is."""
    labels = {"buy": _("Buy"), "rent": _("Rent"), "hybrid": _("Buy and rent the peaks")}
    return str(labels.get(action, action))
