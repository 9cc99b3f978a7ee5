"""A quote's analysis is frozen as the report's JSON form and read back as the report
(tco.report): the PDF and the quote pages render the typed report, not the stored dict."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone, translation

from quotes import pdf
from quotes.models import Lead
from quotes.services import calculator_analysis, executive_summary, stored_report, tco_snapshot
from tco.presentation.wording import verdict_headline
from tco.report import Report

pytestmark = pytest.mark.django_db


def frozen(tco: dict[str, Any]) -> dict[str, Any]:
    """The analysis as PostgreSQL gives it back (a lead's JSON field)."""
    lead = Lead.objects.create(
        name="Nora",
        company="Nordic AI",
        email="nora@buyer.example",
        consent_at=timezone.now(),
        confirmed_at=timezone.now(),
        tco=tco,
    )
    lead.refresh_from_db()
    assert isinstance(lead.tco, dict)
    return lead.tco


@pytest.mark.parametrize("preset", ["pretrain-7b", "customer-service"])
def test_the_frozen_analysis_reads_back_as_the_report(seed_catalog: object, preset: str) -> None:
    analysis, query = calculator_analysis(query=f"preset={preset}")
    snapshot = tco_snapshot(analysis=analysis, query=query, language="nl")
    # Stored: the report's JSON form; each option's time to capacity null throughout (the
    # preset gives no date).
    summary = snapshot["summary"]
    assert summary["capacity"] is None
    timed = ("ready_date", "ready_in_days", "bridge", "time")
    assert all(o[k] is None for o in summary["options"] for k in timed)
    # PostgreSQL's jsonb writes 4.2e+22 back as an integer: the report reads it as the float.
    tco = frozen(snapshot)
    report = stored_report(tco)
    assert isinstance(report, Report)
    assert report == analysis.report
    context = pdf._tco_context(tco)  # what the proposal template renders
    assert context["s"] == analysis.report and context["cur"] == report.currency == "EUR"
    with translation.override("nl"):
        headline = verdict_headline(report.verdict, report.currency)
        assert executive_summary(report)["headline"] == headline == tco["executive"]["headline"]
    assert stored_report({"query": "preset=x"}) is None  # no analysis attached
