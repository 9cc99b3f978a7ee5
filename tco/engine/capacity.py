"""Time to capacity: when each option is ready to work, and what being late costs.

Every option used to exist on day one. Here each option gets a **ready date** counted
from ``as_of`` (docs/methodology.md § 3i):

- an owned fleet: the servers' supply (0 days when the distributor has enough units in
  stock, otherwise the lead time in weeks × 7), or the site's readiness (power, cooling
  work) when that takes longer, plus installation and burn-in;
- a cloud offering: its booking lead time (0 for on demand, the booking lead of a
  capacity block, the provisioning time of a reserved term).

When the work needs the capacity by ``needed_in_days`` and an option is ready later, the
scenario's ``if_late`` policy decides:

- ``bridge`` (owned options only): rent cloud capacity from the need date until the fleet
  is ready, then own. Rented instances are billed for every hour they are held (a one-off
  run at most for the run), and for at least what must be bought (a capacity block's
  minimum days, a committed term whole). A bridge larger than a provider can be expected
  to have free on demand (``on_demand_bridge_gpus``) is booked as reserved capacity (a
  capacity block or a committed term, after its booking lead); where none is eligible the
  on-demand bridge stays, flagged ``not_guaranteed``. The bridge's cost is part of that
  option's total;
- ``delay``: the option is taken late, at ``cost_of_delay_per_week`` × the weeks late;
- ``rule_out``: the option is not recommended (reason code ``misses_deadline``).

A cloud option that is late is charged the cost of delay under ``bridge`` and ``delay``
(no cloud is bridged by another) and ruled out under ``rule_out``.

The engine speaks in codes and numbers; the web layer words them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum

from tco.engine.errors import InvalidInput

HOURS_PER_DAY = 24.0
DAYS_PER_WEEK = 7.0
# Installation, cabling and burn-in of a delivered GPU server fleet before it takes work.
# Estimate: no public figure in docs/sources.md; an HGX system's acceptance and burn-in
# (stress tests, NCCL tests) commonly takes days, not weeks. Editable per scenario.
DEFAULT_INSTALL_DAYS = 7.0
# The Monte Carlo draws each lead time as nominal × U(low, high). Estimate, skewed late:
# the sourced lead times are ranges (H100 36–52 weeks: 52/44 ≈ 1.18 above its middle;
# B200 8–16 weeks: 16/12 ≈ 1.33), and shipments slip more often than they come early.
DEFAULT_LEAD_TIME_RANGE = (0.85, 1.35)
# The most GPUs a bridge may expect to find free on demand at one provider. Estimate
# (docs/sources.md S-BRIDGE-OD): AWS's 8-GPU p5 family is "effectively never available on
# demand" even as one instance; Crusoe rents H100 SXM by reservation only and says a quota
# of 128 GPUs guarantees no free node; GPU clouds grant small self-serve quotas (Parasail:
# beyond 8 GPUs on justification). Eight 8-GPU nodes is the most we take as there on
# demand; beyond it a bridge is booked (AWS capacity blocks: up to 64 instances a block).
DEFAULT_ON_DEMAND_BRIDGE_GPUS = 64.0
# A reserved term fits a bridge when the bridge uses at least this share of what must be
# bought (its minimum term): a 3-year term is no bridge of 47 days. Estimate: no buyer
# reserves capacity of which most goes unused to cover a few weeks.
MIN_RESERVED_USE = 0.5
# How a cloud offering is obtained (RentedOption.code): only on-demand capacity is subject
# to the size above; capacity blocks and reserved terms are booked for the size needed.
ON_DEMAND = "on_demand"
# The risk code of an on-demand bridge above that size with no reserved capacity to book.
NOT_GUARANTEED = "not_guaranteed"


class LatePolicy(StrEnum):
    BRIDGE = "bridge"
    DELAY = "delay"
    RULE_OUT = "rule_out"


@dataclass(frozen=True, slots=True)
class CapacityInputs:
    """When the work needs capacity and what lateness costs (reporting currency)."""

    as_of: date
    needed_in_days: float | None = None  # None: ready dates only, nothing is late
    if_late: LatePolicy = LatePolicy.BRIDGE
    cost_of_delay_per_week: float = 0.0
    site_readiness_weeks: float = 0.0
    install_days: float = DEFAULT_INSTALL_DAYS
    lead_time_range: tuple[float, float] = DEFAULT_LEAD_TIME_RANGE
    on_demand_bridge_gpus: float = DEFAULT_ON_DEMAND_BRIDGE_GPUS

    def __post_init__(self) -> None:
        if not isinstance(self.if_late, LatePolicy):
            raise InvalidInput("if_late", f"Unknown policy {self.if_late!r}.")
        if not math.isfinite(self.on_demand_bridge_gpus) or self.on_demand_bridge_gpus < 1:
            raise InvalidInput(
                "on_demand_bridge_gpus", "The on-demand bridge size needs at least one GPU."
            )
        for name in ("cost_of_delay_per_week", "site_readiness_weeks", "install_days"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise InvalidInput(name, f"{name} must be zero or more, got {value}.")
        if self.needed_in_days is not None and (
            not math.isfinite(self.needed_in_days) or self.needed_in_days < 0
        ):
            raise InvalidInput("needed_in_days", "The need date must be today or later.")
        low, high = self.lead_time_range
        if not (0 < low <= high) or not math.isfinite(high):
            raise InvalidInput("lead_time_range", "The lead-time range needs 0 < low ≤ high.")

    @property
    def needed_day(self) -> float:
        return self.needed_in_days if self.needed_in_days is not None else math.inf


@dataclass(frozen=True, slots=True)
class Bridge:
    """Rented capacity that does the work until the owned fleet is ready."""

    option: str  # the cloud offering rented
    instances: int
    start_in_days: float
    days: float  # calendar days rented
    hours: float  # instance-hours billed per instance (every hour held, the minimum term)
    price_per_instance_hour: float
    cost: float
    code: str = ON_DEMAND  # how it is obtained: on_demand, capacity_block, reserved
    gpus: int = 0  # instances × GPUs per instance
    minimum_days: float = 0.0  # paid however short the bridge (a block's, a term's)
    risk: str = ""  # NOT_GUARANTEED: on demand above the size a provider has free
    on_demand_limit_gpus: float = DEFAULT_ON_DEMAND_BRIDGE_GPUS


@dataclass(frozen=True, slots=True)
class OptionTiming:
    """One option's ready date and what its lateness costs."""

    name: str
    kind: str  # the verdict's kind: own, own_resell, hybrid, cloud
    code: str  # why ready then: in_stock, lead_time, site_readiness, on_demand, booking_lead
    ready_in_days: float
    ready_date: date
    late_days: float  # after the need date (0: on time)
    bridge: Bridge | None = None
    delay_cost: float = 0.0
    ruled_out: bool = False

    @property
    def extra_cost(self) -> float:
        """What time adds to the option's total: the bridge and the cost of delay."""
        return (self.bridge.cost if self.bridge else 0.0) + self.delay_cost


