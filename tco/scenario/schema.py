"""The scenario document (docs/scenario.md) as one typed schema.

One pydantic model parses and validates every scenario document: the file of
``manage.py tco estimate``, the body of ``POST /api/v1/estimate`` and the document the web
calculator's form builds (``CalculatorForm.to_document``). :func:`parse_document` is the way
in: it returns a :class:`ScenarioDocument` or raises ``ScenarioError`` naming the path of the
first problem, worded the same for every reader (tco.scenario.errors)::

    workload.params_billion: expected a number, got 'seven'

The schema checks what a document can get wrong on its own: names, types, the range of each
value, a percentage written where a fraction belongs. What needs the catalog (keys, overrides
of catalog rows) or several values at once (a training run needs its tokens) is checked where
the engine's inputs are built: ``tco.scenario.resolve`` and the engine's own dataclasses, whose
messages carry the same paths. The enumerations are the engine's enums, and a block's
defaults are the engine's (a test compares them), so the two cannot drift apart.

A block's ``to_engine`` builds the engine's input from the fields the document sets; the
engine (and for finance the catalog) supplies the rest. No Django here: like the engine it
feeds, the schema is pure Python.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Strict,
    Tag,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from common.bounds import SCENARIO_DAYS
from common.dates import iso_date
from tco import engine
from tco.engine import defaults
from tco.engine.capacity import DEFAULT_LEAD_TIME_RANGE, DEFAULT_ON_DEMAND_BRIDGE_GPUS
from tco.limits import (
    CONTROL_CHARACTERS,
    FORMULA_TRIGGERS,
    MAX_API_OFFERINGS,
    MAX_CLOUD_OFFERINGS,
    MAX_TEXT_LENGTH,
)
from tco.scenario.errors import ScenarioError, construct, from_validation, join, key_name

MAX_DEPTH = 20
"""A scenario is at most four levels deep; anything far deeper is not a scenario."""


# --- value types -------------------------------------------------------------------------


def _whole_number(value: object) -> object:
    """JSON writes 36 and 36.0 alike: a whole float is a whole number (36.5 is not)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _not_a_percentage(value: object) -> object:
    """Refuse 7.5 written where the file takes the fraction 0.075."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 1 < value <= 100:
        raise PydanticCustomError(
            "percentage",
            "{value} looks like a percentage; scenario files take fractions: "
            "write {fraction} for {value} %",
            {"value": f"{value:g}", "fraction": f"{value / 100:g}"},
        )
    return value


def _pair(value: object) -> object:
    """A range is two numbers [low, high]."""
    if isinstance(value, list) and len(value) != 2:
        raise PydanticCustomError(
            "pair", "expected 2 values, got {count}", {"count": str(len(value))}
        )
    return value


def _one_or_more(value: object) -> object:
    """The cloud offerings to compare: at least one."""
    if not isinstance(value, list) or not value:
        raise PydanticCustomError("offerings", "expected a list of one or more catalog keys")
    return value


def _distinct(limit: int) -> Callable[[object], object]:
    """A list of offerings holds at most ``limit`` different entries (repeats are dropped
    where the catalog is read, tco.scenario.resolve): each is costed and tabled on its own."""

    def check(value: object) -> object:
        if isinstance(value, list):
            entries = {json.dumps(item, sort_keys=True, default=repr) for item in value}
            if len(entries) > limit:
                raise PydanticCustomError(
                    "too_many_offerings",
                    "at most {limit} different offerings (a list had more)",
                    {"limit": limit},
                )
        return value

    return check


def _no_control_characters(value: str) -> str:
    if CONTROL_CHARACTERS.search(value):
        raise PydanticCustomError("control_characters", "contains control characters")
    return value


def _no_formula(value: str) -> str:
    """Text reaches workbooks and CSV exports: none of it may read as a formula there."""
    if value.startswith(FORMULA_TRIGGERS):
        raise PydanticCustomError(
            "formula", "may not begin with =, +, - or @ (a spreadsheet formula)"
        )
    return value


def _date(value: object) -> object:
    """``as_of``: a date written YYYY-MM-DD (JSON has no dates; no timestamps), within
    common.bounds.SCENARIO_DAYS.

    >>> _date("2026-12-03")
    datetime.date(2026, 12, 3)
    >>> _date("9999-12-31")
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.PydanticCustomError: a date from 2000-01-01 to 2100-12-31
    """
    if value is None:
        return value
    day = value if isinstance(value, date) else iso_date(value)
    if day is None:
        raise PydanticCustomError("date", "expected a date in YYYY-MM-DD form")
    first, last = SCENARIO_DAYS
    if not first <= day <= last:
        raise PydanticCustomError(
            "date_range",
            "a date from {first} to {last}",
            {"first": first.isoformat(), "last": last.isoformat()},
        )
    return day


WholeNumber = Annotated[int, BeforeValidator(_whole_number)]
Fraction = Annotated[float, BeforeValidator(_not_a_percentage)]
# The Monte Carlo's ranges [low, high], each within the engine's bounds for its input.
TrendRange = Annotated[
    list[Annotated[float, Field(ge=-0.95, le=5)]],
    BeforeValidator(_pair),
    Field(min_length=2, max_length=2),
]
FactorRange = Annotated[
    list[Annotated[float, Field(ge=0, le=10)]],
    BeforeValidator(_pair),
    Field(min_length=2, max_length=2),
]
RateRange = Annotated[
    list[Annotated[float, Field(ge=-1, le=1)]],
    BeforeValidator(_pair),
    Field(min_length=2, max_length=2),
]
PueRange = Annotated[
    list[Annotated[float, Field(ge=-2, le=2)]],
    BeforeValidator(_pair),
    Field(min_length=2, max_length=2),
]
# Text reaches headers, file names and workbook cells: one line, at most 200 characters; an
# override's text may not begin a formula either.
Name = Annotated[str, Field(max_length=MAX_TEXT_LENGTH), AfterValidator(_no_control_characters)]
Text = Annotated[Name, AfterValidator(_no_formula)]
# The currencies the engine converts (tco.engine.units.SUPPORTED_CURRENCIES; a test keeps
# the two equal).
Currency = Literal["USD", "EUR", "GBP"]
# A country: ISO 3166 alpha-2 in capitals, empty when unknown (the engine checks the form).
COUNTRY = "ISO 3166 alpha-2 code in capitals (NL, US); empty: unknown"
# The engine's enums accept their values in a document (strict mode would want members).
Kind = Annotated[engine.WorkloadKind, Strict(False)]
Precision = Annotated[engine.Precision, Strict(False)]
Optimizer = Annotated[engine.Optimizer, Strict(False)]
Sharding = Annotated[engine.Sharding, Strict(False)]
Recompute = Annotated[engine.Recompute, Strict(False)]
Interconnect = Annotated[engine.Interconnect, Strict(False)]
ServingUse = Annotated[engine.ServingUse, Strict(False)]
DemandPattern = Annotated[engine.DemandPattern, Strict(False)]
CloudTerm = Annotated[engine.CloudTerm, Strict(False)]
ServerCooling = Annotated[engine.ServerCooling, Strict(False)]
SiteCooling = Annotated[engine.SiteCooling, Strict(False)]
LatePolicy = Annotated[engine.LatePolicy, Strict(False)]


class Block(BaseModel):
    """A block of a scenario document: exact types, no unknown fields, no NaN or infinity."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, frozen=True)

    def given(self, *, leave_out: frozenset[str] = frozenset()) -> dict[str, Any]:
        """The fields the document sets, as they are: defaults are left to the engine (and
        to the catalog), so a document says only what it changes."""
        return {
            name: getattr(self, name) for name in self.model_fields_set if name not in leave_out
        }


