"""The analysis of the quoted deal: the calculator's engine call on what the quote sells.

A quote keeps the calculator query (or scenario document) it was started from in
``revision.tco``. The deal analysis rebuilds that scenario the way the calculator does
(``tco.analysis.analyse``) and replaces its on-prem inputs with the quote:

- servers: the quantity of the non-optional server lines, the model of the largest line;
- server price: their net amount (after line discount and the quote discount) per server,
  with the component lines of configured systems (docs/configure.md);
- server power: a configured system's (its components under the largest line of the
  model): maximum, idle and typical power follow the configuration;
- networking and installation: their lines' net amounts per server;
- storage: the storage lines' net amounts;
- support: the support lines' net amount per year (quantity = years) as a share of the
  hardware value the engine applies it to;
- spares and one-off amounts typed into the calculator are left out (not quoted).

So the engine's upfront amount is the quoted hardware net total (servers + networking
+ storage + installation), to the cent. Formulas and a worked example: docs/quotes.md.
The result has the shape of ``analysis.tco_snapshot`` plus a ``deal`` key; drafts read it
through a cache keyed by a hash of the lines and the quote discount, and ``quote_send``
freezes it into the snapshot.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from ..models import LineKind, QuoteLine, QuoteRevision
from ..money import HUNDRED, line_amount, to_cents
from .analysis import stored_report, tco_snapshot

if TYPE_CHECKING:
    from tco.analysis import ScenarioDocument

logger = logging.getLogger(__name__)

CACHE_SECONDS = 24 * 3600
MODELLED_KINDS = (
    LineKind.SERVER,
    LineKind.NETWORKING,
    LineKind.STORAGE,
    LineKind.INSTALLATION,
    LineKind.SUPPORT,
    LineKind.COMPONENT,
)
DEAL_SOURCE = gettext_noop("This proposal")
NO_SERVER = gettext_noop("The quoted server model is no longer in the catalog.")


@dataclass(frozen=True)
class DealInputs:
    """What the quote sells, in the quote's currency (net of every discount)."""

    currency: str
    quote_discount_pct: Decimal
    server_key: str | None
    servers: Decimal
    servers_net: Decimal
    networking_net: Decimal
    installation_net: Decimal
    storage_net: Decimal
    support_per_year: Decimal
    hardware_net: Decimal  # servers + networking + storage + installation
    others: list[dict[str, str]] = field(default_factory=list)
    # The latest delivery among the server lines (0: all from stock); None when no line
    # carries one (no stock row in the catalog): the analysis keeps its own.
    lead_time_weeks: Decimal | None = None
    # The configuration of the main system (part number, quantity per system) when its
    # line has component lines; None: the catalog's system as listed.
    configuration: tuple[tuple[str, int], ...] | None = None

    @property
    def server_price(self) -> Decimal:
        return self.servers_net / self.servers if self.servers else Decimal(0)

    def per_server(self, amount: Decimal) -> Decimal:
        return amount / self.servers if self.servers else Decimal(0)


def _value(line: QuoteLine | dict[str, Any], name: str) -> Any:
    return line[name] if isinstance(line, dict) else getattr(line, name)


