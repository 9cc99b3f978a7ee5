"""Every chassis of the seed catalog has rules and a valid default configuration that
reproduces the catalog's price, cost and power; every component is sourced and dated
(docs/configure.md)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from catalog.configure.rules import Configuration
from catalog.configure.service import (
    NotConfigurable,
    chassis_rules,
    check_configuration,
    default_configuration,
)
from catalog.models import ChassisRules, Component, ServerModel

pytestmark = pytest.mark.django_db


def test_every_server_model_has_rules(seed_catalog: Any) -> None:
    servers = set(ServerModel.objects.values_list("key", flat=True))
    assert len(servers) == 15
    assert set(ChassisRules.objects.values_list("server__key", flat=True)) == servers


def test_every_default_configuration_is_valid_and_is_the_catalog_row(seed_catalog: Any) -> None:
    for server in ServerModel.objects.all():
        result = check_configuration(server, default_configuration(server))
        assert result.valid, (server.key, result.violations)
        # The default sums to the catalog's list price, cost and power exactly.
        assert result.list_price == server.list_price, server.key
        assert result.cost == server.cost_price, server.key
        assert result.max_w == int(server.max_power_kw * 1000), server.key
        assert result.idle_w == int(server.idle_power_kw * 1000), server.key
        if server.typical_power_kw is None:
            assert result.typical_w is None
        else:
            assert result.typical_w == int(server.typical_power_kw * 1000), server.key


def test_every_barebone_price_and_base_power_stays_positive(seed_catalog: Any) -> None:
    for server in ServerModel.objects.all():
        chassis = chassis_rules(server)
        result = check_configuration(server, Configuration(server.key, ()))
        assert result.barebone_list_price > 0, server.key
        assert result.barebone_cost is not None and result.barebone_cost > 0, server.key
        # An empty chassis draws the baseboard, fans and board: the catalog's figures less
        # every default component's.
        assert 0 < result.idle_w < chassis.idle_w, server.key
        assert 0 < result.max_w < chassis.max_w, server.key


def test_fixed_systems_allow_only_their_default(seed_catalog: Any) -> None:
    dgx = ServerModel.objects.get(key="nvidia-dgx-h100")
    default = default_configuration(dgx)
    fewer = Configuration(dgx.key, tuple((p, n) for p, n in default.items if p != "DGX 3.3kW PSU"))
    codes = [f.code for f in check_configuration(dgx, fewer).violations]
    assert codes[0] == "fixed_configuration"


def test_every_component_is_sourced_and_dated_or_an_estimate(seed_catalog: Any) -> None:
    for component in Component.objects.all():
        assert component.source and component.as_of, component.part_number
        assert component.source_url or component.is_estimate, component.part_number


def test_a_server_without_rules_is_not_configurable(seed_catalog: Any) -> None:
    server = ServerModel.objects.get(key="smc-821ge-tnhr-h100")
    ChassisRules.objects.filter(server=server).delete()
    with pytest.raises(NotConfigurable):
        default_configuration(server)


def test_rack_power_limit_from_the_site(seed_catalog: Any) -> None:
    # A GB200 NVL72 draws up to 132 kW; a 40 kW rack cannot take it.
    rack = ServerModel.objects.get(key="nvidia-gb200-nvl72")
    limited = check_configuration(
        rack, default_configuration(rack), rack_power_limit_kw=Decimal(40)
    )
    assert [(f.code, f.params) for f in limited.violations] == [
        ("rack_power", {"max_kw": Decimal(132), "limit_kw": Decimal(40)})
    ]
