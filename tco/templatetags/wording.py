"""Template filters that word the engine's codes (see tco/wording.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.safestring import mark_safe

from tco import wording

register = template.Library()


@register.filter
def verdict_headline(summary: Mapping[str, Any]) -> str:
    return wording.verdict_headline(summary.get("verdict") or {}, summary.get("currency", "EUR"))


@register.filter
def break_even_sentence(summary: Mapping[str, Any]) -> str:
    return wording.break_even_sentence(summary)


@register.filter
def note_text(note: Mapping[str, Any], currency: str = "EUR") -> str:
    return wording.note_text(note, currency)


@register.filter
def option_label(option: Mapping[str, Any]) -> str:
    return wording.option_label(option)


@register.filter
def cloud_label(name: str) -> str:
    return wording.cloud_label(name)


@register.filter
def hybrid_reason(hybrid: Mapping[str, Any]) -> str:
    return wording.hybrid_reason(hybrid)


@register.filter
def npv_caveat(summary: Mapping[str, Any]) -> str:
    return wording.npv_caveat(summary)


@register.filter
def confidence_sentence(summary: Mapping[str, Any]) -> str:
    return wording.confidence_sentence(summary)


@register.filter
def plan_sentence(plan: Mapping[str, Any]) -> str:
    return wording.plan_sentence(plan)


@register.filter
def plan_layout(plan: Mapping[str, Any]) -> str:
    return wording.plan_layout(plan)


@register.filter
def sizing_note(note: Mapping[str, Any]) -> str:
    return wording.sizing_note(note)


@register.filter
def field_relevance(field: Any) -> str:
    """The data attributes that let the page hide a field its workload does not use."""
    rule = getattr(field.form, "relevance", None)
    return mark_safe(rule(field.name)) if rule else ""
