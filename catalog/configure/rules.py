"""Whether a configured system fits its chassis, and what it costs and draws (pure).

No Django here: the service (catalog/configure/service.py) builds these dataclasses from
the catalog. A chassis's rules are data (`ChassisRules`, one row per chassis); the rule
kinds below read them, the same for every chassis:

- ``fixed_configuration``: a DGX or NVL72 is sold as NVIDIA configures it, only the
  default is allowed;
- CPUs (``cpu_count``, ``cpu_mixed``, ``cpu_socket``, ``cpu_family``): one CPU per
  socket, all of one model, of the chassis's socket and a supported family;
- memory (``memory_missing``, ``memory_slots``, ``memory_balance``, ``memory_mixed``,
  ``memory_type``, ``memory_speed``, ``memory_capacity``): no more modules than slots,
  the same number on every channel of every CPU (a multiple of sockets × channels), one
  module model, of the chassis's type, a supported speed and capacity;
- ``pcie_slots``: adapter cards fit the PCIe slots (an x8 card may take an x16 slot);
- ``drive_bays``: drives fit the bays of their form factor;
- power (``psu_count``, ``psu_mixed``, ``psu_rating``, ``psu_capacity``): every supply
  bay filled with one supported model, and the supplies that remain when the redundancy
  scheme's spares fail carry the configuration's maximum draw;
- ``rack_power``: one system draws no more than the site's rack power limit;
- ``unknown_part`` / ``not_configurable``: a part number the catalog does not know, or a
  role the chassis has no rule for.

Recommendations (not errors) carry their source: one 400 Gb/s (or faster) NIC per GPU for
multi-node training, no more than two for serving alone.

Price and power: the barebone (the chassis with its GPUs) is the catalog's figure less the
default components', so the default configuration reproduces the catalog's list price,
cost and power exactly and any other adds or removes the components' own figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

# Roles (catalog.models.ComponentRole values).
CPU, MEMORY, NIC, DPU, BOOT, DRIVE, PSU = "cpu", "memory", "nic", "dpu", "boot", "drive", "psu"
ACCESSORIES = frozenset({"rails", "cables", "licence"})
ADAPTERS = frozenset({NIC, DPU})
DRIVES = frozenset({BOOT, DRIVE})


def spares(redundancy: str, supplies: int) -> int:
    """The supplies a redundancy scheme (catalog.models.PsuRedundancy) keeps in reserve:
    half of them for N+N, one for N+1, two for N+2.

    >>> spares("n+n", 6), spares("n+1", 6), spares("n+2", 6)
    (3, 1, 2)
    """
    return {"n+n": supplies // 2, "n+1": 1, "n+2": 2}[redundancy]


# Workloads the recommendations know (tco scenario workloads).
TRAINING, SERVING = "training", "serving"
# One NIC of 400 Gb/s or more per GPU for multi-node training: NVIDIA's reference
# architectures give every GPU its own 400G compute-fabric port.
TRAINING_NIC_GBPS = 400
NIC_PER_GPU_SOURCE = (
    "NVIDIA DGX SuperPOD reference architecture (DGX H100/B200): one 400 Gb/s "
    "ConnectX-7 compute-fabric port per GPU"
)
SERVING_NICS = 2
SERVING_NIC_SOURCE = (
    "NVIDIA enterprise reference architecture for inference (2-8-5-200): two 200/400 Gb/s "
    "north-south NICs per 8-GPU server when the GPUs are not joined over an east-west fabric"
)


@dataclass(frozen=True)
class ComponentSpec:
    """A component's figures the rules, price and power read (catalog.models.Component);
    prices in the chassis's currency."""

    part_number: str
    role: str
    list_price: Decimal
    cost_price: Decimal | None
    typical_w: int
    max_w: int
    cpu_family: str = ""
    cpu_socket: str = ""
    memory_type: str = ""
    memory_speed_mts: int | None = None
    memory_capacity_gb: int | None = None
    drive_form_factor: str = ""
    slot: str = ""
    network_gbps: int | None = None
    psu_rating_w: int | None = None


