"""Reads of quotes, scoped to the user's team, with the joins each page needs."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from django.db.models import OuterRef, Prefetch, Q, QuerySet, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from catalog.models import Component, InfrastructureItem, PriceBookRow, PricingUnit, ServerModel
from catalog.selectors import latest_fx_rate, prices_changed_since

from .models import (
    ApprovalState,
    Customer,
    EmailKind,
    Lead,
    LineKind,
    OutboxEmail,
    OutboxStatus,
    ProposalRender,
    Quote,
    QuoteLine,
    QuoteRevision,
    RenderStatus,
    SavedScenario,
    Status,
)
from .money import (
    HARDWARE_KINDS,
    PriceUnavailable,
    catalog_unit_cost,
    catalog_unit_price,
    fixed_catalog_amount,
    hardware_total,
)
from .tiers import PricingTerms, TierPrice, line_price, line_rule


def team_filter(user: Any, prefix: str = "") -> Q:
    """Staff see every team's rows; a sales engineer those of their teams."""
    if user.is_staff:
        return Q()
    return Q(**{f"{prefix}team__members": user})


AWAITING_APPROVAL = "awaiting_approval"  # the list's filter beside the statuses


def _latest(field: str) -> Subquery:
    return Subquery(
        QuoteRevision.objects.filter(quote=OuterRef("pk"), option_of__isnull=True)
        .order_by("-seq")
        .values(field)[:1]
    )


def quote_list(
    *, user: Any, search: str = "", status: str = "", owner: int | None = None
) -> QuerySet[Quote]:
    quotes = (
        Quote.objects.filter(team_filter(user))
        .select_related("customer", "owner", "team")
        .annotate(current_status=_latest("status"), current_letter=_latest("letter"))
        .distinct()
        .order_by("-created_at")
    )
    search = search.strip()
    if search:
        quotes = quotes.filter(
            Q(number__icontains=search)
            | Q(customer__company__icontains=search)
            | Q(customer__contact_name__icontains=search)
            | Q(customer__email__icontains=search)
        )
    if status == AWAITING_APPROVAL:  # a draft whose margin waits for a sales manager
        quotes = quotes.annotate(current_approval=_latest("approval_state")).filter(
            current_status=Status.DRAFT, current_approval=ApprovalState.REQUESTED
        )
    elif status:
        quotes = quotes.filter(current_status=status)
    if owner:
        quotes = quotes.filter(owner_id=owner)
    return quotes


def quote_list_with_lines(
    *, user: Any, search: str = "", status: str = "", owner: int | None = None
) -> QuerySet[Quote]:
    """quote_list with every revision and its lines prefetched (totals without N+1)."""
    return quote_list(user=user, search=search, status=status, owner=owner).prefetch_related(
        _revisions_with_lines()
    )


def _revisions_with_lines(*also: Prefetch[Any]) -> Prefetch[Any]:
    """A quote's revisions (not their options), newest first, each with its lines in order
    and what else the page reads of it (`also`)."""
    return Prefetch(
        "revisions",
        queryset=QuoteRevision.objects.filter(option_of__isnull=True)
        .order_by("-seq")
        .prefetch_related(
            Prefetch(
                "lines",
                queryset=QuoteLine.objects.order_by("position").select_related("parent"),
            ),
            *also,
        ),
    )


def quote_owners(*, user: Any) -> list[tuple[int, str]]:
    """Who owns the quotes the user may see (for the list's owner filter), by name."""
    from django.contrib.auth import get_user_model

    visible = Quote.objects.filter(team_filter(user)).values("owner_id")
    owners = get_user_model().objects.filter(pk__in=visible)
    named = [(u.pk, u.get_full_name() or u.get_username()) for u in owners]
    return sorted(named, key=lambda pair: pair[1].lower())


