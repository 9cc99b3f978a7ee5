"""Typed, validated inputs of the engine.

Every dataclass checks itself in ``__post_init__`` and raises
:class:`~tco.engine.errors.InvalidInput` naming the field, so that an
impossible value is caught where it enters, not deep inside a formula.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from enum import StrEnum

from tco.engine import defaults
from tco.engine.capacity import CapacityInputs
from tco.engine.constraints import Constraints
from tco.engine.errors import InvalidInput
from tco.engine.units import FxRates, Money, check_currency


class WorkloadKind(StrEnum):
    PRETRAIN = "pretrain"
    FULL_FINETUNE = "full_finetune"
    LORA = "lora"
    QLORA = "qlora"
    INFERENCE = "inference"

    @property
    def is_training(self) -> bool:
        return self is not WorkloadKind.INFERENCE


class Precision(StrEnum):
    """Numeric format of the tensor maths (and of the weights when serving)."""

    BF16 = "bf16"
    FP8 = "fp8"
    FP4 = "fp4"

    @property
    def bytes_per_param(self) -> float:
        return {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}[self.value]


class Optimizer(StrEnum):
    """Optimizer; sets bytes per parameter for weights, gradients and state K."""

    ADAM_MIXED = "adam_mixed"
    ADAM_FP32 = "adam_fp32"
    SGD_MOMENTUM = "sgd_momentum"
    ADAM_8BIT = "adam_8bit"

    @property
    def weight_grad_state_bytes(self) -> tuple[float, float, float]:
        """(weight bytes, gradient bytes, optimizer-state bytes K) per parameter.

        Mixed-precision Adam: bf16 weights and gradients, K = 12 (fp32 master,
        momentum, variance; ZeRO paper). Pure fp32 Adam: 4 + 4 + 8. SGD with
        momentum: K = 8 (fp32 master + momentum). 8-bit Adam: K = 6 (fp32
        master + two 1-byte moments).
        """
        return {
            "adam_mixed": (2.0, 2.0, 12.0),
            "adam_fp32": (4.0, 4.0, 8.0),
            "sgd_momentum": (2.0, 2.0, 8.0),
            "adam_8bit": (2.0, 2.0, 6.0),
        }[self.value]


class Sharding(StrEnum):
    DDP = "ddp"
    ZERO1 = "zero1"
    ZERO2 = "zero2"
    ZERO3 = "zero3"  # also PyTorch FSDP (full shard)


class Recompute(StrEnum):
    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"


class Interconnect(StrEnum):
    """Network between servers; sets how fast scaling efficiency falls."""

    NVLINK = "nvlink"  # rack-scale NVLink domain (e.g. NVL72)
    INFINIBAND = "infiniband"
    ROCE = "roce"
    ETHERNET = "ethernet"


class ServerCooling(StrEnum):
    """How a server sheds its heat (catalog ``ServerModel.cooling``)."""

    AIR = "air"
    DIRECT_LIQUID = "direct_liquid"  # cold plates on the chips: a CDU and facility water
    RACK_LIQUID = "rack_liquid"  # a rack-scale system (NVL72) fed by an in-row CDU


class SiteCooling(StrEnum):
    """The cooling a site offers its racks (tco/engine/site.py)."""

    AIR = "air"  # room air only: no water at the racks
    REAR_DOOR = "rear_door"  # water to rear-door heat exchangers, no liquid loop to chips
    DIRECT_LIQUID = "direct_liquid"  # a liquid loop with CDUs in place
    FACILITY_WATER = "facility_water"  # facility water in the hall, no CDUs yet

    @property
    def has_water(self) -> bool:
        return self is not SiteCooling.AIR


class CloudTerm(StrEnum):
    ON_DEMAND = "on_demand"
    COMMITTED_1Y = "committed_1y"
    COMMITTED_3Y = "committed_3y"
    SPOT = "spot"
    CAPACITY_BLOCK = "capacity_block"

    @property
    def is_committed(self) -> bool:
        return self in (CloudTerm.COMMITTED_1Y, CloudTerm.COMMITTED_3Y)


class ServingUse(StrEnum):
    """What a served model is for; sets the default latency targets (defaults.py)."""

    INTERACTIVE = "interactive"  # people read the answer as it streams: chat, assistants
    BATCH = "batch"  # offline jobs: only throughput counts

    @property
    def default_time_per_output_token_ms(self) -> float | None:
        return defaults.INTERACTIVE_TPOT_MS if self is ServingUse.INTERACTIVE else None

    @property
    def default_time_to_first_token_ms(self) -> float | None:
        return defaults.INTERACTIVE_TTFT_MS if self is ServingUse.INTERACTIVE else None


class PriceBasis(StrEnum):
    INSTANCE_HOUR = "instance_hour"
    GPU_HOUR = "gpu_hour"


# --- validation helpers -------------------------------------------------------


_NUMBER_TYPES = (int, float)  # a tuple: `int | float` would build a union on every call


def _finite(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, _NUMBER_TYPES) or not math.isfinite(value):
        raise InvalidInput(name, f"Enter a finite number, got {value!r}.")


def require_positive(name: str, value: float, what: str = "This value") -> None:
    _finite(name, value)
    if value <= 0:
        raise InvalidInput(name, f"{what} must be greater than zero, got {value}.")


def require_non_negative(name: str, value: float, what: str = "This value") -> None:
    _finite(name, value)
    if value < 0:
        raise InvalidInput(name, f"{what} cannot be negative, got {value}.")


def require_fraction(name: str, value: float, what: str, *, allow_zero: bool = True) -> None:
    _finite(name, value)
    low_ok = value >= 0 if allow_zero else value > 0
    if not low_ok or value > 1:
        bound = "0" if allow_zero else "just above 0"
        raise InvalidInput(
            name, f"{what} must be between {bound} and 1 (i.e. 0-100 %), got {value}."
        )


def require_country(name: str, value: str) -> None:
    """An ISO 3166 alpha-2 code in capitals, or empty (unknown)."""
    if not isinstance(value, str) or (value and (len(value) != 2 or not value.isalpha())):
        raise InvalidInput(
            name, f"Give a two-letter country code (or leave it empty), got {value!r}."
        )
    if value != value.upper():
        raise InvalidInput(name, f"Write the country code in capitals, e.g. {value.upper()!r}.")


def require_int(name: str, value: int, low: int, high: int | None = None, what: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(name, f"{what or 'This value'} must be a whole number, got {value!r}.")
    if value < low or (high is not None and value > high):
        upper = f" and at most {high}" if high is not None else ""
        raise InvalidInput(
            name, f"{what or 'This value'} must be at least {low}{upper}, got {value}."
        )


# --- hardware -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One GPU; tensor throughput is *dense* (NVIDIA's sparse figures halved).

    ``nvlink_bandwidth_gbps`` is the GPU's NVLink bandwidth in GB/s, both directions
    together as datasheets give it (900 for H100 SXM); None: no NVLink, the GPUs of a
    server talk over PCIe (``defaults.PCIE_BANDWIDTH_GBPS``).
    """

    name: str
    memory_gb: float
    memory_bandwidth_tbps: float
    bf16_tflops: float
    fp8_tflops: float | None
    fp4_tflops: float | None
    tdp_w: float
    nvlink_bandwidth_gbps: float | None = None

    def __post_init__(self) -> None:
        require_positive("memory_gb", self.memory_gb, "GPU memory")
        require_positive("memory_bandwidth_tbps", self.memory_bandwidth_tbps, "Memory bandwidth")
        require_positive("bf16_tflops", self.bf16_tflops, "BF16 throughput")
        if self.fp8_tflops is not None:
            require_positive("fp8_tflops", self.fp8_tflops, "FP8 throughput")
        if self.fp4_tflops is not None:
            require_positive("fp4_tflops", self.fp4_tflops, "FP4 throughput")
        require_positive("tdp_w", self.tdp_w, "GPU power (TDP)")
        if self.nvlink_bandwidth_gbps is not None:
            require_positive(
                "nvlink_bandwidth_gbps", self.nvlink_bandwidth_gbps, "NVLink bandwidth"
            )

    @property
    def link_gb_per_s(self) -> float:
        """Bandwidth one way between two GPUs of a server, GB/s: half of NVLink's
        bidirectional figure (H100: 450), else PCIe's (``defaults.PCIE_BANDWIDTH_GBPS``).

        >>> GpuSpec("H100", 80.0, 3.35, 989.0, 1979.0, None, 700.0, 900.0).link_gb_per_s
        450.0
        >>> GpuSpec("L40S", 48.0, 0.864, 362.0, 733.0, None, 350.0).link_gb_per_s
        32.0
        """
        both_ways = self.nvlink_bandwidth_gbps or defaults.PCIE_BANDWIDTH_GBPS
        return both_ways / 2.0

    def peak_tflops(self, precision: Precision) -> float | None:
        """Dense peak at ``precision``, or None when the GPU lacks that format."""
        return {
            Precision.BF16: self.bf16_tflops,
            Precision.FP8: self.fp8_tflops,
            Precision.FP4: self.fp4_tflops,
        }[precision]


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """A GPU server (e.g. an HGX/DGX 8-GPU system) and its purchase price.

    A rack-scale system (GB200/GB300 NVL72) is one "server" of 72 GPUs with
    ``whole_rack``: its GPUs form one NVLink domain (``nvlink_domain_gpus``, by default all
    of them), the fleet is sized in whole racks and each brings its own rack.
    ``cooling`` None: direct liquid when ``liquid_cooled``, else air.
    """

    name: str
    gpu: GpuSpec
    gpus_per_server: int
    rack_units: int
    max_power_kw: float
    idle_power_kw: float
    liquid_cooled: bool
    price: Money
    cooling: ServerCooling | None = None
    whole_rack: bool = False
    nvlink_domain_gpus: int | None = None
    typical_power_kw: float | None = None
    # Availability (docs/methodology.md § 3i): units the distributor has in stock (None:
    # unknown, the lead time applies) and the weeks to ship when the stock is short.
    units_in_stock: int | None = None
    lead_time_weeks: float = 0.0

    @property
    def cooling_type(self) -> ServerCooling:
        """The declared cooling, else direct liquid for a liquid-cooled server.

        >>> g = GpuSpec("g", 80.0, 3.0, 900.0, None, None, 700.0)
        >>> ServerSpec("x", g, 8, 8, 10.0, 2.0, True, Money(1.0)).cooling_type.value
        'direct_liquid'
        """
        if self.cooling is not None:
            return self.cooling
        return ServerCooling.DIRECT_LIQUID if self.liquid_cooled else ServerCooling.AIR

    @property
    def nvlink_domain(self) -> int:
        """GPUs that talk over NVLink: the server's GPUs unless the catalog says fewer."""
        return min(self.nvlink_domain_gpus or self.gpus_per_server, self.gpus_per_server)

    def __post_init__(self) -> None:
        if self.nvlink_domain_gpus is not None:
            require_int("nvlink_domain_gpus", self.nvlink_domain_gpus, 1, 1024, "NVLink domain")
        if self.typical_power_kw is not None:
            require_positive("typical_power_kw", self.typical_power_kw, "Typical server power")
        if self.cooling is not None and (self.cooling is not ServerCooling.AIR) != bool(
            self.liquid_cooled
        ):
            object.__setattr__(self, "liquid_cooled", self.cooling is not ServerCooling.AIR)
        require_int("gpus_per_server", self.gpus_per_server, 1, 1024, "GPUs per server")
        if self.units_in_stock is not None:
            require_int("units_in_stock", self.units_in_stock, 0, None, "Units in stock")
        require_non_negative("lead_time_weeks", self.lead_time_weeks, "Lead time")
        if self.lead_time_weeks > 260:
            raise InvalidInput("lead_time_weeks", "A lead time of more than 5 years.")
        if self.units_in_stock is not None and self.units_in_stock > 100_000:
            raise InvalidInput("units_in_stock", "More than 100,000 servers in stock.")
        require_int("rack_units", self.rack_units, 1, 60, "Rack units")
        require_positive("max_power_kw", self.max_power_kw, "Maximum server power")
        require_non_negative("idle_power_kw", self.idle_power_kw, "Idle server power")
        if self.idle_power_kw > self.max_power_kw:
            raise InvalidInput(
                "idle_power_kw",
                f"Idle power ({self.idle_power_kw} kW) cannot exceed maximum power "
                f"({self.max_power_kw} kW).",
            )


