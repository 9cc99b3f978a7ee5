"""The report's models: the result of one evaluation, typed, as every output reads it.

Each model mirrors one block of the report's JSON form (docs/api.md, "The report"); a field
is typed as the report carries it (rounded by the builder, tco/report/rounding.py; ``None``
where a figure is undefined, such as NaN or a break-even that never comes). Blocks that
only some workloads or options have are optional: a training run's sizing has
``training_days``, a served model's has ``replicas``; a cloud option has ``provider``, a
hosted API ``model``. Such a field that the builder did not set stays out of the JSON form
(:meth:`Report.to_json`), so the JSON keeps exactly the keys revisions have always stored.
The time to capacity (:class:`Bridge`, :class:`Timing`, :class:`Capacity`) is built from
the engine's capacity plan; a stored report from before it existed lacks those keys, which
then read as None.

Fields a newer engine adds and a model does not declare yet are kept as they are (``extra``
allowed), in the JSON form and as attributes, so that a stored report written by a newer
engine still reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict

OptionKind = Literal["onprem", "cloud", "onprem_resell", "hybrid", "api"]
Params = dict[str, Any]
"""A code's parameters: JSON scalars (and lists of them), as the wording reads them."""


class ReportModel(BaseModel):
    """A block of the report: read-only; keys the model does not declare are kept."""

    model_config = ConfigDict(extra="allow", frozen=True, protected_namespaces=())


class Note(ReportModel):
    """A note or warning of the engine: a code and its parameters, and the English text."""

    code: str
    params: Params = {}
    text: str = ""
    warning: bool = False  # not written on the sizing's note_details


class ExcludedOffering(Note):
    """An offering the scenario named that the engine left out, and why."""

    name: str


# --- sizing ------------------------------------------------------------------------------


class MemoryBreakdown(ReportModel):
    model_states: float | None
    activations: float | None
    kv_cache: float | None
    overhead: float | None


class Parallelism(ReportModel):
    strategy: str
    data_parallel: int
    tensor_parallel: int
    pipeline_parallel: int
    context_parallel: int
    sequence_parallel: bool
    micro_batches: int | None
    pipeline_bubble: float | None
    reason: str
    reason_code: str
    reason_params: Params


class ModelShape(ReportModel):
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int


class LatencyTargets(ReportModel):
    """The serving use's latency targets (None: no bound) and whether the sizing meets them."""

    use: str
    time_per_output_token_ms: float | None
    time_to_first_token_ms: float | None
    met: bool


class DecodeStep(ReportModel):
    """One decode step at the sized peak, in milliseconds, by part."""

    weights: float | None
    experts: float | None
    kv_cache: float | None
    communication: float | None
    total: float | None
    prefill_share: float | None


class Sizing(ReportModel):
    """GPUs, servers, memory and parallel plan (docs/scenario.md, "sizing")."""

    kind: str
    memory_per_gpu_gb: float | None
    memory_breakdown_gb: MemoryBreakdown
    gpu_memory_gb: float
    usable_memory_gb: float | None
    gpus_to_fit: int
    gpus_required: int
    servers_required: int
    sharding: str | None
    parallelism: Parallelism
    model_shape: ModelShape
    notes: list[str]
    note_details: list[Note]
    # training
    training_flops: float | None = None  # not rounded: null when it overflows
    training_hours: float | None = None
    training_days: float | None = None
    gpu_hours: float | None = None
    hardware_flops_utilization: float | None = None
    scaling_efficiency: float | None = None
    expert_parallel: int | None = None
    all_to_all_hours: float | None = None
    # inference
    gpus_per_replica: int | None = None
    replicas: int | None = None
    tokens_per_second_per_replica: float | None = None
    tokens_per_second_capacity: float | None = None
    # inference sized for serving (a batch, latency at the sized peak)
    concurrent_sequences: int | None = None
    max_concurrent_sequences: int | None = None
    memory_concurrent_sequences: int | None = None
    context_tokens: int | None = None
    prompts_sized: bool | None = None
    time_per_output_token_ms: float | None = None
    time_to_first_token_ms: float | None = None
    latency_targets: LatencyTargets | None = None
    decode_step_ms: DecodeStep | None = None
    prefill_ms: float | None = None


class Racks(ReportModel):
    servers: int
    servers_per_rack: int
    racks_required: int
    it_kw: float | None
    facility_kw: float | None
    needs_liquid_cooling: bool
    server_exceeds_rack_power: bool
    limited_by: str
    warnings: list[str]
    warning_details: list[Note]


