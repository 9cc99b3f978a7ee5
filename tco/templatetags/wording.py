"""Template filters that word the engine's codes (see tco/presentation/wording.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import template

from tco.presentation import (
    wording,
    wording_capacity,
    wording_serving,
    wording_site,
    wording_verdict,
)

if TYPE_CHECKING:
    from tco.report import Report

register = template.Library()

# Each filter is the wording function of the same name.
for _name in (
    "break_even_cell",
    "break_even_sentence",
    "cloud_label",
    "confidence_sentence",
    "horizon_table",
    "hybrid_reason",
    "note_text",
    "npv_caveat",
    "option_label",
    "owning_extras_sentence",
    "plan_layout",
    "plan_sentence",
    "refresh_sentence",
    "sizing_note",
    "terms_sentence",
    "violations_text",
):
    register.filter(_name, getattr(wording, _name))
for _name in ("site_duty", "site_name", "site_plan", "site_reason", "site_reasons", "site_verdict"):
    register.filter(_name, getattr(wording_site, _name))
for _name in ("latency_line", "serving_derivation", "serving_summary", "unit_cost"):
    register.filter(_name, getattr(wording_serving, _name))
for _name in (
    "bridge_risk",
    "bridge_terms",
    "bridge_text",
    "day_text",
    "ready_cell",
    "time_sentence",
    "timeline",
):
    register.filter(_name, getattr(wording_capacity, _name))


register.filter("verdict_decisions", wording_verdict.verdict_decisions)


@register.filter
def verdict_headline(report: Report) -> str:
    return wording.verdict_headline(report.verdict, report.currency)
