"""Scenario documents (JSON-shaped dicts) → engine `Scenario`, with catalog defaults.

One format serves the command line (`manage.py tco estimate --input scenario.json`) and the
web calculator (its form produces the same dict), so both describe a scenario the same way.
The format is documented in docs/scenario.md. Every problem is reported as a
`ScenarioError` whose `field` is a dotted path (`workload.params_billion`,
`cloud_offerings[1]`), so the caller can put the message next to the right input.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import time
import types
import typing
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import Enum
from typing import Any

from django.utils.functional import Promise, lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from catalog.models import (
    ApiOffering,
    CloudOffering,
    CloudRegion,
    FxRate,
    Gpu,
    InfrastructureItem,
    ServerModel,
    Site,
    SiteKind,
)
from catalog.schema import FORMULA_TRIGGERS
from catalog.selectors import fx_rate_on, latest_fx_rate, price_history_index, price_in_effect
from catalog.templatetags.formatting import grouped
from config.middleware import has_control_characters
from tco.engine import (
    ApiOfferingSpec,
    CloudOfferingSpec,
    CloudTerm,
    Constraints,
    Demand,
    FinanceInputs,
    FxRates,
    GpuSpec,
    InvalidInput,
    Money,
    Scenario,
    ServerSpec,
    SiteSpec,
    UncertaintyRanges,
    Workload,
)
from tco.limits import MAX_API_OFFERINGS, MAX_CLOUD_OFFERINGS, MAX_TEXT_LENGTH

TOP_LEVEL_KEYS = {
    "name",
    "as_of",
    "workload",
    "server",
    "site",
    "cloud_offerings",
    "servers",
    "finance",
    "demand",
    "uncertainty",
    "constraints",
    "api_offerings",
}

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


# Fields that hold a fraction (0.075 = 7.5 %) in a scenario file, whatever block they are in.
FRACTION_FIELDS = frozenset(
    {
        "utilization",
        "discount_rate",
        "spares_pct",
        "support_pct_per_year",
        "insurance_pct_per_year",
        "residual_pct",
        "tornado_pct",
        "annual_rate",
        "mfu",
        "goodput",
        "lora_adapter_fraction",
        "serving_efficiency",
        "memory_headroom",
        "inference_overhead_fraction",
        "spot_interruption_overhead",
        "storage_egress_uplift_pct",
    }
)


def check_fraction_convention(path: str, value: Any) -> None:
    """Refuse a percentage written where the file takes a fraction (7.5 for 0.075).

    >>> check_fraction_convention("finance.support_pct_per_year", 0.075)
    >>> check_fraction_convention("finance.support_pct_per_year", 7.5)
    Traceback (most recent call last):
    ...
    tco.scenario_io.ScenarioError: finance.support_pct_per_year: 7.5 looks like a percentage; ...
    """
    if isinstance(value, bool) or not isinstance(value, _NUMBER_TYPES):
        return
    if 1 < value <= 100:
        raise ScenarioError(
            path,
            f"{value:g} looks like a percentage; scenario files take fractions: "
            f"write {value / 100:g} for {value:g} %",
        )


class ScenarioError(ValueError):
    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


YOUR_INPUT = _("Your input")


@dataclass(frozen=True)
class Amount:
    """A number with its unit, formatted for the reader's language when shown."""

    value: float | Decimal
    unit: str
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

    @classmethod
    def current(cls) -> CatalogSnapshot:
        """Today's catalog, kept in memory while the catalog generation is unchanged.

        The generation (tco.page_cache.catalog_generation) changes on every catalog save
        or delete, in every process that shares the default cache; a process reads the
        rows again on its first request after a change, and at least every
        CATALOG_MEMORY_SECONDS (a write in another process without a shared cache). The
        rows are shared by requests and must not be changed (dated snapshots are loaded
        afresh: `load(as_of=...)`).
        """
        from tco.page_cache import catalog_generation

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
            servers={s.key: s for s in ServerModel.objects.select_related("gpu")},
            sites={s.key: s for s in Site.objects.all()},
            offerings={o.key: o for o in CloudOffering.objects.select_related("gpu")},
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
                    row.as_of = in_effect.effective_from


@dataclass(frozen=True)
class BuiltScenario:
    scenario: Scenario
    assumptions: tuple[Assumption, ...]
    server_model: ServerModel
    site: Site | None
    offerings: tuple[CloudOffering, ...]


# --- generic conversion of a dict into an engine dataclass --------------------------------


