"""A configured system in the deal analysis (docs/configure.md, "Into the analysis"): its
price is the system line and its component lines, its power the configuration's."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.db.models import F

from catalog.configure.service import component_key
from catalog.models import Component
from quotes import services
from quotes.models import LineKind, QuoteLine
from quotes.services.deal import deal_analysis, deal_inputs

pytestmark = pytest.mark.django_db

NIC, DRIVE = "MCX75310AAS-NEAT", "MZQL23T8HCLS-00A07"
# The SYS-821GE-TNHR's default configuration, priced in euros by hand for the test (any
# prices would do: only the added parts' count in the difference).
PARTS = (
    ("Xeon Platinum 8468", 2, Decimal(6200)),
    ("MEM-DR564MC-ER48", 32, Decimal(330)),
    (DRIVE, 8, Decimal(400)),
    (NIC, 8, Decimal(1500)),
    ("SMC-PSU-3000W-TI", 6, Decimal(560)),
)


def configured_quote(customer: Any, sales_user: Any, *, nics: int, drives: int) -> Any:
    """One SYS-821GE-TNHR (serving a 70 B model at the Amsterdam colocation site, 5 years)
    as a system line with its component lines."""
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b&server=smc-821ge-tnhr-h100"
    )
    revision = quote.revisions.get()
    system = revision.lines.get(kind=LineKind.SERVER)
    assert system.quantity == 1
    system.unit_price = Decimal(200000)  # the barebone
    system.save()
    quantities = {NIC: nics, DRIVE: drives}
    position = revision.lines.count()
    for part, default, price in PARTS:
        position += 1
        per_system = quantities.get(part, default)
        QuoteLine.objects.create(
            revision=revision,
            position=position,
            kind=LineKind.COMPONENT,
            catalog_key=component_key(part),
            description=part,
            quantity=per_system,
            unit_price=price,
            discount_pct=0,
            parent=system,
            per_parent=per_system,
        )
    return revision


def owning(revision: Any) -> dict[str, float]:
    tco = deal_analysis(revision=revision)
    assert tco is not None and "problem" not in tco["deal"], tco and tco["deal"]
    return {c["key"]: c["amount"] for c in tco["deal"]["owning"]}


def test_the_system_price_is_its_line_and_its_components(
    seed_catalog: Any, customer: Any, sales_user: Any
) -> None:
    revision = configured_quote(customer, sales_user, nics=8, drives=8)
    deal = deal_inputs(revision=revision)
    # 200,000 + 2 × 6,200 + 32 × 330 + 8 × 400 + 8 × 1,500 + 6 × 560
    # = 200,000 + 12,400 + 10,560 + 3,200 + 12,000 + 3,360 = 241,520.
    assert deal.servers_net == Decimal(241520)
    assert deal.configuration == tuple((part, n) for part, n, _price in PARTS)


def test_doubling_nics_and_drives_raises_power_and_the_cost_of_owning(
    seed_catalog: Any, customer: Any, sales_user: Any
) -> None:
    # The NICs and drives draw their maximum all the time (typical = max), so the extra
    # power does not depend on the GPUs' utilisation: 8 × 25 W + 8 × 14 W = 312 W more at
    # idle and at maximum.
    Component.objects.filter(part_number__in=[NIC, DRIVE]).update(typical_w=F("max_w"))
    base = configured_quote(customer, sales_user, nics=8, drives=8)
    doubled = configured_quote(customer, sales_user, nics=16, drives=16)
    tco = deal_analysis(revision=doubled)
    assert tco is not None
    power = {a["label"]: a["value"] for a in tco["assumptions"]}
    # 2.5 + 0.312 = 2.812 kW idle, 10.2 + 0.312 = 10.512 kW maximum (shown to 0.1 kW).
    assert power["Supermicro SYS-821GE-TNHR power, idle and maximum"] == "2.8\xa0kW / 10.5\xa0kW"
    before, after = owning(base), owning(doubled)
    # Over 5 years (60 months) at the Amsterdam site (€0.18/kWh, PUE 1.3, €150/kW-month
    # on IT kW), hardware insurance 0.5 %/yr and 10 % residual (docs/methodology.md):
    # purchase  + 8 × 1,500 + 8 × 400                       = 15,200.00
    # energy    + 0.312 kW × 1.3 × 730 h × 60 × €0.18       =  3,197.75
    # colocation + 0.312 kW × €150 × 60                     =  2,808.00
    # insurance + 15,200 × 0.5 % × 5                        =    380.00
    # residual  − 15,200 × 10 %                             = −1,520.00
    # total                                                 = 20,065.75
    expected = {
        "hardware": 15200.00,
        "energy": 3197.75,
        "colocation": 2808.00,
        "insurance": 380.00,
        "residual": -1520.00,
    }
    for key, amount in expected.items():
        assert after[key] - before[key] == pytest.approx(amount, abs=0.02), key
    assert after["support"] == pytest.approx(before["support"], abs=0.01)  # a fixed line
    assert after["staff"] == before["staff"]
    assert sum(after.values()) - sum(before.values()) == pytest.approx(20065.75, abs=0.05)


def test_an_unconfigured_system_keeps_the_catalogs_power(
    seed_catalog: Any, customer: Any, sales_user: Any
) -> None:
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b&server=smc-821ge-tnhr-h100"
    )
    revision = quote.revisions.get()
    assert deal_inputs(revision=revision).configuration is None
    tco = deal_analysis(revision=revision)
    assert tco is not None
    power = {a["label"]: a["value"] for a in tco["assumptions"]}
    assert power["Supermicro SYS-821GE-TNHR power, idle and maximum"] == "2.5\xa0kW / 10.2\xa0kW"


def test_a_component_under_an_optional_system_is_optional_too(
    seed_catalog: Any, customer: Any, sales_user: Any
) -> None:
    revision = configured_quote(customer, sales_user, nics=8, drives=8)
    before = deal_inputs(revision=revision).servers_net
    spare = QuoteLine.objects.create(
        revision=revision,
        position=99,
        kind=LineKind.SERVER,
        catalog_key="server:smc-821ge-tnhr-h100",
        description="Spare system (optional)",
        quantity=1,
        unit_price=Decimal(200000),
        discount_pct=0,
        optional=True,
    )
    QuoteLine.objects.create(
        revision=revision,
        position=100,
        kind=LineKind.COMPONENT,
        catalog_key=component_key(NIC),
        description=NIC,
        quantity=8,
        unit_price=Decimal(1500),
        discount_pct=0,
        parent=spare,
        per_parent=8,
    )
    deal = deal_inputs(revision=revision)
    assert deal.servers_net == before == Decimal(241520)
    assert deal.configuration == tuple((part, n) for part, n, _price in PARTS)
