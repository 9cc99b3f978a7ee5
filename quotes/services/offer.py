"""What a vendor's proposal states beside the prices, frozen with them at send: each server
line's configuration with part numbers, warranty and service level per line, the support
billing and payment plan, the currency clause, the site prerequisites and the general terms.

Everything here is read from the catalog, the revision and its analysis once, when the
snapshot is made (services.snapshots), and stored as plain JSON: a sent proposal keeps what
it stated whatever the catalog says later, and the PDF only prints it. Codes (part roles,
service levels, payment events) are stored as codes and worded when printed, so the same
snapshot reads in English and Dutch. Nothing internal is copied: no estimate flags, no
sources, no costs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import InfrastructureItem, PricingUnit, ServerModel
from catalog.selectors import fx_rates_on

from ..billing import (
    ScheduleError,
    billing_plan,
    clean_schedule,
    default_schedule,
    yearly_lines,
)
from ..models import LineKind, QuoteLine, QuoteRevision
from ..selectors import catalog_keys
from .analysis import stored_report
from .errors import QuoteError
from .pricing import Totals


@dataclass(frozen=True)
class CatalogRows:
    """The catalog rows behind a revision's lines (servers with their GPU and parts)."""

    servers: dict[str, ServerModel]
    items: dict[str, InfrastructureItem]

    def of(self, line: QuoteLine) -> ServerModel | InfrastructureItem | None:
        prefix, _sep, key = line.catalog_key.partition(":")
        if prefix == "server":
            return self.servers.get(key)
        return self.items.get(key) if prefix == "item" else None


def catalog_rows(lines: Sequence[QuoteLine]) -> CatalogRows:
    """The lines' catalog rows in three queries (servers, their parts, items)."""
    keys = catalog_keys(lines, ("server", "item"))
    servers = ServerModel.objects.filter(key__in=keys["server"]).select_related("gpu")
    items = InfrastructureItem.objects.filter(key__in=keys["item"])
    return CatalogRows(
        servers={s.key: s for s in servers.prefetch_related("parts")} if keys["server"] else {},
        items={i.key: i for i in items} if keys["item"] else {},
    )


def _is_percent(row: object) -> bool:
    return (
        isinstance(row, InfrastructureItem) and row.unit == PricingUnit.PERCENT_OF_HARDWARE_PER_YEAR
    )


def server_configuration(server: ServerModel, language: str) -> dict[str, Any]:
    """A server model as a proposal line shows it: GPUs, size, power, cooling and parts."""
    return {
        "vendor": server.vendor,
        "sku": server.sku,
        "gpus": f"{server.gpu_count} × {server.gpu.name}",
        "rack_units": server.rack_units,
        "max_power_kw": str(server.max_power_kw),
        "cooling": server.cooling,
        "whole_rack": server.whole_rack,
        "facility_needs": (
            server.facility_needs_nl
            if language == "nl" and server.facility_needs_nl
            else server.facility_needs
        ),
        "parts": [
            {
                "role": part.role,
                "quantity": part.quantity,
                "description": part.display_description(language),
                "part_number": part.part_number,
            }
            for part in server.parts.all()
        ],
    }


def line_facts(line: QuoteLine, rows: CatalogRows, language: str) -> dict[str, Any]:
    """A line's configuration, warranty and service level from the catalog (servers: all
    three; support items: the service level; free lines and rows gone: nothing)."""
    row = rows.of(line)
    if isinstance(row, ServerModel):
        return {
            "configuration": server_configuration(row, language),
            "warranty_years": row.warranty_years,
            "service_level": row.service_level,
        }
    if isinstance(row, InfrastructureItem) and row.service_level:
        return {"service_level": row.service_level}
    return {}


def currency_clause(
    *, revision: QuoteRevision, lines: Sequence[QuoteLine], rows: CatalogRows
) -> dict[str, Any] | None:
    """Which lines are priced from list prices in another currency than the quote's, at
    which EUR/USD rate and of which date; None when every price is in the quote's currency.

    A line's rate is the one in effect when it was priced (its ``priced_at``): the one
    adding or re-pricing it used (services.pricing). A "% of hardware" item follows the
    server lines it is a percentage of.
    """
    converted = [
        line
        for line in lines
        if (row := rows.of(line)) is not None
        and row.currency != revision.currency
        and not _is_percent(row)
    ]
    fixed = revision.fixed_fx_rate
    on_day = (
        {}
        if fixed is not None
        else fx_rates_on("EUR", "USD", {line.priced_at.date() for line in converted})
    )
    rate_of: dict[int, Any] = {}
    for line in converted:
        rate = _fixed(revision) if fixed is not None else on_day[line.priced_at.date()]
        if rate is not None:
            rate_of[line.position] = rate
    if not rate_of:
        return None
    hardware_converted = any(
        line.kind == LineKind.SERVER and line.position in rate_of for line in lines
    )
    percent_lines = [
        line.position for line in lines if hardware_converted and _is_percent(rows.of(line))
    ]
    rates: dict[tuple[str, str], list[int]] = {}
    for position, rate in sorted(rate_of.items()):
        rates.setdefault((str(rate.rate), rate.as_of.isoformat()), []).append(position)
    return {
        "source_currency": "USD" if revision.currency == "EUR" else "EUR",
        "rates": [
            {"eur_usd": rate, "as_of": as_of, "lines": positions}
            for (rate, as_of), positions in rates.items()
        ],
        "percent_lines": percent_lines,
        "threshold_pct": str(getattr(settings, "QUOTES_FX_CLAUSE_THRESHOLD_PCT", 3)),
        # A rate fixed by hand (services.fx): the prices do not follow the market.
        "fixed": fixed is not None,
    }