@dataclass(frozen=True, slots=True)
class CapacityPlan:
    inputs: CapacityInputs
    needed_date: date | None
    timings: tuple[OptionTiming, ...]
    run_hours: float | None = None  # a one-off run's length: a bridge covers at most it
    bridge_cloud: RentedOption | None = None  # the cloud that bridges a late fleet
    supply_days: float = 0.0  # the fleet's supply days (0: in stock)

    def timing(self, name: str) -> OptionTiming | None:
        return next((t for t in self.timings if t.name == name), None)


def day(as_of: date, days: float) -> date:
    """The date ``days`` after ``as_of`` (part days count as a whole day).

    >>> day(date(2026, 12, 3), 70), day(date(2026, 12, 3), 0.5)
    (datetime.date(2027, 2, 11), datetime.date(2026, 12, 4))
    """
    return as_of + timedelta(days=math.ceil(days))


def owned_ready_days(
    *,
    servers: int,
    units_in_stock: int | None,
    lead_time_weeks: float,
    site_readiness_weeks: float = 0.0,
    install_days: float = DEFAULT_INSTALL_DAYS,
) -> tuple[float, str]:
    """Days until an owned fleet of ``servers`` takes work, and what sets it.

    Supply is 0 days when the stock covers the whole fleet (``units_in_stock`` None means
    unknown: the lead time applies), otherwise the lead time; the site's readiness runs
    in parallel; installation and burn-in follow whichever ends last.

    >>> owned_ready_days(servers=4, units_in_stock=0, lead_time_weeks=10, install_days=0)
    (70.0, 'lead_time')
    >>> owned_ready_days(servers=4, units_in_stock=6, lead_time_weeks=10, install_days=7)
    (7.0, 'in_stock')
    >>> owned_ready_days(servers=4, units_in_stock=6, lead_time_weeks=10,
    ...                  site_readiness_weeks=3, install_days=7)
    (28.0, 'site_readiness')
    """
    in_stock = units_in_stock is not None and units_in_stock >= servers
    supply = 0.0 if in_stock else lead_time_weeks * DAYS_PER_WEEK
    site = site_readiness_weeks * DAYS_PER_WEEK
    code = "site_readiness" if site > supply else ("in_stock" if in_stock else "lead_time")
    if code == "lead_time" and supply == 0:
        code = "in_stock"  # no lead time known: ships at once
    return max(supply, site) + install_days, code