@dataclass(frozen=True)
class ChassisRules:
    """What one chassis takes (catalog.models.ChassisRules) and the catalog's figures of
    the system as listed (price, cost, power) with its default configuration."""

    server_key: str
    gpu_count: int
    fixed: bool
    cpu_sockets: int
    cpu_socket: str
    cpu_families: tuple[str, ...]
    memory_slots: int
    memory_channels_per_socket: int
    memory_type: str
    memory_speeds: tuple[int, ...]
    memory_capacities_gb: tuple[int, ...]
    pcie_x16_slots: int
    pcie_x8_slots: int
    bays: Mapping[str, int]  # drive form factor → bays
    psu_bays: int
    psu_ratings_w: tuple[int, ...]
    psu_redundancy: str
    list_price: Decimal
    cost_price: Decimal | None
    max_w: int
    idle_w: int
    typical_w: int | None
    default: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Configuration:
    """A chassis and its components: (part number, quantity per system) pairs."""

    server_key: str
    items: tuple[tuple[str, int], ...]

    def quantities(self) -> dict[str, int]:
        """Quantity per part number (a part listed twice counts once, summed)."""
        counts: dict[str, int] = {}
        for part, quantity in self.items:
            counts[part] = counts.get(part, 0) + quantity
        return {part: n for part, n in counts.items() if n > 0}


@dataclass(frozen=True)
class Finding:
    """A violated rule or a recommendation: a code with parameters (worded by
    catalog/configure/wording.py) and, for a recommendation, its source."""

    code: str
    params: Mapping[str, object] = field(default_factory=dict)
    source: str = ""


@dataclass(frozen=True)
class Check:
    """The verdict on a configuration with its price and power per system.

    `typical_w` is None when the catalog has no typical figure for the chassis; `idle_w` is
    the engine's idle power (the components' typical draw counts as drawn at idle too).
    `cost` is None when a cost price is unknown."""

    valid: bool
    violations: tuple[Finding, ...]
    recommendations: tuple[Finding, ...]
    typical_w: int | None
    idle_w: int
    max_w: int
    list_price: Decimal
    cost: Decimal | None
    barebone_list_price: Decimal
    barebone_cost: Decimal | None


@dataclass(frozen=True)
class Totals:
    """Σ quantity × a component's figures over some (part, quantity) pairs."""

    list_price: Decimal
    cost: Decimal | None
    typical_w: int
    max_w: int


def totals(items: Mapping[str, int], components: Mapping[str, ComponentSpec]) -> Totals:
    """The components' summed list price, cost (None if one is unknown) and power; parts
    not in `components` count nothing (they are reported as ``unknown_part``).

    >>> nic = ComponentSpec("N", NIC, Decimal("1500"), Decimal("1200"), 20, 25, slot="x16")
    >>> totals({"N": 8}, {"N": nic})
    Totals(list_price=Decimal('12000'), cost=Decimal('9600'), typical_w=160, max_w=200)
    """
    price, cost, typical, peak = Decimal(0), Decimal(0), 0, 0
    known_cost = True
    for part, quantity in items.items():
        spec = components.get(part)
        if spec is None:
            continue
        price += spec.list_price * quantity
        if spec.cost_price is None:
            known_cost = False
        else:
            cost += spec.cost_price * quantity
        typical += spec.typical_w * quantity
        peak += spec.max_w * quantity
    return Totals(price, cost if known_cost else None, typical, peak)


# --- the rule kinds ---------------------------------------------------------------------


def _of_role(
    items: Mapping[str, int], components: Mapping[str, ComponentSpec], roles: frozenset[str]
) -> list[tuple[ComponentSpec, int]]:
    return [
        (components[part], n)
        for part, n in items.items()
        if part in components and components[part].role in roles
    ]