_NUMBER_TYPES = (int, float)  # a tuple: `int | float` would build a union on every call


def _convert(path: str, value: Any, annotation: Any) -> Any:
    # Most fields are plain numbers and text: those first, without typing's look-ups.
    if annotation is float:
        if value is None:
            raise ScenarioError(path, "may not be null")
        if isinstance(value, bool) or not isinstance(value, _NUMBER_TYPES):
            raise ScenarioError(path, f"expected a number, got {value!r}")
        return float(value)
    if annotation is int or annotation is str or annotation is bool:
        if value is None:
            raise ScenarioError(path, "may not be null")
        return _convert_plain(path, value, annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if value is None:
            if len(options) < len(typing.get_args(annotation)):
                return None
            raise ScenarioError(path, "may not be null")
        return _convert(path, value, options[0])
    if value is None:
        raise ScenarioError(path, "may not be null")
    if origin is tuple:
        args = typing.get_args(annotation)
        if not isinstance(value, list):
            raise ScenarioError(path, f"expected a list, got {value!r}")
        if len(value) > 1000:
            raise ScenarioError(path, "too many values (at most 1,000)")
        if len(args) != 2 or args[1] is not Ellipsis:  # a fixed-length tuple, e.g. a range
            if len(value) != len(args):
                raise ScenarioError(path, f"expected {len(args)} values, got {len(value)}")
            return tuple(
                _convert(f"{path}[{i}]", v, t)
                for i, (v, t) in enumerate(zip(value, args, strict=True))
            )
        item_type = args[0]
        return tuple(_convert(f"{path}[{i}]", v, item_type) for i, v in enumerate(value))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        allowed = _enum_values(annotation)
        if value not in allowed:
            raise ScenarioError(path, f"must be one of {', '.join(map(str, allowed))}")
        return annotation(value)
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        return build_dataclass(path, annotation, value)
    raise ScenarioError(path, "cannot be set in a scenario file")


def _convert_plain(path: str, value: Any, annotation: type) -> Any:
    """A true/false, whole number or text value (not None)."""
    if annotation is bool:
        if not isinstance(value, bool):
            raise ScenarioError(path, f"expected true or false, got {value!r}")
        return value
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise ScenarioError(path, f"expected a whole number, got {value!r}")
        return value
    if not isinstance(value, str):
        raise ScenarioError(path, f"expected text, got {value!r}")
    check_text(path, value)
    if value.startswith(FORMULA_TRIGGERS):
        # Names reach the workbook (written as text there) and CSV exports: refused here so
        # that no copy-paste into a spreadsheet ever runs one.
        raise ScenarioError(path, "may not begin with =, +, - or @ (a spreadsheet formula)")
    return value


def check_text(path: str, value: str) -> None:
    """Refuse text that is too long or holds control characters (ScenarioError)."""
    if len(value) > MAX_TEXT_LENGTH:
        raise ScenarioError(path, f"is longer than {MAX_TEXT_LENGTH} characters")
    if has_control_characters(value):
        raise ScenarioError(path, "contains control characters")


def distinct_references(path: str, raw: list[Any], limit: int) -> list[tuple[int, Any]]:
    """The entries of a list of catalog references without repeats, with their index in
    the document (for error paths); more than `limit` distinct entries are refused.

    >>> distinct_references("cloud_offerings", ["a", "b", "a", {"key": "a"}], 5)
    [(0, 'a'), (1, 'b'), (3, {'key': 'a'})]
    """
    seen: set[str] = set()
    kept: list[tuple[int, Any]] = []
    for index, value in enumerate(raw):
        try:
            identity = json.dumps(value, sort_keys=True)
        except (TypeError, ValueError, RecursionError) as exc:
            raise ScenarioError(f"{path}[{index}]", "expected a catalog key or an object") from exc
        if identity in seen:
            continue
        seen.add(identity)
        kept.append((index, value))
        if len(kept) > limit:
            raise ScenarioError(path, f"at most {limit} different offerings (a list had more)")
    return kept


def _enum_values(cls: type[Enum]) -> list[Any]:
    """The values an enum field accepts, in definition order."""
    return [member.value for member in cls]


# Kept per class (the engine's input dataclasses, a fixed set): resolving a class's
# annotations costs 0.1–0.4 ms, and a calculator request builds about eight classes.
@functools.cache
def _type_hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _init_fields(cls: type[Any]) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls) if f.init)