@dataclass(frozen=True, slots=True)
class BuildOutPrices:
    """Unit costs of making a site fit (the catalog's facility items; engine defaults)."""

    cdu_price: float = defaults.CDU_PRICE_USD
    cdu_capacity_kw: float = defaults.CDU_CAPACITY_KW
    liquid_cooling_per_kw: float = defaults.LIQUID_COOLING_PER_KW_USD
    power_per_kw: float = defaults.POWER_PER_KW_USD
    currency: str = "USD"

    def __post_init__(self) -> None:
        require_non_negative("cdu_price", self.cdu_price, "CDU price")
        require_positive("cdu_capacity_kw", self.cdu_capacity_kw, "CDU capacity")
        require_non_negative(
            "liquid_cooling_per_kw", self.liquid_cooling_per_kw, "Liquid cooling per kW"
        )
        require_non_negative("power_per_kw", self.power_per_kw, "Extra power per kW")
        check_currency("currency", self.currency)


DEFAULT_BUILD_OUT = BuildOutPrices()


@dataclass(frozen=True, slots=True)
class SiteSpec:
    """Where owned servers run: energy price, PUE, colocation, rack limits.

    Colocation is billed per provisioned IT kW by default (servers x max kW);
    set ``colocation_billed_on_facility_kw`` when the contract bills IT kW x PUE.
    """

    electricity_price_per_kwh: float
    pue: float
    colocation_per_kw_month: float
    rack_power_limit_kw: float
    currency: str = "USD"
    carbon_kg_per_kwh: float | None = None
    rack_units_limit: int = 42
    colocation_billed_on_facility_kw: bool = False
    name: str = "site"
    country: str = ""  # ISO alpha-2; empty: unknown
    on_premises: bool = False  # the buyer's own building (not a colocation data centre)
    # A desk or an office: no rack, no fabric, no installation, no operations staff.
    workstation: bool = False
    # What the site can take (tco/engine/site.py): its cooling, the PUE of liquid-cooled
    # racks (None: ``pue``), the IT power free for the fleet and what the grid connection
    # could add (None: not limited), the build-out unit costs, and the liquid-ready
    # colocation the owned fleet moves to when this site cannot take it (None: none).
    cooling: SiteCooling = SiteCooling.AIR
    pue_liquid: float | None = None
    available_it_kw: float | None = None
    grid_headroom_kw: float | None = None
    build_out: BuildOutPrices = field(default_factory=lambda: DEFAULT_BUILD_OUT)
    fallback: SiteSpec | None = None
    # The buyer described this site (chose it, or gave what it takes); False: a default the
    # buyer never chose, which the result calls "the default site", not "your site".
    described: bool = True

    def __post_init__(self) -> None:
        if self.pue_liquid is not None and not 1.0 <= self.pue_liquid <= 3.0:
            raise InvalidInput(
                "pue_liquid", f"PUE must be between 1.0 and 3.0, got {self.pue_liquid}."
            )
        if self.available_it_kw is not None:
            require_non_negative("available_it_kw", self.available_it_kw, "Available IT power")
        if self.grid_headroom_kw is not None:
            require_non_negative("grid_headroom_kw", self.grid_headroom_kw, "Grid headroom")
        require_non_negative(
            "electricity_price_per_kwh", self.electricity_price_per_kwh, "Electricity price"
        )
        _finite("pue", self.pue)
        if not 1.0 <= self.pue <= 3.0:
            raise InvalidInput(
                "pue",
                f"PUE must be between 1.0 (every watt reaches IT) and 3.0, got {self.pue}.",
            )
        require_non_negative(
            "colocation_per_kw_month", self.colocation_per_kw_month, "Colocation price"
        )
        require_positive("rack_power_limit_kw", self.rack_power_limit_kw, "Rack power limit")
        check_currency("currency", self.currency)
        if self.carbon_kg_per_kwh is not None:
            require_non_negative("carbon_kg_per_kwh", self.carbon_kg_per_kwh, "Carbon intensity")
        require_int("rack_units_limit", self.rack_units_limit, 1, 60, "Usable rack units")
        require_country("country", self.country)
        if self.workstation and not self.on_premises:
            raise InvalidInput(
                "workstation", "A workstation stands in the buyer's own building: on_premises."
            )


