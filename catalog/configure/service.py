"""The catalog's chassis rules and components as the pure rules read them, and the check
of a configuration against them (docs/configure.md).

`default_configuration(server)` and `check_configuration(server, configuration)` are the
interface the configurator, the quote lines and the deal analysis use.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from ..models import ChassisRules, Component, ServerModel
from ..selectors import latest_fx_rate
from . import rules
from .rules import Check, ComponentSpec, Configuration

# A quote line that sells a component names it "component:<part number>".
COMPONENT_PREFIX = "component:"


class NotConfigurable(LookupError):
    """The server model has no chassis rules in the catalog."""


def component_key(part_number: str) -> str:
    """The catalog key of a component's quote line.

    >>> component_key("MCX75310AAS-NEAT")
    'component:MCX75310AAS-NEAT'
    """
    return COMPONENT_PREFIX + part_number


def part_number_of(catalog_key: str) -> str | None:
    """The part number a quote line's catalog key names, None if not a component.

    >>> part_number_of("component:MCX75310AAS-NEAT"), part_number_of("server:x")
    ('MCX75310AAS-NEAT', None)
    """
    if catalog_key.startswith(COMPONENT_PREFIX):
        return catalog_key[len(COMPONENT_PREFIX) :]
    return None


def _int_list(cell: str) -> tuple[int, ...]:
    return tuple(int(part) for part in cell.split(";") if part)


def _to_currency(amount: Decimal, source: str, target: str) -> Decimal:
    """`amount` in `target` at the latest EUR→USD rate (the catalog knows these two)."""
    if source == target:
        return amount
    fx = latest_fx_rate("EUR", "USD")
    if fx is None:
        raise NotConfigurable(f"no EUR/USD rate to convert a {source} component price")
    return amount * fx.rate if source == "EUR" else amount / fx.rate


def component_spec(component: Component, currency: str) -> ComponentSpec:
    """A catalog component as the rules read it, priced in `currency`."""
    cost = component.cost_price
    return ComponentSpec(
        part_number=component.part_number,
        role=component.role,
        list_price=_to_currency(component.list_price, component.currency, currency),
        cost_price=None if cost is None else _to_currency(cost, component.currency, currency),
        typical_w=component.typical_w,
        max_w=component.max_w,
        cpu_family=component.cpu_family,
        cpu_socket=component.cpu_socket,
        memory_type=component.memory_type,
        memory_speed_mts=component.memory_speed_mts,
        memory_capacity_gb=component.memory_capacity_gb,
        drive_form_factor=component.drive_form_factor,
        slot=component.slot,
        network_gbps=component.network_gbps,
        psu_rating_w=component.psu_rating_w,
    )


def component_specs(part_numbers: Iterable[str], currency: str) -> dict[str, ComponentSpec]:
    """The catalog's components among `part_numbers` (unknown ones left out)."""
    found = Component.objects.filter(part_number__in=set(part_numbers))
    return {c.part_number: component_spec(c, currency) for c in found}


def _watts(kw: Decimal | None) -> int | None:
    return None if kw is None else int(kw * 1000)


def chassis_rules(server: ServerModel) -> rules.ChassisRules:
    """The server's chassis rules with the catalog's price, cost, power and default
    configuration; NotConfigurable when it has none."""
    row = ChassisRules.objects.filter(server=server).first()
    if row is None:
        raise NotConfigurable(server.key)
    default = tuple(
        server.default_components.order_by("position").values_list(
            "component__part_number", "quantity"
        )
    )
    return rules.ChassisRules(
        server_key=server.key,
        gpu_count=server.gpu_count,
        fixed=row.fixed,
        cpu_sockets=row.cpu_sockets,
        cpu_socket=row.cpu_socket,
        cpu_families=tuple(row.cpu_families.split(";")),
        memory_slots=row.memory_slots,
        memory_channels_per_socket=row.memory_channels_per_socket,
        memory_type=row.memory_type,
        memory_speeds=_int_list(row.memory_speeds),
        memory_capacities_gb=_int_list(row.memory_capacities_gb),
        pcie_x16_slots=row.pcie_x16_slots,
        pcie_x8_slots=row.pcie_x8_slots,
        bays={"u2": row.bays_u2, "e1s": row.bays_e1s, "m2": row.bays_m2},
        psu_bays=row.psu_bays,
        psu_ratings_w=_int_list(row.psu_ratings_w),
        psu_redundancy=row.psu_redundancy,
        list_price=server.list_price,
        cost_price=server.cost_price,
        max_w=int(server.max_power_kw * 1000),
        idle_w=int(server.idle_power_kw * 1000),
        typical_w=_watts(server.typical_power_kw),
        default=default,
    )


def default_configuration(server: ServerModel) -> Configuration:
    """The vendor's (or our standard) configuration of the server, as sold at list price."""
    return Configuration(server.key, chassis_rules(server).default)


def recommended_configuration(server: ServerModel, workload: str | None) -> Configuration:
    """The default adjusted to the workload ("training", "serving"): rules.recommended."""
    chassis = chassis_rules(server)
    specs = component_specs((part for part, _n in chassis.default), server.currency)
    return rules.recommended(chassis, specs, workload)


def check_configuration(
    server: ServerModel,
    configuration: Configuration,
    *,
    rack_power_limit_kw: Decimal | None = None,
    workload: str | None = None,
) -> Check:
    """The rules' verdict on `configuration` of `server`, with its price (in the server's
    currency), cost and power per system. `workload` ("training", "serving") selects the
    recommendations; `rack_power_limit_kw` is the site's."""
    chassis = chassis_rules(server)
    parts = {part for part, _n in configuration.items} | {part for part, _n in chassis.default}
    specs = component_specs(parts, server.currency)
    return rules.check(
        chassis,
        configuration,
        specs,
        rack_power_limit_kw=rack_power_limit_kw,
        workload=workload,
    )