def build_dataclass(
    path: str, cls: type[Any], data: Any, defaults: dict[str, Any] | None = None
) -> Any:
    """Build `cls` from `data`, refusing unknown keys and wrong types, naming the field."""
    if not isinstance(data, dict):
        raise ScenarioError(path, f"expected an object, got {data!r}")
    hints = _type_hints(cls)
    unknown = sorted(set(data) - _init_fields(cls))
    if unknown:
        raise ScenarioError(_join(path, unknown[0]), "unknown field")
    kwargs = dict(defaults or {})
    for name, value in data.items():
        if name in FRACTION_FIELDS:
            check_fraction_convention(_join(path, name), value)
        kwargs[name] = _convert(_join(path, name), value, hints[name])
    try:
        return cls(**kwargs)
    except InvalidInput as exc:
        raise ScenarioError(_join(path, exc.field), exc.message) from exc
    except TypeError as exc:  # a required field is missing
        missing = [
            f.name
            for f in dataclasses.fields(cls)
            if f.init
            and f.name not in kwargs
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        ]
        raise ScenarioError(_join(path, missing[0] if missing else ""), "is required") from exc


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path and name else path or name


# --- catalog rows → engine specs -------------------------------------------------------


def _reference(path: str, value: Any) -> tuple[str, dict[str, Any]]:
    """A catalog reference is a key, or an object with "key" and fields to override."""
    if isinstance(value, str):
        return value, {}
    if isinstance(value, dict) and isinstance(value.get("key"), str):
        overrides = dict(value)
        return overrides.pop("key"), overrides
    raise ScenarioError(path, 'expected a catalog key or an object with a "key"')


def _float(value: Any) -> float:
    return float(value) if value is not None else 0.0


def gpu_spec(gpu: Gpu, path: str, overrides: dict[str, Any] | None = None) -> GpuSpec:
    """The engine's view of a catalog GPU, with any field overridden."""
    base = dict(
        name=gpu.name,
        memory_gb=float(gpu.memory_gb),
        memory_bandwidth_tbps=float(gpu.memory_bandwidth_tbps),
        bf16_tflops=float(gpu.bf16_tflops),
        fp8_tflops=float(gpu.fp8_tflops) if gpu.fp8_tflops is not None else None,
        fp4_tflops=float(gpu.fp4_tflops) if gpu.fp4_tflops is not None else None,
        tdp_w=float(gpu.tdp_w),
        nvlink_bandwidth_gbps=(
            float(gpu.nvlink_bandwidth_gbps) if gpu.nvlink_bandwidth_gbps is not None else None
        ),
    )
    return build_dataclass(path, GpuSpec, overrides or {}, defaults=base)


def resolve_gpu_override(path: str, overrides: dict[str, Any]) -> Gpu | None:
    """`"server": {"key": ..., "gpu": "a100-80gb"}`: the catalog GPU the server should carry.

    The value is a GPU catalog key, or an object with "key" and GPU fields to override
    (one query, only when a scenario asks for it). Returns None when there is no override.
    """
    value = overrides.get("gpu")
    if isinstance(value, dict) and "key" not in value:
        return None  # every field given inline
    if not isinstance(value, str | dict):
        return None
    gpu_key, _fields = _reference(f"{path}.gpu", value)
    row = Gpu.objects.filter(key=gpu_key).first()
    if row is None:
        raise ScenarioError(f"{path}.gpu", f"unknown GPU {gpu_key!r}")
    return row


def server_spec(
    model: ServerModel, path: str, overrides: dict[str, Any], gpu_row: Gpu | None = None
) -> ServerSpec:
    """The engine's server; `gpu_row` replaces the catalog GPU (see resolve_gpu_override)."""
    overrides = dict(overrides)
    gpu_value = overrides.pop("gpu", None)
    if gpu_row is not None:
        _key, gpu_fields = _reference(f"{path}.gpu", gpu_value)
        gpu = gpu_spec(gpu_row, f"{path}.gpu", gpu_fields)
    elif gpu_value is not None:
        # No catalog key: an object with every GPU field (the engine's GpuSpec).
        gpu = _convert(f"{path}.gpu", gpu_value, GpuSpec)
    else:
        gpu = gpu_spec(model.gpu, f"{path}.gpu")
    base = {
        "name": f"{model.vendor} {model.sku}",
        "gpu": gpu,
        "gpus_per_server": model.gpu_count,
        "rack_units": model.rack_units,
        "max_power_kw": float(model.max_power_kw),
        "idle_power_kw": float(model.idle_power_kw),
        "liquid_cooled": model.cooling == "liquid",
        "price": Money(float(model.list_price), model.currency),
    }
    price = overrides.pop("list_price", None)
    if price is not None:
        base["price"] = build_dataclass(
            f"{path}.list_price", Money, {"amount": price, "currency": model.currency}
        )
    return build_dataclass(path, ServerSpec, overrides, defaults=base)


