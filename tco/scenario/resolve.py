"""Scenario documents → engine `Scenario`, with catalog defaults and the assumptions used.

A document (docs/scenario.md) is parsed and validated by its schema
(`tco.scenario.ScenarioDocument`), the same for the command line (`manage.py tco estimate
--input scenario.json`), the API and the web calculator (its form builds a document too).
This module resolves what the schema cannot know: catalog keys become catalog rows, the
document's overrides replace the rows' figures, and every figure the analysis used is listed
as an `Assumption` with its source. Every problem is a `ScenarioError` whose `field` is a
dotted path (`workload.params_billion`, `cloud_offerings[1]`), so the caller can put the
message next to the right input.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.utils import timezone
from django.utils.functional import Promise, lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from catalog.models import (
    ApiOffering,
    CloudAvailability,
    CloudOffering,
    CloudRegion,
    FxRate,
    Gpu,
    InfrastructureItem,
    ServerAvailability,
    ServerModel,
    Site,
    SiteKind,
)
from catalog.selectors import fx_rate_on, latest_fx_rate, price_history_index, price_in_effect
from common.formatting import grouped
from tco.engine import (
    ApiOfferingSpec,
    BuildOutPrices,
    CapacityInputs,
    CloudOfferingSpec,
    CloudTerm,
    FinanceInputs,
    FxRates,
    GpuSpec,
    InvalidInput,
    Money,
    Scenario,
    ServerCooling,
    ServerSpec,
    SiteCooling,
    SiteSpec,
)
from tco.engine.site import available_it_kw
from tco.scenario import schema
from tco.scenario.errors import ScenarioError, construct

__all__ = [
    "Amount",
    "Assumption",
    "BuiltScenario",
    "CatalogSnapshot",
    "ScenarioError",
    "Words",
    "build_scenario",
    "with_server",
]

# A capacity block is reserved for at least one day (AWS EC2 Capacity Blocks for ML).
CAPACITY_BLOCK_MIN_HOURS = 24.0

# Catalog pricing terms → engine billing terms.
TERMS = {
    "on_demand": CloudTerm.ON_DEMAND,
    "reserved_1y": CloudTerm.COMMITTED_1Y,
    "reserved_3y": CloudTerm.COMMITTED_3Y,
    "spot": CloudTerm.SPOT,
    "capacity_block": CloudTerm.CAPACITY_BLOCK,
}

# Catalog items that supply the on-prem cost defaults (finance fields may override them).
# Networking and staff follow the fleet's plan in the engine (tco/engine/extras.py); the
# networking items stay in the catalog for quote lines. A workstation gets no installation.
DEFAULT_ITEMS = {
    "installation_per_server": "installation-per-server",
    "support_pct_per_year": "support-10pct",
}


YOUR_INPUT = _("Your input")


@dataclass(frozen=True)
class Amount:
    """A number with its unit, formatted for the reader's language when shown."""

    value: float | Decimal
    unit: str | Promise
    decimals: int = 2

    def __str__(self) -> str:
        number = grouped(self.value, self.decimals)
        return f"{number}\u00a0{self.unit}" if self.unit else number


@dataclass(frozen=True)
class Words:
    """A value that is not a number (a country code), shown as it is."""

    text: str | Promise

    def __str__(self) -> str:
        return str(self.text)


@dataclass(frozen=True)
class Assumption:
    """One figure the analysis used, with where it came from (shown to buyers)."""

    label: str | Promise
    amounts: tuple[Amount | Words, ...]
    source: str | Promise
    as_of: date | None
    is_estimate: bool
    # The distributor's own list price (a server's or an item's, from its price list): its
    # date and estimate flag are internal (catalog/audience.py).
    own_price: bool = False
    # A price (it goes stale past PRICE_STALE_AFTER_DAYS); a specification does not.
    is_price: bool = True
    # A figure of the scenario's site ("site") or of the liquid-ready colocation a liquid-
    # cooled fleet falls back on ("fallback"): the analysis lists the one its costs used
    # (tco.analysis.Analysis.assumptions).
    site_role: str = ""

    @property
    def value(self) -> str:
        return " / ".join(str(amount) for amount in self.amounts)


# The in-memory catalog of CatalogSnapshot.current(): {"today": (generation, loaded at
# (time.monotonic()), snapshot)}. Read again after CATALOG_MEMORY_SECONDS at the latest:
# without Redis the generation is per process, and another process's catalog write would
# otherwise never reach this one (nor would a price-date crossing midnight).
_CURRENT: dict[str, tuple[int, float, CatalogSnapshot]] = {}
CATALOG_MEMORY_SECONDS = 60.0