# --- site fit (tco/engine/site.py) -------------------------------------------------------


class BuildOutLine(ReportModel):
    """One costed line of making a site fit: a catalog item, how many, what it costs."""

    item: str
    quantity: float | None
    unit_price: float | None
    cost: float | None
    weeks: float | None


class SiteFit(ReportModel):
    """Whether a site takes the owned fleet: ``fits``, ``build_out`` (with its lines, cost
    and weeks) or ``does_not_fit`` (with the reasons); ``placed_at`` is the liquid-ready
    colocation's fit when the fleet is costed there instead."""

    status: Literal["fits", "build_out", "does_not_fit"]
    site: str
    build_out_cost: float | None
    build_out_weeks: float | None
    build_out_lines: list[BuildOutLine]
    reasons: list[Note]
    racks: int
    kw_per_rack: float | None
    it_kw: float | None
    pue: float | None
    cooling: str
    site_cooling: str
    site_rack_power_limit_kw: float | None
    # The buyer described the site (chose it or gave what it takes); False: a default the
    # buyer never chose ("the default site"). True for reports stored before it was kept.
    described: bool = True
    colocation_cost: float | None = None
    placed_at: SiteFit | None = None


# --- time to capacity (tco/engine/capacity.py, docs/methodology.md § 3i) ------------------


class Bridge(ReportModel):
    """Rented capacity that does the work from the need date until the owned fleet is
    ready; its cost is part of that option's total."""

    option: str  # the cloud offering rented
    instances: int
    start_in_days: float  # days after the order (the need date, or the cloud's booking lead)
    days: float  # calendar days rented
    hours: float  # instance-hours billed per instance (every hour held, the minimum term)
    price_per_instance_hour: float | None
    cost: float | None
    # How it is obtained (on_demand, capacity_block, reserved), its GPUs, the days that
    # must be bought however short it is, and its risk: ``not_guaranteed`` when on demand
    # above ``on_demand_limit_gpus`` with nothing to book. Absent in reports stored
    # before bridges were sized (read as on demand, no risk).
    obtained: str = "on_demand"
    gpus: int | None = None
    minimum_days: float = 0.0
    risk: str | None = None
    on_demand_limit_gpus: float | None = None


class Timing(ReportModel):
    """What sets an option's ready date and what its lateness costs.

    ``code``: ``in_stock``, ``lead_time`` or ``site_readiness`` (owning); ``on_demand``,
    ``reserved`` or ``capacity_block`` (renting). ``extra_cost`` is the bridge and the cost
    of delay together, already in the option's total."""

    code: str
    late_days: float  # after the need date (0: on time)
    delay_cost: float | None
    extra_cost: float | None
    ruled_out: bool  # too late under ``if_late: rule_out`` (reason ``misses_deadline``)


class Capacity(ReportModel):
    """The scenario's capacity block as the engine used it, with the need date and the
    server's stock and lead time."""

    as_of: date  # the order date the ready dates count from
    needed_in_days: float | None  # None: ready dates only, nothing is late
    needed_date: date | None
    if_late: Literal["bridge", "delay", "rule_out"]
    cost_of_delay_per_week: float
    site_readiness_weeks: float
    install_days: float
    lead_time_range: list[float]  # the Monte Carlo's low and high factor on lead times
    units_in_stock: int | None  # None: unknown (the lead time applies)
    lead_time_weeks: float


# --- options -----------------------------------------------------------------------------