def deal_inputs(
    *, revision: QuoteRevision, lines: list[QuoteLine] | list[dict[str, Any]] | None = None
) -> DealInputs:
    """Sum the non-optional lines by kind, net of the line and the quote discounts."""
    if lines is None:
        lines = list(revision.lines.order_by("position"))
    quote_discount = Decimal(str(getattr(revision, "discount_pct", 0) or 0))
    factor = (HUNDRED - quote_discount) / HUNDRED
    # The kinds the engine models; free "other" lines are listed, not costed.
    sums = {kind: Decimal(0) for kind in MODELLED_KINDS}
    servers = Decimal(0)
    support_per_year = Decimal(0)
    by_model: dict[str, Decimal] = {}
    systems: list[QuoteLine | dict[str, Any]] = []
    others: list[dict[str, str]] = []
    leads: list[Decimal] = []
    # A component under an optional system is as optional as its system.
    optional_systems = {_line_id(line) for line in lines if _value(line, "optional")}
    for line in lines:
        if _value(line, "optional") or (_parent_id(line) in optional_systems - {None}):
            continue
        kind = _value(line, "kind")
        quantity = Decimal(str(_value(line, "quantity")))
        net = line_amount(
            quantity,
            Decimal(str(_value(line, "unit_price"))),
            Decimal(str(_value(line, "discount_pct"))),
        )
        net = net * factor
        if kind not in sums:  # "other" lines and kinds the analysis does not model
            others.append({"description": _value(line, "description"), "amount": str(net)})
            continue
        sums[kind] += net
        if kind == LineKind.SERVER:
            servers += quantity
            key = str(_value(line, "catalog_key")).partition(":")[2]
            by_model[key] = by_model.get(key, Decimal(0)) + quantity
            systems.append(line)
            lead = line.get("lead_time_weeks") if isinstance(line, dict) else line.lead_time_weeks
            if lead is not None:
                leads.append(Decimal(str(lead)))
        elif kind == LineKind.SUPPORT:
            # A support line is priced per year; its quantity is the number of years.
            support_per_year += net / quantity
    # A configured system's price is its line's (the barebone) and its components'.
    servers_net = sums[LineKind.SERVER] + sums[LineKind.COMPONENT]
    server_key = max(by_model, key=lambda k: by_model[k]) if by_model else None
    hardware = (
        servers_net
        + sums[LineKind.NETWORKING]
        + sums[LineKind.STORAGE]
        + sums[LineKind.INSTALLATION]
    )
    return DealInputs(
        currency=revision.currency,
        quote_discount_pct=quote_discount,
        server_key=server_key,
        servers=servers,
        servers_net=servers_net,
        networking_net=sums[LineKind.NETWORKING],
        installation_net=sums[LineKind.INSTALLATION],
        storage_net=sums[LineKind.STORAGE],
        support_per_year=support_per_year,
        hardware_net=to_cents(hardware),
        others=others,
        lead_time_weeks=max(leads) if leads else None,
        configuration=_configuration(lines, systems, server_key),
    )


def _configuration(
    lines: list[QuoteLine] | list[dict[str, Any]],
    systems: list[QuoteLine | dict[str, Any]],
    server_key: str | None,
) -> tuple[tuple[str, int], ...] | None:
    """The components per system under the largest line of the main model (the first of
    equals), None when it has none: its power is then the catalog's."""
    from catalog.configure.service import part_number_of

    mine = [s for s in systems if str(_value(s, "catalog_key")).partition(":")[2] == server_key]
    if not mine:
        return None
    main = max(mine, key=lambda s: Decimal(str(_value(s, "quantity"))))
    main_id = _line_id(main)
    items = tuple(
        (part, int(Decimal(str(per_system))))
        for line in lines
        if _value(line, "kind") == LineKind.COMPONENT
        and not _value(line, "optional")
        and _parent_id(line) == main_id
        and (part := part_number_of(str(_value(line, "catalog_key")))) is not None
        and (per_system := _get(line, "per_parent")) is not None
    )
    return items or None


def _get(line: QuoteLine | dict[str, Any], name: str) -> Any:
    """A field that a line given as a dict may lack (None then)."""
    return line.get(name) if isinstance(line, dict) else getattr(line, name)


def _line_id(line: QuoteLine | dict[str, Any]) -> Any:
    return line.get("id") if isinstance(line, dict) else line.pk


def _parent_id(line: QuoteLine | dict[str, Any]) -> Any:
    return _get(line, "parent_id")


