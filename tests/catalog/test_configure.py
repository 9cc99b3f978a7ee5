"""Every chassis of the seed catalog has rules and a valid default configuration that
reproduces the catalog's price, cost and power; every component is sourced and dated
(docs/configure.md)."""

from __future__ import annotations

import csv
import io
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


@pytest.mark.parametrize(
    ("language", "balance", "capacity"),
    [
        (
            "en",
            "8 DIMMs do not populate the 16 channels of two 5th-generation Xeon CPUs evenly; "
            "fit 16 or 32.",
            "4 × 3,000 W supplies in 2+2 redundancy carry 6,000 W; the system draws up to "
            "10,200 W.",
        ),
        (
            "nl",
            "8 DIMM's vullen de 16 kanalen van twee CPU's (Xeon van de 5e generatie) niet "
            "gelijkmatig; plaats er 16 of 32.",
            "4 voedingen van 3.000 W in 2+2-redundantie leveren 6.000 W; het systeem vraagt "
            "tot 10.200 W.",
        ),
    ],
)
def test_findings_are_worded_in_the_readers_language(
    language: str, balance: str, capacity: str
) -> None:
    from django.utils import translation

    from catalog.configure.rules import Finding
    from catalog.configure.wording import describe

    memory = Finding(
        "memory_balance",
        {"dimms": 8, "channels": 16, "cpus": 2, "family": "xeon-5", "fits": [16, 32]},
    )
    power = Finding(
        "psu_capacity",
        {"psus": 4, "rating_w": 3000, "capacity_w": 6000, "max_w": 10200, "scheme": "2+2"},
    )
    with translation.override(language):
        assert describe(memory) == balance
        assert describe(power) == capacity


def test_every_finding_code_has_a_sentence_in_both_languages() -> None:
    from django.utils import translation

    from catalog.configure.wording import SENTENCES

    params: dict[str, object] = {
        "part": "X", "family": "xeon-4", "families": ["xeon-5"], "socket": "SP5",
        "chassis": "LGA4677", "cpus": 1, "sockets": 2, "models": 2, "channels": 16,
        "dimms": 8, "slots": 10, "fits": [16, 32], "type": "DDR4", "speed": 6400,
        "speeds": [4800], "capacity": 512, "capacities": [64], "cards": 11, "size": "x16",
        "drives": 17, "form": "u2", "bays": 16, "psus": 4, "rating_w": 2700,
        "ratings_w": [3000], "capacity_w": 6000, "max_w": 10200, "scheme": "2+2",
        "max_kw": Decimal("10.2"), "limit_kw": Decimal(10), "gbps": 400, "gpus": 8,
        "nics": 4, "enough": 2, "server": "nvidia-dgx-h100",
    }  # fmt: skip
    for code, sentence in SENTENCES.items():
        with translation.override("en"):
            english = sentence(params)
        with translation.override("nl"):
            dutch = sentence(params)
        assert english and dutch != english, code


def test_components_rules_and_defaults_export_and_import_unchanged(seed_catalog: Any) -> None:
    from catalog.services import export_price_list, import_price_file

    for kind in ("components", "chassis", "defaults"):
        for file_format in ("csv", "xlsx"):
            exported = export_price_list(kind=kind, file_format=file_format)
            preview = import_price_file(
                kind=kind, filename=exported.filename, data=exported.content, source="round trip"
            )
            assert preview.ok, (kind, file_format, preview.errors)
            assert not preview.new and not preview.changed, (kind, file_format)
            assert preview.unchanged, (kind, file_format)


@pytest.mark.dates
def test_a_component_price_change_is_kept_in_the_price_history(seed_catalog: Any) -> None:
    from django.utils import timezone

    from catalog.models import PriceChange
    from catalog.services import export_price_list, import_price_file

    exported = export_price_list(kind="components", file_format="csv").content.decode("utf-8-sig")
    header, *rows = list(csv.reader(io.StringIO(exported)))
    today = timezone.localdate().isoformat()
    for row in rows:
        if row[0] == "MCX75310AAS-NEAT":
            row[header.index("list_price")] = "1800"
            row[header.index("price_as_of")] = today
    buffer = io.StringIO()
    csv.writer(buffer).writerows([header, *rows])
    data = buffer.getvalue().encode()
    preview = import_price_file(kind="components", filename="c.csv", data=data, source="test")
    assert preview.ok, preview.errors
    assert Component.objects.get(part_number="MCX75310AAS-NEAT").list_price == Decimal(1800)
    change = PriceChange.objects.filter(kind="components", key="MCX75310AAS-NEAT").latest("pk")
    assert (change.old_value, change.new_value) == (Decimal(1700), Decimal(1800))


def test_recommended_configuration_of_a_catalog_server(seed_catalog: Any) -> None:
    from catalog.configure.service import recommended_configuration

    server = ServerModel.objects.get(key="smc-821ge-tnhr-h100")
    serving = recommended_configuration(server, "serving")
    assert dict(serving.items)["MCX75310AAS-NEAT"] == 2
    result = check_configuration(server, serving, workload="serving")
    # Six 400G NICs fewer: 280,000 − 6 × 1,700 = 269,800; 6 × 25 W = 150 W less at most.
    assert result.valid and result.list_price == Decimal(269800)
    assert result.max_w == 10200 - 150
    dgx = ServerModel.objects.get(key="nvidia-dgx-h100")
    assert recommended_configuration(dgx, "serving") == default_configuration(dgx)