@dataclass(frozen=True)
class CatalogSnapshot:
    """The catalog rows a scenario may refer to, read once (seven queries, any catalog size).

    With `as_of`, prices are those in effect on that date according to the price history
    (one more query): each server, cloud offering and item carries its price of that day
    and that price's effective date as `as_of`, and the FX rate is the one of that day.
    The rows are changed in memory only, never saved.
    """

    servers: dict[str, ServerModel]
    sites: dict[str, Site]
    offerings: dict[str, CloudOffering]
    items: dict[str, InfrastructureItem]
    fx_row: FxRate | None
    as_of: date | None = None
    regions: dict[tuple[str, str], CloudRegion] = dataclasses.field(default_factory=dict)
    apis: dict[str, ApiOffering] = dataclasses.field(default_factory=dict)
    # Each server's smaller catalog servers as engine specs (smaller_servers), made once
    # per snapshot: the ranking asks again for every candidate of every request.
    smaller_specs: dict[str, tuple[ServerSpec, ...]] = dataclasses.field(default_factory=dict)

    @classmethod
    def current(cls) -> CatalogSnapshot:
        """Today's catalog, kept in memory while the catalog generation is unchanged.

        The generation (catalog.generation.catalog_generation) changes on every catalog save
        or delete, in every process that shares the default cache; a process reads the
        rows again on its first request after a change, and at least every
        CATALOG_MEMORY_SECONDS (a write in another process without a shared cache). The
        rows are shared by requests and must not be changed (dated snapshots are loaded
        afresh: `load(as_of=...)`).
        """
        from catalog.generation import catalog_generation

        generation = catalog_generation()
        now = time.monotonic()
        held = _CURRENT.get("today")
        if held is not None and held[0] == generation and now - held[1] < CATALOG_MEMORY_SECONDS:
            return held[2]
        snapshot = cls.load()
        _CURRENT["today"] = (generation, now, snapshot)
        return snapshot

    @classmethod
    def load(cls, as_of: date | None = None) -> CatalogSnapshot:
        snapshot = cls(
            servers={s.key: s for s in ServerModel.objects.select_related("gpu", "availability")},
            sites={s.key: s for s in Site.objects.all()},
            offerings={
                o.key: o for o in CloudOffering.objects.select_related("gpu", "availability")
            },
            items={i.key: i for i in InfrastructureItem.objects.all()},
            fx_row=latest_fx_rate("EUR", "USD")
            if as_of is None
            else fx_rate_on("EUR", "USD", as_of),
            as_of=as_of,
            regions={(r.provider, r.region): r for r in CloudRegion.objects.all()},
            apis={a.key: a for a in ApiOffering.objects.all()},
        )
        if as_of is not None:
            snapshot._use_prices_of(as_of)
        return snapshot

    def _use_prices_of(self, day: date) -> None:
        history = price_history_index(("servers", "cloud", "items"))
        rows: list[tuple[str, dict[str, Any], str]] = [
            ("servers", self.servers, "list_price"),
            ("cloud", self.offerings, "price_per_hour"),
            ("items", self.items, "price"),
        ]
        for kind, by_key, field in rows:
            for key, row in by_key.items():
                in_effect = price_in_effect(history.get((kind, key), []), day)
                if in_effect is not None:
                    setattr(row, field, in_effect.value)
                    # The price's date: a server's own, apart from its specifications'.
                    dated = "price_as_of" if kind == "servers" else "as_of"
                    setattr(row, dated, in_effect.effective_from)


@dataclass(frozen=True)
class BuiltScenario:
    scenario: Scenario
    assumptions: tuple[Assumption, ...]
    server_model: ServerModel
    site: Site | None
    offerings: tuple[CloudOffering, ...]


# --- catalog rows → engine specs -------------------------------------------------------


def _optional(value: Any) -> float | None:
    """A catalog figure that may be missing (no FP8, no NVLink), as the engine's number."""
    return float(value) if value is not None else None


def gpu_spec(gpu: Gpu, path: str, overrides: dict[str, Any] | None = None) -> GpuSpec:
    """The engine's view of a catalog GPU, with any field overridden: each figure of a
    GpuSpec is the catalog GPU's field of the same name, as a float (None where the GPU has
    none: no FP8, FP4 or NVLink)."""
    figures = {
        field.name: _optional(getattr(gpu, field.name))
        for field in dataclasses.fields(GpuSpec)
        if field.name != "name"
    }
    return construct(path, GpuSpec, **{"name": gpu.name, **figures, **(overrides or {})})


