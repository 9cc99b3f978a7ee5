"""A leased option's figures: what its analysis computed for leasing the hardware over a
term, and the payment terms the proposal states (apart from the options, which the
snapshots read without importing them)."""

from __future__ import annotations

from typing import Any

from .analysis import stored_report


def lease_term(snapshot: dict[str, Any]) -> int | None:
    """The lease term of a frozen option (None: bought, or frozen before leases)."""
    lease = snapshot.get("lease") or {}
    return lease.get("term_months")


def lease_payment(lease: dict[str, Any] | None) -> dict[str, Any] | None:
    """The payment terms of `lease_figures` (what the proposal states as a term of sale,
    with or without its analysis): term, rate, monthly instalment, total paid."""
    if lease is None:
        return None
    return {k: v for k, v in lease.items() if k != "owning"}


def lease_terms(tco: dict[str, Any] | None) -> list[int]:
    """The lease terms (months) an option's analysis computed (finance.lease_terms_months)."""
    report = stored_report(tco)
    return [t.term_months for t in report.lease.terms] if report and report.lease else []


def lease_figures(tco: dict[str, Any] | None, term_months: int | None) -> dict[str, Any] | None:
    """Leasing the option's hardware over `term_months`, as its analysis computed it (lease
    vs buy, tco.engine.ownership.financing, on the deal's upfront amount = the hardware's
    net total, ``financed``): the monthly instalment P·i ÷ (1 − (1 + i)^−n), i the annual
    rate ÷ 12; the total of the n instalments; and the cost of owning over the horizon
    with the lease, i.e. the cash purchase's (bridge included) − the purchase's total
    without the bridge + the lease's total (the same running costs and residual, the
    instalments instead of the price). None without an analysis with that term."""
    report = stored_report(tco)
    if term_months is None or report is None or report.lease is None or report.onprem is None:
        return None
    term = next((t for t in report.lease.terms if t.term_months == term_months), None)
    cash, owned = report.lease.cash_total, report.onprem.total_cost
    if term is None or term.monthly_payment is None or term.total_cost is None:
        return None
    if cash is None or owned is None:
        return None
    return {
        "financed": report.lease.upfront,
        "term_months": term.term_months,
        "annual_rate": term.annual_rate,
        "monthly_payment": term.monthly_payment,
        "total_paid": round(term.monthly_payment * term.term_months, 2),
        "owning": owned - cash + term.total_cost,
    }