@dataclass(frozen=True, slots=True)
class CloudOfferingSpec:
    """A rentable GPU instance at one billing term.

    ``price_per_hour`` is per instance-hour, or per GPU-hour when
    ``price_basis`` is GPU_HOUR (normalised to the instance internally).
    """

    provider: str
    instance_type: str
    term: CloudTerm
    gpus_per_instance: int
    price_per_hour: float
    currency: str = "USD"
    price_basis: PriceBasis = PriceBasis.INSTANCE_HOUR
    spot_interruption_overhead: float = defaults.SPOT_INTERRUPTION_OVERHEAD
    storage_egress_uplift_pct: float = 0.0
    gpu: GpuSpec | None = None  # None: the same GPU as the owned server
    min_billed_hours: float = 0.0  # per run, e.g. a capacity block's minimum duration
    pue: float | None = None  # the provider's data centres in that region
    carbon_kg_per_kwh: float | None = None  # the region's grid
    jurisdiction: str = ""  # ISO alpha-2 of the provider's controlling law; empty: unknown
    data_country: str = ""  # ISO alpha-2 of the region processing the data; empty: unknown
    # Days from ordering until the instances run: 0 on demand, a capacity block's booking
    # lead time, a reserved term's provisioning time (docs/methodology.md § 3i).
    ready_in_days: float = 0.0

    def __post_init__(self) -> None:
        require_non_negative("ready_in_days", self.ready_in_days, "Booking lead time")
        if self.ready_in_days > 730:
            raise InvalidInput("ready_in_days", "A booking lead time of more than 2 years.")
        if not isinstance(self.term, CloudTerm):
            raise InvalidInput("term", f"Unknown billing term {self.term!r}.")
        require_int("gpus_per_instance", self.gpus_per_instance, 1, 1024, "GPUs per instance")
        require_positive("price_per_hour", self.price_per_hour, "Cloud price per hour")
        check_currency("currency", self.currency)
        require_non_negative(
            "spot_interruption_overhead", self.spot_interruption_overhead, "Spot overhead"
        )
        require_non_negative(
            "storage_egress_uplift_pct", self.storage_egress_uplift_pct, "Storage/egress uplift"
        )
        require_non_negative("min_billed_hours", self.min_billed_hours, "Minimum billed hours")
        if self.pue is not None:
            _finite("pue", self.pue)
            if not 1.0 <= self.pue <= 3.0:
                raise InvalidInput("pue", f"PUE must be between 1.0 and 3.0, got {self.pue}.")
        if self.carbon_kg_per_kwh is not None:
            require_non_negative("carbon_kg_per_kwh", self.carbon_kg_per_kwh, "Carbon intensity")
        require_country("jurisdiction", self.jurisdiction)
        require_country("data_country", self.data_country)

    @property
    def term_months(self) -> int:
        """Length of a commitment that must be paid in full (0: billed by use)."""
        return {CloudTerm.COMMITTED_1Y: 12, CloudTerm.COMMITTED_3Y: 36}.get(self.term, 0)

    @property
    def name(self) -> str:
        return f"{self.provider} {self.instance_type} ({self.term.value})"

    @property
    def price_per_instance_hour(self) -> float:
        """Price of one whole instance for one hour, in the offering's currency."""
        if self.price_basis is PriceBasis.GPU_HOUR:
            return self.price_per_hour * self.gpus_per_instance
        return self.price_per_hour

    @property
    def usage_multiplier(self) -> float:
        """Hours billed per hour of useful work (spot loses work to interruptions)."""
        return 1.0 + self.spot_interruption_overhead if self.term is CloudTerm.SPOT else 1.0


