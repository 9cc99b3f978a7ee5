"""A quote's bill of materials (quotes/services/bom.py): the per-system lines hang under
their system line and follow its quantity; another quantity needs a reason; a rack-scale
system gets the liquid-rack installation; a revision keeps the structure. The audit's case:
servers 17 → 16 left the network and installation lines at 17 (€51,964 for a server not
bought)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from quotes import services
from quotes.models import LineKind

from .conftest import send

pytestmark = pytest.mark.django_db

# HGX B200 servers sized by the calculator for a 7 B pre-training: the servers, their
# networking and installation per server, support for the horizon.
QUERY = "preset=pretrain-7b&server=smc-822gs-nbrt-b200"


@pytest.fixture
def quote(seed_catalog: object, customer: Any, sales_user: Any) -> Any:
    return services.quote_create_from_calculator(customer=customer, owner=sales_user, query=QUERY)


def lines_by_kind(revision: Any) -> dict[str, Any]:
    return {line.kind: line for line in revision.lines.order_by("position")}


def test_per_system_lines_follow_the_systems_quantity(quote: Any) -> None:
    revision = quote.revisions.get()
    lines = lines_by_kind(revision)
    server = lines[LineKind.SERVER]
    network, install = lines[LineKind.NETWORKING], lines[LineKind.INSTALLATION]
    servers = server.quantity
    assert (network.parent_id, network.per_parent, network.quantity) == (
        server.pk,
        Decimal(1),
        servers,
    )
    assert (install.parent_id, install.quantity) == (server.pk, servers)
    # One server fewer: its network and installation lines follow (servers − 1 each), and
    # the analysis' networking per server stays the line's unit price.
    services.revision_update_line(
        revision=revision,
        line_id=server.pk,
        quantity=servers - 1,
        unit_price=server.unit_price,
        discount_pct=server.discount_pct,
    )
    network.refresh_from_db()
    install.refresh_from_db()
    assert network.quantity == install.quantity == servers - 1
    deal = services.deal_inputs(revision=revision)
    assert deal.servers == servers - 1
    # Net networking ÷ servers = the line's unit price (no discount on the line).
    assert deal.per_server(deal.networking_net) == network.unit_price


def test_another_quantity_on_a_per_system_line_needs_a_reason(quote: Any) -> None:
    revision = quote.revisions.get()
    lines = lines_by_kind(revision)
    server, install = lines[LineKind.SERVER], lines[LineKind.INSTALLATION]
    other = server.quantity + 1
    with pytest.raises(services.QuoteError, match="follows its system"):
        services.revision_update_line(
            revision=revision,
            line_id=install.pk,
            quantity=other,
            unit_price=install.unit_price,
            discount_pct=install.discount_pct,
        )
    services.revision_update_line(
        revision=revision,
        line_id=install.pk,
        quantity=other,
        unit_price=install.unit_price,
        discount_pct=install.discount_pct,
        quantity_reason="One spare chassis installed as cold standby",
    )
    # Set by hand, it no longer follows the system.
    services.revision_update_line(
        revision=revision,
        line_id=server.pk,
        quantity=server.quantity + 2,
        unit_price=server.unit_price,
        discount_pct=server.discount_pct,
    )
    install.refresh_from_db()
    assert (install.quantity, install.follows_system) == (other, False)


def test_a_per_system_line_needs_a_system_and_a_whole_number_per_system(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    quote = services.quote_create(customer=customer, owner=sales_user)
    revision = quote.revisions.get()
    with pytest.raises(services.QuoteError, match="Add a server or rack-scale system first"):
        services.revision_add_line(
            revision=revision, catalog_key="item:installation-per-server", quantity=Decimal(2)
        )
    # An optional line is not priced per system.
    services.revision_add_line(
        revision=revision,
        catalog_key="item:installation-per-server",
        quantity=Decimal(3),
        optional=True,
    )
    services.revision_add_line(
        revision=revision, catalog_key="server:smc-822gs-nbrt-b200", quantity=Decimal(4)
    )
    with pytest.raises(services.QuoteError, match="give 4 or a multiple"):
        services.revision_add_line(
            revision=revision, catalog_key="item:ib-ndr-400g-per-node", quantity=Decimal(6)
        )
    two_each = services.revision_add_line(
        revision=revision, catalog_key="item:ib-ndr-400g-per-node", quantity=Decimal(8)
    )
    assert two_each.per_parent == Decimal(2)


def test_a_rack_scale_system_gets_the_liquid_rack_installation(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=rack-scale-nvl72"
    )
    keys = [line.catalog_key for line in quote.revisions.get().lines.all()]
    assert "item:liquid-rack-installation" in keys
    assert "item:installation-per-server" not in keys


def test_a_new_revision_keeps_the_bill_of_materials_and_the_delivery(
    quote: Any, sales_user: Any
) -> None:
    revision = quote.revisions.get()
    server = lines_by_kind(revision)[LineKind.SERVER]
    services.revision_set_line_delivery(
        revision=revision, line_id=server.pk, lead_time_weeks=Decimal(6), reason="Vendor slot"
    )
    # (This small run is cheaper rented: the proposal goes without the analysis.)
    services.revision_set_presentation(revision=revision, presentation="without", reason="")
    send(revision, sales_user)
    new = services.quote_revise(revision=revision, actor=sales_user)
    lines = lines_by_kind(new)
    assert lines[LineKind.NETWORKING].parent_id == lines[LineKind.SERVER].pk
    assert (lines[LineKind.SERVER].lead_time_weeks, lines[LineKind.SERVER].delivery_reason) == (
        Decimal(6),
        "Vendor slot",
    )
    # The buyer's copy names the system each per-system line belongs to.
    revision.refresh_from_db()
    frozen = {line["kind"]: line for line in revision.snapshot["lines"]}
    assert frozen[LineKind.NETWORKING]["parent"] == frozen[LineKind.SERVER]["position"]
    assert frozen[LineKind.NETWORKING]["per_parent"] == "1"