def site_spec(site: Site, path: str, overrides: dict[str, Any]) -> SiteSpec:
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
    }
    return build_dataclass(path, SiteSpec, overrides, defaults=base)


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
    if region is not None:
        base.update(pue=float(region.pue), carbon_kg_per_kwh=region.carbon_g_per_kwh / 1000.0)
    return build_dataclass(path, CloudOfferingSpec, overrides, defaults=base)


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
    return build_dataclass(path, ApiOfferingSpec, overrides, defaults=base)


def _api_offerings(
    document: dict[str, Any], catalog: CatalogSnapshot
) -> tuple[list[ApiOffering], tuple[ApiOfferingSpec, ...]]:
    """The document's hosted API offerings: catalog keys, or objects with "key" and overrides."""
    raw = document.get("api_offerings")
    if raw is None:
        return [], ()
    if not isinstance(raw, list):
        raise ScenarioError("api_offerings", "expected a list of catalog keys")
    rows: list[ApiOffering] = []
    specs: list[ApiOfferingSpec] = []
    for index, value in distinct_references("api_offerings", raw, MAX_API_OFFERINGS):
        path = f"api_offerings[{index}]"
        key, overrides = _reference(path, value)
        row = catalog.apis.get(key)
        if row is None:
            raise ScenarioError(path, f"unknown hosted API offering {key!r}")
        rows.append(row)
        specs.append(api_offering_spec(row, path, overrides))
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
    document: Any, catalog: CatalogSnapshot | None = None, *, with_assumptions: bool = True
) -> BuiltScenario:
    """Turn a scenario document into an engine `Scenario` plus the assumptions it used.

    A document with `as_of` is priced with the prices in effect on that date; `catalog`
    is used only when it was read for the same date. `with_assumptions=False` leaves the
    assumptions out (empty) for callers that only cost the scenario.
    """
    if not isinstance(document, dict):
        raise ScenarioError("scenario", "expected a JSON object")
    unknown = sorted(set(document) - TOP_LEVEL_KEYS)
    if unknown:
        raise ScenarioError(unknown[0], "unknown field")
    as_of = document_date(document.get("as_of"))
    if catalog is None or catalog.as_of != as_of:
        catalog = CatalogSnapshot.load(as_of=as_of)
    for required in ("workload", "server", "site", "cloud_offerings"):
        if required not in document:
            raise ScenarioError(required, "is required")

    server_key, server_overrides = _reference("server", document["server"])
    model = catalog.servers.get(server_key)
    if model is None:
        raise ScenarioError("server", f"unknown server model {server_key!r}")
    gpu_row = resolve_gpu_override("server", server_overrides)
    site_key, site_overrides = _reference("site", document["site"])
    site = catalog.sites.get(site_key)
    if site is None:
        raise ScenarioError("site", f"unknown site {site_key!r}")

    raw_offerings = document["cloud_offerings"]
    if not isinstance(raw_offerings, list) or not raw_offerings:
        raise ScenarioError("cloud_offerings", "expected a list of one or more catalog keys")
    # (index in the document, catalog key, overrides) of each distinct offering.
    references = [
        (index, *_reference(f"cloud_offerings[{index}]", value))
        for index, value in distinct_references(
            "cloud_offerings", raw_offerings, MAX_CLOUD_OFFERINGS
        )
    ]
    found = catalog.offerings
    offerings: list[CloudOffering] = []
    for index, key, _overrides in references:
        if key not in found:
            raise ScenarioError(f"cloud_offerings[{index}]", f"unknown cloud offering {key!r}")
        offerings.append(found[key])

    fx_row = catalog.fx_row
    fx = FxRates(usd_per_eur=float(fx_row.rate)) if fx_row else FxRates()
    items = catalog.items
    finance_data = document.get("finance", {})
    site_built = site_spec(site, "site", site_overrides)
    finance = build_dataclass(
        "finance", FinanceInputs, finance_data, defaults=_finance_defaults(items, fx, site_built)
    )
    name = document.get("name", "scenario")
    if not isinstance(name, str):
        raise ScenarioError("name", "expected text")
    check_text("name", name)
    servers = document.get("servers")
    if servers is not None:
        servers = _convert("servers", servers, int)
    demand = None
    if document.get("demand") is not None:
        demand = build_dataclass("demand", Demand, document["demand"])
    uncertainty = None
    if document.get("uncertainty") is not None:
        uncertainty = build_dataclass("uncertainty", UncertaintyRanges, document["uncertainty"])
    constraints = build_dataclass("constraints", Constraints, document.get("constraints") or {})
    api_rows, api_specs = _api_offerings(document, catalog)
    try:
        scenario = Scenario(
            workload=build_dataclass("workload", Workload, document["workload"]),
            server=server_spec(model, "server", server_overrides, gpu_row),
            site=site_built,
            cloud_offerings=tuple(
                offering_spec(
                    offer,
                    f"cloud_offerings[{index}]",
                    overrides,
                    catalog.regions.get((offer.provider, offer.region)),
                )
                for (index, _key, overrides), offer in zip(references, offerings, strict=True)
            ),
            finance=finance,
            servers=servers,
            name=name,
            demand=demand,
            uncertainty=uncertainty,
            constraints=constraints,
            api_offerings=api_specs,
        )
    except InvalidInput as exc:
        raise ScenarioError(exc.field, exc.message) from exc
    assumptions = (
        _assumptions(
            scenario,
            model,
            site,
            offerings,
            items,
            fx_row,
            finance_data,
            gpu_row or model.gpu,
        )
        + _api_assumptions(api_rows, scenario.api_offerings)
        if with_assumptions
        else ()
    )
    return BuiltScenario(scenario, assumptions, model, site, tuple(offerings))