def quote_detail(*, user: Any, public_id: Any) -> Quote:
    """The quote with revisions, lines, renders and emails (404 outside the user's team)."""
    queryset = (
        Quote.objects.filter(_team_or_escalated(user, "revisions__"))
        .select_related("customer", "owner", "team")
        .prefetch_related(
            _revisions_with_lines(
                Prefetch("emails", queryset=OutboxEmail.objects.order_by("-created_at")),
                Prefetch("renders", queryset=ProposalRender.objects.defer("pdf").order_by("pk")),
            )
        )
        .distinct()
    )
    return get_object_or_404(queryset, public_id=public_id)


def _team_or_escalated(user: Any, revision: str, quote: str = "") -> Q:
    """The user's teams' rows (team_filter), and a draft whose margin approval was
    escalated to the user (a sales manager of another team: services.approval_request).
    `revision` and `quote` are the lookups' prefixes to the revision and the quote."""
    if user.is_staff:
        return Q()  # every team's rows already
    escalated = Q(**{f"{revision}approval_escalated_to": user, f"{revision}status": Status.DRAFT})
    return team_filter(user, quote) | escalated


def revision_for_user(*, user: Any, public_id: Any) -> QuoteRevision:
    queryset = QuoteRevision.objects.filter(
        _team_or_escalated(user, revision="", quote="quote__")
    ).select_related("quote__customer", "quote__owner", "quote__team")
    return get_object_or_404(queryset.distinct(), public_id=public_id)


def render_for_user(*, user: Any, public_id: Any) -> ProposalRender:
    queryset = ProposalRender.objects.filter(team_filter(user, "revision__quote__")).select_related(
        "revision__quote"
    )
    return get_object_or_404(queryset.distinct(), public_id=public_id)


def customer_list(*, user: Any) -> QuerySet[Customer]:
    return Customer.objects.filter(team_filter(user)).select_related("team", "tier").distinct()


def lead_list(*, user: Any) -> QuerySet[Lead]:
    """The confirmed leads of the user's teams (staff: all, including leads no team was
    given). A lead whose address was not confirmed may be anyone's: it is not shown."""
    return (
        Lead.objects.filter(team_filter(user), confirmed_at__isnull=False)
        .prefetch_related(Prefetch("emails", queryset=OutboxEmail.objects.order_by("-created_at")))
        .order_by("-created_at")
    )


def delivery_state(*, revision: QuoteRevision) -> dict[str, Any]:
    """The newest proposal email of a revision and its PDF, for the progress badge."""
    return _newest_state(OutboxEmail.objects.filter(revision=revision, kind="proposal"))


def lead_delivery_state(*, lead: Lead) -> dict[str, Any]:
    """The visitor's PDF email (none until the address is confirmed) and its render."""
    return _newest_state(OutboxEmail.objects.filter(lead=lead, kind=EmailKind.LEAD_PDF))


def _newest_state(emails: QuerySet[OutboxEmail]) -> dict[str, Any]:
    """The state of the newest of `emails` with its render; the badge needs neither the
    PDF nor the body, so they stay in the database."""
    email = (
        emails.select_related("render").defer("render__pdf", "body").order_by("-created_at").first()
    )
    return _state(email)


def undelivered_emails(*, quote: Any) -> list[OutboxEmail]:
    """The quote's emails other than the proposal (whose badge says how it went) that did
    not go out: decision and acceptance notices, approvals; with why (last_error)."""
    return list(
        OutboxEmail.objects.filter(
            revision__quote=quote, status__in=[OutboxStatus.FAILED, OutboxStatus.UNSENDABLE]
        )
        .exclude(kind=EmailKind.PROPOSAL)
        .defer("body")
        .order_by("created_at")
    )


def _state(email: OutboxEmail | None) -> dict[str, Any]:
    """The job's state as the page shows it, with the time that state began.

    queued (nothing tried yet) → rendering → sending → sent; "retrying" once an attempt
    failed (or its worker died) and another is due; "failed" when the retries are spent.
    """
    if email is None:
        return {"email": None, "render": None, "state": "none", "done": True, "since": None}
    state, since = _state_and_since(email, email.render)
    render_retrying = email.render is not None and email.render.status == RenderStatus.PENDING
    note = ""  # why it failed, or why it is being tried again
    if state == "failed" or state == "retrying":
        note = email.render.last_error if render_retrying and email.render else email.last_error
    return {
        "email": email,
        "render": email.render,
        "state": state,
        "since": since,
        "note": note,
        "done": state in ("sent", "failed"),
        "pdf_ready": email.render is not None and email.render.status == "done",
    }