def resolve_gpu_override(path: str, server: schema.Server) -> Gpu | None:
    """`"server": {"key": ..., "gpu": "a100-80gb"}`: the catalog GPU the server should carry.

    The value is a GPU catalog key, or an object with "key" and GPU fields to override
    (one query, only when a scenario asks for it). Returns None when there is no catalog
    GPU to look up (no GPU given, or one with every figure of its own).
    """
    if not isinstance(server.gpu, schema.CatalogGpu):
        return None
    row = Gpu.objects.filter(key=server.gpu.key).first()
    if row is None:
        raise ScenarioError(f"{path}.gpu", f"unknown GPU {server.gpu.key!r}")
    return row


def server_spec(
    model: ServerModel, path: str, server: schema.Server, gpu_row: Gpu | None = None
) -> ServerSpec:
    """The engine's server; `gpu_row` replaces the catalog GPU (see resolve_gpu_override)."""
    overrides = server.overrides()
    overrides.pop("gpu", None)
    if gpu_row is not None and isinstance(server.gpu, schema.CatalogGpu):
        gpu = gpu_spec(gpu_row, f"{path}.gpu", server.gpu.overrides())
    elif isinstance(server.gpu, schema.OwnGpu):
        gpu = server.gpu.to_engine(f"{path}.gpu")
    else:
        gpu = gpu_spec(model.gpu, f"{path}.gpu")
    price = overrides.pop("list_price", None)
    availability = server_availability(model)
    base = {
        "name": f"{model.vendor} {model.sku}",
        "gpu": gpu,
        "gpus_per_server": model.gpu_count,
        "rack_units": model.rack_units,
        "max_power_kw": float(model.max_power_kw),
        "idle_power_kw": float(model.idle_power_kw),
        "liquid_cooled": model.cooling != "air",
        "cooling": COOLING[model.cooling],
        "whole_rack": model.whole_rack,
        "nvlink_domain_gpus": model.nvlink_domain_gpus,
        "typical_power_kw": _optional(model.typical_power_kw),
        "price": construct(
            f"{path}.list_price",
            Money,
            amount=float(model.list_price) if price is None else price,
            currency=model.currency,
        ),
        "units_in_stock": availability.units_in_stock if availability else None,
        "lead_time_weeks": float(availability.lead_time_weeks) if availability else 0.0,
    }
    return construct(path, ServerSpec, **{**base, **overrides})


def server_availability(model: ServerModel) -> ServerAvailability | None:
    """The server's stock and lead time row, None when the catalog has none."""
    try:
        return model.availability
    except ServerAvailability.DoesNotExist:
        return None


def cloud_availability(offer: CloudOffering) -> CloudAvailability | None:
    """How the offering is obtained, None when the catalog does not say (on demand)."""
    try:
        return offer.availability
    except CloudAvailability.DoesNotExist:
        return None


# Catalog cooling values → the engine's (the catalog keeps "liquid" for direct liquid).
COOLING = {
    "air": ServerCooling.AIR,
    "liquid": ServerCooling.DIRECT_LIQUID,
    "rack_liquid": ServerCooling.RACK_LIQUID,
}
# The catalog's facility items the site fit prices its build-out with (tco/engine/site.py).
CDU_ITEM, LIQUID_ITEM, POWER_ITEM = "cdu-in-row-250kw", "liquid-cooling-per-kw", "power-per-kw"


def build_out_prices(items: dict[str, InfrastructureItem]) -> BuildOutPrices:
    """The build-out unit costs from the catalog's three facility items when all are there
    in one currency; otherwise the engine's defaults (the same figures, in USD)."""
    rows = [items.get(key) for key in (CDU_ITEM, LIQUID_ITEM, POWER_ITEM)]
    if any(row is None for row in rows) or len({row.currency for row in rows if row}) != 1:
        return BuildOutPrices()
    cdu, liquid, power = (row for row in rows if row is not None)
    return BuildOutPrices(
        cdu_price=float(cdu.price),
        liquid_cooling_per_kw=float(liquid.price),
        power_per_kw=float(power.price),
        currency=cdu.currency,
    )


def liquid_ready_colocation(sites: dict[str, Site], near: Site) -> Site | None:
    """The catalog's colocation with a liquid loop in place that takes the most kW a rack,
    in the site's country when there is one; None when the catalog has none."""
    ready = [
        s
        for s in sites.values()
        if s.kind == SiteKind.COLOCATION and s.cooling == "direct_liquid" and s.key != near.key
    ]
    if not ready:
        return None
    return max(ready, key=lambda s: (s.country == near.country, s.rack_power_limit_kw, s.key))