def with_server(built: BuiltScenario, server: Any, catalog: CatalogSnapshot) -> BuiltScenario:
    """`built` with another server (a document's ``"server"`` value), all else kept.

    The same scenario as `build_scenario` of the document with that server, without
    converting and checking the rest of the document again (the calculator ranks every
    catalog server this way); no assumptions. `catalog` must be the one `built` was read
    from.
    """
    key, overrides = _reference("server", server)
    model = catalog.servers.get(key)
    if model is None:
        raise ScenarioError("server", f"unknown server model {key!r}")
    gpu_row = resolve_gpu_override("server", overrides)
    spec = server_spec(model, "server", overrides, gpu_row)
    try:
        scenario = dataclasses.replace(built.scenario, server=spec)
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
                YOUR_INPUT if changed else row.source,
                None if changed else row.as_of,
                False if changed else row.is_estimate,
            )
        )
    return tuple(result)


def document_date(value: Any) -> date | None:
    """A scenario document's ``as_of``: None (today's prices) or its date."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise ScenarioError("as_of", "expected a date in YYYY-MM-DD form")


# A site's name in the language of whoever reads it (made once: `lazy` builds a class).
_site_name = lazy(lambda site: site.display_name(), str)


def _assumptions(
    scenario: Scenario,
    model: ServerModel,
    site: Site,
    offerings: list[CloudOffering],
    items: dict[str, InfrastructureItem],
    fx_row: FxRate | None,
    finance_data: dict[str, Any],
    gpu: Gpu,
) -> tuple[Assumption, ...]:
    """Every figure the analysis used, from the final specs (so overrides show as such)."""
    server, site_spec, finance = scenario.server, scenario.site, scenario.finance
    name = f"{model.vendor} {model.sku}"
    site_name = _site_name(site)  # in the reader's language, when shown

    def provenance(
        catalog_value: Any, used: Any, row: Any, *, price: bool = False
    ) -> dict[str, Any]:
        if float(catalog_value) != float(used):
            return {"source": YOUR_INPUT, "as_of": None, "is_estimate": False}
        if price and isinstance(row, ServerModel):
            return {
                "source": row.price_source or row.source,
                "as_of": row.as_of,
                "is_estimate": row.price_is_estimate,
            }
        return {"source": row.source, "as_of": row.as_of, "is_estimate": row.is_estimate}

    rows = [
        Assumption(
            format_lazy(_("{server} price"), server=name),
            (Amount(server.price.amount, server.price.currency, 0),),
            **provenance(model.list_price, server.price.amount, model, price=True),
        ),
        Assumption(
            format_lazy(_("{server} power, idle and maximum"), server=name),
            (Amount(server.idle_power_kw, "kW", 1), Amount(server.max_power_kw, "kW", 1)),
            **provenance(
                model.max_power_kw + model.idle_power_kw,
                server.max_power_kw + server.idle_power_kw,
                model,
            ),
        ),
        Assumption(
            format_lazy(_("{gpu}: memory and dense BF16 throughput"), gpu=gpu.name),
            (Amount(server.gpu.memory_gb, "GB", 0), Amount(server.gpu.bf16_tflops, "TFLOPS", 0)),
            **provenance(
                float(gpu.memory_gb) + float(gpu.bf16_tflops),
                server.gpu.memory_gb + server.gpu.bf16_tflops,
                gpu,
            ),
        ),
        Assumption(
            format_lazy(_("{site}: electricity price"), site=site_name),
            (Amount(site_spec.electricity_price_per_kwh, f"{site_spec.currency}/kWh", 4),),
            **provenance(site.electricity_price_per_kwh, site_spec.electricity_price_per_kwh, site),
        ),
        Assumption(
            format_lazy(_("{site}: PUE"), site=site_name),
            (Amount(site_spec.pue, "", 2),),
            **provenance(site.pue, site_spec.pue, site),
        ),
        Assumption(
            format_lazy(_("{site}: colocation per kW-month"), site=site_name),
            (Amount(site_spec.colocation_per_kw_month, site_spec.currency, 0),),
            **provenance(site.colocation_per_kw_month, site_spec.colocation_per_kw_month, site),
        ),
    ]
    rows += (
        _offering_assumption(offer, spec, provenance)
        for offer, spec in zip(offerings, scenario.cloud_offerings, strict=True)
    )
    if scenario.constraints.any:
        rows += _jurisdiction_assumptions(offerings)
    rows.append(_service_life_assumption(finance, finance_data))
    for field, key in DEFAULT_ITEMS.items():
        item = items.get(key)
        if item is None or field in finance_data or getattr(finance, field) is None:
            continue
        is_pct = item.unit == "pct_hw_year"
        amount = Amount(item.price, "%" if is_pct else item.currency, 1 if is_pct else 0)
        rows.append(Assumption(item.name, (amount,), item.source, item.as_of, item.is_estimate))
    if fx_row is not None:
        rows.append(
            Assumption(
                _("Exchange rate, US dollars per euro"),
                (Amount(finance.fx.usd_per_eur, "USD/EUR", 4),),
                fx_row.source,
                fx_row.as_of,
                fx_row.is_estimate,
            )
        )
    return tuple(rows)


def _offering_assumption(
    offer: CloudOffering, spec: CloudOfferingSpec, provenance: Any
) -> Assumption:
    """An offering's price per instance-hour, named as the catalog names it."""
    return Assumption(
        str(offer),
        (Amount(spec.price_per_instance_hour, f"{spec.currency}/h", 2),),
        **provenance(offer.price_per_hour, spec.price_per_instance_hour, offer),
    )