def _state_and_since(email: OutboxEmail, render: ProposalRender | None) -> tuple[str, Any]:
    if email.status == OutboxStatus.UNSENDABLE or email.status == OutboxStatus.FAILED:
        return "failed", email.updated_at
    if email.status == OutboxStatus.SENT:
        return "sent", email.sent_at
    if render is not None and render.status == RenderStatus.FAILED:
        return "failed", render.updated_at
    if render is not None and render.status == RenderStatus.PENDING:
        # Waiting for a worker: the first time, or again after a failed attempt.
        if render.attempts:
            return "retrying", render.updated_at
        return "queued", email.created_at
    if render is not None and render.status == RenderStatus.RENDERING:
        return "rendering", render.started_at or render.updated_at
    if email.status == OutboxStatus.SENDING:
        return "sending", email.sending_started_at or email.updated_at
    if email.attempts:  # an SMTP attempt failed; its retry is due
        return "retrying", email.updated_at
    return "queued", email.created_at


# --- catalog prices that changed after a draft's lines were priced ----------------------

# Price-history kinds (catalog.models.PriceKind) behind each line kind; a line's
# catalog_key is "server:<ServerModel.key>" or "item:<InfrastructureItem.key>".
PRICE_KIND_OF_LINE = {
    LineKind.SERVER: "servers",
    LineKind.NETWORKING: "items",
    LineKind.STORAGE: "items",
    LineKind.INSTALLATION: "items",
    LineKind.SUPPORT: "items",
    LineKind.SHIPPING: "items",
    LineKind.FACILITY: "items",
    LineKind.OTHER: "items",
    LineKind.COMPONENT: "components",
}
# The one rate lines are converted with (services.pricing.fx_rate_for): its history key.
FX_PAIR = ("EUR", "USD")
FX_KEY = ("fx", "EUR-USD")


def deal_root(revision: QuoteRevision) -> QuoteRevision:
    """The revision that holds the deal terms (option A: alternatives share them)."""
    return revision.option_of if revision.option_of_id is not None else revision  # type: ignore[return-value]


def protected_until(revision: QuoteRevision) -> date | None:
    """The last day the revision's prices are protected (inclusive), or None."""
    root = deal_root(revision)
    if not root.price_protection_days or root.price_protection_from is None:
        return None
    return root.price_protection_from + timedelta(days=root.price_protection_days)


def prices_protected(revision: QuoteRevision, day: date | None = None) -> bool:
    """Whether re-pricing must leave the revision's prices alone on `day` (today)."""
    until = protected_until(revision)
    return until is not None and (day or timezone.localdate()) <= until


def pricing_terms(revision: QuoteRevision, day: date | None = None) -> PricingTerms:
    """The customer's tier rows and the deal registration that hold on `day` (today):
    what quotes.tiers.line_price prices a catalog line by."""
    day = day or timezone.localdate()
    tier = revision.quote.customer.tier
    rows = tuple(PriceBookRow.objects.filter(tier=tier)) if tier is not None else ()
    root = deal_root(revision)
    expires = root.deal_registration_expires
    holds = bool(root.deal_registration) and (expires is None or day <= expires)
    return PricingTerms(
        tier.key if tier is not None else "", rows, day, root.deal_registration if holds else ""
    )


def line_category(line: QuoteLine) -> str:
    """What a category row of a price book matches a line by (`server` or its kind)."""
    return str(line.kind)