def site_spec(
    site: Site,
    path: str,
    overrides: dict[str, Any],
    catalog: CatalogSnapshot | None = None,
) -> SiteSpec:
    """The engine's site; with `catalog`, its build-out prices and liquid-ready fallback."""
    base = {
        "name": site.name,
        "electricity_price_per_kwh": float(site.electricity_price_per_kwh),
        "pue": float(site.pue),
        "colocation_per_kw_month": float(site.colocation_per_kw_month),
        "rack_power_limit_kw": float(site.rack_power_limit_kw),
        "currency": site.currency,
        "carbon_kg_per_kwh": site.carbon_g_per_kwh / 1000.0,
        "country": site.country,
        "on_premises": site.kind in (SiteKind.ON_PREMISES, SiteKind.WORKSTATION),
        "workstation": site.kind == SiteKind.WORKSTATION,
        "cooling": SiteCooling(site.cooling),
        "pue_liquid": _optional(site.pue_liquid),
        "available_it_kw": _optional(site.available_it_kw),
        "grid_headroom_kw": _optional(site.grid_headroom_kw),
    }
    if catalog is not None:
        prices = build_out_prices(catalog.items)
        base["build_out"] = prices
        colo = liquid_ready_colocation(catalog.sites, site)
        if colo is not None:
            base["fallback"] = dataclasses.replace(site_spec(colo, path, {}), build_out=prices)
    return construct(path, SiteSpec, **{**base, **overrides})


def offering_spec(
    offer: CloudOffering,
    path: str,
    overrides: dict[str, Any],
    region: CloudRegion | None = None,
) -> CloudOfferingSpec:
    base = {
        "provider": offer.provider,
        "instance_type": offer.instance_type,
        "term": TERMS[offer.term],
        "gpus_per_instance": offer.gpu_count,
        "price_per_hour": float(offer.price_per_hour),
        "currency": offer.currency,
        "gpu": gpu_spec(offer.gpu, f"{path}.gpu"),
        "min_billed_hours": CAPACITY_BLOCK_MIN_HOURS if offer.term == "capacity_block" else 0.0,
        "jurisdiction": offer.jurisdiction,
        "data_country": offer.data_country,
    }
    availability = cloud_availability(offer)
    if availability is not None:
        base["ready_in_days"] = float(availability.lead_days)
    if region is not None:
        base.update(pue=float(region.pue), carbon_kg_per_kwh=region.carbon_g_per_kwh / 1000.0)
    return construct(path, CloudOfferingSpec, **{**base, **overrides})


def api_offering_spec(row: ApiOffering, path: str, overrides: dict[str, Any]) -> ApiOfferingSpec:
    """The engine's view of a catalog API offering, with any field overridden."""
    base = {
        "provider": row.provider,
        "model": row.model,
        "params_billion": float(row.params_billion),
        "price_input_per_million": float(row.price_input_per_million),
        "price_output_per_million": float(row.price_output_per_million),
        "currency": row.currency,
        "region": row.region,
        "jurisdiction": row.jurisdiction,
        "data_country": row.data_country,
    }
    return construct(path, ApiOfferingSpec, **{**base, **overrides})


def distinct[T](references: Sequence[T]) -> list[tuple[int, T]]:
    """Each reference once (the first of equal ones), with its index in the document for
    error paths: a list may repeat an offering (the schema bounds the different ones).

    >>> distinct(["a", "b", "a", "c"])
    [(0, 'a'), (1, 'b'), (3, 'c')]
    """
    seen: set[T] = set()
    kept: list[tuple[int, T]] = []
    for index, reference in enumerate(references):
        if reference not in seen:
            seen.add(reference)
            kept.append((index, reference))
    return kept


def _api_offerings(
    document: schema.ScenarioDocument, catalog: CatalogSnapshot
) -> tuple[list[ApiOffering], tuple[ApiOfferingSpec, ...]]:
    """The document's hosted API offerings: catalog keys, or objects with "key" and overrides."""
    rows: list[ApiOffering] = []
    specs: list[ApiOfferingSpec] = []
    for index, reference in distinct(document.api_offerings or ()):
        path = f"api_offerings[{index}]"
        row = catalog.apis.get(reference.key)
        if row is None:
            raise ScenarioError(path, f"unknown hosted API offering {reference.key!r}")
        rows.append(row)
        specs.append(api_offering_spec(row, path, reference.overrides()))
    return rows, tuple(specs)


