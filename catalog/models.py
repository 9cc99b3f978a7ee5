"""What can be bought or rented, at what price, according to whom and since when.

Every price and spec row carries its provenance (`source`, `source_url`, `as_of`) and
`is_estimate` where no public source exists, so that the app can show where a figure
comes from and how old it is.
"""

from collections.abc import Iterable
from datetime import date
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _


class Currency(models.TextChoices):
    USD = "USD", "USD"
    EUR = "EUR", "EUR"


# A server is sold for about as long as it is kept in service (docs/catalog.md, "Sale life"):
# a system whose price is dated more than SALE_LIFE_YEARS before the catalog's newest server
# price is a generation behind the rest (the DGX A100's launch price of May 2020 beside the
# B300 and GB300 prices of 2026), and its price is no offer.
SALE_LIFE_YEARS = 5


def sale_life_start(newest: date) -> date:
    """The earliest price date of a system on sale in a catalog whose newest server price is
    dated ``newest``: SALE_LIFE_YEARS before it (29 February → 28 February)."""
    try:
        return newest.replace(year=newest.year - SALE_LIFE_YEARS)
    except ValueError:
        return newest.replace(year=newest.year - SALE_LIFE_YEARS, day=28)


def past_sale_life(servers: Iterable["ServerModel"]) -> set[str]:
    """The keys of the servers past their sale life among ``servers`` (the whole catalog):
    "the cheapest that fits" and a new quote line do not offer them; they can still be
    chosen, flagged. Read from the catalog's dates, not today's: a catalog priced in 2026
    flags the same systems whenever it is read."""
    servers = list(servers)
    if not servers:
        return set()
    start = sale_life_start(max(server.as_of for server in servers))
    return {server.key for server in servers if server.as_of < start}


class Provenance(models.Model):
    source = models.CharField(_("source"), max_length=300)
    # The source as Dutch readers read it (empty: the English one is shown).
    source_nl = models.CharField(_("source in Dutch"), max_length=360, blank=True)
    source_url = models.URLField(_("source URL"), blank=True)
    as_of = models.DateField(_("as of"))
    is_estimate = models.BooleanField(_("estimate"), default=False)

    class Meta:
        abstract = True

    def display_source(self) -> str:
        """The source in the active language: the Dutch one for Dutch readers when known."""
        return _in_language(self.source, self.source_nl)

    @property
    def age_days(self) -> int:
        return (timezone.localdate() - self.as_of).days

    @property
    def is_stale(self) -> bool:
        return self.age_days > settings.PRICE_STALE_AFTER_DAYS


def _in_language(english: str, dutch: str) -> str:
    """`dutch` when the active language is Dutch and it is known, else `english`."""
    return dutch if dutch and translation.get_language() == "nl" else english


def _non_negative(field: str, model: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{field}__gte": 0}), name=f"{model}_{field}_non_negative"
    )


def _positive(field: str, model: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{field}__gt": 0}), name=f"{model}_{field}_positive"
    )