class Option(ReportModel):
    """One way to do the work: own (``onprem``), own and resell (``onprem_resell``), rent
    (``cloud``), a mix (``hybrid``) or a hosted API (``api``); cheapest first in
    :attr:`Report.options`. Fields of one kind only are None on the others."""

    name: str
    kind: OptionKind
    total_cost: float | None
    npv: float | None
    break_even_utilization: float | None
    break_even_note: str
    payback_month: int | None
    break_even_month: float | None
    cost_per_gpu_hour: float | None
    energy_kwh: float | None
    carbon_tonnes: float | None
    # the ranking (tco/engine/verdict.py)
    saving_vs_best: float | None
    recommended: bool
    eligible: bool
    excluded_code: str | None = None
    violations: list[Note]
    # per unit of work (requests and users: a served model described in users)
    cost_per_request: float | None = None
    cost_per_user_month: float | None = None
    cost_of_run: float | None = None
    cost_per_million_tokens: float | None = None
    cost_per_million_tokens_at_target: float | None = None
    # owning
    upfront_cost: float | None = None
    monthly_opex: float | None = None
    # owning and reselling
    months_owned: int | None = None
    resale_fraction: float | None = None
    resale_value: float | None = None
    # renting (cloud and API)
    provider: str | None = None
    jurisdiction: str | None = None
    data_country: str | None = None
    instances: int | None = None
    committed: bool | None = None
    # time to capacity (docs/methodology.md § 3i; None without a capacity block)
    ready_date: date | None = None
    ready_in_days: float | None = None
    bridge: Bridge | None = None
    time: Timing | None = None
    owning_wins_above: bool | None = None
    break_even_runs_per_year: float | None = None
    price_per_gpu_hour: float | None = None
    # a hosted API
    model: str | None = None
    region: str | None = None
    currency_of_prices: str | None = None
    price_input_per_million: float | None = None
    price_output_per_million: float | None = None
    price_per_request: float | None = None
    break_even_requests_per_day: float | None = None
    break_even_beyond_capacity: bool | None = None
    # the monthly table (``tco estimate --cashflows``): "month" and one list per column
    cashflow: dict[str, list[int | float]] | None = None
    # an owned option: whether the buyer's site takes it
    site_fit: SiteFit | None = None


# --- demand, serving, verdict ------------------------------------------------------------


class Demand(ReportModel):
    pattern: str
    runs_per_year: float | None
    runs: float | None
    run_hours: float | None
    gpu_hours: float | None
    utilization: float | None
    utilization_derived: bool
    load_factor_peak: float | None
    tolerates_interruptions: bool
    notes: list[Note]


class Serving(ReportModel):
    """From users and requests to tokens per second, every step (docs/scenario.md)."""

    users: int
    requests_per_user_per_day: float
    input_tokens_per_request: float
    output_tokens_per_request: float
    peak_factor: float
    hours_per_day: float
    days_per_week: float
    around_the_clock: bool
    latency_ms_per_token: float | None
    requests_per_day: float | None
    input_tokens_per_day: float | None
    output_tokens_per_day: float | None
    working_seconds_per_day: float | None
    average_tokens_per_second: float | None
    peak_tokens_per_second: float | None
    average_tokens_per_second_all_hours: float | None
    sized_tokens_per_second: float | None
    capacity_tokens_per_second: float | None
    requests_per_month: float | None
    concurrent_requests_at_peak: float | None
    achieved_ms_per_token: float | None
    time_to_first_token_ms: float | None
    time_to_first_token_target_ms: float | None
    target_ms_per_token: float | None
    target_time_to_first_token_ms: float | None
    utilization: float | None
    fleet_capacity_requests_per_day: float | None
    load_months: float | None
    notes: list[Note]


class Verdict(ReportModel):
    """Buy, rent or a mix: the engine's decision as a code and its parameters (the web
    layer words it); ``text`` is the English headline of the command line."""

    action: str
    code: str
    params: Params
    recommended: str
    reference_cloud: str | None
    # the two sides the headline compares: the owning option (its name and kind, buy and
    # keep or buy, run and resell) and the rented one (a GPU cloud or a hosted API)
    owning: str | None = None
    owning_kind: Literal["own", "own_resell"] | None = None
    renting: str | None = None
    text: str


class Hybrid(ReportModel):
    cloud_option: str | None
    owned_servers: int
    peak_servers: int
    total_cost: float | None
    npv: float | None
    onprem_cost: float | None
    cloud_cost: float | None
    all_cloud_total: float | None
    all_onprem_total: float | None
    reason: str


class LeaseTerm(ReportModel):
    term_months: int
    annual_rate: float
    monthly_payment: float | None
    total_cost: float | None
    npv: float | None


class Lease(ReportModel):
    upfront: float | None
    cash_total: float | None
    cash_npv: float | None
    cloud_option: str | None
    cloud_monthly: float | None
    terms: list[LeaseTerm]


class Ranges(ReportModel):
    """The uncertainty ranges the Monte Carlo drew from (low, high)."""

    cloud_price_trend: list[float]
    electricity: list[float]
    demand: list[float]
    server_price: list[float]
    resale: list[float]
    discount_rate: list[float]
    pue: list[float]
    draws: int
    seed: int


class Confidence(ReportModel):
    favours: str
    probability: float | None
    draws: int
    saving_p10: float | None
    saving_p50: float | None
    saving_p90: float | None
    saving_mean: float | None
    ranges: Ranges