@dataclass(frozen=True)
class LinePriceChange:
    """A draft line whose catalog price changed after it was priced, and today's price."""

    line: QuoteLine
    unit_price: Decimal  # in the quote's currency, by money.catalog_unit_price
    price_as_of: date | None
    price_is_estimate: bool
    item: InfrastructureItem | None = None  # set for "% of hardware" items
    cost_price: Decimal | None = None  # the catalog's cost by the same rule (None: unknown)
    list_price: Decimal | None = None  # the catalog's list price (the tier price's base)
    price_basis: str | None = None  # the rule of the new price (None: unchanged)

    @property
    def old_unit_price(self) -> Decimal:
        return self.line.unit_price


CatalogRow = ServerModel | InfrastructureItem | Component


def _catalog_row(line: QuoteLine, rows: dict[str, dict[str, Any]]) -> CatalogRow | None:
    prefix, _sep, key = line.catalog_key.partition(":")
    found: CatalogRow | None = rows.get(prefix, {}).get(key)
    return found


def _price_as_of(row: CatalogRow) -> date:
    """The date of the row's price (a server's and a component's price have their own)."""
    return row.as_of if isinstance(row, InfrastructureItem) else row.price_as_of


def _is_estimate(row: CatalogRow) -> bool:
    return row.is_estimate if isinstance(row, InfrastructureItem) else row.price_is_estimate


def _is_percent(row: Any) -> bool:
    return (
        isinstance(row, InfrastructureItem) and row.unit == PricingUnit.PERCENT_OF_HARDWARE_PER_YEAR
    )


def revision_price_changes(
    *, revision: QuoteRevision, lines: Iterable[QuoteLine] | None = None
) -> list[LinePriceChange]:
    """The lines of a draft whose catalog price changed after their `priced_at`.

    A line depends on the price of its catalog row (price-history kind per line kind, see
    PRICE_KIND_OF_LINE) and, when the row is priced in another currency than the quote,
    on the EUR/USD rate. A "% of hardware" item also depends on the revision's server
    lines: when one of them is re-priced, so is the item (recomputed on the new hardware
    total). Lines whose catalog row is gone, or that cannot be priced today (no rate, no
    hardware), are left out.

    Sent revisions are frozen: always an empty list, without a query. Otherwise a bounded
    number of queries whatever the line count: the lines (unless given), the servers, the
    items, one for the price history of all of them, and the EUR/USD rate if needed.
    """
    if not revision.is_draft or prices_protected(revision):
        return []
    lines = list(lines) if lines is not None else list(revision.lines.order_by("position"))
    rows = _catalog_rows(lines)
    terms = pricing_terms(revision)
    # A rate fixed for the revision (services.fx) converts its lines whatever the market does.
    fixed = revision.fixed_fx_rate
    fx_rate: Decimal | None = fixed

    barebones = _barebone_parts(lines, rows)

    def depends_on(line: QuoteLine, row: Any) -> list[tuple[str, str]]:
        pairs = [(PRICE_KIND_OF_LINE[LineKind(line.kind)], row.key)]
        pairs += [("components", part) for part in barebones.get(line.pk, ())]
        if not _is_percent(row) and row.currency != revision.currency and fixed is None:
            pairs.append(FX_KEY)
        return pairs

    since: dict[tuple[str, str], datetime] = {}
    for line in lines:
        row = rows[line.pk]
        if row is None:
            continue
        for pair in depends_on(line, row):
            since[pair] = min(since.get(pair, line.priced_at), line.priced_at)
    changed_at = prices_changed_since(since=since)

    def changed(line: QuoteLine) -> bool:
        row = rows[line.pk]
        return row is not None and (
            any(
                pair in changed_at and changed_at[pair] > line.priced_at
                for pair in depends_on(line, row)
            )
            or (not _is_percent(row) and _rule_moved(terms, line))
        )

    if fixed is None and any(
        (row := rows[line.pk]) is not None
        and changed(line)
        and not _is_percent(row)
        and row.currency != revision.currency
        for line in lines
    ):
        fx = latest_fx_rate(*FX_PAIR)
        fx_rate = fx.rate if fx is not None else None

    found: dict[int, LinePriceChange] = {}
    for line in lines:
        row = rows[line.pk]
        if row is None or _is_percent(row) or not changed(line):
            continue
        try:
            list_unit, cost = _list_and_cost(row, line.pk in barebones, revision.currency, fx_rate)
            today = _price_today(terms, line, list_unit, revision.currency, fx_rate)
        except PriceUnavailable:
            continue
        as_of, estimate = _price_as_of(row), _is_estimate(row)
        found[line.pk] = LinePriceChange(
            line,
            today.unit_price,
            as_of,
            estimate,
            cost_price=cost,
            list_price=list_unit,
            price_basis=today.basis,
        )

    hardware_changed = any(
        line.pk in found and line.kind in HARDWARE_KINDS and not line.optional for line in lines
    )
    percent_lines = [line for line in lines if changed(line) or hardware_changed]
    found.update(_percent_item_changes(revision, lines, rows, found, percent_lines))
    return [found[line.pk] for line in lines if line.pk in found]