def cpu_rules(chassis: ChassisRules, cpus: list[tuple[ComponentSpec, int]]) -> list[Finding]:
    """One CPU per socket, of one model, the chassis's socket and a supported family."""
    count = sum(n for _spec, n in cpus)
    findings: list[Finding] = []
    if count != chassis.cpu_sockets:
        findings.append(Finding("cpu_count", {"cpus": count, "sockets": chassis.cpu_sockets}))
    if len(cpus) > 1:
        findings.append(Finding("cpu_mixed", {"models": len(cpus)}))
    for spec, _n in cpus:
        if spec.cpu_socket != chassis.cpu_socket:
            params = {"part": spec.part_number, "socket": spec.cpu_socket}
            findings.append(Finding("cpu_socket", {**params, "chassis": chassis.cpu_socket}))
        elif spec.cpu_family not in chassis.cpu_families:
            params = {"part": spec.part_number, "family": spec.cpu_family}
            findings.append(
                Finding("cpu_family", {**params, "families": list(chassis.cpu_families)})
            )
    return findings


def memory_rules(
    chassis: ChassisRules, modules: list[tuple[ComponentSpec, int]], cpu_family: str
) -> list[Finding]:
    """Modules within the slots, the same number on every channel of every socket, of one
    model, of the chassis's type, speed and capacity.

    Balanced means a whole number of modules per channel: 16 channels (two 8-channel CPUs)
    take 16 or 32 modules, not 8 or 24 (Intel's and AMD's population guides: unequal
    channels lower the bandwidth of all of them).
    """
    count = sum(n for _spec, n in modules)
    channels = chassis.cpu_sockets * chassis.memory_channels_per_socket
    if count == 0:
        return [Finding("memory_missing", {"channels": channels})]
    findings: list[Finding] = []
    if count > chassis.memory_slots:
        findings.append(Finding("memory_slots", {"dimms": count, "slots": chassis.memory_slots}))
    elif count % channels:
        params = {"dimms": count, "channels": channels, "cpus": chassis.cpu_sockets}
        fits = list(range(channels, chassis.memory_slots + 1, channels))
        findings.append(Finding("memory_balance", {**params, "family": cpu_family, "fits": fits}))
    if len(modules) > 1:
        findings.append(Finding("memory_mixed", {"models": len(modules)}))
    for spec, _n in modules:
        findings += _module_fit(chassis, spec)
    return findings


def _module_fit(chassis: ChassisRules, spec: ComponentSpec) -> list[Finding]:
    part = spec.part_number
    if spec.memory_type != chassis.memory_type:
        chassis_type = chassis.memory_type
        return [
            Finding(
                "memory_type", {"part": part, "type": spec.memory_type, "chassis": chassis_type}
            )
        ]
    findings: list[Finding] = []
    # Memory soldered with the CPU (Grace's LPDDR5X) has no speed of its own to check.
    if spec.memory_speed_mts is not None and spec.memory_speed_mts not in chassis.memory_speeds:
        speeds = list(chassis.memory_speeds)
        speed = spec.memory_speed_mts
        findings.append(Finding("memory_speed", {"part": part, "speed": speed, "speeds": speeds}))
    if spec.memory_capacity_gb not in chassis.memory_capacities_gb:
        capacities = list(chassis.memory_capacities_gb)
        params: dict[str, object] = {"part": part, "capacity": spec.memory_capacity_gb}
        findings.append(Finding("memory_capacity", {**params, "capacities": capacities}))
    return findings


def slot_rules(chassis: ChassisRules, cards: list[tuple[ComponentSpec, int]]) -> list[Finding]:
    """Adapter cards in the PCIe slots: x16 cards in x16 slots, x8 cards in what is left of
    either size. Adapters on the baseboard (no slot) take none."""
    x16 = sum(n for spec, n in cards if spec.slot == "x16")
    x8 = sum(n for spec, n in cards if spec.slot == "x8")
    if x16 > chassis.pcie_x16_slots:
        return [
            Finding("pcie_slots", {"size": "x16", "cards": x16, "slots": chassis.pcie_x16_slots})
        ]
    free = chassis.pcie_x16_slots - x16 + chassis.pcie_x8_slots
    if x8 > free:
        return [Finding("pcie_slots", {"size": "x8", "cards": x8, "slots": free})]
    return []


def bay_rules(chassis: ChassisRules, drives: list[tuple[ComponentSpec, int]]) -> list[Finding]:
    """Drives in the bays of their form factor."""
    findings = []
    by_form: dict[str, int] = {}
    for spec, n in drives:
        by_form[spec.drive_form_factor] = by_form.get(spec.drive_form_factor, 0) + n
    for form, count in sorted(by_form.items()):
        bays = chassis.bays.get(form, 0)
        if count > bays:
            findings.append(Finding("drive_bays", {"form": form, "drives": count, "bays": bays}))
    return findings