class Gpu(Provenance):
    key = models.SlugField(_("key"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=80)
    vendor = models.CharField(_("vendor"), max_length=40, default="NVIDIA")
    form_factor = models.CharField(_("form factor"), max_length=20)
    memory_gb = models.DecimalField(_("memory (GB)"), max_digits=7, decimal_places=1)
    memory_type = models.CharField(_("memory type"), max_length=20, blank=True)
    memory_bandwidth_tbps = models.DecimalField(
        _("memory bandwidth (TB/s)"), max_digits=6, decimal_places=3
    )
    bf16_tflops = models.DecimalField(_("dense BF16 TFLOPS"), max_digits=8, decimal_places=1)
    fp8_tflops = models.DecimalField(
        _("dense FP8 TFLOPS"), max_digits=8, decimal_places=1, null=True, blank=True
    )
    fp4_tflops = models.DecimalField(
        _("dense FP4 TFLOPS"), max_digits=8, decimal_places=1, null=True, blank=True
    )
    tdp_w = models.PositiveIntegerField(_("TDP (W)"))
    nvlink_generation = models.CharField(_("NVLink generation"), max_length=20, blank=True)
    nvlink_bandwidth_gbps = models.PositiveIntegerField(
        _("NVLink bandwidth (GB/s)"), null=True, blank=True
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("GPU")
        verbose_name_plural = _("GPUs")
        constraints = [
            _positive("memory_gb", "gpu"),
            _positive("memory_bandwidth_tbps", "gpu"),
            _positive("bf16_tflops", "gpu"),
            _positive("tdp_w", "gpu"),
        ]

    def __str__(self) -> str:
        return self.name


class Cooling(models.TextChoices):
    """How a server sheds its heat (what the site must offer: tco/engine/site.py)."""

    AIR = "air", _("air")
    LIQUID = "liquid", _("direct liquid")
    RACK_LIQUID = "rack_liquid", _("rack liquid with CDU")


class SiteCooling(models.TextChoices):
    """The cooling a site offers a rack (tco/engine/site.py)."""

    AIR = "air", _("air only")
    REAR_DOOR = "rear_door", _("rear-door heat exchangers")
    DIRECT_LIQUID = "direct_liquid", _("direct liquid (CDUs in place)")
    FACILITY_WATER = "facility_water", _("facility water (no CDUs yet)")


class ServiceLevel(models.TextChoices):
    """How fast a fault is remedied under a warranty or support contract (printed per line
    on a proposal, worded in the reader's language)."""

    DEPOT = "depot", _("return to depot (RMA)")
    NBD_PARTS = "nbd_parts", _("next-business-day parts shipment")
    NBD_ONSITE = "nbd_onsite", _("next-business-day on site")


class ServerModel(Provenance):
    key = models.SlugField(_("key"), max_length=60, unique=True)
    vendor = models.CharField(_("vendor"), max_length=40)
    sku = models.CharField(_("SKU"), max_length=60)
    name = models.CharField(_("name"), max_length=120)
    # The description in Dutch proposals (empty: the English name is used).
    name_nl = models.CharField(_("name in Dutch"), max_length=160, blank=True)
    gpu = models.ForeignKey(Gpu, on_delete=models.PROTECT, related_name="servers")
    gpu_count = models.PositiveSmallIntegerField(_("GPUs"))
    rack_units = models.PositiveSmallIntegerField(_("rack units"))
    max_power_kw = models.DecimalField(_("max power (kW)"), max_digits=6, decimal_places=2)
    idle_power_kw = models.DecimalField(_("idle power (kW)"), max_digits=6, decimal_places=2)
    cooling = models.CharField(_("cooling"), max_length=12, choices=Cooling.choices)
    cpu = models.CharField(_("CPU"), max_length=120, blank=True)
    ram = models.CharField(_("RAM"), max_length=60, blank=True)
    network = models.CharField(_("network"), max_length=120, blank=True)
    list_price = models.DecimalField(_("list price"), max_digits=12, decimal_places=2)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    # The list price's own provenance, kept apart from the specifications' (`source`,
    # `as_of`, `is_estimate` of the row): a visitor reads the price as "Our price list"
    # without date or flag while the specifications keep their source (catalog/audience.py).
    price_source = models.CharField(_("price source"), max_length=300, blank=True)
    price_source_nl = models.CharField(_("price source in Dutch"), max_length=360, blank=True)
    price_as_of = models.DateField(_("price as of"))
    price_is_estimate = models.BooleanField(_("price is an estimate"), default=True)
    # What the server costs us, in `currency`; empty when unknown (margins then unknown).
    cost_price = models.DecimalField(
        _("cost price"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    # The manufacturer's warranty a server line carries by default (shown per line on a
    # proposal); `warranty_source` says where the terms come from ("Estimate: …" if none).
    warranty_years = models.PositiveSmallIntegerField(_("warranty (years)"), null=True, blank=True)
    service_level = models.CharField(
        _("warranty service level"), max_length=12, choices=ServiceLevel.choices, blank=True
    )
    warranty_source = models.CharField(_("warranty source"), max_length=300, blank=True)
    # Rack-scale and liquid-cooled systems: typical draw under load (empty: unknown), the
    # GPUs one NVLink domain joins, whether the row is a whole rack (its own 48U frame,
    # power shelves and manifolds) and what the facility must supply.
    typical_power_kw = models.DecimalField(
        _("typical power (kW)"), max_digits=6, decimal_places=2, null=True, blank=True
    )
    nvlink_domain_gpus = models.PositiveSmallIntegerField(_("GPUs in one NVLink domain"), default=8)
    whole_rack = models.BooleanField(_("whole rack"), default=False)
    facility_needs = models.CharField(_("facility needs"), max_length=300, blank=True)
    facility_needs_nl = models.CharField(_("facility needs in Dutch"), max_length=300, blank=True)

    class Meta:
        ordering = ["vendor", "sku", "gpu__name"]
        verbose_name = _("server model")
        constraints = [
            models.UniqueConstraint(fields=["sku", "gpu"], name="server_sku_gpu_unique"),
            _positive("gpu_count", "server"),
            _positive("rack_units", "server"),
            _positive("max_power_kw", "server"),
            _non_negative("idle_power_kw", "server"),
            _non_negative("list_price", "server"),
            models.CheckConstraint(
                condition=Q(idle_power_kw__lte=models.F("max_power_kw")),
                name="server_idle_not_above_max",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.vendor} {self.sku} ({self.gpu_count}× {self.gpu.name})"

    @property
    def age_days(self) -> int:
        """The list price's age (a server's freshness is its price's)."""
        return (timezone.localdate() - self.price_as_of).days

    def display_price_source(self) -> str:
        """Where the list price comes from, in the active language (its price source, else
        the row's source)."""
        if self.price_source:
            return _in_language(self.price_source, self.price_source_nl)
        return self.display_source()


class PartRole(models.TextChoices):
    """What a part of a server's configuration is (the proposal groups by it)."""

    CPU = "cpu", _("processor")
    MEMORY = "memory", _("memory")
    BOOT = "boot", _("boot drive")
    NVME = "nvme", _("NVMe storage")
    NIC = "nic", _("network adapter")
    PSU = "psu", _("power supply")


class ServerPart(Provenance):
    """One part of a server model's configuration as we sell it: role, quantity per server,
    description and the manufacturer's part number (empty where none is published).

    `is_estimate` marks a choice of ours within what the spec sheet allows (a configure-
    to-order system's CPU or drives), as opposed to a part the vendor fixes (a DGX's).
    """

    server = models.ForeignKey(ServerModel, on_delete=models.CASCADE, related_name="parts")
    position = models.PositiveSmallIntegerField(_("position"))
    role = models.CharField(_("role"), max_length=10, choices=PartRole.choices)
    quantity = models.PositiveSmallIntegerField(_("quantity per server"))
    description = models.CharField(_("description"), max_length=200)
    description_nl = models.CharField(_("description in Dutch"), max_length=240, blank=True)
    part_number = models.CharField(_("part number"), max_length=60, blank=True)

    class Meta:
        ordering = ["server", "position"]
        verbose_name = _("server part")
        constraints = [
            models.UniqueConstraint(fields=["server", "position"], name="server_part_position"),
            _positive("quantity", "server_part"),
        ]

    def __str__(self) -> str:
        return f"{self.server.key} #{self.position}: {self.quantity} × {self.description}"

    def display_description(self, language: str) -> str:
        """The description in `language`: the Dutch one for Dutch readers when known."""
        return self.description_nl if language == "nl" and self.description_nl else self.description


class PricingTerm(models.TextChoices):
    ON_DEMAND = "on_demand", _("on-demand")
    RESERVED_1Y = "reserved_1y", _("1-year commitment")
    RESERVED_3Y = "reserved_3y", _("3-year commitment")
    SPOT = "spot", _("spot")
    CAPACITY_BLOCK = "capacity_block", _("capacity block")


_PRICING_TERMS = frozenset(PricingTerm.values)  # `.values` builds a list on every read


class CloudOffering(Provenance):
    key = models.SlugField(_("key"), max_length=80, unique=True)
    provider = models.CharField(_("provider"), max_length=40)
    instance_type = models.CharField(_("instance type"), max_length=60)
    region = models.CharField(_("region"), max_length=40)
    gpu = models.ForeignKey(Gpu, on_delete=models.PROTECT, related_name="cloud_offerings")
    gpu_count = models.PositiveSmallIntegerField(_("GPUs"))
    term = models.CharField(_("pricing term"), max_length=20, choices=PricingTerm.choices)
    price_per_hour = models.DecimalField(
        _("price per instance-hour"), max_digits=10, decimal_places=4
    )
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    # Data sovereignty (tco/engine/constraints.py): ISO 3166 alpha-2, empty = unknown.
    jurisdiction = models.CharField(
        _("jurisdiction"),
        max_length=2,
        blank=True,
        help_text=_("Country whose law controls the provider (its parent company's seat)."),
    )
    data_country = models.CharField(
        _("data country"),
        max_length=2,
        blank=True,
        help_text=_("Country of the region where the data is processed."),
    )
    jurisdiction_source = models.CharField(
        _("source of jurisdiction and region"), max_length=300, blank=True
    )
    jurisdiction_source_nl = models.CharField(
        _("source of jurisdiction and region in Dutch"), max_length=360, blank=True
    )

    class Meta:
        ordering = ["provider", "instance_type", "term"]
        verbose_name = _("cloud offering")
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "instance_type", "region", "term"],
                name="cloud_offering_unique_term",
            ),
            _positive("gpu_count", "cloud"),
            _non_negative("price_per_hour", "cloud"),
        ]

    def __str__(self) -> str:
        # The term's label straight from its enum: get_term_display() rebuilds and hashes
        # every (lazy) choice on each call, and a result page names a dozen offerings.
        term = PricingTerm(self.term).label if self.term in _PRICING_TERMS else self.term
        return f"{self.provider} {self.instance_type} ({term})"

    def display_jurisdiction_source(self) -> str:
        """Where the jurisdiction and data country come from, in the active language."""
        return _in_language(self.jurisdiction_source, self.jurisdiction_source_nl)

    @property
    def price_per_gpu_hour(self) -> Decimal:
        return self.price_per_hour / self.gpu_count


class SiteKind(models.TextChoices):
    COLOCATION = "colocation", _("colocation")
    ON_PREMISES = "on_premises", _("on-premises server room")
    WORKSTATION = "workstation", _("workstation (desk or office)")


class CloudRegion(Provenance):
    """Where a cloud provider runs its GPUs: the data centres' PUE and the grid's carbon."""

    key = models.SlugField(_("key"), max_length=60, unique=True)
    provider = models.CharField(_("provider"), max_length=40)
    region = models.CharField(_("region"), max_length=40)
    pue = models.DecimalField(_("PUE"), max_digits=4, decimal_places=2)
    carbon_g_per_kwh = models.PositiveIntegerField(_("grid carbon intensity (gCO2/kWh)"))

    class Meta:
        ordering = ["provider", "region"]
        verbose_name = _("cloud region")
        constraints = [
            models.UniqueConstraint(fields=["provider", "region"], name="cloud_region_unique"),
            models.CheckConstraint(condition=Q(pue__gte=1), name="cloud_region_pue_at_least_one"),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.region}"


class ApiOffering(Provenance):
    """A hosted API serving an open model, priced per million input and output tokens.

    `jurisdiction` is the ISO 3166 alpha-2 country of the provider's controlling legal
    jurisdiction and `data_country` the country where the requests are processed; empty
    when our sources do not say (unknown counts as outside the EU).
    """

    key = models.SlugField(_("key"), max_length=80, unique=True)
    provider = models.CharField(_("provider"), max_length=40)
    model = models.CharField(_("model"), max_length=80)
    params_billion = models.DecimalField(
        _("model size (billion parameters)"), max_digits=8, decimal_places=2
    )
    region = models.CharField(_("region"), max_length=40, blank=True)
    jurisdiction = models.CharField(_("jurisdiction"), max_length=2, blank=True)
    data_country = models.CharField(_("data processed in"), max_length=2, blank=True)
    price_input_per_million = models.DecimalField(
        _("price per million input tokens"), max_digits=10, decimal_places=4
    )
    price_output_per_million = models.DecimalField(
        _("price per million output tokens"), max_digits=10, decimal_places=4
    )
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)

    class Meta:
        ordering = ["model", "provider"]
        verbose_name = _("hosted model API offering")
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "model", "region"], name="api_offering_unique"
            ),
            _positive("params_billion", "api"),
            _non_negative("price_input_per_million", "api"),
            _positive("price_output_per_million", "api"),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.model}"