def _barebone_parts(lines: list[QuoteLine], rows: dict[int, Any]) -> dict[int, list[str]]:
    """The configured system lines (with component lines under them) and the default parts
    their barebone price depends on: a configured system's line is the server's price less
    its default components' (docs/configure.md, "Price and power"). One query, none when
    no system is configured."""
    from catalog.models import ChassisDefault

    configured = {line.parent_id for line in lines if line.kind == LineKind.COMPONENT}
    servers = {pk: row.pk for pk, row in rows.items() if pk in configured and row is not None}
    parts: dict[int, list[str]] = {}
    if servers:
        defaults = ChassisDefault.objects.filter(server_id__in=set(servers.values()))
        for server_id, part in defaults.values_list("server_id", "component__part_number"):
            parts.setdefault(server_id, []).append(part)
    return {pk: parts.get(server_id, []) for pk, server_id in servers.items()}


def _list_and_cost(
    row: CatalogRow, barebone: bool, currency: str, fx_rate: Decimal | None
) -> tuple[Decimal, Decimal | None]:
    """A catalog line's list price and cost in the quote's currency today (a configured
    system's: its barebone's)."""
    if barebone and isinstance(row, ServerModel):
        return barebone_prices(row, currency, fx_rate)
    return catalog_unit_price(row, currency, fx_rate), catalog_unit_cost(row, currency, fx_rate)


def barebone_prices(
    server: ServerModel, currency: str, fx_rate: Decimal | None
) -> tuple[Decimal, Decimal | None]:
    """A configured system line's price and cost in the quote's currency: the server's
    less its default components' (docs/configure.md, "Price and power"), converted by the
    catalog pricing rule; PriceUnavailable when the chassis has no rules."""
    from catalog.configure.rules import Configuration
    from catalog.configure.service import NotConfigurable, check_configuration

    try:
        result = check_configuration(server, Configuration(server.key, ()))
    except NotConfigurable as exc:
        raise PriceUnavailable(str(exc)) from exc

    def amount(value: Decimal) -> Decimal:
        return fixed_catalog_amount(value, server.currency, currency, fx_rate)

    cost = result.barebone_cost
    return amount(result.barebone_list_price), None if cost is None else amount(cost)


def _rule_moved(terms: PricingTerms, line: QuoteLine) -> bool:
    """The tier's row or the deal that priced a catalog line no longer holds (or its
    price changed): the basis valid today is another than the line's."""
    _row, basis = line_rule(
        terms,
        catalog_key=line.catalog_key,
        category=line_category(line),
        registered_price=line.registered_price,
    )
    return basis != line.price_basis


def _price_today(
    terms: PricingTerms,
    line: QuoteLine,
    list_unit: Decimal,
    currency: str,
    fx_rate: Decimal | None,
) -> TierPrice:
    """A catalog line's unit price today from its list price (quotes.tiers.line_price)."""
    return line_price(
        terms,
        catalog_key=line.catalog_key,
        category=line_category(line),
        list_unit=list_unit,
        registered_price=line.registered_price,
        currency=currency,
        fx_rate=fx_rate,
    )


