"""The vendor's part of a proposal as the template prints it: a snapshot's frozen facts
(services.offer) turned into amounts and labels in the language being rendered.

Revisions frozen before these facts existed have none of the keys: each part is then
None or empty and the template leaves its section out, so an old proposal renders as it
did (tests/quotes/test_vendor_proposal.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any

from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from catalog.models import Cooling, PartRole, ServiceLevel

from .billing import LineBilling, PaymentEvent
from .models import LineKind
from .system_bom import SystemBom, system_boms


def _label(choices: Any, code: str) -> str:
    """The label of a code in the active language; an unknown code as it is."""
    try:
        return str(choices(code).label)
    except ValueError:
        return code


def line_details(line: Mapping[str, Any], per_year: Mapping[int, str]) -> dict[str, Any]:
    """What the configuration table prints under a line: parts, warranty, service level and
    (support) billing, with what a support year bills (`per_year`, by line position, from
    the frozen plan) when billed yearly."""
    configuration = line.get("configuration") or None
    parts = [
        {**part, "role_label": _label(PartRole, part["role"])}
        for part in (configuration or {}).get("parts", [])
    ]
    billing = line.get("billing") or ""
    yearly = per_year.get(int(line.get("position") or 0))
    return {
        "configuration": configuration,
        "parts": parts,
        "cooling_label": _label(Cooling, configuration["cooling"]) if configuration else "",
        "warranty_years": line.get("warranty_years"),
        "service_level": _label(ServiceLevel, line["service_level"])
        if line.get("service_level")
        else "",
        "billing": billing if line.get("kind") == LineKind.SUPPORT else "",
        "billing_label": _label(LineBilling, billing)
        if billing and line.get("kind") == LineKind.SUPPORT
        else "",
        "yearly_amount": Decimal(yearly) if yearly and billing == LineBilling.YEARLY else None,
    }


def part_role_label(code: str) -> str:
    """A part's role in the active language (empty for no role)."""
    return _label(PartRole, code) if code else ""


def boms(lines: Sequence[Mapping[str, Any]]) -> list[SystemBom]:
    """Each system's bill of materials in the active language (quotes/system_bom.py)."""
    return system_boms(lines, part_role_label)


def payment_rows(payment: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The frozen plan's invoices with their labels (milestone or support year)."""
    rows = []
    for row in (payment or {}).get("plan", []):
        rows.append(
            {
                "event": row["event"],
                "event_label": _label(PaymentEvent, row["event"]) if row["event"] else "",
                "pct": Decimal(row["pct"]) if row["pct"] else None,
                "year": row["year"],
                "months_after": (row["year"] - 1) * 12 if row["year"] else 0,
                "net": Decimal(row["net"]),
                "vat": Decimal(row["vat"]),
                "gross": Decimal(row["gross"]),
            }
        )
    return rows


def schedule_summary(payment: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The milestones as "30 % on order confirmation" pairs (page 1)."""
    return [
        {"pct": Decimal(m["pct"]), "label": _label(PaymentEvent, m["event"])}
        for m in (payment or {}).get("schedule", [])
    ]


def currency_context(clause: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not clause:
        return None
    return {
        "source_currency": clause["source_currency"],
        "rates": [
            {
                "eur_usd": Decimal(rate["eur_usd"]),
                "as_of": date.fromisoformat(rate["as_of"]),
                "lines": _positions(rate["lines"]),
            }
            for rate in clause["rates"]
        ],
        "percent_lines": _positions(clause.get("percent_lines") or []),
        "threshold_pct": Decimal(clause["threshold_pct"]),
        # Absent from clauses frozen before a rate could be fixed: they follow the market.
        "fixed": bool(clause.get("fixed")),
    }


def _positions(numbers: Sequence[int]) -> str:
    """Line numbers as a reader lists them: "1, 2 and 3" ("1, 2 en 3" in Dutch)."""
    return str(get_text_list([str(n) for n in numbers], _("and")))


def site_context(site: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not site:
        return None
    return {
        **site,
        "servers": Decimal(site["servers"]),
        "server_count": int(Decimal(site["servers"])),
        "kw_per_server": Decimal(site["kw_per_server"]),
        "it_kw": Decimal(site["it_kw"]),
        "facility_kw": Decimal(site["facility_kw"]) if site.get("facility_kw") else None,
        "cooling_label": _label(Cooling, site["cooling"]),
    }


def offer_context(
    snapshot: Mapping[str, Any], lines: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Everything the vendor's sections of the proposal print (see the module docstring).

    `lines` are the context's lines (amounts as Decimal); each gains ``details``.
    """
    per_year = {
        int(y["position"]): y["per_year"] for y in (snapshot.get("payment") or {}).get("yearly", [])
    }
    details = [line_details(line, per_year) for line in lines]
    shipping = [line for line in lines if line.get("kind") == LineKind.SHIPPING]
    payment = snapshot.get("payment")
    general = snapshot.get("general_terms") or None
    return {
        "details": details,
        "has_configuration": any(d["configuration"] for d in details),
        "has_warranty": any(d["warranty_years"] or d["service_level"] for d in details),
        "has_vendor_terms": "payment" in snapshot,  # frozen since proposals state these terms
        "shipping_lines": shipping,
        "payment_rows": payment_rows(payment),
        "schedule": schedule_summary(payment),
        "yearly_support": any(d["billing"] == LineBilling.YEARLY for d in details),
        "currency_clause": currency_context(snapshot.get("currency_clause")),
        "site": site_context(snapshot.get("site")),
        "general_terms": general,
        # Absent from snapshots frozen before the clauses: their terms print as they did.
        "clauses": snapshot.get("clauses") or None,
        "general_terms_paragraphs": [
            p.strip() for p in (general or {}).get("text", "").split("\n\n") if p.strip()
        ],
    }