def bridge_hours(
    *, gap_days: float, run_hours: float | None = None, minimum_days: float = 0.0
) -> float:
    """Instance-hours per instance the bridge bills for ``gap_days`` of holding it.

    Rented instances are billed for every hour they are held, busy or not: a served
    model and recurring or continuous work hold them around the clock (released between
    runs, capacity is not guaranteed to come back, the very risk the bridge covers). A
    one-off run (``run_hours`` given) holds them full time from its start, at most for the
    whole run. Whatever is held, at least ``minimum_days`` are paid (a capacity block's
    minimum duration, a committed term's whole length).

    >>> bridge_hours(gap_days=47)  # 47 × 24
    1128.0
    >>> bridge_hours(gap_days=40, run_hours=240.0)
    240.0
    >>> bridge_hours(gap_days=40, minimum_days=365)  # a 1-year term, paid whole
    8760.0
    >>> bridge_hours(gap_days=0, minimum_days=365)  # nothing held, nothing bought
    0.0
    """
    held = held_hours(gap_days=gap_days, run_hours=run_hours)
    if held <= 0:
        return 0.0
    return max(held, minimum_days * HOURS_PER_DAY)


def held_hours(*, gap_days: float, run_hours: float | None = None) -> float:
    """Hours an instance is held for ``gap_days``: all of them, a one-off run at most
    its length (``bridge_hours`` without a minimum term).

    >>> held_hours(gap_days=77), held_hours(gap_days=77, run_hours=500.0)
    (1848.0, 500.0)
    """
    held = max(gap_days, 0.0) * HOURS_PER_DAY
    return min(held, run_hours) if run_hours is not None else held


@dataclass(frozen=True, slots=True)
class OwnedOption:
    name: str
    kind: str
    servers: int  # servers bought (a hybrid's owned share)
    share: float = 1.0  # share of the work the owned servers do (hybrid < 1)


@dataclass(frozen=True, slots=True)
class RentedOption:
    name: str
    ready_in_days: float
    instances: int
    price_per_instance_hour: float  # reporting currency
    eligible: bool = True  # may be recommended (and so may bridge)
    code: str = ON_DEMAND  # on_demand, capacity_block or reserved
    committed: bool = False  # a 1- or 3-year term (its whole length is minimum_days)
    gpus_per_instance: int = 8
    minimum_days: float = 0.0  # paid however short the use (a block's, a term's)


