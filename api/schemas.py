"""Request and response shapes of the JSON API (Pydantic; they make the OpenAPI schema)."""

from datetime import date, datetime
from typing import Any, Literal
from uuid import UUID

from ninja import Schema
from pydantic import ConfigDict, Field

NO_NUL = r"^[^\x00]*$"  # PostgreSQL text cannot hold NUL


class Problem(Schema):
    """RFC 9457 problem details; ``field`` names the input at fault when there is one."""

    model_config = ConfigDict(extra="allow")

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    field: str | None = None
    errors: list[dict[str, Any]] | None = None


SCENARIO_REF = "#/components/schemas/ScenarioDocument"
# The estimate endpoints read their body through the scenario schema (api.api._scenario_body).
SCENARIO_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": SCENARIO_REF}}},
    }
}
SCENARIO_EXAMPLE = {
    "name": "Pre-train 7B on 1T tokens in 30 days, four times a year",
    "workload": {
        "kind": "pretrain",
        "params_billion": 7,
        "tokens_billion": 1000,
        "deadline_days": 30,
    },
    "server": "smc-821ge-tnhr-h100",
    "site": "nl-colo-amsterdam",
    "cloud_offerings": ["aws-p5-48xlarge-od", "coreweave-h100-8x-od"],
    "finance": {"horizon_months": 60, "discount_rate": 0.08},
    "demand": {"pattern": "recurring", "runs_per_year": 4},
}


def scenario_components() -> dict[str, Any]:
    """The scenario document's JSON Schema (tco.scenario, as docs/scenario.md publishes it)
    as OpenAPI components: ``ScenarioDocument`` and its parts (``Scenario.Workload``, …).
    QuoteCreate's ``scenario`` refers to it."""
    from tco.analysis import document_schema as json_schema

    schema = json_schema(ref_template="#/components/schemas/Scenario.{model}")
    schema.pop("$schema")
    parts = schema.pop("$defs")
    document = {**schema, "examples": [SCENARIO_EXAMPLE]}
    return {"ScenarioDocument": document, **{f"Scenario.{n}": p for n, p in parts.items()}}


# The catalog's responses read their catalog rows field by field (ninja's Schema reads
# attributes); a row's GPU is given as its key (``GpuByKey``).


def gpu_key(source: Any) -> str:
    """The GPU's key: of a catalog row's GPU, or of a response read before (the public
    servers are read, then their internal figures blanked, then read again as the response)."""
    gpu = source.gpu
    return gpu if isinstance(gpu, str) else str(gpu.key)


class GpuByKey(Schema):
    """A catalog row's GPU given as its key (mixed into the responses that name a GPU)."""

    @staticmethod
    def resolve_gpu(source: Any) -> str:
        return gpu_key(source)


class Provenance(Schema):
    source: str
    source_url: str
    as_of: date
    is_estimate: bool


# The distributor's own list prices (servers, items): their date and estimate flag are
# internal (catalog/audience.py). Callers who are not staff or sales read them as null.
OWN_AS_OF = "the price list's date; null unless the caller is staff or a sales engineer"
OWN_IS_ESTIMATE = "whether it is an estimate; null unless the caller is staff or sales"


class OwnPriceProvenance(Schema):
    source: str = Field(
        description='where the figures come from; "Our price list" for an item\'s price '
        "unless the caller is staff or a sales engineer"
    )
    source_url: str
    as_of: date | None = Field(description=OWN_AS_OF)
    is_estimate: bool | None = Field(description=OWN_IS_ESTIMATE)


class GpuOut(Provenance):
    key: str
    name: str
    vendor: str
    form_factor: str
    memory_gb: float
    memory_bandwidth_tbps: float
    bf16_tflops: float
    fp8_tflops: float | None
    fp4_tflops: float | None
    tdp_w: int


class ServerOut(OwnPriceProvenance, GpuByKey):
    key: str
    vendor: str
    sku: str
    name: str
    gpu: str = Field(description="GPU key")
    gpu_count: int
    rack_units: int
    max_power_kw: float
    idle_power_kw: float
    cooling: str
    list_price: float
    currency: str
    price_source: str = Field(
        description='where the list price comes from; "Our price list" unless the caller is '
        "staff or a sales engineer"
    )
    price_as_of: date | None = Field(
        description="the list price's date (the specifications have their own, as_of); "
        "null unless the caller is staff or a sales engineer"
    )
    price_is_estimate: bool | None = Field(description=OWN_IS_ESTIMATE)