class Site(Provenance):
    key = models.SlugField(_("key"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=120)
    name_nl = models.CharField(_("name in Dutch"), max_length=160, blank=True)
    kind = models.CharField(_("kind"), max_length=20, choices=SiteKind.choices)
    country = models.CharField(_("country"), max_length=2)
    electricity_price_per_kwh = models.DecimalField(
        _("electricity price per kWh"), max_digits=8, decimal_places=4
    )
    pue = models.DecimalField(_("PUE"), max_digits=4, decimal_places=2)
    colocation_per_kw_month = models.DecimalField(
        _("colocation per kW-month"), max_digits=8, decimal_places=2
    )
    rack_power_limit_kw = models.DecimalField(
        _("rack power limit (kW)"), max_digits=6, decimal_places=1
    )
    carbon_g_per_kwh = models.PositiveIntegerField(_("grid carbon intensity (gCO2/kWh)"))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    # What the site can take (tco/engine/site.py): its cooling, the PUE of liquid-cooled
    # racks (empty: as `pue`), the IT power free for the fleet and what the grid connection
    # could add (empty: not limited / unknown).
    cooling = models.CharField(
        _("cooling available"), max_length=16, choices=SiteCooling.choices, default="air"
    )
    pue_liquid = models.DecimalField(
        _("PUE with liquid cooling"), max_digits=4, decimal_places=2, null=True, blank=True
    )
    available_it_kw = models.DecimalField(
        _("available IT power (kW)"), max_digits=8, decimal_places=1, null=True, blank=True
    )
    grid_headroom_kw = models.DecimalField(
        _("grid connection headroom (kW)"), max_digits=8, decimal_places=1, null=True, blank=True
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("site")
        constraints = [
            _non_negative("electricity_price_per_kwh", "site"),
            _non_negative("colocation_per_kw_month", "site"),
            _positive("rack_power_limit_kw", "site"),
            models.CheckConstraint(condition=Q(pue__gte=1), name="site_pue_at_least_one"),
        ]

    def __str__(self) -> str:
        return self.name

    def display_name(self) -> str:
        """The name in the active language: the Dutch name for Dutch readers when known."""
        return _in_language(self.name, self.name_nl)


class ItemCategory(models.TextChoices):
    NETWORKING = "networking", _("networking")
    STORAGE = "storage", _("storage")
    INSTALLATION = "installation", _("installation")
    SUPPORT = "support", _("support")
    FACILITY = "facility", _("facility build-out")


class PricingUnit(models.TextChoices):
    PER_SERVER = "per_server", _("per server")
    PER_CLUSTER = "per_cluster", _("per cluster")
    PERCENT_OF_HARDWARE_PER_YEAR = "pct_hw_year", _("% of hardware per year")
    PER_KW = "per_kw", _("per kW")
    PER_UNIT = "per_unit", _("each")


class InfrastructureItem(Provenance):
    key = models.SlugField(_("key"), max_length=60, unique=True)
    name = models.CharField(_("name"), max_length=120)
    # The description in Dutch proposals (empty: the English name is used).
    name_nl = models.CharField(_("name in Dutch"), max_length=160, blank=True)
    category = models.CharField(_("category"), max_length=20, choices=ItemCategory.choices)
    unit = models.CharField(_("pricing unit"), max_length=20, choices=PricingUnit.choices)
    price = models.DecimalField(
        _("price (or % for percentage items)"), max_digits=12, decimal_places=2
    )
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    # What it costs us, in `currency` (a percentage for percentage items); empty: unknown.
    cost_price = models.DecimalField(
        _("cost price (or % for percentage items)"),
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
    )
    # A support contract's service level (shown per line on a proposal); empty otherwise.
    service_level = models.CharField(
        _("service level"), max_length=12, choices=ServiceLevel.choices, blank=True
    )

    class Meta:
        ordering = ["category", "name"]
        verbose_name = _("infrastructure or service item")
        constraints = [_non_negative("price", "item")]

    def __str__(self) -> str:
        return self.name

    def display_name(self) -> str:
        """The name in the active language: the Dutch name for Dutch readers when known."""
        return _in_language(self.name, self.name_nl)


class FxRate(Provenance):
    """How many units of `quote` one unit of `base` buys on `as_of` (EUR→USD 1.08)."""

    base = models.CharField(_("base currency"), max_length=3, choices=Currency.choices)
    quote = models.CharField(_("quote currency"), max_length=3, choices=Currency.choices)
    rate = models.DecimalField(_("rate"), max_digits=12, decimal_places=6)

    class Meta:
        ordering = ["base", "quote", "-as_of"]
        verbose_name = _("FX rate")
        constraints = [
            models.UniqueConstraint(fields=["base", "quote", "as_of"], name="fx_unique_per_day"),
            _positive("rate", "fx"),
            models.CheckConstraint(condition=~Q(base=models.F("quote")), name="fx_distinct_pair"),
        ]

    def __str__(self) -> str:
        return f"1 {self.base} = {self.rate} {self.quote} ({self.as_of})"


class ServerAvailability(Provenance):
    """How soon a server model can be had: units in stock and the lead time otherwise.

    One row per server model, from the distributor's stock feed, a vendor's statement or
    an estimate (`source`, `as_of`, `is_estimate` like a price). `install_days` is the
    installation and burn-in after delivery (docs/methodology.md § 3i).
    """

    server = models.OneToOneField(
        ServerModel, on_delete=models.CASCADE, related_name="availability"
    )
    units_in_stock = models.PositiveIntegerField(_("units in stock"), default=0)
    lead_time_weeks = models.DecimalField(
        _("lead time (weeks)"), max_digits=5, decimal_places=1, default=Decimal(0)
    )
    # The far end of a published range (36–52 weeks): the Monte Carlo's late draws.
    lead_time_weeks_max = models.DecimalField(
        _("longest lead time (weeks)"), max_digits=5, decimal_places=1, null=True, blank=True
    )
    install_days = models.DecimalField(
        _("installation and burn-in (days)"), max_digits=5, decimal_places=1, default=Decimal(7)
    )

    class Meta:
        ordering = ["server"]
        verbose_name = _("server availability")
        verbose_name_plural = _("server availability")
        constraints = [
            _non_negative("lead_time_weeks", "availability"),
            _non_negative("install_days", "availability"),
        ]

    def __str__(self) -> str:
        return f"{self.server.key}: {self.units_in_stock} in stock, {self.lead_time_weeks} weeks"


class ObtainedBy(models.TextChoices):
    """How a cloud offering's capacity is obtained (and so how long it takes)."""

    ON_DEMAND = "on_demand", _("on demand")
    CAPACITY_BLOCK = "capacity_block", _("capacity block, booked ahead")
    RESERVED = "reserved", _("reserved term, provisioned")


class CloudAvailability(Provenance):
    """How a cloud offering is obtained: on demand, a capacity block booked ahead (with its
    minimum duration), or a reserved term with its provisioning time; `note` records what
    the provider publishes about availability."""

    offering = models.OneToOneField(
        CloudOffering, on_delete=models.CASCADE, related_name="availability"
    )
    obtained = models.CharField(_("obtained as"), max_length=20, choices=ObtainedBy.choices)
    lead_days = models.DecimalField(
        _("booking or provisioning lead (days)"), max_digits=5, decimal_places=1
    )
    minimum_days = models.DecimalField(
        _("minimum duration (days)"), max_digits=6, decimal_places=1, null=True, blank=True
    )
    note = models.CharField(_("availability note"), max_length=300, blank=True)

    class Meta:
        ordering = ["offering"]
        verbose_name = _("cloud availability")
        verbose_name_plural = _("cloud availability")
        constraints = [_non_negative("lead_days", "cloud_availability")]

    def __str__(self) -> str:
        return f"{self.offering.key}: {self.obtained}, {self.lead_days} days"


class PriceKind(models.TextChoices):
    """The kinds of price list that staff import and export (TableSpec kinds)."""

    CLOUD = "cloud", _("cloud offerings")
    SERVERS = "servers", _("server models")
    ITEMS = "items", _("infrastructure and service items")
    FX = "fx", _("FX rates")
    API = "api", _("hosted model API prices")
    STOCK = "stock", _("server stock and lead times")
    CLOUD_AVAILABILITY = "cloud_lead", _("cloud availability")
    COMPONENTS = "components", _("components")
    CHASSIS = "chassis", _("chassis rules")
    DEFAULTS = "defaults", _("default configurations")
    PRICE_BOOK = "price_book", _("price books")


class PriceTier(models.Model):
    """A channel tier a customer buys at (list, partner, reseller, enterprise, education).

    A customer without a tier buys at list price; so does one in a tier without price-book
    rows for what is quoted (docs/quotes.md, "Price books and tiers").
    """

    key = models.SlugField(_("key"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=80)
    name_nl = models.CharField(_("name in Dutch"), max_length=80, blank=True)
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["position", "key"]
        verbose_name = _("price tier")

    def __str__(self) -> str:
        return self.display_name()

    def display_name(self) -> str:
        """The name in the active language: the Dutch name for Dutch readers when known."""
        return _in_language(self.name, self.name_nl)


# What a category row of a price book applies to: server lines, or an item category.
PRICE_BOOK_CATEGORIES = ("server", *ItemCategory.values)


class PriceBookRow(models.Model):
    """One row of a tier's price book, valid from `valid_from` to `valid_to` (inclusive).

    Either a discount % off list on a catalog item (`catalog_key`: `server:<key>` or
    `item:<key>`) or on every item of a `category` (`server`, `networking`, …), or a
    `net_price` for one catalog item in `currency`. The price of a line is worked out by
    quotes.money.tier_unit_price.
    """

    key = models.SlugField(_("key"), max_length=80, unique=True)
    tier = models.ForeignKey(
        PriceTier, on_delete=models.CASCADE, related_name="rows", verbose_name=_("tier")
    )
    catalog_key = models.CharField(_("catalog item"), max_length=90, blank=True)
    category = models.CharField(_("category"), max_length=20, blank=True)
    discount_pct = models.DecimalField(
        _("discount %"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    net_price = models.DecimalField(
        _("net price"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices, blank=True)
    valid_from = models.DateField(_("valid from"))
    valid_to = models.DateField(_("valid to"), null=True, blank=True)
    note = models.CharField(_("note"), max_length=200, blank=True)

    class Meta:
        ordering = ["tier", "key"]
        verbose_name = _("price-book row")
        indexes = [models.Index(fields=["tier", "valid_from"])]

    def __str__(self) -> str:
        return self.key

    def valid_on(self, day: date) -> bool:
        return self.valid_from <= day and (self.valid_to is None or day <= self.valid_to)


class PriceChange(models.Model):
    """One price taking a new value from a date on: the history behind every current price.

    Written by the catalog writer whenever a row is created with a price or its price
    changes (seed loads, imports), never edited afterwards. `key` is the row's key; FX
    rates use the pair (`EUR-USD`) so that successive daily rows form one history.
    `old_value` is empty for the first price of a row.
    """

    kind = models.CharField(_("kind"), max_length=10, choices=PriceKind.choices)
    key = models.CharField(_("key"), max_length=80)
    field = models.CharField(_("field"), max_length=30)
    old_value = models.DecimalField(
        _("old value"), max_digits=18, decimal_places=6, null=True, blank=True
    )
    new_value = models.DecimalField(_("new value"), max_digits=18, decimal_places=6)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    effective_from = models.DateField(_("effective from"))
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"), default=timezone.now)
    source = models.CharField(_("source"), max_length=300)

    class Meta:
        ordering = ["kind", "key", "effective_from", "changed_at", "id"]
        verbose_name = _("price change")
        indexes = [models.Index(fields=["kind", "key", "effective_from"])]

    def __str__(self) -> str:
        change = f"{self.old_value} → {self.new_value}"
        return f"{self.kind} {self.key}: {change} ({self.effective_from})"

    @property
    def age_days(self) -> int:
        return (timezone.localdate() - self.effective_from).days

    @property
    def pct_change(self) -> float | None:
        if not self.old_value:
            return None
        return float((self.new_value - self.old_value) / self.old_value)


class ImportStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    APPLIED = "applied", _("applied")
    DISCARDED = "discarded", _("discarded")


class PriceImport(models.Model):
    """An uploaded price list awaiting a decision.

    The file itself is kept so that the preview → apply flow survives across requests
    without a second upload, and so that applying re-checks the file against the catalog
    as it is then, not as it was when the preview was shown.
    """

    kind = models.CharField(_("kind"), max_length=10, choices=PriceKind.choices)
    filename = models.CharField(_("file name"), max_length=255)
    content = models.BinaryField(_("content"))
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("uploaded by"),
    )
    created_at = models.DateTimeField(_("uploaded at"), default=timezone.now)
    status = models.CharField(
        _("status"), max_length=10, choices=ImportStatus.choices, default=ImportStatus.PENDING
    )
    decided_at = models.DateTimeField(_("applied or discarded at"), null=True, blank=True)
    summary = models.JSONField(_("summary"), default=dict, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("price import")

    def __str__(self) -> str:
        return f"{self.filename} ({self.kind}, {self.status})"


class StalePriceNotice(models.Model):
    """The day staff were told about stale prices: at most one mail round per day."""

    sent_on = models.DateField(_("sent on"), unique=True)
    stale_count = models.PositiveIntegerField(_("stale prices"))
    recipient_count = models.PositiveIntegerField(_("recipients"))
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["-sent_on"]
        verbose_name = _("stale-price notice")

    def __str__(self) -> str:
        return f"{self.sent_on}: {self.stale_count} stale price(s)"


# --- configure to order (docs/configure.md) ---------------------------------------------


class ComponentRole(models.TextChoices):
    """What a component of a configured system is (the rules check each role)."""

    CPU = "cpu", _("processor")
    MEMORY = "memory", _("memory module")
    NIC = "nic", _("network adapter")
    DPU = "dpu", _("DPU")
    BOOT = "boot", _("boot drive")
    DRIVE = "drive", _("data drive")
    PSU = "psu", _("power supply")
    RAILS = "rails", _("rail kit")
    CABLES = "cables", _("cables")
    LICENCE = "licence", _("licence")


class DriveFormFactor(models.TextChoices):
    """The bay a drive takes."""

    U2 = "u2", _('2.5" U.2/U.3 NVMe')
    E1S = "e1s", _("E1.S NVMe")
    M2 = "m2", _("M.2 NVMe")


class SlotSize(models.TextChoices):
    """The slot an adapter card takes; empty: not a card (on the GPU baseboard, on board)."""

    X16 = "x16", _("PCIe x16")
    X8 = "x8", _("PCIe x8")


class PsuRedundancy(models.TextChoices):
    """How many of a chassis's power supplies may fail with the system still at full power:
    N+N half of them, N+1 one, N+2 two."""

    N_PLUS_N = "n+n", "N+N"
    N_PLUS_1 = "n+1", "N+1"
    N_PLUS_2 = "n+2", "N+2"


class Component(Provenance):
    """A part a configured system is built from, under the manufacturer's part number.

    The typed attributes are the ones the chassis rules read (catalog/configure/rules.py):
    a CPU's family and socket, a memory module's type, speed and capacity, a drive's form
    factor, an adapter's slot and port speed, a power supply's rating. `typical_w` is what
    the part draws in normal operation (whatever the GPUs do), `max_w` its most. The list
    price has its own provenance, apart from the specifications', as a server's has.
    """

    part_number = models.CharField(_("part number"), max_length=60, unique=True)
    manufacturer = models.CharField(_("manufacturer"), max_length=40)
    role = models.CharField(_("role"), max_length=10, choices=ComponentRole.choices)
    name = models.CharField(_("name"), max_length=200)
    name_nl = models.CharField(_("name in Dutch"), max_length=240, blank=True)
    cpu_family = models.CharField(_("CPU family"), max_length=20, blank=True)
    cpu_socket = models.CharField(_("CPU socket"), max_length=20, blank=True)
    memory_type = models.CharField(_("memory type"), max_length=12, blank=True)
    memory_speed_mts = models.PositiveIntegerField(_("memory speed (MT/s)"), null=True, blank=True)
    memory_capacity_gb = models.PositiveIntegerField(
        _("module capacity (GB)"), null=True, blank=True
    )
    drive_form_factor = models.CharField(
        _("drive form factor"), max_length=4, choices=DriveFormFactor.choices, blank=True
    )
    capacity_tb = models.DecimalField(
        _("drive capacity (TB)"), max_digits=7, decimal_places=2, null=True, blank=True
    )
    slot = models.CharField(_("PCIe slot"), max_length=4, choices=SlotSize.choices, blank=True)
    network_gbps = models.PositiveIntegerField(_("port speed (Gb/s)"), null=True, blank=True)
    psu_rating_w = models.PositiveIntegerField(_("power supply rating (W)"), null=True, blank=True)
    list_price = models.DecimalField(_("list price"), max_digits=12, decimal_places=2)
    cost_price = models.DecimalField(
        _("cost price"), max_digits=12, decimal_places=2, null=True, blank=True
    )
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    price_source = models.CharField(_("price source"), max_length=300, blank=True)
    price_as_of = models.DateField(_("price as of"))
    price_is_estimate = models.BooleanField(_("price is an estimate"), default=True)
    typical_w = models.PositiveIntegerField(_("typical power (W)"))
    max_w = models.PositiveIntegerField(_("maximum power (W)"))
    lead_time_weeks = models.DecimalField(
        _("lead time (weeks)"), max_digits=5, decimal_places=1, null=True, blank=True
    )

    class Meta:
        ordering = ["role", "manufacturer", "part_number"]
        verbose_name = _("component")
        constraints = [
            _non_negative("list_price", "component"),
            models.CheckConstraint(
                condition=Q(typical_w__lte=models.F("max_w")),
                name="component_typical_not_above_max",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.part_number}: {self.name}"

    @property
    def key(self) -> str:
        """The part number: what a quote line's catalog key (`component:<part number>`)
        and the price history name the component by."""
        return self.part_number

    def display_name(self) -> str:
        """The name in the active language: the Dutch name for Dutch readers when known."""
        return _in_language(self.name, self.name_nl)


class ChassisRules(Provenance):
    """What a chassis (a server model) takes, as data the rule kinds read
    (catalog/configure/rules.py): its fixed GPU baseboard, CPU sockets and families, memory
    slots, channels, types, speeds and capacities, PCIe slots by size, drive bays by form
    factor, power-supply bays, ratings and redundancy. A fixed configuration (DGX, NVL72)
    allows only the vendor's default. Lists are `;`-separated in one cell ("4800;5600")."""

    server = models.OneToOneField(ServerModel, on_delete=models.CASCADE, related_name="rules")
    gpu_baseboard = models.CharField(_("GPU baseboard"), max_length=120)
    fixed = models.BooleanField(_("fixed configuration"), default=False)
    cpu_sockets = models.PositiveSmallIntegerField(_("CPU sockets"))
    cpu_socket = models.CharField(_("CPU socket type"), max_length=20)
    cpu_families = models.CharField(_("supported CPU families"), max_length=120)
    memory_slots = models.PositiveSmallIntegerField(_("memory slots"))
    memory_channels_per_socket = models.PositiveSmallIntegerField(_("memory channels per CPU"))
    memory_type = models.CharField(_("memory type"), max_length=12)
    memory_speeds = models.CharField(_("supported memory speeds (MT/s)"), max_length=120)
    memory_capacities_gb = models.CharField(_("supported module capacities (GB)"), max_length=120)
    pcie_x16_slots = models.PositiveSmallIntegerField(_("PCIe x16 slots"))
    pcie_x8_slots = models.PositiveSmallIntegerField(_("PCIe x8 slots"), default=0)
    bays_u2 = models.PositiveSmallIntegerField(_('2.5" U.2 bays'), default=0)
    bays_e1s = models.PositiveSmallIntegerField(_("E1.S bays"), default=0)
    bays_m2 = models.PositiveSmallIntegerField(_("M.2 slots"), default=0)
    psu_bays = models.PositiveSmallIntegerField(_("power supplies"))
    psu_ratings_w = models.CharField(_("supported power supply ratings (W)"), max_length=60)
    psu_redundancy = models.CharField(
        _("power supply redundancy"), max_length=4, choices=PsuRedundancy.choices
    )

    class Meta:
        ordering = ["server"]
        verbose_name = _("chassis rules")
        verbose_name_plural = _("chassis rules")
        constraints = [_positive("psu_bays", "chassis"), _positive("memory_slots", "chassis")]

    def __str__(self) -> str:
        return f"{self.server.key}: rules"


class ChassisDefault(Provenance):
    """One line of a chassis's default configuration (the vendor's or our standard build):
    a component and its quantity per system."""

    server = models.ForeignKey(
        ServerModel, on_delete=models.CASCADE, related_name="default_components"
    )
    position = models.PositiveSmallIntegerField(_("position"))
    component = models.ForeignKey(Component, on_delete=models.PROTECT, related_name="defaults")
    quantity = models.PositiveSmallIntegerField(_("quantity per system"))

    class Meta:
        ordering = ["server", "position"]
        verbose_name = _("default component")
        constraints = [
            models.UniqueConstraint(fields=["server", "position"], name="chassis_default_position"),
            models.UniqueConstraint(
                fields=["server", "component"], name="chassis_default_component"
            ),
            _positive("quantity", "chassis_default"),
        ]

    def __str__(self) -> str:
        return f"{self.server.key} #{self.position}: {self.quantity} × {self.component_id}"