class Overrides(Block):
    """A catalog row by its key, with any of its fields overridden.

    An override absent or null is the catalog's value.
    """

    key: Name = Field(description="catalog key (see /catalog/ or catalog/data/*.csv)")

    def overrides(self) -> dict[str, Any]:
        """The fields to override: those given, other than the key, and not null."""
        return {
            name: value
            for name, value in self.given(leave_out=frozenset({"key"})).items()
            if value is not None
        }


def _by_key(value: object) -> object:
    """A catalog reference is a key, or an object with "key" and fields to override."""
    if isinstance(value, str):
        return {"key": value}
    if isinstance(value, dict | Overrides):
        return value
    raise PydanticCustomError("reference", 'expected a catalog key or an object with a "key"')


# --- workload --------------------------------------------------------------------------


class ModelShape(Block):
    """The transformer's shape; without it the engine derives one from the (active) size."""

    layers: WholeNumber = Field(ge=1, le=10_000)
    hidden_size: WholeNumber = Field(ge=1, le=1_000_000)
    attention_heads: WholeNumber = Field(ge=1, le=10_000)
    kv_heads: WholeNumber = Field(ge=1, description="at most attention_heads")
    attention_head_dim: WholeNumber | None = Field(
        None,
        ge=1,
        le=100_000,
        description="width of one head when heads × head size ≠ hidden (Qwen3); "
        "none: hidden ÷ heads",
    )

    def to_engine(self, path: str) -> engine.ModelShape:
        return construct(path, engine.ModelShape, **self.given())