class SiteOut(Provenance):
    key: str
    name: str
    kind: str
    country: str
    electricity_price_per_kwh: float
    pue: float
    colocation_per_kw_month: float
    rack_power_limit_kw: float
    carbon_g_per_kwh: int
    currency: str


class CloudOfferingOut(Provenance, GpuByKey):
    key: str
    provider: str
    instance_type: str
    region: str
    gpu: str = Field(description="GPU key")
    gpu_count: int
    term: str
    price_per_hour: float
    currency: str


class ItemOut(OwnPriceProvenance):
    key: str
    name: str
    category: str
    unit: str
    price: float
    currency: str


class FxRateOut(Provenance):
    base: str
    quote: str
    rate: float


class CustomerOut(Schema):
    id: UUID
    company: str
    contact_name: str
    email: str
    country: str
    vat_number: str
    language: str
    team: str
    created_at: datetime

    # Read from the customer row itself: its public id (never the row's key) and team name.
    @staticmethod
    def resolve_id(source: Any) -> UUID:
        public_id: UUID = source.public_id
        return public_id

    @staticmethod
    def resolve_team(source: Any) -> str:
        return str(source.team.name)


class TotalsOut(Schema):
    currency: str
    subtotal: str = Field(description="decimal amount, e.g. 1234.50")
    vat: str
    total: str
    optional_subtotal: str


class LineOut(Schema):
    position: int
    kind: str
    catalog_key: str
    description: str
    quantity: str
    unit_price: str
    discount_pct: str
    optional: bool
    amount: str
    price_as_of: date | None
    price_is_estimate: bool


class LeaseOut(Schema):
    financed: float = Field(description="the hardware's net total the lease finances")
    term_months: int
    annual_rate: float
    monthly_payment: float = Field(description="excl. VAT")
    total_paid: float = Field(description="the instalments over the term")


class OptionAnalysisOut(Schema):
    owning: float | None = Field(description="cost of owning over the horizon, bridge included")
    best_rental: str | None
    rental_total: float | None
    saving: float | None
    buy: bool | None = Field(description="the analysis recommends buying (false: renting)")
    payback_month: float | None
    it_kw: float | None
    racks: int | None
    lease: LeaseOut | None = Field(None, description="a leased option's payment terms")


class OptionOut(Schema):
    letter: str = Field(description="B, C or D (option A is the revision itself)")
    name: str
    status: str
    totals: TotalsOut
    lines: list[LineOut]
    analysis: OptionAnalysisOut


class RevisionOut(Schema):
    id: UUID
    quote: str
    letter: str
    status: str
    currency: str
    vat_rate: str
    vat_kind: str
    valid_until: date
    created_at: datetime
    sent_at: datetime | None
    totals: TotalsOut
    lines: list[LineOut]
    has_analysis: bool
    option_name: str = Field("", description="the name of option A (the revision itself)")
    analysis: OptionAnalysisOut
    options: list[OptionOut] = Field(
        default_factory=list, description="the alternatives the buyer may choose instead"
    )


class QuoteOut(Schema):
    id: UUID
    number: str
    customer: UUID
    company: str
    team: str
    owner: str
    status: str
    revision: str
    currency: str
    total: str
    valid_until: date
    created_at: datetime


class QuoteDetailOut(QuoteOut):
    revisions: list[RevisionOut]


class QuoteCreate(Schema):
    """A draft quote for one of your team's customers, from a calculator result or a scenario."""

    model_config = ConfigDict(extra="forbid")

    customer: UUID
    calculator_query: str | None = Field(
        None,
        pattern=NO_NUL,
        max_length=4000,
        description="a calculator result URL's query string, e.g. preset=pretrain-7b",
    )
    # Read by the scenario schema (api.api._scenario); the OpenAPI schema documents it with
    # the ScenarioDocument component (scenario_components).
    scenario: dict[str, Any] | None = Field(
        None, description="a scenario document, as for POST /estimate"
    )


class LeadOut(Schema):
    id: UUID
    name: str
    company: str
    email: str
    language: str
    verdict: str
    consent_at: datetime
    created_at: datetime


class TokenInfo(Schema):
    name: str
    scope: Literal["read", "read_write"]
    user: str
    sales: bool