def plan_capacity(
    inputs: CapacityInputs,
    *,
    owned: Sequence[OwnedOption],
    rented: Sequence[RentedOption],
    units_in_stock: int | None,
    lead_time_weeks: float,
    run_hours: float | None = None,
) -> CapacityPlan:
    """Each option's ready date, bridge, cost of delay and whether it is ruled out.

    The bridge starts when both the work needs it and the cloud is ready, and ends when
    the fleet is ready; it bills every hour held (``bridge_hours``). Its cloud is chosen
    once, for the whole fleet, by ``bridge_cloud``; a hybrid rents its owned share of it.
    Work the bridge cannot cover (the cloud itself is later than the need date) pays the
    cost of delay.

    Worked example (the issue's): the work needs capacity in 30 days; 4 servers ship in
    10 weeks with no stock and no installation time. The fleet is ready on day 70, so a
    bridge of 8-GPU instances at $40 an instance-hour runs from day 30 to day 70: 40 days,
    960 hours held, 4 instances: 4 × 960 × 40 = $153,600.

    >>> p = plan_capacity(
    ...     CapacityInputs(date(2026, 12, 3), needed_in_days=30, install_days=0),
    ...     owned=[OwnedOption("Buy", "own", 4)],
    ...     rented=[RentedOption("Cloud", 0.0, 4, 40.0)],
    ...     units_in_stock=0, lead_time_weeks=10)
    >>> own = p.timing("Buy")
    >>> own.ready_in_days, own.ready_date, own.late_days, own.bridge.hours, own.bridge.cost
    (70.0, datetime.date(2027, 2, 11), 40.0, 960.0, 153600.0)
    """
    need = inputs.needed_day
    timings = [_rented_timing(inputs, option) for option in rented]
    fleet = max((o.servers for o in owned), default=0)
    in_stock = units_in_stock is not None and units_in_stock >= fleet
    supply_days = 0.0 if in_stock else lead_time_weeks * DAYS_PER_WEEK
    ready, code = owned_ready_days(
        servers=fleet,
        units_in_stock=units_in_stock,
        lead_time_weeks=lead_time_weeks,
        site_readiness_weeks=inputs.site_readiness_weeks,
        install_days=inputs.install_days,
    )
    cloud = bridge_cloud(inputs, rented, ready=ready, run_hours=run_hours)
    for option in owned:
        bridge, delay, ruled_out = _lateness(inputs, option, ready, cloud, run_hours=run_hours)
        timings.append(
            OptionTiming(
                name=option.name,
                kind=option.kind,
                code=code,
                ready_in_days=ready,
                ready_date=day(inputs.as_of, ready),
                late_days=max(0.0, ready - need),
                bridge=bridge,
                delay_cost=delay,
                ruled_out=ruled_out,
            )
        )
    return CapacityPlan(
        inputs=inputs,
        needed_date=day(inputs.as_of, need) if math.isfinite(need) else None,
        timings=tuple(timings),
        run_hours=run_hours,
        bridge_cloud=cloud,
        supply_days=supply_days,
    )


def rent_bridge(
    inputs: CapacityInputs,
    cloud: RentedOption,
    *,
    instances: int,
    ready: float,
    run_hours: float | None,
) -> Bridge | None:
    """``instances`` of ``cloud`` from max(need, its booking lead) until the fleet is ready
    on day ``ready``; None when nothing is left to bridge.

    An on-demand bridge of more GPUs than ``on_demand_bridge_gpus`` carries the risk code
    ``not_guaranteed``. A 1-year term bridging 40 days is paid for its 365 days:

    >>> b = rent_bridge(CapacityInputs(date(2026, 12, 3), needed_in_days=30.0),
    ...     RentedOption("Term", 14.0, 2, 30.0, code="reserved", committed=True,
    ...                  minimum_days=365), instances=2, ready=70.0, run_hours=None)
    >>> b.start_in_days, b.days, b.hours, b.cost  # 2 × 8,760 h × $30
    (30.0, 40.0, 8760.0, 525600.0)
    """
    start = max(inputs.needed_day, cloud.ready_in_days)
    if not start < ready:
        return None
    gpus = instances * cloud.gpus_per_instance
    too_big = cloud.code == ON_DEMAND and gpus > inputs.on_demand_bridge_gpus
    hours = bridge_hours(
        gap_days=ready - start, run_hours=run_hours, minimum_days=cloud.minimum_days
    )
    return Bridge(
        option=cloud.name,
        instances=instances,
        start_in_days=start,
        days=ready - start,
        hours=hours,
        price_per_instance_hour=cloud.price_per_instance_hour,
        cost=instances * hours * cloud.price_per_instance_hour,
        code=cloud.code,
        gpus=gpus,
        minimum_days=cloud.minimum_days,
        risk=NOT_GUARANTEED if too_big else "",
        on_demand_limit_gpus=inputs.on_demand_bridge_gpus,
    )