def _finance_defaults(
    items: dict[str, InfrastructureItem], fx: FxRates, site: SiteSpec
) -> dict[str, Any]:
    defaults: dict[str, Any] = {"fx": fx, "currency": "USD"}
    for field, key in DEFAULT_ITEMS.items():
        item = items.get(key)
        if item is None or (site.workstation and field == "installation_per_server"):
            continue
        price = float(item.price)
        defaults[field] = price / 100.0 if item.unit == "pct_hw_year" else price
    return defaults


def build_scenario(
    document: schema.ScenarioDocument | object,
    catalog: CatalogSnapshot | None = None,
    *,
    with_assumptions: bool = True,
) -> BuiltScenario:
    """Turn a scenario document into an engine `Scenario` plus the assumptions it used.

    `document` is a `ScenarioDocument` or JSON-shaped data that its schema parses (raw
    data's problems are ScenarioErrors like the catalog's). A document with `as_of` is
    priced with the prices in effect on that date; `catalog` is used only when it was read
    for the same date. `with_assumptions=False` leaves the assumptions out (empty) for
    callers that only cost the scenario.
    """
    document = schema.parse_document(document)
    if catalog is None or catalog.as_of != document.as_of:
        catalog = CatalogSnapshot.load(as_of=document.as_of)
    model = catalog.servers.get(document.server.key)
    if model is None:
        raise ScenarioError("server", f"unknown server model {document.server.key!r}")
    gpu_row = resolve_gpu_override("server", document.server)
    site = catalog.sites.get(document.site.key)
    if site is None:
        raise ScenarioError("site", f"unknown site {document.site.key!r}")
    references = distinct(document.cloud_offerings)  # (index in the document, reference)
    offerings: list[CloudOffering] = []
    for index, reference in references:
        if reference.key not in catalog.offerings:
            raise ScenarioError(
                f"cloud_offerings[{index}]", f"unknown cloud offering {reference.key!r}"
            )
        offerings.append(catalog.offerings[reference.key])

    fx_row = catalog.fx_row
    fx = FxRates(usd_per_eur=float(fx_row.rate)) if fx_row else FxRates()
    items = catalog.items
    site_built = site_spec(site, "site", document.site.overrides(), catalog)
    finance = document.finance.to_engine("finance", _finance_defaults(items, fx, site_built))
    demand = document.demand.to_engine("demand") if document.demand else None
    uncertainty = document.uncertainty.to_engine("uncertainty") if document.uncertainty else None
    constraints = (document.constraints or schema.Constraints()).to_engine("constraints")
    api_rows, api_specs = _api_offerings(document, catalog)
    scenario = construct(
        "",
        Scenario,
        workload=document.workload.to_engine("workload"),
        server=server_spec(model, "server", document.server, gpu_row),
        site=site_built,
        cloud_offerings=tuple(
            offering_spec(
                offer,
                f"cloud_offerings[{index}]",
                reference.overrides(),
                catalog.regions.get((offer.provider, offer.region)),
            )
            for (index, reference), offer in zip(references, offerings, strict=True)
        ),
        finance=finance,
        servers=document.servers,
        name=document.name,
        demand=demand,
        uncertainty=uncertainty,
        constraints=constraints,
        api_offerings=api_specs,
        capacity=_capacity_inputs(document, model),
        smaller_servers=smaller_servers(catalog, model),
    )
    assumptions = (
        _assumptions(
            scenario,
            model,
            site,
            offerings,
            items,
            fx_row,
            document.finance,
            gpu_row or model.gpu,
            catalog.sites,
        )
        + _api_assumptions(api_rows, scenario.api_offerings)
        if with_assumptions
        else ()
    )
    return BuiltScenario(scenario, assumptions, model, site, tuple(offerings))


def smaller_servers(catalog: CatalogSnapshot, model: ServerModel) -> tuple[ServerSpec, ...]:
    """The catalog's servers with fewer GPUs a unit than ``model``, as the catalog sells
    them: what the verdict may name when ``model`` would stand mostly idle (an 8-GPU HGX
    for a model an NVL72 rack would serve at a fraction of a percent)."""
    specs = catalog.smaller_specs.get(model.key)
    if specs is None:
        specs = tuple(
            server_spec(row, "server", schema.Server(key=row.key))
            for row in catalog.servers.values()
            if row.gpu_count < model.gpu_count
        )
        catalog.smaller_specs[model.key] = specs
    return specs