@dataclass(frozen=True, slots=True)
class ApiOfferingSpec:
    """A hosted model API priced per token (tco/engine/hosted_api.py costs it).

    Prices are per million tokens in ``currency``; input (prompt) and output
    (completion) tokens are priced separately. ``jurisdiction`` and ``data_country``
    are ISO 3166 alpha-2 codes (empty: unknown), as on cloud offerings.
    """

    provider: str
    model: str
    price_input_per_million: float
    price_output_per_million: float
    currency: str = "USD"
    params_billion: float | None = None  # the model's size, to match the workload
    region: str = ""
    jurisdiction: str = ""
    data_country: str = ""

    def __post_init__(self) -> None:
        require_non_negative(
            "price_input_per_million", self.price_input_per_million, "Price per million input"
        )
        require_positive(
            "price_output_per_million", self.price_output_per_million, "Price per million output"
        )
        check_currency("currency", self.currency)
        if self.params_billion is not None:
            require_positive("params_billion", self.params_billion, "Model size")

    @property
    def name(self) -> str:
        return f"{self.provider} {self.model} (api)"

    def price_per_request(self, input_tokens: float, output_tokens: float) -> float:
        """Input and output tokens of one request at their own prices, in ``currency``.

        >>> round(ApiOfferingSpec("Groq", "Llama", 0.59, 0.79).price_per_request(1000, 400), 9)
        0.000906
        """
        return (
            input_tokens * self.price_input_per_million
            + output_tokens * self.price_output_per_million
        ) / 1e6


# --- workload -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModelShape:
    """Transformer shape; when unknown the engine derives one (see memory.py).

    ``attention_head_dim``: the width of one attention head when the model sets it apart
    from hidden ÷ heads (Qwen3: 64 heads of 128 on a 4,096-wide model); None: hidden ÷ heads.
    """

    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    attention_head_dim: int | None = None

    def __post_init__(self) -> None:
        require_int("layers", self.layers, 1, 10_000, "Layers")
        require_int("hidden_size", self.hidden_size, 1, 1_000_000, "Hidden size")
        require_int("attention_heads", self.attention_heads, 1, 10_000, "Attention heads")
        require_int("kv_heads", self.kv_heads, 1, self.attention_heads, "KV heads")
        if self.attention_head_dim is not None:
            require_int("attention_head_dim", self.attention_head_dim, 1, 100_000, "Head size")

    @property
    def head_dim(self) -> float:
        return self.attention_head_dim or self.hidden_size / self.attention_heads

    @property
    def attention_width(self) -> float:
        """Query width of a layer's attention, heads × head size (= hidden for most models)."""
        return self.attention_heads * self.head_dim


# --- serving demand in business terms (derivation: tco/engine/serving.py) -------