def bridge_cloud(
    inputs: CapacityInputs,
    rented: Sequence[RentedOption],
    *,
    ready: float,
    run_hours: float | None,
) -> RentedOption | None:
    """The eligible cloud that bridges the whole fleet (ready on day ``ready``).

    Capacity that can be had comes first: on demand up to ``on_demand_bridge_gpus``, a
    capacity block or a reserved term of any size when the bridge uses at least
    ``MIN_RESERVED_USE`` of its minimum term; an on-demand bridge above that size only when
    nothing else fits. Among those, the soonest start, then the cheapest bridge (its
    minimum term included), then the cheapest hour of the work.

    >>> inputs = CapacityInputs(date(2026, 12, 3), needed_in_days=30)
    >>> def clouds(n):
    ...     return [RentedOption("OD", 0.0, n, 40.0),
    ...             RentedOption("CB", 14.0, n, 45.0, code="capacity_block", minimum_days=1)]
    >>> bridge_cloud(inputs, clouds(8), ready=77.0, run_hours=None).name  # 64 GPUs
    'OD'
    >>> bridge_cloud(inputs, clouds(17), ready=77.0, run_hours=None).name  # 136 GPUs
    'CB'
    """
    eligible = [o for o in rented if o.eligible]

    def rank(cloud: RentedOption) -> tuple[bool, float, float, float]:
        bridge = rent_bridge(
            inputs, cloud, instances=cloud.instances, ready=ready, run_hours=run_hours
        )
        start = max(inputs.needed_day, cloud.ready_in_days)
        hourly = cloud.instances * cloud.price_per_instance_hour
        fits = _fits(inputs, cloud, ready=ready, run_hours=run_hours)
        return not fits, start, bridge.cost if bridge else 0.0, hourly

    return min(eligible, key=rank) if eligible else None


def _fits(
    inputs: CapacityInputs, cloud: RentedOption, *, ready: float, run_hours: float | None
) -> bool:
    """Whether ``cloud`` can be had to bridge the whole fleet until day ``ready``: on
    demand up to the size a provider has free; booked capacity when the bridge holds at
    least ``MIN_RESERVED_USE`` of its minimum term.

    >>> inputs = CapacityInputs(date(2026, 12, 3), needed_in_days=0.0)
    >>> term = RentedOption("1 year", 0.0, 1, 30.0, code="reserved", minimum_days=365)
    >>> _fits(inputs, term, ready=180.0, run_hours=None)  # 180 of 365 days: 49 %
    False
    """
    if cloud.code == ON_DEMAND:
        return cloud.instances * cloud.gpus_per_instance <= inputs.on_demand_bridge_gpus
    start = max(inputs.needed_day, cloud.ready_in_days)
    held = held_hours(gap_days=ready - start, run_hours=run_hours)
    return held <= 0 or held >= MIN_RESERVED_USE * cloud.minimum_days * HOURS_PER_DAY


def _rented_timing(inputs: CapacityInputs, option: RentedOption) -> OptionTiming:
    """A cloud option's ready date; late, it pays the cost of delay or is ruled out."""
    late = max(0.0, option.ready_in_days - inputs.needed_day)
    ruled_out = late > 0 and inputs.if_late is LatePolicy.RULE_OUT
    return OptionTiming(
        name=option.name,
        kind="cloud",
        code=option.code,
        ready_in_days=option.ready_in_days,
        ready_date=day(inputs.as_of, option.ready_in_days),
        late_days=late,
        delay_cost=0.0 if ruled_out else delay_cost(late, inputs.cost_of_delay_per_week),
        ruled_out=ruled_out,
    )


def _lateness(
    inputs: CapacityInputs,
    option: OwnedOption,
    ready: float,
    cloud: RentedOption | None,
    *,
    run_hours: float | None,
) -> tuple[Bridge | None, float, bool]:
    """What an owned option ready on day ``ready`` pays for being late: its bridge, its
    cost of delay, and whether it is ruled out."""
    need = inputs.needed_day
    late = max(0.0, ready - need)
    if late <= 0:
        return None, 0.0, False
    if inputs.if_late is LatePolicy.RULE_OUT:
        return None, 0.0, True
    if inputs.if_late is not LatePolicy.BRIDGE or cloud is None:
        return None, delay_cost(late, inputs.cost_of_delay_per_week), False
    instances = max(1, math.ceil(cloud.instances * option.share))
    bridge = rent_bridge(inputs, cloud, instances=instances, ready=ready, run_hours=run_hours)
    start = max(need, cloud.ready_in_days)
    return bridge, delay_cost(min(late, start - need), inputs.cost_of_delay_per_week), False