class ExcludedOption(ReportModel):
    name: str
    kind: str
    violations: list[Note]


class Constraints(ReportModel):
    """What the buyer's terms asked, what they ruled out, whether they decided the verdict."""

    eu_data_only: bool
    own_premises_only: bool
    eu_jurisdiction_only: bool
    air_gapped: bool
    preferred_providers: list[str]
    excluded: list[ExcludedOption]
    decided_verdict: bool
    cheapest_overall: str | None
    cheapest_overall_cost: float | None
    cheapest_compliant: str
    cheapest_compliant_cost: float | None
    cost_of_constraints: float | None


class OwningExtras(ReportModel):
    """What owning includes besides the servers, and where each figure came from."""

    site: str
    networking: str
    fabric_tiers: int
    fabric_ports: int
    networking_given: bool
    installation_given: bool
    staff_fte: float
    staff_given: bool
    networking_per_server: float | None
    installation_per_server: float | None
    staff_cost_per_year: float | None


class HorizonRow(ReportModel):
    name: str
    kind: str
    eligible: bool
    totals: list[float | None]


class Horizons(ReportModel):
    """Total cost of owning and of each rented option over 3, 5, 7 and 10 years."""

    months: list[int]
    refreshes: list[int]
    service_life_months: int
    options: list[HorizonRow]


class TornadoBar(ReportModel):
    input: str
    label: str
    base_input: float | None
    low_input: float | None
    high_input: float | None
    low_value: float | None
    high_value: float | None


class Tornado(ReportModel):
    metric: str
    reference_option: str
    base_value: float | None
    bars: list[TornadoBar]


# --- the report --------------------------------------------------------------------------


class Report(ReportModel):
    """The result of one evaluation: what every output (page, PDF, API, CLI, workbook)
    renders. Built by :func:`tco.report.build_report`; stored and served as
    :meth:`to_json`, read back with :meth:`from_json`."""

    scenario: str
    currency: str
    horizon_months: int
    utilization: float
    sizing: Sizing
    racks: Racks
    energy_kwh: float | None
    carbon_tonnes: float | None
    options: list[Option]
    demand: Demand
    serving: Serving | None
    break_even_requests_per_day: float | None
    break_even_beyond_capacity: bool | None
    verdict: Verdict
    break_even_month: float | None
    break_even_utilization: float | None
    break_even_runs_per_year: float | None
    owning_wins_above: bool | None
    hybrid: Hybrid | None
    lease: Lease
    confidence: Confidence | None
    warnings: list[Note]
    excluded_offerings: list[ExcludedOffering]
    constraints: Constraints
    owning_extras: OwningExtras | None
    horizons: Horizons | None
    tornado: Tornado
    # the owned fleet against the buyer's site, and the EU duties its IT load brings
    site_fit: SiteFit | None = None
    site_duties: list[Note] = []
    capacity: Capacity | None = None  # the capacity block's inputs and need date (§ 3i)

    # --- the JSON form ---

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-shaped data (what a revision stores and the API sends); a
        figure that is not finite (absurd inputs may overflow) is null."""
        data: dict[str, Any] = json.loads(self.model_dump_json(exclude_unset=True))
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str | bytes) -> Self:
        """A report from its JSON form (data or text); raises pydantic's ValidationError."""
        if isinstance(data, str | bytes):
            return cls.model_validate(json.loads(data))
        return cls.model_validate(data)

    # --- what outputs look up ---

    def option(self, name: str) -> Option | None:
        """The option of that name, if any."""
        return next((o for o in self.options if o.name == name), None)

    def options_of(self, *kinds: OptionKind) -> Iterator[Option]:
        """The options of these kinds, cheapest first."""
        return (o for o in self.options if o.kind in kinds)

    @property
    def onprem(self) -> Option | None:
        """Owning (buy and keep)."""
        return next(self.options_of("onprem"), None)

    @property
    def owned(self) -> Option | None:
        """The owning option the verdict compares with renting: buy and keep, or buy, run
        and resell (``verdict.owning_kind``); buy and keep when the verdict names none."""
        named = self.option(self.verdict.owning) if self.verdict.owning else None
        return named or self.onprem

    @property
    def reference(self) -> Option | None:
        """The cheapest eligible rented option the verdict compares owning with."""
        ref = self.verdict.reference_cloud
        return self.option(ref) if ref else None

    @property
    def recommended(self) -> Option | None:
        return self.option(self.verdict.recommended)