def scheme_text(redundancy: str, supplies: int) -> str:
    """The redundancy scheme of `supplies` as usable + spares ("2+2" for N+N of 4).

    >>> scheme_text("n+n", 4), scheme_text("n+1", 6), scheme_text("n+2", 6)
    ('2+2', '5+1', '4+2')
    """
    reserve = spares(redundancy, supplies)
    return f"{supplies - reserve}+{reserve}"


def psu_rules(
    chassis: ChassisRules, supplies: list[tuple[ComponentSpec, int]], max_w: int
) -> list[Finding]:
    """Every bay filled with one supported model; the supplies left when the scheme's
    spares fail carry the maximum draw: (count − spares) × rating ≥ max W.

    >>> rules = ChassisRules("x", 8, False, 2, "s", ("f",), 32, 8, "DDR5", (4800,), (64,),
    ...     8, 0, {}, 4, (3000,), "n+n", Decimal(0), None, 10200, 2500, None, ())
    >>> psu = ComponentSpec("P", PSU, Decimal(0), None, 0, 0, psu_rating_w=3000)
    >>> [f.params["capacity_w"] for f in psu_rules(rules, [(psu, 4)], 10200)]
    [6000]
    """
    count = sum(n for _spec, n in supplies)
    if count != chassis.psu_bays:
        return [Finding("psu_count", {"psus": count, "bays": chassis.psu_bays})]
    if len(supplies) > 1:
        return [Finding("psu_mixed", {"models": len(supplies)})]
    spec = supplies[0][0]
    rating = spec.psu_rating_w or 0
    if rating not in chassis.psu_ratings_w:
        ratings = list(chassis.psu_ratings_w)
        return [
            Finding(
                "psu_rating", {"part": spec.part_number, "rating_w": rating, "ratings_w": ratings}
            )
        ]
    usable = count - spares(chassis.psu_redundancy, count)
    capacity = usable * rating
    if capacity < max_w:
        params = {"psus": count, "rating_w": rating, "capacity_w": capacity, "max_w": max_w}
        scheme = scheme_text(chassis.psu_redundancy, count)
        return [Finding("psu_capacity", {**params, "scheme": scheme})]
    return []


def rack_rules(max_w: int, rack_power_limit_kw: Decimal | None) -> list[Finding]:
    """One system within the rack's power limit (the site check's figure)."""
    if rack_power_limit_kw is None or Decimal(max_w) <= rack_power_limit_kw * 1000:
        return []
    return [
        Finding("rack_power", {"max_kw": Decimal(max_w) / 1000, "limit_kw": rack_power_limit_kw})
    ]


def recommendations(
    chassis: ChassisRules, nics: list[tuple[ComponentSpec, int]], workload: str | None
) -> list[Finding]:
    """One fast NIC per GPU for multi-node training; two suffice for serving alone."""
    fast = sum(n for spec, n in nics if (spec.network_gbps or 0) >= TRAINING_NIC_GBPS)
    all_nics = sum(n for _spec, n in nics)
    if workload == TRAINING and fast < chassis.gpu_count:
        params = {"nics": fast, "gpus": chassis.gpu_count, "gbps": TRAINING_NIC_GBPS}
        return [Finding("nic_per_gpu", params, NIC_PER_GPU_SOURCE)]
    if workload == SERVING and all_nics > SERVING_NICS and not chassis.fixed:
        return [
            Finding("serving_nics", {"nics": all_nics, "enough": SERVING_NICS}, SERVING_NIC_SOURCE)
        ]
    return []