def _capacity_inputs(
    document: schema.ScenarioDocument, model: ServerModel
) -> CapacityInputs | None:
    """The document's capacity block, counted from its date (the price date or today),
    installation from the server's catalog row unless the document gives it."""
    if document.capacity is None:
        return None
    availability = server_availability(model)
    inputs = document.capacity.to_engine(
        "capacity",
        as_of=document.as_of or timezone.localdate(),
        install_days=float(availability.install_days) if availability else None,
    )
    if "lead_time_range" in document.capacity.model_fields_set or availability is None:
        return inputs
    # The catalog's far end of a published range (H100 36–52 weeks: 52 ÷ 44) sets how
    # late the Monte Carlo's draws go; the early end stays the default's.
    nominal, longest = availability.lead_time_weeks, availability.lead_time_weeks_max
    if longest is None or nominal <= 0 or longest <= nominal:
        return inputs
    low = inputs.lead_time_range[0]
    return dataclasses.replace(inputs, lead_time_range=(low, float(longest / nominal)))


def with_server(
    built: BuiltScenario, server: schema.Server, catalog: CatalogSnapshot
) -> BuiltScenario:
    """`built` with another server (a document's ``"server"``), all else kept.

    The same scenario as `build_scenario` of the document with that server, without
    converting and checking the rest of the document again (the calculator ranks every
    catalog server this way); no assumptions. `catalog` must be the one `built` was read
    from.
    """
    model = catalog.servers.get(server.key)
    if model is None:
        raise ScenarioError("server", f"unknown server model {server.key!r}")
    gpu_row = resolve_gpu_override("server", server)
    spec = server_spec(model, "server", server, gpu_row)
    try:
        scenario = dataclasses.replace(
            built.scenario, server=spec, smaller_servers=smaller_servers(catalog, model)
        )
    except InvalidInput as exc:
        raise ScenarioError(exc.field, exc.message) from exc
    return BuiltScenario(scenario, (), model, built.site, built.offerings)


def _api_assumptions(
    rows: list[ApiOffering], specs: tuple[ApiOfferingSpec, ...]
) -> tuple[Assumption, ...]:
    """Each hosted API's input and output price per million tokens, with its source."""
    result = []
    for row, spec in zip(rows, specs, strict=True):
        changed = (
            float(row.price_input_per_million) != spec.price_input_per_million
            or float(row.price_output_per_million) != spec.price_output_per_million
        )
        unit = f"{spec.currency}/M"
        result.append(
            Assumption(
                format_lazy(
                    _("{api}: per million input and output tokens"),
                    api=f"{row.provider} {row.model}",
                ),
                (
                    Amount(spec.price_input_per_million, unit, 2),
                    Amount(spec.price_output_per_million, unit, 2),
                ),
                YOUR_INPUT if changed else _source(row),
                None if changed else row.as_of,
                False if changed else row.is_estimate,
            )
        )
    return tuple(result)


# A site's name in the language of whoever reads it (made once: `lazy` builds a class).
def _display_name(row: Site | InfrastructureItem) -> str:
    return row.display_name()


_site_name = lazy(_display_name, str)


# A catalog row's source in the language of whoever reads it (Dutch: source_nl).
def _display_source(row: Any) -> str:
    return str(row.display_source())


def _display_price_source(row: ServerModel) -> str:
    return row.display_price_source()


def _display_jurisdiction_source(row: CloudOffering) -> str:
    return row.display_jurisdiction_source() or str(_("unknown"))


_source = lazy(_display_source, str)
_price_source = lazy(_display_price_source, str)
_jurisdiction_source = lazy(_display_jurisdiction_source, str)
# An item's name in the reader's language when the label is shown (Dutch: name_nl).
_item_name = lazy(_display_name, str)


def _provenance(catalog_value: Any, used: Any, row: Any, *, price: bool = False) -> dict[str, Any]:
    """Where a figure came from: the catalog row (its price source for a server's price),
    or the reader's own input when the value used differs from the catalog's."""
    if float(catalog_value) != float(used):
        return {"source": YOUR_INPUT, "as_of": None, "is_estimate": False}
    if price and isinstance(row, ServerModel):
        return {
            "source": _price_source(row),
            "as_of": row.price_as_of,
            "is_estimate": row.price_is_estimate,
            "own_price": True,
        }
    return {"source": _source(row), "as_of": row.as_of, "is_estimate": row.is_estimate}


def _default_item_assumptions(
    finance: Any, items: dict[str, InfrastructureItem], typed: set[str]
) -> list[Assumption]:
    """The catalog's default owning items the analysis used (not typed by the reader)."""
    rows = []
    for field, key in DEFAULT_ITEMS.items():
        item = items.get(key)
        if item is None or field in typed or getattr(finance, field) is None:
            continue
        is_pct = item.unit == "pct_hw_year"
        amount = Amount(item.price, "%" if is_pct else item.currency, 1 if is_pct else 0)
        rows.append(
            Assumption(
                _item_name(item), (amount,), _source(item), item.as_of, item.is_estimate, True
            )
        )
    return rows