@dataclass(frozen=True, slots=True)
class ServingDemand:
    """Who uses the model and how: the inputs of the derivation (scenario ``serving_demand``).

    ``hours_per_day`` is the working day in which the requests arrive (24 with
    ``days_per_week`` 7 is around the clock); ``peak_factor`` is the busiest hour's load
    over the working day's average; ``latency_ms_per_token`` the time per output token
    and ``time_to_first_token_ms`` the wait for the first one that each user should see
    (None: the default of the workload's ``serving_use``).
    """

    users: int
    requests_per_user_per_day: float
    output_tokens_per_request: float
    input_tokens_per_request: float = 0.0
    peak_factor: float = defaults.SERVING_PEAK_FACTOR
    hours_per_day: float = 24.0
    days_per_week: float = 7.0
    latency_ms_per_token: float | None = None
    time_to_first_token_ms: float | None = None

    def __post_init__(self) -> None:
        require_int("users", self.users, 1, 1_000_000_000, "Users")
        require_positive(
            "requests_per_user_per_day", self.requests_per_user_per_day, "Requests per user a day"
        )
        require_positive(
            "output_tokens_per_request", self.output_tokens_per_request, "Output tokens a request"
        )
        _finite("input_tokens_per_request", self.input_tokens_per_request)
        if self.input_tokens_per_request < 0:
            raise InvalidInput(
                "input_tokens_per_request", "Input tokens a request cannot be negative."
            )
        _finite("peak_factor", self.peak_factor)
        if not 1.0 <= self.peak_factor <= 100.0:
            raise InvalidInput(
                "peak_factor",
                "The peak factor is the busiest hour's load over the average: between 1 and "
                f"100, got {self.peak_factor}.",
            )
        _finite("hours_per_day", self.hours_per_day)
        if not 0 < self.hours_per_day <= 24.0:
            raise InvalidInput(
                "hours_per_day",
                f"Hours a day must be above 0 and at most 24, got {self.hours_per_day}.",
            )
        _finite("days_per_week", self.days_per_week)
        if not 0 < self.days_per_week <= 7.0:
            raise InvalidInput(
                "days_per_week",
                f"Days a week must be above 0 and at most 7, got {self.days_per_week}.",
            )
        if self.latency_ms_per_token is not None:
            require_positive(
                "latency_ms_per_token", self.latency_ms_per_token, "Time per output token"
            )
        if self.time_to_first_token_ms is not None:
            require_positive(
                "time_to_first_token_ms", self.time_to_first_token_ms, "Time to first token"
            )

    @property
    def around_the_clock(self) -> bool:
        return self.hours_per_day >= 24.0 and self.days_per_week >= 7.0