def recommended(
    chassis: ChassisRules, components: Mapping[str, ComponentSpec], workload: str | None
) -> Configuration:
    """The default configuration adjusted to the workload's recommendation: for training,
    the default's fast NIC (≥ 400 Gb/s, in a slot) raised to one per GPU as far as the free
    x16 slots allow; for serving, the NICs cut to two. A fixed configuration, a default
    without such a NIC, or another workload: the default as it is.

    >>> nic = ComponentSpec("N", NIC, Decimal(1), None, 1, 1, slot="x16", network_gbps=400)
    >>> rules = ChassisRules("x", 8, False, 2, "s", ("f",), 32, 8, "DDR5", (4800,), (64,),
    ...     6, 0, {}, 6, (3000,), "n+2", Decimal(0), None, 10200, 2500, None, (("N", 4),))
    >>> [recommended(rules, {"N": nic}, work).items for work in (TRAINING, SERVING, None)]
    [(('N', 6),), (('N', 2),), (('N', 4),)]
    """
    items = dict(chassis.default)
    nics = [
        part
        for part in items
        if part in components
        and components[part].role == NIC
        and components[part].slot == "x16"
        and (components[part].network_gbps or 0) >= TRAINING_NIC_GBPS
    ]
    if chassis.fixed or not nics or workload not in (TRAINING, SERVING):
        return Configuration(chassis.server_key, chassis.default)
    nic = nics[0]
    if workload == SERVING:
        items[nic] = min(items[nic], SERVING_NICS)
    else:
        cards = sum(
            n for part, n in items.items() if part in components and components[part].slot == "x16"
        )
        free = chassis.pcie_x16_slots - cards
        items[nic] = max(items[nic], min(chassis.gpu_count, items[nic] + free))
    return Configuration(chassis.server_key, tuple(items.items()))


# --- the check --------------------------------------------------------------------------


def violations(
    chassis: ChassisRules,
    items: Mapping[str, int],
    components: Mapping[str, ComponentSpec],
    max_w: int,
    rack_power_limit_kw: Decimal | None = None,
) -> list[Finding]:
    """Every rule the configuration breaks, in the order a reader fixes them."""
    found = [Finding("unknown_part", {"part": part}) for part in items if part not in components]
    if chassis.fixed and dict(items) != dict(chassis.default):
        found.append(Finding("fixed_configuration", {"server": chassis.server_key}))
    cpus = _of_role(items, components, frozenset({CPU}))
    found += cpu_rules(chassis, cpus)
    family = cpus[0][0].cpu_family if cpus else ""
    found += memory_rules(chassis, _of_role(items, components, frozenset({MEMORY})), family)
    found += slot_rules(chassis, _of_role(items, components, ADAPTERS))
    found += bay_rules(chassis, _of_role(items, components, DRIVES))
    found += psu_rules(chassis, _of_role(items, components, frozenset({PSU})), max_w)
    found += rack_rules(max_w, rack_power_limit_kw)
    return found


def check(
    chassis: ChassisRules,
    configuration: Configuration,
    components: Mapping[str, ComponentSpec],
    *,
    rack_power_limit_kw: Decimal | None = None,
    workload: str | None = None,
) -> Check:
    """The verdict on `configuration`, its price, cost and power per system.

    Barebone = the catalog's figure − the default components'; the configuration's =
    barebone + its components' (docs/configure.md, "Price and power").
    """
    items = configuration.quantities()
    default = totals(dict(chassis.default), components)
    chosen = totals(items, components)
    max_w = chassis.max_w - default.max_w + chosen.max_w
    typical_delta = chosen.typical_w - default.typical_w
    barebone_price = chassis.list_price - default.list_price
    barebone_cost = (
        chassis.cost_price - default.cost
        if chassis.cost_price is not None and default.cost is not None
        else None
    )
    found = violations(chassis, items, components, max_w, rack_power_limit_kw)
    nics = _of_role(items, components, ADAPTERS)
    return Check(
        valid=not found,
        violations=tuple(found),
        recommendations=tuple(recommendations(chassis, nics, workload)),
        typical_w=None if chassis.typical_w is None else chassis.typical_w + typical_delta,
        idle_w=chassis.idle_w + typical_delta,
        max_w=max_w,
        list_price=barebone_price + chosen.list_price,
        cost=(
            barebone_cost + chosen.cost
            if barebone_cost is not None and chosen.cost is not None
            else None
        ),
        barebone_list_price=barebone_price,
        barebone_cost=barebone_cost,
    )