# The sources of SERVICE_LIFE_MONTHS (tco/engine/defaults.py, docs/sources.md S-LIVES).
SERVICE_LIFE_SOURCE = _(
    "Depreciation lives in company filings: Amazon 5 years (from 2025), Meta 5.5, Microsoft, "
    "Alphabet and CoreWeave 6, Nebius 4 for GPUs; median GPU owner about 5 years (SpotWire)"
)
SERVICE_LIFE_AS_OF = date(2026, 6, 4)


def _service_life_assumption(finance: FinanceInputs, finance_data: dict[str, Any]) -> Assumption:
    """The refresh cycle: after this age the fleet is bought again."""
    typed = "service_life_months" in finance_data
    return Assumption(
        _("Server service life (the fleet is bought again after it)"),
        (Amount(finance.service_life_months / 12, _("years"), 1),),
        YOUR_INPUT if typed else SERVICE_LIFE_SOURCE,
        None if typed else SERVICE_LIFE_AS_OF,
        False,
    )


def _jurisdiction_assumptions(offerings: list[CloudOffering]) -> list[Assumption]:
    """Whose law each provider is under and where its region is (for the buyer's terms)."""
    unknown = _("unknown")
    return [
        Assumption(
            format_lazy(_("{offering}: jurisdiction / data country"), offering=str(offer)),
            (Words(offer.jurisdiction or unknown), Words(offer.data_country or unknown)),
            offer.jurisdiction_source or unknown,
            offer.as_of,
            False,
        )
        for offer in offerings
    ]