@dataclass(frozen=True, slots=True)
class Workload:
    """What the buyer wants to run. Defaults are documented in docs/methodology.md."""

    kind: WorkloadKind
    params_billion: float
    tokens_billion: float | None = None
    deadline_days: float | None = None
    active_params_billion: float | None = None  # MoE: parameters used per token
    precision: Precision = Precision.BF16
    optimizer: Optimizer = Optimizer.ADAM_MIXED
    sharding: Sharding | None = None  # None: the engine picks DDP or ZeRO-3
    recompute: Recompute = Recompute.SELECTIVE
    shape: ModelShape | None = None
    sequence_length: int = defaults.SEQUENCE_LENGTH
    micro_batch_size: int = defaults.MICRO_BATCH_SIZE
    tensor_parallel: int | None = None  # None: the plan search tries 1, 2, 4, 8
    framework_overhead_gb: float = defaults.FRAMEWORK_OVERHEAD_GB
    mfu: float = defaults.MFU
    goodput: float = defaults.GOODPUT
    interconnect: Interconnect = Interconnect.INFINIBAND
    lora_adapter_fraction: float = defaults.LORA_ADAPTER_FRACTION
    memory_headroom: float = defaults.MEMORY_HEADROOM  # a plan fits in (1 - headroom) x memory
    global_batch_tokens: float = defaults.GLOBAL_BATCH_TOKENS  # sets micro-batches per step
    pipeline_parallel: int | None = None  # None: the plan search chooses
    context_parallel: int | None = None  # None: the plan search chooses
    target_tokens_per_second: float | None = None
    # Serving (docs/methodology.md, "Serving a model copy"). None: the engine derives or
    # chooses the value (context from the requests' tokens, the batch from the targets).
    context_tokens: int | None = None
    concurrent_sequences: int | None = None
    kv_cache_bytes: float = defaults.KV_CACHE_BYTES
    serving_efficiency: float = 1.0  # × the calibrated efficiencies: 1 = the engine's fit
    inference_overhead_fraction: float = 0.0  # extra memory per copy, × its weights
    serving_use: ServingUse = ServingUse.INTERACTIVE
    # Serving: users and requests; the target tokens/s is then derived (peak) by the engine.
    serving_demand: ServingDemand | None = None
    # Mixture of experts (active_params_billion below params_billion): routed experts and
    # how many each token uses. None: defaults.MOE_EXPERTS and MOE_EXPERTS_PER_TOKEN.
    experts: int | None = None
    experts_per_token: int | None = None

    def __post_init__(self) -> None:
        self._check_model()
        self._check_training_plan()
        self._check_serving()
        self._check_experts()

    def _check_model(self) -> None:
        """The workload's kind, model size and, for training, its tokens and deadline."""
        if not isinstance(self.kind, WorkloadKind):
            raise InvalidInput("kind", f"Unknown workload kind {self.kind!r}.")
        require_positive("params_billion", self.params_billion, "Model size")
        if self.active_params_billion is not None:
            require_positive("active_params_billion", self.active_params_billion, "Active params")
            if self.active_params_billion > self.params_billion:
                raise InvalidInput(
                    "active_params_billion",
                    "Active parameters per token cannot exceed the total parameter count.",
                )
        if self.serving_demand is not None and self.kind.is_training:
            raise InvalidInput(
                "serving_demand", "Users and requests describe a served model, not training."
            )
        if self.kind.is_training:
            if self.tokens_billion is None:
                raise InvalidInput("tokens_billion", "A training run needs its token count.")
            require_positive("tokens_billion", self.tokens_billion, "Training tokens")
        if self.deadline_days is not None:
            require_positive("deadline_days", self.deadline_days, "The deadline")

    def _check_training_plan(self) -> None:
        """Sequence, batch, parallel degrees, memory headroom and efficiencies."""
        require_int("sequence_length", self.sequence_length, 1, 10_000_000, "Sequence length")
        require_int("micro_batch_size", self.micro_batch_size, 1, 100_000, "Micro-batch size")
        if self.tensor_parallel is not None:
            require_int("tensor_parallel", self.tensor_parallel, 1, 1024, "Tensor-parallel degree")
        if self.pipeline_parallel is not None:
            require_int(
                "pipeline_parallel", self.pipeline_parallel, 1, 10_000, "Pipeline-parallel degree"
            )
        if self.context_parallel is not None:
            require_int(
                "context_parallel", self.context_parallel, 1, 1024, "Context-parallel degree"
            )
        _finite("memory_headroom", self.memory_headroom)
        if not 0 <= self.memory_headroom < 1:
            raise InvalidInput(
                "memory_headroom",
                "Memory headroom is a fraction of GPU memory kept free, from 0 up to (not "
                f"including) 1, e.g. 0.1 for 10 %; got {self.memory_headroom}.",
            )
        require_positive("global_batch_tokens", self.global_batch_tokens, "Global batch (tokens)")
        require_non_negative(
            "framework_overhead_gb", self.framework_overhead_gb, "Framework overhead"
        )
        require_fraction("mfu", self.mfu, "MFU", allow_zero=False)
        require_fraction("goodput", self.goodput, "Goodput", allow_zero=False)
        require_fraction(
            "lora_adapter_fraction",
            self.lora_adapter_fraction,
            "Adapter fraction",
            allow_zero=False,
        )

    def _check_serving(self) -> None:
        """The serving targets and what a served copy needs in memory."""
        if self.target_tokens_per_second is not None:
            require_positive(
                "target_tokens_per_second", self.target_tokens_per_second, "Target tokens/s"
            )
        if self.context_tokens is not None:
            require_int("context_tokens", self.context_tokens, 1, 100_000_000, "Context length")
        if self.concurrent_sequences is not None:
            require_int(
                "concurrent_sequences", self.concurrent_sequences, 1, 1_000_000, "Concurrency"
            )
        if not isinstance(self.serving_use, ServingUse):
            raise InvalidInput("serving_use", f"Unknown serving use {self.serving_use!r}.")
        require_positive("kv_cache_bytes", self.kv_cache_bytes, "KV-cache bytes per value")
        require_fraction(
            "serving_efficiency", self.serving_efficiency, "Serving efficiency", allow_zero=False
        )
        require_non_negative(
            "inference_overhead_fraction", self.inference_overhead_fraction, "Overhead fraction"
        )

    def _check_experts(self) -> None:
        """Experts only for a mixture of experts, and a split that leaves shared weights."""
        for name in ("experts", "experts_per_token"):
            value = getattr(self, name)
            if value is not None:
                require_int(name, value, 1, 100_000, name.replace("_", " ").capitalize())
                if not self.is_moe:
                    raise InvalidInput(
                        name,
                        "Experts describe a mixture of experts: give active_params_billion "
                        "below params_billion too.",
                    )
        if not self.is_moe:
            return
        experts, per_token = self.expert_counts
        if per_token >= experts:
            raise InvalidInput(
                "experts_per_token",
                f"Each token uses some of the experts: fewer than {experts}, got {per_token}.",
            )
        per_expert = (self.params - self.active_params) / (experts - per_token)
        if per_token * per_expert > self.active_params * (1 + 1e-9):
            raise InvalidInput(
                "experts",
                f"{experts} experts of which {per_token} per token cannot hold "
                f"{self.params_billion:g} B parameters with {self.active_params / 1e9:g} B "
                "active: give the model's expert count and experts per token.",
            )

    @property
    def is_moe(self) -> bool:
        return self.active_params_billion is not None and (
            self.active_params_billion < self.params_billion
        )

    @property
    def expert_counts(self) -> tuple[int, int]:
        """(routed experts, experts per token) of a mixture of experts, defaults filled in."""
        return (
            self.experts or defaults.MOE_EXPERTS,
            self.experts_per_token or defaults.MOE_EXPERTS_PER_TOKEN,
        )

    @property
    def params(self) -> float:
        return self.params_billion * 1e9

    @property
    def active_params(self) -> float:
        active = self.active_params_billion or self.params_billion
        return active * 1e9

    @property
    def tokens(self) -> float:
        return (self.tokens_billion or 0.0) * 1e9


# --- money over time ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeaseTerms:
    """Financing: an annuity replaces the upfront purchase."""

    annual_rate: float
    term_months: int

    def __post_init__(self) -> None:
        require_non_negative("annual_rate", self.annual_rate, "Lease interest rate")
        if self.annual_rate > 1:
            raise InvalidInput("annual_rate", "Enter the lease rate as a fraction, e.g. 0.07.")
        require_int("term_months", self.term_months, 1, 240, "Lease term (months)")


class DemandPattern(StrEnum):
    """How often the workload runs over the horizon (docs/methodology.md, "Demand")."""

    ONE_OFF = "one_off"
    RECURRING = "recurring"
    CONTINUOUS = "continuous"