class ServingDemand(Block):
    """Who uses a served model and how (docs/methodology.md § 1, "Serving demand in
    business terms"); the engine derives the peak tokens/s the fleet is sized for."""

    users: WholeNumber = Field(
        ge=1, le=1_000_000_000, description="people (or systems) sending requests"
    )
    requests_per_user_per_day: float = Field(
        gt=0, description="requests each user sends on a working day"
    )
    output_tokens_per_request: float = Field(gt=0, description="length of an answer, in tokens")
    input_tokens_per_request: float = Field(
        0.0,
        ge=0,
        description="prompt, history and retrieved context per request (priced on APIs)",
    )
    peak_factor: float = Field(
        defaults.SERVING_PEAK_FACTOR,
        ge=1,
        le=100,
        description="busiest hour's load ÷ the working day's average (an estimate)",
    )
    hours_per_day: float = Field(
        24.0, gt=0, le=24, description="hours in which the requests arrive"
    )
    days_per_week: float = Field(
        7.0, gt=0, le=7, description="working days a week; 24 h × 7 d is around the clock"
    )
    latency_ms_per_token: float | None = Field(
        None,
        gt=0,
        description="time per output token each user should see; none: the use's "
        "(40 ms interactive, none batch)",
    )
    time_to_first_token_ms: float | None = Field(
        None,
        gt=0,
        description="how long a user waits for the first token; none: the use's "
        "(450 ms interactive, none batch)",
    )

    def to_engine(self, path: str) -> engine.ServingDemand:
        return construct(path, engine.ServingDemand, **self.given())


class Workload(Block):
    """What the buyer wants to run (engine ``Workload``); defaults in docs/methodology.md."""

    kind: Kind
    params_billion: float = Field(gt=0, description="model size, billions of parameters")
    tokens_billion: float | None = Field(
        None, gt=0, description="tokens trained on, billions (required for training)"
    )
    deadline_days: float | None = Field(
        None, gt=0, description="finish the run within this time; none: size for memory only"
    )
    active_params_billion: float | None = Field(
        None,
        gt=0,
        description="mixture of experts: parameters active per token; none: params_billion",
    )
    experts: WholeNumber | None = Field(
        None,
        ge=1,
        le=100_000,
        description="mixture of experts: routed experts; none: 128",
    )
    experts_per_token: WholeNumber | None = Field(
        None,
        ge=1,
        le=100_000,
        description="mixture of experts: experts each token uses; none: 8",
    )
    precision: Precision = Field(
        engine.Precision.BF16, description="compute, and the weights when serving"
    )
    optimizer: Optimizer = engine.Optimizer.ADAM_MIXED
    sharding: Sharding | None = Field(None, description="none: the engine picks")
    recompute: Recompute = Field(engine.Recompute.SELECTIVE, description="activation recomputation")
    shape: ModelShape | None = None
    sequence_length: WholeNumber = Field(defaults.SEQUENCE_LENGTH, ge=1, le=10_000_000)
    micro_batch_size: WholeNumber = Field(defaults.MICRO_BATCH_SIZE, ge=1, le=100_000)
    tensor_parallel: WholeNumber | None = Field(
        None,
        ge=1,
        le=1024,
        description="fix the tensor-parallel degree (it must divide a server's GPUs; for "
        "inference each model copy's); none: the engine picks",
    )
    context_parallel: WholeNumber | None = Field(
        None, ge=1, le=1024, description="fix the context-parallel degree"
    )
    pipeline_parallel: WholeNumber | None = Field(
        None, ge=1, le=10_000, description="fix the pipeline-parallel degree"
    )
    global_batch_tokens: float = Field(
        defaults.GLOBAL_BATCH_TOKENS,
        gt=0,
        description="tokens per optimizer step; sets the micro-batches per pipeline",
    )
    memory_headroom: Fraction = Field(
        defaults.MEMORY_HEADROOM,
        ge=0,
        lt=1,
        description="fraction of GPU memory kept free",
    )
    framework_overhead_gb: float = Field(
        defaults.FRAMEWORK_OVERHEAD_GB, ge=0, description="per GPU"
    )
    mfu: Fraction = Field(
        defaults.MFU, gt=0, le=1, description="model FLOPs utilization (on 6·N·D)"
    )
    goodput: Fraction = Field(
        defaults.GOODPUT, gt=0, le=1, description="share of time spent training"
    )
    interconnect: Interconnect = Field(
        engine.Interconnect.INFINIBAND, description="network between servers"
    )
    lora_adapter_fraction: Fraction = Field(
        defaults.LORA_ADAPTER_FRACTION,
        gt=0,
        le=1,
        description="share of parameters trained by LoRA",
    )
    target_tokens_per_second: float | None = Field(
        None,
        gt=0,
        description="inference: output tokens per second to serve (required without "
        "serving_demand)",
    )
    serving_demand: ServingDemand | None = Field(
        None,
        description="inference: the demand in users and requests; the target tokens/s is "
        "then derived (its peak)",
    )
    serving_use: ServingUse = Field(
        engine.ServingUse.INTERACTIVE,
        description="interactive (40 ms per output token, 450 ms to the first) or batch "
        "(no latency targets)",
    )
    context_tokens: WholeNumber | None = Field(
        None,
        ge=1,
        le=100_000_000,
        description="tokens each sequence holds at most (KV cache); none: input + output "
        "tokens of a request, 8,192 without serving_demand",
    )
    concurrent_sequences: WholeNumber | None = Field(
        None,
        ge=1,
        le=1_000_000,
        description="sequences per model copy (the batch); none: the engine chooses",
    )
    kv_cache_bytes: float = Field(
        defaults.KV_CACHE_BYTES,
        gt=0,
        description="bytes per cached key/value (2 for BF16, 1 for an FP8 cache)",
    )
    serving_efficiency: Fraction = Field(
        1.0, gt=0, le=1, description="× the calibrated bandwidth and compute efficiencies"
    )
    inference_overhead_fraction: Fraction = Field(
        0.0, ge=0, description="extra memory per model copy, as a fraction of its weights"
    )

    def to_engine(self, path: str) -> engine.Workload:
        fields = self.given()
        if self.shape is not None:
            fields["shape"] = self.shape.to_engine(join(path, "shape"))
        if self.serving_demand is not None:
            fields["serving_demand"] = self.serving_demand.to_engine(join(path, "serving_demand"))
        return construct(path, engine.Workload, **fields)