def configured_power(model: Any, deal: DealInputs) -> dict[str, float]:
    """The configured system's power as the scenario's server overrides (kW): maximum,
    idle and typical (where the catalog knows it); empty when the system is not
    configured or its chassis has no rules (the catalog's figures then)."""
    from catalog.configure.rules import Configuration
    from catalog.configure.service import NotConfigurable, check_configuration

    if deal.configuration is None:
        return {}
    try:
        result = check_configuration(model, Configuration(model.key, deal.configuration))
    except NotConfigurable:
        return {}
    power = {"max_power_kw": result.max_w / 1000, "idle_power_kw": result.idle_w / 1000}
    if result.typical_w is not None:
        power["typical_power_kw"] = result.typical_w / 1000
    return power


def lines_hash(*, revision: QuoteRevision, lines: list[QuoteLine] | None = None) -> str:
    """A hash of what the deal analysis reads: lines, quote discount, currency, the
    analysis' origin and the latest recorded catalog price change."""
    if lines is None:
        lines = list(revision.lines.order_by("position"))
    from django.db.models import Max

    from catalog.models import PriceChange

    tco = revision.tco or {}
    payload = {
        # A recorded catalog price change (cloud prices, FX rate …) recomputes the analysis.
        "catalog": PriceChange.objects.aggregate(last=Max("pk"))["last"],
        "currency": revision.currency,
        "discount": str(getattr(revision, "discount_pct", 0) or 0),
        "origin": [tco.get("query", ""), tco.get("scenario"), tco.get("language")],
        # Ready dates count from today unless the scenario dates them: a new day, a new
        # analysis (and the same day as the delivery schedule's, counted from the issue day).
        "today": timezone.localdate().isoformat(),
        "lines": [
            [
                line.kind,
                line.catalog_key,
                str(line.quantity),
                str(line.unit_price),
                str(line.discount_pct),
                line.optional,
                str(line.lead_time_weeks),
            ]
            for line in lines
        ],
    }
    raw = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(raw).hexdigest()


def _origin_document(tco: dict[str, Any], server_key: str) -> ScenarioDocument:
    """The scenario document the calculator builds for the attached query (or the stored
    scenario document), for the quoted server model."""
    from tco.analysis import SCENARIO, AnalysisError, parse
    from tco.analysis.calculator import calculator_document

    if tco.get("scenario"):
        return parse({**tco["scenario"], "server": server_key})
    try:
        document = calculator_document(query=tco.get("query") or "", server_key=server_key)
    except AnalysisError as exc:
        if exc.path == "server":
            raise AnalysisError(SCENARIO, "server", _(NO_SERVER)) from exc
        raise
    if document is None:
        no_longer = _("The calculator inputs of this quote are no longer valid.")
        raise AnalysisError(SCENARIO, "query", no_longer)
    return document