def delay_cost(late_days: float, cost_per_week: float) -> float:
    """The cost of finishing ``late_days`` later: ``cost_per_week`` × weeks late.

    >>> delay_cost(14, 50_000.0), delay_cost(0, 50_000.0)
    (100000.0, 0.0)
    """
    return max(late_days, 0.0) / DAYS_PER_WEEK * cost_per_week


@dataclass(frozen=True, slots=True)
class LateDraws:
    """What the Monte Carlo needs to redraw an owned option's lateness (montecarlo.py).

    A draw's fleet is ready on day R (the lead time drawn). A bridge starts on day
    S = max(need, its booking lead, drawn like the lead times) and is held
    C = min(R − S, ``max_late_days``) days (capped at a one-off run's length, after which
    the bridge has done the whole run), billed at least ``minimum_days`` (a capacity
    block's, a committed term's): ``per_late_day`` × max(C, minimum) when C > 0. The days
    between the need date and min(R, S) pay ``delay_per_day`` (the cost of delay); without
    a bridge S is never, so every late day does.
    """

    supply_days: float  # nominal supply days (0 when in stock: nothing to draw)
    site_days: float
    install_days: float
    needed_day: float
    per_late_day: float  # the bridge's rent per day held (0: no bridge)
    max_late_days: float = math.inf
    lead_time_range: tuple[float, float] = DEFAULT_LEAD_TIME_RANGE
    bridge_lead_days: float = math.inf  # the bridge cloud's booking lead (inf: no bridge)
    minimum_days: float = 0.0
    delay_per_day: float = 0.0


def late_draws(plan: CapacityPlan, name: str) -> LateDraws | None:
    """The Monte Carlo's view of one owned option's lateness; None when time costs nothing.

    >>> p = plan_capacity(
    ...     CapacityInputs(date(2026, 12, 3), needed_in_days=30, install_days=0),
    ...     owned=[OwnedOption("Buy", "own", 4)],
    ...     rented=[RentedOption("Cloud", 0.0, 4, 40.0)],
    ...     units_in_stock=0, lead_time_weeks=10)
    >>> d = late_draws(p, "Buy")
    >>> d.supply_days, d.per_late_day, d.bridge_lead_days  # 4 instances × $40 × 24 h
    (70.0, 3840.0, 0.0)
    """
    timing = plan.timing(name)
    inputs, cloud = plan.inputs, plan.bridge_cloud
    if timing is None or timing.ruled_out or not math.isfinite(inputs.needed_day):
        return None
    if inputs.if_late is LatePolicy.RULE_OUT:
        return None
    delay_per_day = inputs.cost_of_delay_per_week / DAYS_PER_WEEK
    per_day, cap, lead, minimum = 0.0, math.inf, math.inf, 0.0
    if inputs.if_late is LatePolicy.BRIDGE and cloud is not None:
        instances = timing.bridge.instances if timing.bridge else cloud.instances
        per_day = instances * cloud.price_per_instance_hour * HOURS_PER_DAY
        if plan.run_hours is not None:
            cap = plan.run_hours / HOURS_PER_DAY
        lead, minimum = cloud.ready_in_days, cloud.minimum_days
    if per_day <= 0 and delay_per_day <= 0:
        return None
    return LateDraws(
        supply_days=plan.supply_days,
        site_days=inputs.site_readiness_weeks * DAYS_PER_WEEK,
        install_days=inputs.install_days,
        needed_day=inputs.needed_day,
        per_late_day=per_day,
        max_late_days=cap,
        lead_time_range=inputs.lead_time_range,
        bridge_lead_days=lead,
        minimum_days=minimum,
        delay_per_day=delay_per_day,
    )


__all__ = [
    "DEFAULT_INSTALL_DAYS",
    "DEFAULT_LEAD_TIME_RANGE",
    "DEFAULT_ON_DEMAND_BRIDGE_GPUS",
    "MIN_RESERVED_USE",
    "NOT_GUARANTEED",
    "ON_DEMAND",
    "Bridge",
    "CapacityInputs",
    "CapacityPlan",
    "LateDraws",
    "LatePolicy",
    "OptionTiming",
    "OwnedOption",
    "RentedOption",
    "bridge_cloud",
    "bridge_hours",
    "day",
    "delay_cost",
    "held_hours",
    "late_draws",
    "owned_ready_days",
    "plan_capacity",
    "rent_bridge",
]