# --- catalog references ------------------------------------------------------------------


class CatalogGpu(Overrides):
    """A catalog GPU by its key, with any of its figures overridden."""

    name: Text | None = None
    memory_gb: float | None = Field(None, gt=0)
    memory_bandwidth_tbps: float | None = Field(None, gt=0)
    bf16_tflops: float | None = Field(None, gt=0, description="dense")
    fp8_tflops: float | None = Field(None, gt=0, description="dense")
    fp4_tflops: float | None = Field(None, gt=0, description="dense")
    tdp_w: float | None = Field(None, gt=0)
    nvlink_bandwidth_gbps: float | None = Field(None, gt=0)


class OwnGpu(Block):
    """A GPU the catalog lacks, every figure given; dense tensor throughput."""

    name: Text
    memory_gb: float = Field(gt=0)
    memory_bandwidth_tbps: float = Field(gt=0)
    bf16_tflops: float = Field(gt=0)
    fp8_tflops: float | None = Field(gt=0, description="null: no FP8")
    fp4_tflops: float | None = Field(gt=0, description="null: no FP4")
    tdp_w: float = Field(gt=0)
    nvlink_bandwidth_gbps: float | None = Field(
        None,
        gt=0,
        description="GB/s both directions, as datasheets give it; none: the GPUs of a "
        "server talk over PCIe",
    )

    def to_engine(self, path: str) -> engine.GpuSpec:
        return construct(path, engine.GpuSpec, **self.given())


# Tags of the GPU forms; they appear in a validation error's location, never in a path.
CATALOG_GPU, OWN_GPU = "catalog GPU", "GPU of its own"
_TAGS = frozenset({CATALOG_GPU, OWN_GPU})


def _gpu_form(value: object) -> str:
    """Which form a GPU value has: with a catalog key, or every figure of its own."""
    keyed = isinstance(value, CatalogGpu) or (isinstance(value, dict) and "key" in value)
    return CATALOG_GPU if keyed else OWN_GPU


def _gpu_by_key(value: object) -> object:
    if isinstance(value, str):
        return {"key": value}
    if isinstance(value, dict | Block):
        return value
    raise PydanticCustomError(
        "reference", 'expected a GPU catalog key, an object with a "key", or a GPU of its own'
    )


GpuChoice = Annotated[
    Annotated[CatalogGpu, Tag(CATALOG_GPU)] | Annotated[OwnGpu, Tag(OWN_GPU)],
    Discriminator(_gpu_form),
    BeforeValidator(_gpu_by_key, json_schema_input_type=str | CatalogGpu | OwnGpu),
]