def _assumptions(
    scenario: Scenario,
    model: ServerModel,
    site: Site,
    offerings: list[CloudOffering],
    items: dict[str, InfrastructureItem],
    fx_row: FxRate | None,
    finance_given: schema.Finance,
    gpu: Gpu,
    sites: dict[str, Site] | None = None,
) -> tuple[Assumption, ...]:
    """Every figure the analysis used, from the final specs (so overrides show as such)."""
    server, site_spec, finance = scenario.server, scenario.site, scenario.finance
    name = f"{model.vendor} {model.sku}"
    site_name = _site_name(site)  # in the reader's language, when shown

    rows = [
        Assumption(
            format_lazy(_("{server} price"), server=name),
            (Amount(server.price.amount, server.price.currency, 0),),
            **_provenance(model.list_price, server.price.amount, model, price=True),
        ),
        Assumption(
            format_lazy(_("{server} power, idle and maximum"), server=name),
            (Amount(server.idle_power_kw, "kW", 1), Amount(server.max_power_kw, "kW", 1)),
            **_provenance(
                model.max_power_kw + model.idle_power_kw,
                server.max_power_kw + server.idle_power_kw,
                model,
            ),
            is_price=False,
        ),
        Assumption(
            format_lazy(_("{gpu}: memory and dense BF16 throughput"), gpu=gpu.name),
            (Amount(server.gpu.memory_gb, "GB", 0), Amount(server.gpu.bf16_tflops, "TFLOPS", 0)),
            **_provenance(
                float(gpu.memory_gb) + float(gpu.bf16_tflops),
                server.gpu.memory_gb + server.gpu.bf16_tflops,
                gpu,
            ),
            is_price=False,
        ),
        Assumption(
            format_lazy(_("{site}: electricity price"), site=site_name),
            (Amount(site_spec.electricity_price_per_kwh, f"{site_spec.currency}/kWh", 4),),
            **_provenance(
                site.electricity_price_per_kwh, site_spec.electricity_price_per_kwh, site
            ),
            site_role="site",
        ),
        Assumption(
            format_lazy(_("{site}: PUE"), site=site_name),
            (Amount(site_spec.pue, "", 2),),
            **_provenance(site.pue, site_spec.pue, site),
            is_price=False,
            site_role="site",
        ),
        Assumption(
            format_lazy(_("{site}: colocation per kW-month"), site=site_name),
            (Amount(site_spec.colocation_per_kw_month, site_spec.currency, 0),),
            **_provenance(site.colocation_per_kw_month, site_spec.colocation_per_kw_month, site),
            site_role="site",
        ),
    ]
    rows += (
        _offering_assumption(offer, spec, _provenance)
        for offer, spec in zip(offerings, scenario.cloud_offerings, strict=True)
    )
    if scenario.constraints.any:
        rows += _jurisdiction_assumptions(offerings)
    typed = finance_given.model_fields_set
    rows.append(_service_life_assumption(finance, "service_life_months" in typed))
    rows += _default_item_assumptions(finance, items, typed)
    room_power = _room_power_assumption(site, site_spec)
    if server.cooling_type is not ServerCooling.AIR:
        rows += _liquid_pue_assumption(site, site_spec.pue_liquid)
    if server.cooling_type is not ServerCooling.AIR or room_power:
        # Where the fleet goes when the site cannot take it: a liquid-cooled fleet at an
        # air-only site, any fleet beyond a server room's assumed power.
        rows += _site_fit_assumptions(site, items, sites or {})
    rows += room_power
    if fx_row is not None:
        rows.append(
            Assumption(
                _("Exchange rate, US dollars per euro"),
                (Amount(finance.fx.usd_per_eur, "USD/EUR", 4),),
                _source(fx_row),
                fx_row.as_of,
                fx_row.is_estimate,
            )
        )
    return tuple(rows)


def _liquid_pue_assumption(site: Site, used: float | None) -> list[Assumption]:
    """The PUE of liquid-cooled racks on the scenario's site, when it has one of its own
    (from the catalog or typed): the costs use it instead of the site's PUE."""
    if used is None:
        return []
    provenance = (
        _provenance(site.pue_liquid, used, site)
        if site.pue_liquid is not None
        else {"source": YOUR_INPUT, "as_of": None, "is_estimate": False}
    )
    label = format_lazy(_("{site}: PUE with liquid cooling"), site=_site_name(site))
    return [
        Assumption(label, (Amount(used, "", 2),), **provenance, is_price=False, site_role="site")
    ]