def catalog_keys(lines: Iterable[QuoteLine], kinds: Iterable[str]) -> dict[str, set[str]]:
    """The lines' catalog keys per kind of row among `kinds` ("server", "item",
    "component"): what to load in one query per kind."""
    keys: dict[str, set[str]] = {kind: set() for kind in kinds}
    for line in lines:
        prefix, _sep, key = line.catalog_key.partition(":")
        if prefix in keys:
            keys[prefix].add(key)
    return keys


def _catalog_rows(lines: list[QuoteLine]) -> dict[int, CatalogRow | None]:
    """Each line's catalog row (None: gone or not from the catalog), in a query per kind
    of row the lines have (servers, items, components)."""
    keys = catalog_keys(lines, ("server", "item", "component"))
    rows: dict[str, dict[str, Any]] = {
        "server": {s.key: s for s in ServerModel.objects.filter(key__in=keys["server"])}
        if keys["server"]
        else {},
        "item": {i.key: i for i in InfrastructureItem.objects.filter(key__in=keys["item"])}
        if keys["item"]
        else {},
        "component": {c.key: c for c in Component.objects.filter(part_number__in=keys["component"])}
        if keys["component"]
        else {},
    }
    return {line.pk: _catalog_row(line, rows) for line in lines}


def _percent_item_changes(
    revision: QuoteRevision,
    lines: list[QuoteLine],
    rows: dict[int, CatalogRow | None],
    found: dict[int, LinePriceChange],
    candidates: list[QuoteLine],
) -> dict[int, LinePriceChange]:
    """The "% of hardware" lines among `candidates` (changed themselves, or all when the
    hardware was re-priced), recomputed on the hardware total with `found`'s new prices."""
    repriced = [
        SimpleNamespace(
            kind=line.kind,
            optional=line.optional,
            quantity=line.quantity,
            unit_price=found[line.pk].unit_price if line.pk in found else line.unit_price,
        )
        for line in lines
    ]
    hardware = hardware_total(repriced)
    changes: dict[int, LinePriceChange] = {}
    for line in candidates:
        row = rows[line.pk]
        if not _is_percent(row) or not hardware:
            continue
        assert isinstance(row, InfrastructureItem)
        unit = catalog_unit_price(row, revision.currency, None, hardware)
        cost = catalog_unit_cost(row, revision.currency, None, hardware)
        changes[line.pk] = LinePriceChange(
            line, unit, row.as_of, row.is_estimate, item=row, cost_price=cost
        )
    return changes


def customer_for_user(*, user: Any, public_id: Any) -> Customer:
    """A customer of the user's teams (404 otherwise)."""
    return get_object_or_404(customer_list(user=user), public_id=public_id)


def customer_scenarios(*, customer: Customer) -> QuerySet[SavedScenario]:
    """The customer's saved scenarios, newest first (the caller scoped the customer)."""
    return customer.scenarios.select_related("owner")


def scenario_for_user(*, user: Any, public_id: Any) -> SavedScenario:
    """A saved scenario of a customer of the user's teams (404 otherwise)."""
    scoped = SavedScenario.objects.filter(team_filter(user, "customer__")).distinct()
    return get_object_or_404(scoped.select_related("customer", "owner"), public_id=public_id)


def customer_scenarios_by_id(
    *, customer: Customer, public_ids: Iterable[Any]
) -> list[SavedScenario]:
    """The customer's saved scenarios of these ids, in the order given (each once); 404 when
    one is not the customer's (the caller scoped the customer to the user's teams)."""
    try:
        wanted = list(dict.fromkeys(str(uuid.UUID(str(i))) for i in public_ids))
    except ValueError as exc:
        raise Http404("no such scenario") from exc
    found = customer_scenarios(customer=customer).filter(public_id__in=wanted)
    rows = {str(s.public_id): s for s in found}
    if len(rows) != len(wanted):
        raise Http404("no such scenario")
    return [rows[i] for i in wanted]