class Server(Overrides):
    """A catalog server model, with any of its figures overridden (engine ``ServerSpec``)."""

    list_price: float | None = Field(None, ge=0, description="in the server's currency")
    max_power_kw: float | None = Field(None, gt=0)
    idle_power_kw: float | None = Field(None, ge=0)
    rack_units: WholeNumber | None = Field(None, ge=1, le=60)
    liquid_cooled: bool | None = None
    cooling: ServerCooling | None = Field(
        None, description="air, direct_liquid (a CDU and facility water) or rack_liquid (NVL72)"
    )
    whole_rack: bool | None = Field(
        None, description="a rack-scale system that is its own rack (GB200/GB300 NVL72)"
    )
    nvlink_domain_gpus: WholeNumber | None = Field(
        None, ge=1, le=1024, description="GPUs one NVLink domain joins (NVL72: 72)"
    )
    typical_power_kw: float | None = Field(None, gt=0)
    gpus_per_server: WholeNumber | None = Field(None, ge=1, le=1024)
    gpu: GpuChoice | None = Field(
        None,
        description="another GPU in the server: a GPU catalog key, an object with the key "
        "and GPU figures to override, or a GPU of its own (every figure)",
    )
    units_in_stock: WholeNumber | None = Field(
        None, ge=0, le=100_000, description="units the distributor has in stock"
    )
    lead_time_weeks: float | None = Field(
        None, ge=0, le=260, description="weeks to ship when the stock is short"
    )


class Site(Overrides):
    """A catalog site, with any of its figures overridden (engine ``SiteSpec``)."""

    electricity_price_per_kwh: float | None = Field(None, ge=0, description="site currency")
    pue: float | None = Field(None, ge=1, le=3)
    colocation_per_kw_month: float | None = Field(None, ge=0, description="site currency")
    rack_power_limit_kw: float | None = Field(None, gt=0)
    carbon_kg_per_kwh: float | None = Field(None, ge=0)
    rack_units_limit: WholeNumber | None = Field(None, ge=1, le=60)
    colocation_billed_on_facility_kw: bool | None = Field(
        None, description="colocation billed on IT kW × PUE, not on IT kW"
    )
    currency: Currency | None = None
    country: Text | None = Field(None, description=f"the site's country: {COUNTRY}")
    on_premises: bool | None = Field(
        None,
        description="the buyer's own building (a catalog site of kind on_premises or "
        "workstation); false: colocation",
    )
    workstation: bool | None = Field(
        None,
        description="a desk or office: no network, installation or operations staff; "
        "needs on_premises",
    )
    cooling: SiteCooling | None = Field(
        None,
        description="cooling available: air (only), rear_door, direct_liquid (CDUs in "
        "place) or facility_water (no CDUs yet)",
    )
    pue_liquid: float | None = Field(
        None, ge=1, le=3, description="PUE of liquid-cooled racks; none: as pue"
    )
    available_it_kw: float | None = Field(
        None, ge=0, description="IT power free for the fleet; none: not limited"
    )
    grid_headroom_kw: float | None = Field(
        None, ge=0, description="what the grid connection could still add; none: not limited"
    )
    described: bool | None = Field(
        None,
        description="the buyer described this site (chose it or gave what it takes); false: "
        "a default the buyer never chose, which the result calls the default site; none: true",
    )


class CloudOffering(Overrides):
    """A catalog cloud offering, with any of its figures overridden (``CloudOfferingSpec``).

    Its GPU comes from the catalog; an offering of another GPU than the server's is sized
    for the same work on its own GPU.
    """

    provider: Text | None = Field(None, description="the provider's name, as shown")
    instance_type: Text | None = Field(None, description="the instance's name, as shown")
    price_per_hour: float | None = Field(None, gt=0, description="per instance-hour")
    spot_interruption_overhead: Fraction | None = Field(None, ge=0)
    storage_egress_uplift_pct: Fraction | None = Field(None, ge=0)
    term: CloudTerm | None = None
    currency: Currency | None = None
    min_billed_hours: float | None = Field(
        None, ge=0, description="per run; capacity blocks default to 24"
    )
    ready_in_days: float | None = Field(
        None, ge=0, le=730, description="booking or provisioning lead time; on demand: 0"
    )
    jurisdiction: Text | None = Field(
        None, description=f"the country whose law controls the provider: {COUNTRY}"
    )
    data_country: Text | None = Field(
        None, description=f"the country of the region processing the data: {COUNTRY}"
    )


class ApiOffering(Overrides):
    """A catalog hosted model API priced per token, with any figure overridden."""

    provider: Text | None = Field(None, description="the provider's name, as shown")
    model: Text | None = Field(None, description="the model's name, as shown")
    price_input_per_million: float | None = Field(None, ge=0)
    price_output_per_million: float | None = Field(None, gt=0)
    currency: Currency | None = None
    params_billion: float | None = Field(None, gt=0)
    region: Text | None = None
    jurisdiction: Text | None = Field(
        None, description=f"the country whose law controls the provider: {COUNTRY}"
    )
    data_country: Text | None = Field(
        None, description=f"the country of the region processing the data: {COUNTRY}"
    )