@dataclass(frozen=True, slots=True)
class Demand:
    """The work the buyer actually has over the horizon.

    ``one_off`` and ``recurring`` training runs imply the owned fleet's
    utilization (derived, never an input); ``continuous`` keeps a fleet busy at
    ``utilization`` (None: ``FinanceInputs.utilization``), with an optional
    yearly growth of the served load. Bursts or a monthly profile (server-
    equivalents busy per month) feed the hybrid optimiser.
    """

    pattern: DemandPattern = DemandPattern.CONTINUOUS
    runs_per_year: float | None = None
    utilization: float | None = None
    growth_per_year: float = 0.0
    tolerates_interruptions: bool = False
    bursts_per_year: float = 0.0
    burst_servers: float = 0.0
    burst_days: float = 0.0
    monthly_profile: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, DemandPattern):
            raise InvalidInput("pattern", f"Unknown demand pattern {self.pattern!r}.")
        if self.pattern is DemandPattern.RECURRING:
            if self.runs_per_year is None:
                raise InvalidInput("runs_per_year", "Say how many runs a year the work needs.")
            require_positive("runs_per_year", self.runs_per_year, "Runs per year")
            if self.runs_per_year > 8760:
                raise InvalidInput("runs_per_year", "At most 8,760 runs a year (one an hour).")
        elif self.runs_per_year is not None:
            require_positive("runs_per_year", self.runs_per_year, "Runs per year")
        if self.utilization is not None:
            require_fraction("utilization", self.utilization, "Utilization", allow_zero=False)
        _finite("growth_per_year", self.growth_per_year)
        if not -0.9 <= self.growth_per_year <= 10:
            raise InvalidInput(
                "growth_per_year",
                "Enter yearly growth as a fraction between -0.9 and 10 (e.g. 0.3 for 30 %), "
                f"got {self.growth_per_year}.",
            )
        require_non_negative("bursts_per_year", self.bursts_per_year, "Bursts per year")
        require_non_negative("burst_servers", self.burst_servers, "Servers per burst")
        require_non_negative("burst_days", self.burst_days, "Days per burst")
        if self.bursts_per_year * self.burst_days > 366:
            raise InvalidInput("burst_days", "Bursts cannot take more than the whole year.")
        if self.monthly_profile is not None:
            object.__setattr__(self, "monthly_profile", tuple(self.monthly_profile))
            if not self.monthly_profile:
                raise InvalidInput("monthly_profile", "Give at least one month of demand.")
            for value in self.monthly_profile:
                require_non_negative("monthly_profile", value, "Monthly demand")

    @property
    def derives_utilization(self) -> bool:
        return self.pattern is not DemandPattern.CONTINUOUS


def _pair(name: str, value: tuple[float, float], low: float, high: float) -> None:
    a, b = value
    if not (math.isfinite(a) and math.isfinite(b)) or a > b or a < low or b > high:
        raise InvalidInput(
            name, f"Give a range [low, high] with {low} ≤ low ≤ high ≤ {high}, got {list(value)}."
        )


