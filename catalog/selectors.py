"""Reads of the catalog, with the joins each page needs (one query per table)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Model, QuerySet
from django.utils import timezone

from .models import (
    ApiOffering,
    CloudOffering,
    FxRate,
    Gpu,
    InfrastructureItem,
    PriceChange,
    PriceImport,
    ServerModel,
    Site,
)
from .schema import PRICE_SPECS_BY_KIND, Reference, TableSpec


def gpu_list() -> QuerySet[Gpu]:
    return Gpu.objects.order_by("-bf16_tflops", "name")


def server_list() -> QuerySet[ServerModel]:
    return ServerModel.objects.select_related("gpu").order_by("gpu__bf16_tflops", "vendor", "sku")


def cloud_offering_list() -> QuerySet[CloudOffering]:
    return CloudOffering.objects.select_related("gpu").order_by("gpu__name", "provider", "term")


def api_offering_list() -> QuerySet[ApiOffering]:
    return ApiOffering.objects.order_by("params_billion", "model", "provider")


def site_list() -> QuerySet[Site]:
    return Site.objects.order_by("name")


def item_list() -> QuerySet[InfrastructureItem]:
    return InfrastructureItem.objects.order_by("category", "name")


def latest_fx_rate(base: str, quote: str) -> FxRate | None:
    return FxRate.objects.filter(base=base, quote=quote).order_by("-as_of").first()


def fx_rate_on(base: str, quote: str, on: date) -> FxRate | None:
    """The rate in effect on `on`: the newest on or before it, else the oldest known.

    One query; a pair has one row per published day, so reading them all is cheap.
    """
    rates = list(FxRate.objects.filter(base=base, quote=quote).order_by("as_of"))
    earlier = [rate for rate in rates if rate.as_of <= on]
    if earlier:
        return earlier[-1]
    return rates[0] if rates else None


def fx_rates_on(base: str, quote: str, days: Iterable[date]) -> dict[date, FxRate | None]:
    """fx_rate_on for many days at once, in one query."""
    wanted = set(days)
    if not wanted:
        return {}
    rates = list(FxRate.objects.filter(base=base, quote=quote).order_by("as_of"))
    found: dict[date, FxRate | None] = {}
    for day in wanted:
        earlier = [rate for rate in rates if rate.as_of <= day]
        found[day] = earlier[-1] if earlier else (rates[0] if rates else None)
    return found


# --- price lists -----------------------------------------------------------------------


def price_rows(spec: TableSpec) -> QuerySet[Any]:
    """Every row of one price list, in a stable order (its key), for export."""
    references = [c.name for c in spec.columns if isinstance(c.parse, Reference)]
    rows = spec.model._default_manager.order_by(*spec.lookup)
    return rows.select_related(*references) if references else rows


def recent_imports(limit: int = 10) -> QuerySet[PriceImport]:
    return PriceImport.objects.select_related("uploaded_by").defer("content")[:limit]


# --- price history ---------------------------------------------------------------------


def price_history(kind: str, key: str) -> list[PriceChange]:
    """Every recorded price of one row, newest first."""
    return list(
        PriceChange.objects.filter(kind=kind, key=key)
        .select_related("changed_by")
        .order_by("-effective_from", "-changed_at", "-id")
    )


def public_change_source(source: str) -> str:
    """How a price change came about, for readers who are not staff: the kind of change,
    without file names, paths or import numbers (those stay on the staff pages).

    >>> [public_change_source(s) for s in ("load_catalog", "price import #3: acme.csv",
    ...  "import_prices /srv/x.csv", "admin", "")]
    ['seed catalog', 'price list import', 'price list import', 'catalog edit', 'catalog update']
    """
    if source.startswith("load_catalog"):
        return "seed catalog"
    if source.startswith(("price import", "import_prices")):
        return "price list import"
    if source.startswith("admin"):
        return "catalog edit"
    return "catalog update"


def current_price_row(kind: str, key: str) -> Model | None:
    """The catalog row whose price is current: by key, or the newest rate of an FX pair."""
    spec = PRICE_SPECS_BY_KIND.get(kind)
    if spec is None:
        return None
    if kind == "fx":
        base, _, quote = key.partition("-")
        return latest_fx_rate(base, quote)
    return spec.model._default_manager.filter(**{spec.lookup[0]: key}).first()


def price_changed_since(*, kind: str, key: str, since: date | dt.datetime) -> bool:
    """Whether the price of one row has changed since a quote (or anything) used it.

    The time that counts is when the change was recorded, not the date it takes effect
    from: a price list dated last month but imported today still changes a quote priced
    yesterday. A `date` means the start of that day (local time), so a change made later
    that same day counts; a re-price that turns out to change nothing is cheaper than a
    missed change. First prices (no old value) are not changes.
    """
    since = _moment(since)
    return PriceChange.objects.filter(
        kind=kind, key=key, old_value__isnull=False, changed_at__gt=since
    ).exists()


def _moment(since: date | dt.datetime) -> dt.datetime:
    """A `date` means the start of that day (local time); see price_changed_since."""
    if isinstance(since, dt.datetime):
        return since
    return timezone.make_aware(dt.datetime.combine(since, dt.time.min))


def prices_changed_since(
    *, since: Mapping[tuple[str, str], date | dt.datetime]
) -> dict[tuple[str, str], dt.datetime]:
    """price_changed_since for many rows at once, in one query.

    `since` maps (kind, key) to the time that row's price was used. Returns, for each row
    whose price changed after that time (same rules as price_changed_since), when the
    newest such change was recorded; rows without a later change are left out.
    """
    moments = {pair: _moment(when) for pair, when in since.items()}
    if not moments:
        return {}
    changes = PriceChange.objects.filter(
        kind__in={kind for kind, _key in moments},
        key__in={key for _kind, key in moments},
        old_value__isnull=False,
        changed_at__gt=min(moments.values()),
    ).values_list("kind", "key", "changed_at")
    latest: dict[tuple[str, str], dt.datetime] = {}
    for kind, key, changed_at in changes:
        pair = (kind, key)
        if pair in moments and changed_at > moments[pair]:
            latest[pair] = max(changed_at, latest.get(pair, changed_at))
    return latest


@dataclass(frozen=True)
class PriceInEffect:
    value: Decimal
    effective_from: date


def price_history_index(kinds: tuple[str, ...]) -> dict[tuple[str, str], list[PriceChange]]:
    """All price history of some kinds, oldest first per row, in one query."""
    index: dict[tuple[str, str], list[PriceChange]] = {}
    changes = PriceChange.objects.filter(kind__in=kinds).order_by(
        "kind", "key", "effective_from", "changed_at", "id"
    )
    for change in changes.only("kind", "key", "old_value", "new_value", "effective_from"):
        index.setdefault((change.kind, change.key), []).append(change)
    return index


def price_in_effect(changes: list[PriceChange], on: date) -> PriceInEffect | None:
    """The price a row had on `on`, from its history (oldest first).

    The latest change effective on or before `on` wins (for one day, the last recorded).
    Before the first recorded change the row's earliest known price is used: its old value
    if the history starts with a change, else its first price. None without history.
    """
    in_effect = None
    for change in changes:
        if change.effective_from > on:
            break
        in_effect = change
    if in_effect is not None:
        return PriceInEffect(in_effect.new_value, in_effect.effective_from)
    if not changes:
        return None
    first = changes[0]
    if first.old_value is not None:
        return PriceInEffect(first.old_value, first.effective_from)
    return PriceInEffect(first.new_value, first.effective_from)


# --- freshness -------------------------------------------------------------------------


@dataclass(frozen=True)
class StalePrice:
    kind: str
    key: str
    label: str
    price: Decimal
    currency: str
    as_of: date
    age_days: int


def stale_prices(today: date | None = None) -> list[StalePrice]:
    """Prices older than PRICE_STALE_AFTER_DAYS: each offering, server and item, and the
    current rate of each FX pair (older rates of a pair are history, not stale)."""
    today = today or timezone.localdate()
    limit = today - dt.timedelta(days=settings.PRICE_STALE_AFTER_DAYS)
    found: list[StalePrice] = []

    def add(kind: str, key: str, label: str, price: Decimal, currency: str, as_of: date) -> None:
        found.append(StalePrice(kind, key, label, price, currency, as_of, (today - as_of).days))

    for offer in CloudOffering.objects.filter(as_of__lt=limit).order_by("as_of", "key"):
        add("cloud", offer.key, str(offer), offer.price_per_hour, offer.currency, offer.as_of)
    for server in (
        ServerModel.objects.filter(price_as_of__lt=limit)
        .select_related("gpu")
        .order_by("price_as_of", "key")
    ):
        add(
            "servers",
            server.key,
            str(server),
            server.list_price,
            server.currency,
            server.price_as_of,
        )
    for item in InfrastructureItem.objects.filter(as_of__lt=limit).order_by("as_of", "key"):
        add("items", item.key, item.name, item.price, item.currency, item.as_of)
    for api in ApiOffering.objects.filter(as_of__lt=limit).order_by("as_of", "key"):
        add("api", api.key, str(api), api.price_output_per_million, api.currency, api.as_of)
    latest: dict[tuple[str, str], FxRate] = {}
    for rate in FxRate.objects.order_by("base", "quote", "as_of"):
        latest[(rate.base, rate.quote)] = rate
    for (base, quote), rate in sorted(latest.items()):
        if rate.as_of < limit:
            add("fx", f"{base}-{quote}", f"{base}/{quote}", rate.rate, quote, rate.as_of)
    return found