# A catalog reference: a key, or an object with "key" and fields to override.
ServerRef = Annotated[Server, BeforeValidator(_by_key, json_schema_input_type=str | Server)]
SiteRef = Annotated[Site, BeforeValidator(_by_key, json_schema_input_type=str | Site)]
CloudOfferingRef = Annotated[
    CloudOffering, BeforeValidator(_by_key, json_schema_input_type=str | CloudOffering)
]
ApiOfferingRef = Annotated[
    ApiOffering, BeforeValidator(_by_key, json_schema_input_type=str | ApiOffering)
]


# --- money, demand, uncertainty, constraints ----------------------------------------------


class Lease(Block):
    """The on-prem option is leased: an annuity replaces the purchase."""

    annual_rate: Fraction = Field(ge=0, le=1)
    term_months: WholeNumber = Field(ge=1, le=240)


class LabeledAmount(Block):
    """A named amount in the finance currency."""

    label: Text = Field(min_length=1, max_length=120)
    amount: float = Field(ge=0)


class Finance(Block):
    """Horizon, discounting, utilization and the on-prem cost items (``FinanceInputs``).

    Amounts are in ``currency``; results in ``reporting_currency``.
    """

    horizon_months: WholeNumber = Field(60, ge=12, le=120)
    discount_rate: Fraction = Field(0.08, ge=0, le=1, description="annual")
    utilization: Fraction = Field(
        0.70, ge=0, le=1, description="share of hours the fleet does useful work"
    )
    reporting_currency: Currency = Field("USD", description="the currency of the results")
    currency: Currency = Field("USD", description="the currency of the amounts below")
    networking_per_server: float | None = Field(
        None,
        ge=0,
        description="given, it replaces the plan's networking: a front end per server and "
        "a GPU fabric per GPU port for multi-server training (none at a workstation)",
    )
    storage_total: float = Field(0.0, ge=0)
    installation_per_server: float | None = Field(
        None,
        ge=0,
        description="none: the catalog item installation-per-server (none at a workstation)",
    )
    spares_pct: Fraction = Field(0.0, ge=0, le=1)
    support_pct_per_year: Fraction = Field(
        defaults.SUPPORT_PCT_PER_YEAR,
        ge=0,
        le=1,
        description="share of hardware a year; absent: the catalog item support-10pct",
    )
    staff_fte: float | None = Field(
        None,
        ge=0,
        description="operations staff of the whole fleet; none: 0.032 FTE a server, at "
        "least 0.1 and at most 12 (none at a workstation)",
    )
    staff_annual_cost: float = Field(
        defaults.STAFF_ANNUAL_COST_USD, ge=0, description="per FTE a year"
    )
    software_per_gpu_year: float = Field(0.0, ge=0)
    insurance_pct_per_year: Fraction = Field(defaults.INSURANCE_PCT_PER_YEAR, ge=0, le=1)
    residual_pct: Fraction = Field(defaults.RESIDUAL_PCT, ge=0, le=1)
    lease: Lease | None = Field(None, description="none: paid in cash")
    tornado_pct: Fraction = Field(
        0.20, gt=0, le=1, description="± swing of the sensitivity tornado"
    )
    fixed_monthly: list[LabeledAmount] = Field(
        [], max_length=1000, description="on-prem fees every month"
    )
    one_off: list[LabeledAmount] = Field(
        [], max_length=1000, description="on-prem lump sums in month 0"
    )
    lease_annual_rate: Fraction = Field(
        defaults.LEASE_ANNUAL_RATE, ge=0, le=1, description="the lease-vs-buy comparison"
    )
    lease_terms_months: list[Annotated[WholeNumber, Field(ge=1, le=240)]] = Field(
        [36, 48, 60], min_length=1, max_length=6, description="the lease-vs-buy comparison"
    )
    resale_by_year: list[Annotated[float, Field(ge=0, le=1)]] = Field(
        list(defaults.RESALE_BY_YEAR),
        min_length=1,
        max_length=16,
        description="share of hardware value kept at age 0, 1, 2, … years (never rising)",
    )
    service_life_months: WholeNumber = Field(
        defaults.SERVICE_LIFE_MONTHS,
        ge=12,
        le=240,
        description="a horizon beyond it buys the fleet again (refresh cycle)",
    )

    def to_engine(self, path: str, catalog_defaults: dict[str, Any]) -> engine.FinanceInputs:
        """The engine's finance inputs: the catalog's defaults, then what the document sets."""
        fields = {**catalog_defaults, **self.given()}
        if self.lease is not None:
            fields["lease"] = construct(
                join(path, "lease"), engine.LeaseTerms, **self.lease.given()
            )
        for name in ("fixed_monthly", "one_off"):
            fields[name] = tuple(
                construct(f"{path}.{name}[{i}]", engine.LabeledAmount, **item.given())
                for i, item in enumerate(getattr(self, name))
            )
        return construct(path, engine.FinanceInputs, **fields)