@dataclass(frozen=True, slots=True)
class UncertaintyRanges:
    """Uniform ranges of the Monte Carlo draws (defaults and sources in the methodology).

    Multipliers (× the scenario's value): electricity, demand, server price,
    resale. Shifts (+ the scenario's value): discount rate, PUE. The cloud
    price trend is the change of cloud prices by the end of the horizon.
    """

    cloud_price_trend: tuple[float, float] = (-0.30, 0.10)
    electricity: tuple[float, float] = (0.75, 1.30)
    demand: tuple[float, float] = (0.80, 1.20)
    server_price: tuple[float, float] = (0.90, 1.05)
    resale: tuple[float, float] = (0.50, 1.50)
    discount_rate: tuple[float, float] = (-0.03, 0.04)
    pue: tuple[float, float] = (-0.05, 0.15)
    draws: int = 10_000
    seed: int = 2026

    def __post_init__(self) -> None:
        for name, low, high in (
            ("cloud_price_trend", -0.95, 5.0),
            ("electricity", 0.0, 10.0),
            ("demand", 0.0, 10.0),
            ("server_price", 0.0, 10.0),
            ("resale", 0.0, 10.0),
            ("discount_rate", -1.0, 1.0),
            ("pue", -2.0, 2.0),
        ):
            value = tuple(getattr(self, name))
            if len(value) != 2:
                raise InvalidInput(name, "Give a range as two numbers [low, high].")
            object.__setattr__(self, name, (float(value[0]), float(value[1])))
            _pair(name, getattr(self, name), low, high)
        if isinstance(self.draws, bool) or not isinstance(self.draws, int):
            raise InvalidInput("draws", "The number of draws must be a whole number.")
        if not 100 <= self.draws <= 100_000:
            raise InvalidInput("draws", f"Use 100 to 100,000 draws, got {self.draws}.")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InvalidInput("seed", "The seed must be a whole number, zero or more.")

    @classmethod
    def none(cls) -> UncertaintyRanges:
        """Zero-width ranges: every draw is the deterministic scenario."""
        return cls(
            (0.0, 0.0), (1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (0.0, 0.0), (0.0, 0.0)
        )


@dataclass(frozen=True, slots=True)
class LabeledAmount:
    """A named amount: a fixed monthly fee or a one-off purchase (``FinanceInputs``)."""

    label: str
    amount: float

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not self.label.strip():
            raise InvalidInput("label", "Give the amount a label (e.g. 'facility fee').")
        if len(self.label) > 120:
            raise InvalidInput("label", "Keep the label under 120 characters.")
        require_non_negative("amount", self.amount, "The amount")


@dataclass(frozen=True, slots=True)
class FinanceInputs:
    """Horizon, discounting, utilization and the on-prem cost items.

    Amounts are in ``currency``; results are in ``reporting_currency``.
    """

    horizon_months: int = 60
    discount_rate: float = 0.08
    utilization: float = 0.70
    reporting_currency: str = "USD"
    fx: FxRates = field(default_factory=FxRates)
    currency: str = "USD"
    # None: by what the plan needs and the site (tco/engine/extras.py); a number is the
    # buyer's own figure, taken as it is.
    networking_per_server: float | None = None
    storage_total: float = 0.0
    installation_per_server: float | None = None
    spares_pct: float = 0.0
    support_pct_per_year: float = defaults.SUPPORT_PCT_PER_YEAR
    staff_fte: float | None = None
    staff_annual_cost: float = defaults.STAFF_ANNUAL_COST_USD
    software_per_gpu_year: float = 0.0
    insurance_pct_per_year: float = defaults.INSURANCE_PCT_PER_YEAR
    residual_pct: float = defaults.RESIDUAL_PCT
    lease: LeaseTerms | None = None
    tornado_pct: float = 0.20
    fixed_monthly: tuple[LabeledAmount, ...] = ()
    one_off: tuple[LabeledAmount, ...] = ()
    lease_annual_rate: float = defaults.LEASE_ANNUAL_RATE
    lease_terms_months: tuple[int, ...] = (36, 48, 60)
    resale_by_year: tuple[float, ...] = defaults.RESALE_BY_YEAR
    # After this many months the fleet is replaced (bought again, the old one sold).
    service_life_months: int = defaults.SERVICE_LIFE_MONTHS

    def __post_init__(self) -> None:
        require_int("horizon_months", self.horizon_months, 12, 120, "The horizon (months)")
        require_int(
            "service_life_months", self.service_life_months, 12, 240, "The service life (months)"
        )
        require_non_negative("discount_rate", self.discount_rate, "Discount rate")
        if self.discount_rate > 1:
            raise InvalidInput("discount_rate", "Enter the discount rate as a fraction, e.g. 0.08.")
        require_fraction("utilization", self.utilization, "Utilization")
        check_currency("reporting_currency", self.reporting_currency)
        check_currency("currency", self.currency)
        for name in ("storage_total", "staff_annual_cost", "software_per_gpu_year"):
            require_non_negative(name, getattr(self, name))
        for name in ("networking_per_server", "installation_per_server", "staff_fte"):
            if getattr(self, name) is not None:
                require_non_negative(name, getattr(self, name))
        for name in ("spares_pct", "support_pct_per_year", "insurance_pct_per_year"):
            require_fraction(name, getattr(self, name), name.replace("_", " ").capitalize())
        require_fraction("residual_pct", self.residual_pct, "Residual value")
        require_fraction("tornado_pct", self.tornado_pct, "Tornado swing", allow_zero=False)
        for name in ("fixed_monthly", "one_off", "lease_terms_months", "resale_by_year"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        require_fraction("lease_annual_rate", self.lease_annual_rate, "Lease interest rate")
        if not self.lease_terms_months or len(self.lease_terms_months) > 6:
            raise InvalidInput("lease_terms_months", "Give one to six lease terms in months.")
        for term in self.lease_terms_months:
            require_int("lease_terms_months", term, 1, 240, "Lease term (months)")
        if not 1 <= len(self.resale_by_year) <= 16:
            raise InvalidInput(
                "resale_by_year", "Give the resale value at age 0, 1, 2, … years (1 to 16 values)."
            )
        for value in self.resale_by_year:
            require_fraction("resale_by_year", value, "A resale value")
        if any(b > a for a, b in itertools.pairwise(self.resale_by_year)):
            raise InvalidInput("resale_by_year", "Resale values cannot rise with age.")

    @property
    def fixed_monthly_total(self) -> float:
        return sum(item.amount for item in self.fixed_monthly)

    @property
    def one_off_total(self) -> float:
        return sum(item.amount for item in self.one_off)


@dataclass(frozen=True, slots=True)
class Scenario:
    """Everything :func:`tco.engine.evaluate` needs.

    ``servers`` fixes the fleet size; when None the engine sizes it from the
    workload (memory fit, deadline, target throughput).
    """

    workload: Workload
    server: ServerSpec
    site: SiteSpec
    cloud_offerings: tuple[CloudOfferingSpec, ...]
    finance: FinanceInputs = field(default_factory=FinanceInputs)
    servers: int | None = None
    name: str = "scenario"
    demand: Demand | None = None  # None: continuous at finance.utilization (older files)
    uncertainty: UncertaintyRanges | None = None  # None: the documented default ranges
    constraints: Constraints = field(default_factory=Constraints)
    api_offerings: tuple[ApiOfferingSpec, ...] = ()  # hosted model APIs priced per token
    capacity: CapacityInputs | None = None  # None: every option is ready on day one
    # Servers with fewer GPUs a unit than ``server`` (the catalog's): when the owned fleet
    # would be mostly idle, the verdict names the cheapest of them that does the work.
    smaller_servers: tuple[ServerSpec, ...] = ()

    def __post_init__(self) -> None:
        # Accept a list from callers but keep the frozen scenario hashable-friendly.
        object.__setattr__(self, "cloud_offerings", tuple(self.cloud_offerings))
        object.__setattr__(self, "smaller_servers", tuple(self.smaller_servers))
        object.__setattr__(self, "api_offerings", tuple(self.api_offerings))
        if self.api_offerings and self.workload.serving_demand is None:
            raise InvalidInput(
                "api_offerings",
                "Hosted APIs are priced per token: describe the serving demand in users and "
                "requests (workload.serving_demand) to compare them.",
            )
        if not self.cloud_offerings:
            raise InvalidInput("cloud_offerings", "Add at least one cloud offering to compare.")
        if self.servers is not None:
            require_int("servers", self.servers, 1, 100_000, "Number of servers")
        if (
            self.demand is not None
            and self.demand.derives_utilization
            and not self.workload.kind.is_training
        ):
            raise InvalidInput(
                "demand.pattern",
                "Serving is continuous work: choose 'continuous' demand for inference.",
            )
