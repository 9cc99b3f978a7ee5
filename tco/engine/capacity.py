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

- ``bridge`` (owned options only): rent the cheapest eligible cloud offering from the
  need date until the fleet is ready, then own. The bridge's cost (its instance-hours ×
  the price per instance-hour) is part of that option's total;
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

    def __post_init__(self) -> None:
        if not isinstance(self.if_late, LatePolicy):
            raise InvalidInput("if_late", f"Unknown policy {self.if_late!r}.")
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
    hours: float  # instance-hours billed per instance (busy hours of the work)
    price_per_instance_hour: float
    cost: float


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
    utilization: float = 1.0  # the owned fleet's busy share (what a bridge bills)
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


def bridge_hours(*, gap_days: float, utilization: float, run_hours: float | None = None) -> float:
    """Instance-hours per instance the bridge bills for ``gap_days`` of the work.

    Continuous or recurring work keeps the fleet busy ``utilization`` of the time, so the
    bridge bills that share of the gap's hours (recurring runs that fall in the gap). A
    one-off run (``run_hours`` given) is bridged full time, at most for the whole run.

    >>> bridge_hours(gap_days=40, utilization=1.0)
    960.0
    >>> bridge_hours(gap_days=40, utilization=0.5)
    480.0
    >>> bridge_hours(gap_days=40, utilization=0.2, run_hours=240.0)
    240.0
    """
    gap_hours = max(gap_days, 0.0) * HOURS_PER_DAY
    if run_hours is not None:
        return min(gap_hours, run_hours)
    return gap_hours * min(max(utilization, 0.0), 1.0)


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
    code: str = "on_demand"
    committed: bool = False  # a 1- or 3-year term: paid whole, never a bridge


def plan_capacity(
    inputs: CapacityInputs,
    *,
    owned: Sequence[OwnedOption],
    rented: Sequence[RentedOption],
    units_in_stock: int | None,
    lead_time_weeks: float,
    utilization: float,
    run_hours: float | None = None,
) -> CapacityPlan:
    """Each option's ready date, bridge, cost of delay and whether it is ruled out.

    The bridge rents the cheapest eligible pay-per-use cloud (no 1- or 3-year term) per
    hour of the work (instances × price per instance-hour) among those ready soonest; it
    starts when both the work needs it
    and the cloud is ready, and ends when the fleet is ready. Work the bridge cannot cover
    (the cloud itself is later than the need date) pays the cost of delay.

    Worked example (the issue's): the work needs capacity in 30 days; 4 servers ship in
    10 weeks with no stock and no installation time. The fleet is ready on day 70, so a
    bridge of 8-GPU instances at $40 an instance-hour runs from day 30 to day 70: 40 days,
    960 hours at full use, 4 instances: 4 × 960 × 40 = $153,600.

    >>> p = plan_capacity(
    ...     CapacityInputs(date(2026, 12, 3), needed_in_days=30, install_days=0),
    ...     owned=[OwnedOption("Buy", "own", 4)],
    ...     rented=[RentedOption("Cloud", 0.0, 4, 40.0)],
    ...     units_in_stock=0, lead_time_weeks=10, utilization=1.0)
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
    bridging = [o for o in rented if o.eligible and not o.committed]
    bridge_cloud = (
        min(bridging, key=lambda o: (o.ready_in_days, o.instances * o.price_per_instance_hour))
        if bridging
        else None
    )
    for option in owned:
        bridge, delay, ruled_out = _lateness(
            inputs, option, ready, bridge_cloud, utilization=utilization, run_hours=run_hours
        )
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
        utilization=utilization,
        run_hours=run_hours,
        bridge_cloud=bridge_cloud,
        supply_days=supply_days,
    )


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
    bridge_cloud: RentedOption | None,
    *,
    utilization: float,
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
    if inputs.if_late is not LatePolicy.BRIDGE or bridge_cloud is None:
        return None, delay_cost(late, inputs.cost_of_delay_per_week), False
    start = max(need, bridge_cloud.ready_in_days)
    bridge: Bridge | None = None
    if start < ready:
        instances = max(1, math.ceil(bridge_cloud.instances * option.share))
        hours = bridge_hours(gap_days=ready - start, utilization=utilization, run_hours=run_hours)
        bridge = Bridge(
            option=bridge_cloud.name,
            instances=instances,
            start_in_days=start,
            days=ready - start,
            hours=hours,
            price_per_instance_hour=bridge_cloud.price_per_instance_hour,
            cost=instances * hours * bridge_cloud.price_per_instance_hour,
        )
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

    A draw's lateness L (days after the need date, the lead time drawn) costs
    ``per_late_day`` × min(L, ``max_late_days``): the bridge's daily rent (capped at a
    one-off run's length, after which the bridge has done the whole run), or the cost of
    delay per day.
    """

    supply_days: float  # nominal supply days (0 when in stock: nothing to draw)
    site_days: float
    install_days: float
    needed_day: float
    per_late_day: float
    max_late_days: float = math.inf
    lead_time_range: tuple[float, float] = DEFAULT_LEAD_TIME_RANGE


def late_draws(plan: CapacityPlan, name: str) -> LateDraws | None:
    """The Monte Carlo's view of one owned option's lateness; None when time costs nothing.

    >>> p = plan_capacity(
    ...     CapacityInputs(date(2026, 12, 3), needed_in_days=30, install_days=0),
    ...     owned=[OwnedOption("Buy", "own", 4)],
    ...     rented=[RentedOption("Cloud", 0.0, 4, 40.0)],
    ...     units_in_stock=0, lead_time_weeks=10, utilization=0.5)
    >>> d = late_draws(p, "Buy")
    >>> d.supply_days, d.per_late_day  # 4 instances × $40 × 24 h × 50 % busy
    (70.0, 1920.0)
    """
    timing = plan.timing(name)
    inputs, bridge = plan.inputs, plan.bridge_cloud
    if timing is None or timing.ruled_out or not math.isfinite(inputs.needed_day):
        return None
    if inputs.if_late is LatePolicy.BRIDGE and bridge is not None:
        instances = timing.bridge.instances if timing.bridge else bridge.instances
        if plan.run_hours is not None:
            per_day = instances * bridge.price_per_instance_hour * HOURS_PER_DAY
            cap = plan.run_hours / HOURS_PER_DAY
        else:
            busy = min(max(plan.utilization, 0.0), 1.0)
            per_day = instances * bridge.price_per_instance_hour * HOURS_PER_DAY * busy
            cap = math.inf
    elif inputs.if_late is LatePolicy.RULE_OUT:
        return None
    else:
        per_day, cap = inputs.cost_of_delay_per_week / DAYS_PER_WEEK, math.inf
    if per_day <= 0:
        return None
    return LateDraws(
        supply_days=plan.supply_days,
        site_days=inputs.site_readiness_weeks * DAYS_PER_WEEK,
        install_days=inputs.install_days,
        needed_day=inputs.needed_day,
        per_late_day=per_day,
        max_late_days=cap,
        lead_time_range=inputs.lead_time_range,
    )


__all__ = [
    "DEFAULT_INSTALL_DAYS",
    "DEFAULT_LEAD_TIME_RANGE",
    "Bridge",
    "CapacityInputs",
    "CapacityPlan",
    "LateDraws",
    "LatePolicy",
    "OptionTiming",
    "OwnedOption",
    "RentedOption",
    "bridge_hours",
    "day",
    "delay_cost",
    "late_draws",
    "owned_ready_days",
    "plan_capacity",
]