class Demand(Block):
    """How often the work runs over the horizon (docs/methodology.md § 3a)."""

    pattern: DemandPattern = Field(
        engine.DemandPattern.CONTINUOUS,
        description="one_off, recurring (training only) or continuous",
    )
    runs_per_year: float | None = Field(
        None, gt=0, le=8760, description="recurring: runs a year (required)"
    )
    utilization: Fraction | None = Field(
        None,
        gt=0,
        le=1,
        description="continuous: share of hours the fleet works; none: finance.utilization",
    )
    growth_per_year: float = Field(
        0.0, ge=-0.9, le=10, description="continuous serving: yearly growth of the load"
    )
    tolerates_interruptions: bool = Field(
        False, description="only then may spot be recommended for deadline work or serving"
    )
    bursts_per_year: float = Field(0.0, ge=0, description="extra bursts, for the hybrid")
    burst_servers: float = Field(0.0, ge=0)
    burst_days: float = Field(0.0, ge=0)
    monthly_profile: list[Annotated[float, Field(ge=0)]] | None = Field(
        None,
        min_length=1,
        max_length=1000,
        description="server-equivalents busy per month: 12 values (repeated) or one a month",
    )

    def to_engine(self, path: str) -> engine.Demand:
        return construct(path, engine.Demand, **self.given())


def _range(default: tuple[float, float], what: str) -> Any:
    return Field(list(default), description=f"{what}; [low, high], low ≤ high")


class Uncertainty(Block):
    """The ranges of the confidence Monte Carlo (docs/methodology.md § 3c).

    ``[1, 1]`` (``[0, 0]`` for the shifts and the trend) switches an input off.
    """

    cloud_price_trend: TrendRange = _range(
        (-0.30, 0.10), "change of cloud prices by the end of the horizon"
    )
    electricity: FactorRange = _range((0.75, 1.30), "× the electricity price")
    demand: FactorRange = _range((0.80, 1.20), "× the demand")
    server_price: FactorRange = _range((0.90, 1.05), "× the server price")
    resale: FactorRange = _range((0.50, 1.50), "× the resale values")
    discount_rate: RateRange = _range((-0.03, 0.04), "+ the discount rate")
    pue: PueRange = _range((-0.05, 0.15), "+ the PUE")
    draws: WholeNumber = Field(10_000, ge=100, le=100_000)
    seed: WholeNumber = Field(2026, ge=0)

    def to_engine(self, path: str) -> engine.UncertaintyRanges:
        return construct(path, engine.UncertaintyRanges, **self.given())


class Capacity(Block):
    """When the work needs capacity and what lateness costs (docs/methodology.md § 3i).

    Without this block every option is ready on day one.
    """

    as_of: Annotated[date | None, BeforeValidator(_date)] = Field(
        None, description="the day counted from, YYYY-MM-DD; none: the price date or today"
    )
    needed_in_days: float | None = Field(
        None, ge=0, le=3650, description="the work needs capacity within this many days"
    )
    if_late: LatePolicy = Field(
        engine.LatePolicy.BRIDGE, description="bridge (rent until ready), delay or rule_out"
    )
    cost_of_delay_per_week: float = Field(
        0.0, ge=0, description="in the reporting currency, per week the work starts late"
    )
    site_readiness_weeks: float = Field(0.0, ge=0, le=520, description="power, cooling work")
    install_days: float | None = Field(
        None, ge=0, le=365, description="installation and burn-in; none: the catalog's"
    )
    lead_time_range: FactorRange = _range(
        DEFAULT_LEAD_TIME_RANGE, "× the lead time in the Monte Carlo"
    )
    on_demand_bridge_gpus: float = Field(
        DEFAULT_ON_DEMAND_BRIDGE_GPUS,
        ge=1,
        le=1_000_000,
        description="GPUs a bridge may find free on demand; larger bridges are booked",
    )

    def to_engine(
        self, path: str, *, as_of: date, install_days: float | None
    ) -> engine.CapacityInputs:
        given = self.given()
        given["as_of"] = self.as_of or as_of
        if self.install_days is None and install_days is not None:
            given["install_days"] = install_days
        if "lead_time_range" in given:
            given["lead_time_range"] = tuple(given["lead_time_range"])
        return construct(path, engine.CapacityInputs, **given)