def deal_document(tco: dict[str, Any], deal: DealInputs) -> tuple[dict[str, Any], Any]:
    """The scenario document of the deal (the calculator's, with the quote's on-prem inputs)
    and the catalog snapshot to evaluate it with."""
    from tco.analysis import SCENARIO, AnalysisError, CatalogSnapshot, FxRates

    assert deal.server_key is not None
    origin = _origin_document(tco, deal.server_key)
    # Today's catalog is the one the calculator holds in memory (per catalog generation);
    # a dated one is read afresh with that day's prices.
    catalog = (
        CatalogSnapshot.current()
        if origin.as_of is None
        else CatalogSnapshot.load(as_of=origin.as_of)
    )
    model = catalog.servers.get(deal.server_key)
    if model is None:
        raise AnalysisError(SCENARIO, "server", _(NO_SERVER))
    fx = FxRates(usd_per_eur=float(catalog.fx_row.rate)) if catalog.fx_row else FxRates()
    if deal.servers != deal.servers.to_integral_value():
        raise AnalysisError(SCENARIO, "servers", _("The server quantity must be a whole number."))
    document = origin.model_dump(mode="json", exclude_unset=True)
    finance = dict(document.get("finance") or {})
    fin_currency = finance.get("currency", "USD")

    def to_finance(amount: Decimal) -> float:
        return fx.convert(float(amount), deal.currency, fin_currency)

    # Support is a share of the hardware value the engine computes (servers × (price +
    # networking) + storage, no spares); the quoted support per year over that value.
    hardware_value = deal.servers_net + deal.networking_net + deal.storage_net
    support_pct = float(deal.support_per_year / hardware_value) if hardware_value else 0.0
    finance.update(
        reporting_currency=deal.currency,
        networking_per_server=to_finance(deal.per_server(deal.networking_net)),
        installation_per_server=to_finance(deal.per_server(deal.installation_net)),
        storage_total=to_finance(deal.storage_net),
        support_pct_per_year=support_pct,
        spares_pct=0.0,
    )
    finance.pop("one_off", None)
    server = document.get("server")
    extra = (
        {k: v for k, v in server.items() if k not in ("key", "list_price")}
        if isinstance(server, dict)
        else {}
    )
    delivery: dict[str, Any] = {}
    if deal.lead_time_weeks is not None:
        # The lines' delivery, not the catalog's or the calculator's: the proposal's
        # schedule, its analysis' ready date and the bridge count from the same weeks (a
        # line from stock has 0 weeks, so the stock is already counted in it).
        delivery = {"lead_time_weeks": float(deal.lead_time_weeks), "units_in_stock": 0}
    document.update(
        server={
            **extra,
            "key": deal.server_key,
            "list_price": fx.convert(float(deal.server_price), deal.currency, model.currency),
            **delivery,
            **configured_power(model, deal),
        },
        servers=int(deal.servers),
        finance=finance,
    )
    return document, catalog


def _deal_assumptions(deal: DealInputs, language: str) -> list[dict[str, Any]]:
    """The quoted figures the analysis used, as rows of the assumptions table."""
    from django.utils import translation

    from common.formatting import grouped

    def money(value: Decimal) -> str:
        number = grouped(to_cents(value), 2)
        return f"{number}\u00a0{deal.currency}"

    today = timezone.localdate().isoformat()
    with translation.override(language):
        amounts = [
            (_("Quoted net price per server"), deal.server_price),
            (_("Quoted networking per server"), deal.per_server(deal.networking_net)),
            (_("Quoted installation per server"), deal.per_server(deal.installation_net)),
            (_("Quoted storage"), deal.storage_net),
            (_("Quoted support per year"), deal.support_per_year),
        ]
        rows = [(_("Quoted servers"), grouped(deal.servers, 0))]
        rows += [(label, money(amount)) for label, amount in amounts if amount]
        source = _(DEAL_SOURCE)
        return [
            {
                "label": str(label),
                "value": value,
                "source": str(source),
                "as_of": today,
                "is_estimate": False,
                "stale": False,
                "quoted": True,
            }
            for label, value in rows
        ]