def _room_power_assumption(site: Site, spec: SiteSpec) -> list[Assumption]:
    """The IT power a server room of the buyer's own is taken to hold when none is given
    (tco/engine/site.py): the site fit of every fleet there uses it, wherever the fleet
    ends up, so it is always listed."""
    kw, assumed = available_it_kw(spec)
    if not assumed or kw is None:
        return []
    label = format_lazy(_("{site}: available IT power"), site=_site_name(site))
    source = _(
        "Estimate: a small server room, up to 3 racks of the 8–10 kW of average enterprise "
        "racks (Uptime Institute); give the room's own figure under Your site"
    )
    return [Assumption(label, (Amount(kw, "kW", 0),), source, None, True, is_price=False)]


def _site_fit_assumptions(
    site: Site, items: dict[str, InfrastructureItem], sites: dict[str, Site]
) -> list[Assumption]:
    """What the site fit of a liquid-cooled server prices with: the build-out unit costs
    and the liquid-ready colocation it falls back on, each with its source and date."""
    rows = []
    for key in (CDU_ITEM, LIQUID_ITEM, POWER_ITEM):
        item = items.get(key)
        if item is not None:
            rows.append(
                Assumption(
                    _item_name(item),
                    (Amount(item.price, item.currency, 0),),
                    _source(item),
                    item.as_of,
                    item.is_estimate,
                )
            )
    colo = liquid_ready_colocation(sites, site)
    if colo is not None:
        rows += _fallback_assumptions(colo)
    return rows


def _fallback_assumptions(colo: Site) -> list[Assumption]:
    """The liquid-ready colocation's figures that a fleet placed there is costed with:
    each from the colocation's catalog row, with its source and date."""
    name = _site_name(colo)

    def figure(label: StrOrPromise, amount: Amount, *, is_price: bool = True) -> Assumption:
        return Assumption(
            format_lazy(label, site=name),
            (amount,),
            _source(colo),
            colo.as_of,
            colo.is_estimate,
            is_price=is_price,
            site_role="fallback",
        )

    return [
        figure(
            _("{site}: electricity price"),
            Amount(colo.electricity_price_per_kwh, f"{colo.currency}/kWh", 4),
        ),
        figure(
            _("{site}: colocation per kW-month"),
            Amount(colo.colocation_per_kw_month, colo.currency, 0),
        ),
        figure(
            _("{site}: PUE with liquid cooling"),
            Amount(colo.pue_liquid or colo.pue, "", 2),
            is_price=False,
        ),
    ]


def _offering_assumption(
    offer: CloudOffering, spec: CloudOfferingSpec, provenance: Any
) -> Assumption:
    """An offering's price per instance-hour, named as the catalog names it."""
    return Assumption(
        str(offer),
        (Amount(spec.price_per_instance_hour, f"{spec.currency}/h", 2),),
        **_provenance(offer.price_per_hour, spec.price_per_instance_hour, offer),
    )


# The sources of SERVICE_LIFE_MONTHS (tco/engine/defaults.py, docs/sources.md S-LIVES).
SERVICE_LIFE_SOURCE = _(
    "Depreciation lives in company filings: Amazon 5 years (from 2025), Meta 5.5, Microsoft, "
    "Alphabet and CoreWeave 6, Nebius 4 for GPUs; median GPU owner about 5 years (SpotWire)"
)
SERVICE_LIFE_AS_OF = date(2026, 6, 4)


def _service_life_assumption(finance: FinanceInputs, typed: bool) -> Assumption:
    """The refresh cycle: after this age the fleet is bought again (`typed`: by the buyer)."""
    return Assumption(
        _("Server service life (the fleet is bought again after it)"),
        (Amount(finance.service_life_months / 12, _("years"), 1),),
        YOUR_INPUT if typed else SERVICE_LIFE_SOURCE,
        None if typed else SERVICE_LIFE_AS_OF,
        False,
        is_price=False,
    )


def _jurisdiction_assumptions(offerings: list[CloudOffering]) -> list[Assumption]:
    """Whose law each provider is under and where its region is (for the buyer's terms)."""
    unknown = _("unknown")
    return [
        Assumption(
            format_lazy(_("{offering}: jurisdiction / data country"), offering=str(offer)),
            (Words(offer.jurisdiction or unknown), Words(offer.data_country or unknown)),
            _jurisdiction_source(offer),
            offer.as_of,
            False,
            is_price=False,
        )
        for offer in offerings
    ]