class Constraints(Block):
    """The buyer's hard terms (docs/methodology.md § 3f): an option that breaks one is kept
    in the comparison but never recommended."""

    eu_data_only: bool = Field(
        False, description="the data stays in the EU (the owned fleet: the site's country)"
    )
    own_premises_only: bool = Field(
        False, description="only servers owned, in the buyer's own building"
    )
    eu_jurisdiction_only: bool = Field(False, description="no provider under non-EU jurisdiction")
    air_gapped: bool = Field(False, description="nothing rented")
    preferred_providers: list[Annotated[Text, Field(max_length=80)]] = Field(
        [],
        max_length=50,
        description="given, only these cloud providers may be recommended (any case)",
    )

    def to_engine(self, path: str) -> engine.Constraints:
        return construct(path, engine.Constraints, **self.given())


# --- the document ------------------------------------------------------------------------


class ScenarioDocument(Block):
    """A scenario: what to run, on which server and site, against which rented options.

    The same document for ``manage.py tco estimate --input``, ``POST /api/v1/estimate`` and
    the web calculator (docs/scenario.md).
    """

    model_config = ConfigDict(title="Scenario document")

    name: Name = Field("scenario", description="free text, shown with the result")
    as_of: Annotated[date | None, BeforeValidator(_date)] = Field(
        None,
        description="price date, YYYY-MM-DD: every catalog price is the one in effect "
        "then; none: today's prices",
    )
    workload: Workload
    server: ServerRef = Field(description="catalog key, or {key, overrides…}")
    site: SiteRef = Field(description="catalog key, or {key, overrides…}")
    # At most 50 different entries each; a list may repeat them (the repeats are dropped),
    # so the bound is the schema's maxItems but counted on distinct entries.
    cloud_offerings: Annotated[
        list[CloudOfferingRef],
        BeforeValidator(_distinct(MAX_CLOUD_OFFERINGS)),
        BeforeValidator(_one_or_more),
    ] = Field(
        min_length=1,
        description=f"catalog keys, or {{key, overrides…}}; at most {MAX_CLOUD_OFFERINGS} "
        "different ones (repeats are dropped)",
        json_schema_extra={"maxItems": MAX_CLOUD_OFFERINGS},
    )
    api_offerings: Annotated[
        list[ApiOfferingRef] | None, BeforeValidator(_distinct(MAX_API_OFFERINGS))
    ] = Field(
        None,
        description="hosted model APIs priced per token (needs workload.serving_demand); at "
        f"most {MAX_API_OFFERINGS} different ones (repeats are dropped)",
        json_schema_extra={"maxItems": MAX_API_OFFERINGS},
    )
    servers: WholeNumber | None = Field(
        None, ge=1, le=100_000, description="fix the fleet size; none: sized from the workload"
    )
    finance: Finance = Field(default_factory=Finance)
    demand: Demand | None = Field(
        None,
        description="none: a training workload is one run, serving runs around the clock",
    )
    uncertainty: Uncertainty | None = Field(None, description="none: the default ranges")
    constraints: Constraints | None = Field(None, description="none: no terms")
    capacity: Capacity | None = Field(
        None, description="none: every option is ready on day one (no lead times)"
    )


# --- parsing -------------------------------------------------------------------------------


_SERVER = TypeAdapter(ServerRef)


def parse_document(data: object) -> ScenarioDocument:
    """The scenario document in ``data`` (JSON-shaped: dicts, lists, numbers, text).

    >>> parse_document({"workload": {"kind": "lora", "params_billion": "seven"}})
    Traceback (most recent call last):
    ...
    tco.scenario.errors.ScenarioError: workload.params_billion: expected a number, got 'seven'
    """
    if isinstance(data, ScenarioDocument):
        return data
    check_sizes(data)
    try:
        return ScenarioDocument.model_validate(data)
    except ValidationError as exc:
        raise from_validation(exc, hidden=_TAGS) from None


def parse_server(data: object, path: str = "server") -> Server:
    """A document's ``"server"`` value alone (a catalog key or an object), or ScenarioError."""
    try:
        server: Server = _SERVER.validate_python(data)
    except ValidationError as exc:
        raise from_validation(exc, path, _TAGS) from None
    return server


def check_sizes(value: object, path: str = "", depth: int = 0) -> None:
    """Refuse nesting far deeper than a scenario and integers no float can hold.

    >>> check_sizes({"workload": {"params_billion": 10**400}})
    Traceback (most recent call last):
    ...
    tco.scenario.errors.ScenarioError: workload.params_billion: the number is too large
    """
    if depth > MAX_DEPTH:
        raise ScenarioError(path or "scenario", "nested too deeply to be a scenario")
    if isinstance(value, dict):
        for key, item in value.items():
            check_sizes(item, join(path, key_name(str(key))), depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_sizes(item, f"{path}[{index}]", depth + 1)
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            raise ScenarioError(path or "scenario", "the number is too large") from None
    elif isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(path or "scenario", "expected a finite number")