def _compute(revision: QuoteRevision, lines: list[QuoteLine], language: str) -> dict[str, Any]:
    from tco.analysis import AnalysisError, analyse, owning_components

    tco = revision.tco
    assert tco is not None
    deal = deal_inputs(revision=revision, lines=lines)
    summary = {
        "currency": deal.currency,
        "servers": str(deal.servers),
        "server_key": deal.server_key,
        "server_price": str(to_cents(deal.server_price)),
        "networking_per_server": str(to_cents(deal.per_server(deal.networking_net))),
        "installation_per_server": str(to_cents(deal.per_server(deal.installation_net))),
        "storage_total": str(to_cents(deal.storage_net)),
        "support_per_year": str(to_cents(deal.support_per_year)),
        "hardware_net": str(deal.hardware_net),
        "quote_discount_pct": str(deal.quote_discount_pct),
        # The main system's components per system (part number, quantity), if configured.
        "configuration": [list(item) for item in deal.configuration or ()],
        "others": deal.others,
        "lines_hash": lines_hash(revision=revision, lines=lines),
    }
    if deal.server_key is None:
        return {**tco, "deal": {**summary, "problem": _("The quote has no server lines.")}}
    try:
        document, catalog = deal_document(tco, deal)
        analysis = analyse(document, catalog=catalog)
    except AnalysisError as exc:
        logger.info("deal analysis of revision %s failed: %s", revision.public_id, exc)
        return {**tco, "deal": {**summary, "problem": exc.message or str(exc)}}
    snapshot = tco_snapshot(analysis=analysis, query=tco.get("query", ""), language=language)
    if tco.get("scenario"):
        snapshot["scenario"] = tco["scenario"]
    # The first row is the server price, now the quoted one (listed with the deal's rows).
    rows = snapshot["assumptions"]
    if rows and rows[0]["source"] == _source_your_input(language):
        rows = rows[1:]
    snapshot["assumptions"] = _deal_assumptions(deal, language) + rows
    snapshot["deal"] = {
        **summary,
        "owning": owning_components(analysis, language),
        "differences": deal_differences(tco, deal),
    }
    return snapshot


def deal_differences(tco: dict[str, Any], deal: DealInputs) -> list[dict[str, Any]]:
    """Where the quote differs from the analysis it was started from, as codes with
    parameters (worded by quotes_tags.deal_difference), so a proposal never shows another
    saving than the calculator without saying why:

    - ``servers``: the quote sells another number of servers than the analysis sized;
    - ``server_model``: another server model;
    - ``spares`` / ``one_off``: the scenario's spares and one-off amounts are not quoted,
      so the deal's analysis leaves them out.
    """
    differences: list[dict[str, Any]] = []
    report = stored_report(tco)
    sized = report.sizing.servers_required if report else None
    if sized is not None and Decimal(sized) != deal.servers:
        differences.append(
            {"code": "servers", "params": {"sized": sized, "quoted": str(deal.servers)}}
        )
    origin = (tco.get("server") or {}).get("key")
    if origin and deal.server_key and origin != deal.server_key:
        differences.append(
            {"code": "server_model", "params": {"sized": origin, "quoted": deal.server_key}}
        )
    finance = (tco.get("scenario") or {}).get("finance") or {}
    if float(finance.get("spares_pct") or 0) > 0:
        differences.append({"code": "spares", "params": {"pct": finance["spares_pct"]}})
    if finance.get("one_off"):
        differences.append({"code": "one_off", "params": {"count": len(finance["one_off"])}})
    return differences


def _source_your_input(language: str) -> str:
    from django.utils import translation

    from tco.analysis import YOUR_INPUT

    with translation.override(language):
        return str(YOUR_INPUT)


def deal_analysis(
    *, revision: QuoteRevision, lines: list[QuoteLine] | None = None, language: str | None = None
) -> dict[str, Any] | None:
    """The TCO analysis of the quoted deal (tco_snapshot's shape plus ``deal``), or the
    attached analysis unchanged when the quote has none to follow (no analysis attached).

    Cached by a hash of the lines, the quote discount and the analysis' origin, so a draft
    page recomputes it only after a line changed.
    """
    if not revision.tco:
        return revision.tco
    if lines is None:
        lines = list(revision.lines.order_by("position"))
    language = language or revision.quote.customer.language
    key = (
        f"quotes:deal:{revision.public_id}:{language}:{lines_hash(revision=revision, lines=lines)}"
    )
    try:
        cached = cache.get(key)
    except Exception:  # a cache outage only costs a recomputation
        logger.warning("deal analysis cache unavailable", exc_info=True)
        cached = None
    if cached is not None:
        return dict(cached)
    result = _compute(revision, lines, language)
    try:
        cache.set(key, result, CACHE_SECONDS)
    except Exception:
        logger.warning("deal analysis cache unavailable", exc_info=True)
    return result