@dataclass(frozen=True)
class _FixedRate:
    rate: Decimal
    as_of: date


def _fixed(revision: QuoteRevision) -> _FixedRate:
    """The revision's fixed rate as a rate of the day it was fixed (option A's)."""
    main = revision.option_of if revision.option_of_id is not None else revision
    assert main is not None and main.fx_fixed_rate is not None
    fixed_at = main.fx_fixed_at or timezone.now()
    return _FixedRate(main.fx_fixed_rate, timezone.localdate(fixed_at))


def site_prerequisites(
    *, lines: Sequence[Mapping[str, Any]], tco: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """Power, racks and cooling the quoted servers need: per server from the catalog (frozen
    on the lines), in total and in racks from the analysis' rack plan when it has one.

    The rack plan is the deal analysis' (services.deal), made for the quoted fleet; a quote
    without an analysis gets the servers' own power and size only.
    """
    servers = [
        line
        for line in lines
        if line.get("kind") == LineKind.SERVER
        and not line.get("optional")
        and line.get("configuration")
    ]
    if not servers:
        return None
    count = sum((Decimal(line["quantity"]) for line in servers), Decimal(0))
    it_kw = sum(
        (
            Decimal(line["quantity"]) * Decimal(line["configuration"]["max_power_kw"])
            for line in servers
        ),
        Decimal(0),
    )
    biggest = max(servers, key=lambda line: Decimal(line["quantity"]))["configuration"]
    site: dict[str, Any] = {
        "servers": str(count.normalize()),
        "kw_per_server": biggest["max_power_kw"],
        "rack_units": biggest["rack_units"],
        "cooling": biggest["cooling"],
        "it_kw": str(it_kw),
        "facility_kw": None,
        "racks": None,
        "servers_per_rack": None,
        "needs_liquid_cooling": any(line["configuration"]["cooling"] != "air" for line in servers),
        "facility_needs": biggest.get("facility_needs", ""),
        "whole_rack": bool(biggest.get("whole_rack")),
        "site_fit": None,
        "duties": [],
    }
    report = stored_report(tco)
    fit = report.site_fit if report else None
    if report is not None and fit is not None and fit.racks > 0:
        shown = fit.placed_at or fit
        site.update(
            site_fit={
                "status": fit.status,
                "kw_per_rack": str(shown.kw_per_rack),
                "site_cooling": shown.site_cooling,
                "placed_at": fit.placed_at.site if fit.placed_at else None,
                "build_out_weeks": fit.build_out_weeks,
                "described": fit.described,
            },
            duties=[{"code": d.code, "params": d.params} for d in report.site_duties],
        )
    racks = report.racks if report else None
    if racks is not None and Decimal(racks.servers) == count:
        site.update(
            it_kw=str(racks.it_kw),
            facility_kw=str(racks.facility_kw),
            racks=racks.racks_required,
            servers_per_rack=racks.servers_per_rack,
            needs_liquid_cooling=racks.needs_liquid_cooling or site["needs_liquid_cooling"],
        )
    return site


def payment_plan(
    *, revision: QuoteRevision, lines: Sequence[Mapping[str, Any]], totals: Totals
) -> dict[str, Any]:
    """The schedule and the invoices it makes (quotes/billing.py), as frozen JSON."""
    try:
        schedule = clean_schedule(revision.payment_schedule or default_schedule())
    except ScheduleError as exc:
        raise QuoteError(
            _("The payment schedule cannot be used: %(problem)s Change it on the draft page.")
            % {"problem": exc}
        ) from exc
    net = totals.net if totals.net is not None else totals.subtotal
    plan = billing_plan(lines=lines, schedule=schedule, net=net, vat=totals.vat)
    return {
        "schedule": schedule,
        "plan": [row.as_json() for row in plan],
        # Per yearly support line: what one (full) support year bills, excl. VAT.
        "yearly": [
            {"position": line.position, "per_year": str(line.years[0]), "years": len(line.years)}
            for line in yearly_lines(lines, net)
        ],
    }


def general_terms(language: str) -> dict[str, str] | None:
    """The general terms of sale the proposal refers to, from the company profile: their
    text in the buyer's language (attached as pages) and their web address (linked)."""
    from ..models import CompanyProfile

    profile = CompanyProfile.current()
    if profile is None:
        return None
    text, url = profile.general_terms_for(language), profile.general_terms_url.strip()
    if not text and not url:
        return None
    return {"text": text, "url": url}


def clauses(*, lines: Sequence[Mapping[str, Any]], language: str) -> dict[str, str]:
    """What the terms section states beside the company's terms, frozen at send: whether
    delivery and warranty refer to the proposal's own schedule and lines (codes, worded by
    the template), and the company's export-control and cancellation wording."""
    from ..models import CompanyProfile

    profile = CompanyProfile.current()
    wording = profile.clauses_for(language) if profile else {}
    return {
        "delivery": "schedule" if any(line.get("delivery") for line in lines) else "at_order",
        "warranty": "per_line"
        if any(line.get("warranty_years") for line in lines)
        else "manufacturer",
        "export_control": wording.get("export_control", ""),
        "cancellation": wording.get("cancellation", ""),
    }
