"""Lines as sales engineers work: inline edits, free lines, the quote discount, the
pricing rule (one function for add, re-price and the price-change check), cost and margin,
and the margin approval before sending."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.utils import translation

from catalog.models import FxRate, InfrastructureItem, ServerModel
from quotes import selectors, services
from quotes.models import ApprovalState, LineKind, LineUnit, Quote, QuoteRevision, Status
from quotes.money import convert, hardware_total, to_whole
from quotes.templatetags.quotes_tags import quantity
from tests.quotes.conftest import send
from tests.quotes.test_reprice import SERVERS, change_price

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(draft_quote: Quote) -> QuoteRevision:
    return draft_quote.revisions.get()


@pytest.fixture
def manager(make_sales_user: Callable[..., User]) -> User:
    user = make_sales_user("marta")
    user.groups.add(Group.objects.get_or_create(name="sales-manager")[0])  # created by a migration
    return user


def server_line(revision: Any) -> Any:
    return revision.lines.get(kind=LineKind.SERVER)


def test_calculator_lines_carry_units_and_costs(draft: QuoteRevision) -> None:
    lines = {line.kind: line for line in draft.lines.all()}
    assert lines[LineKind.SERVER].unit == LineUnit.PCS
    assert lines[LineKind.SUPPORT].unit == LineUnit.YEARS  # quantity = years of support
    for line in lines.values():
        assert line.cost_price is not None and 0 < line.cost_price < line.unit_price


def test_editing_a_line_persists_and_the_totals_follow(draft: QuoteRevision) -> None:
    line = server_line(draft)
    before = services.revision_totals(draft)
    services.revision_update_line(
        revision=draft,
        line_id=line.pk,
        quantity=Decimal("3"),
        unit_price=Decimal("200000"),
        discount_pct=Decimal("5"),
        unit=LineUnit.PCS,
    )
    line.refresh_from_db()
    assert (line.quantity, line.unit_price, line.discount_pct) == (3, 200000, 5)
    after = services.revision_totals(draft)
    assert after.subtotal != before.subtotal
    others = sum(
        (
            Decimal(s["amount"])
            for s in services.revision_snapshot(revision=draft)["lines"]
            if s["kind"] != "server" and not s["optional"]
        ),
        Decimal(0),
    )
    assert after.subtotal == Decimal("570000.00") + others


def test_edits_are_validated(draft: QuoteRevision) -> None:
    line = server_line(draft)
    for bad in (
        {"quantity": Decimal(0)},
        {"unit_price": Decimal(-1)},
        {"discount_pct": Decimal(101)},
        {"unit": "barrels"},
    ):
        values: dict[str, Any] = {
            "quantity": Decimal(1),
            "unit_price": Decimal(1),
            "discount_pct": Decimal(0),
            "unit": "pcs",
            **bad,
        }
        with pytest.raises(services.QuoteError):
            services.revision_update_line(revision=draft, line_id=line.pk, **values)
    with pytest.raises(services.QuoteError, match="not on this revision"):
        services.revision_update_line(
            revision=draft,
            line_id=999999,
            quantity=Decimal(1),
            unit_price=Decimal(1),
            discount_pct=Decimal(0),
        )


def test_a_sent_revision_refuses_line_edits(draft: QuoteRevision, sales_user: User) -> None:
    send(draft, sales_user)
    line = server_line(draft)
    with pytest.raises(services.RevisionLocked):
        services.revision_update_line(
            revision=draft,
            line_id=line.pk,
            quantity=Decimal(9),
            unit_price=Decimal(1),
            discount_pct=Decimal(0),
        )
    with pytest.raises(services.RevisionLocked):
        services.revision_set_discount(revision=draft, discount_pct=Decimal(5))
    line.refresh_from_db()
    assert line.quantity != 9


def test_a_free_line_has_description_unit_cost_and_price(draft: QuoteRevision) -> None:
    line = services.revision_add_free_line(
        revision=draft,
        description="On-site training, two days",
        quantity=Decimal("2"),
        unit=LineUnit.LOT,
        unit_price=Decimal("3000"),
        cost_price=Decimal("1200"),
    )
    assert (line.catalog_key, line.kind, line.unit) == ("", LineKind.OTHER, "lot")
    margin = services.revision_margin(draft).lines[line.pk]
    assert (margin.amount, margin.cost, margin.pct) == (
        Decimal("6000.00"),
        Decimal("2400.00"),
        Decimal("60.0"),
    )
    # Re-pricing never touches a free line.
    assert line.pk not in {c.line.pk for c in selectors.revision_price_changes(revision=draft)}
    with pytest.raises(services.QuoteError):
        services.revision_add_free_line(
            revision=draft,
            description="   ",
            quantity=Decimal(1),
            unit="pcs",
            unit_price=Decimal(1),
            cost_price=None,
        )


def test_snapshot_has_units_in_the_buyers_language_and_never_cost(
    draft: QuoteRevision, sales_user: User
) -> None:
    customer = draft.quote.customer
    customer.language = "nl"
    customer.save()
    services.revision_add_free_line(
        revision=draft,
        description="Extra garantie",
        quantity=Decimal("12"),
        unit=LineUnit.MONTHS,
        unit_price=Decimal("100"),
        cost_price=Decimal("10"),
    )
    send(draft, sales_user)
    draft.refresh_from_db()
    snapshot = draft.snapshot
    assert snapshot is not None
    units = {line["unit"]: line["unit_label"] for line in snapshot["lines"]}
    assert units == {"pcs": "st.", "years": "jaar", "months": "maanden"}
    text = json.dumps({k: v for k, v in snapshot.items() if k != "tco"})  # tco: the analysis
    assert "cost" not in text and "margin" not in text and "approval" not in text
    assert all("cost_price" not in line for line in snapshot["lines"])


def test_the_quote_discount_applies_to_the_non_optional_subtotal(draft: QuoteRevision) -> None:
    services.revision_add_free_line(
        revision=draft,
        description="Spare parts kit",
        quantity=Decimal(1),
        unit="lot",
        unit_price=Decimal("1000"),
        cost_price=Decimal("100"),
        optional=True,
    )
    plain = services.revision_totals(draft)
    services.revision_set_discount(revision=draft, discount_pct=Decimal("2.5"))
    draft.refresh_from_db()
    totals = services.revision_totals(draft)
    assert totals.subtotal == plain.subtotal
    assert totals.optional_subtotal == Decimal("1000.00")
    assert totals.discount == (plain.subtotal * Decimal("0.025")).quantize(Decimal("0.01"))
    assert totals.net == totals.subtotal - totals.discount
    assert totals.total == totals.net + totals.vat
    assert totals.vat == (totals.net * draft.vat_rate / 100).quantize(Decimal("0.01"))
    snap = services.revision_snapshot(revision=draft)["totals"]
    assert (snap["discount"], snap["net"], snap["total"]) == (
        str(totals.discount),
        str(totals.net),
        str(totals.total),
    )
    with pytest.raises(services.QuoteError):
        services.revision_set_discount(revision=draft, discount_pct=Decimal("100.5"))


def test_converted_catalog_prices_are_whole_currency_units(draft: QuoteRevision) -> None:
    line = server_line(draft)
    server = ServerModel.objects.get(key=line.catalog_key.split(":")[1])
    assert server.currency != draft.currency  # USD list price on a EUR quote
    latest = FxRate.objects.filter(base="EUR", quote="USD").order_by("-as_of").first()
    assert latest is not None and server.cost_price is not None
    rate = latest.rate
    assert line.unit_price == to_whole(convert(server.list_price, "USD", "EUR", rate))
    assert line.unit_price == line.unit_price.to_integral_value()
    assert line.cost_price == to_whole(convert(server.cost_price, "USD", "EUR", rate))


def test_add_reprice_and_the_price_check_use_one_pricing_rule(
    draft: QuoteRevision, sales_user: User
) -> None:
    line = server_line(draft)
    server = ServerModel.objects.get(key=line.catalog_key.split(":")[1])
    change_price(SERVERS, server.key, server.list_price + Decimal("12345.67"))
    checked = {c.line.pk: c.unit_price for c in selectors.revision_price_changes(revision=draft)}
    services.revision_reprice(revision=draft, actor=sales_user)
    line.refresh_from_db()
    added = services.revision_add_line(
        revision=draft, catalog_key=line.catalog_key, quantity=Decimal(1)
    )
    assert checked[line.pk] == line.unit_price == added.unit_price
    assert line.cost_price == added.cost_price
    # The support line is 10 % of the hardware lines as they are now: the re-priced server,
    # its networking and, since it follows them, the server line added after the re-price.
    support = draft.lines.get(kind=LineKind.SUPPORT)
    item = InfrastructureItem.objects.get(key=support.catalog_key.split(":")[1])
    before_added = hardware_total([x for x in draft.lines.all() if x.pk != added.pk])
    assert checked[support.pk] == (before_added * item.price / 100).quantize(Decimal("0.01"))
    hardware = hardware_total(draft.lines.all())
    assert support.unit_price == (hardware * item.price / 100).quantize(Decimal("0.01"))


def _below_floor(draft: QuoteRevision) -> None:
    # Cost is about 85 % of list: a 10 % quote discount leaves a margin of about 5 %.
    services.revision_set_discount(revision=draft, discount_pct=Decimal(10))
    draft.refresh_from_db()


def test_a_fresh_calculator_draft_is_above_the_floor_and_sends(
    draft: QuoteRevision, sales_user: User
) -> None:
    status = services.approval_status(draft)
    assert status.margin.pct is not None and status.margin.pct > draft.quote.team.margin_floor_pct
    assert not status.blocks_sending
    send(draft, sales_user)
    draft.refresh_from_db()
    assert draft.status == Status.SENT


def test_below_the_floor_sending_waits_for_a_sales_managers_approval(
    draft: QuoteRevision, sales_user: User, manager: User
) -> None:
    _below_floor(draft)
    margin = services.revision_margin(draft)
    assert margin.below_floor and margin.pct is not None and margin.pct < 10
    with pytest.raises(services.QuoteError, match="ask a sales manager"):
        send(draft, sales_user)

    services.approval_request(revision=draft, actor=sales_user, note="Strategic account")
    draft.refresh_from_db()
    assert draft.approval_state == ApprovalState.REQUESTED
    assert draft.approval_requested_by == sales_user and draft.approval_margin_pct == margin.pct
    with pytest.raises(services.QuoteError, match="not decided"):
        send(draft, sales_user)
    # The engineer is no sales manager.
    with pytest.raises(services.QuoteError, match="Only a sales manager"):
        services.approval_decide(revision=draft, actor=sales_user, approve=True)

    services.approval_decide(revision=draft, actor=manager, approve=True, reason="Volume deal")
    draft.refresh_from_db()
    assert (draft.approval_state, draft.approval_decided_by, draft.approval_reason) == (
        ApprovalState.APPROVED,
        manager,
        "Volume deal",
    )
    send(draft, sales_user)
    draft.refresh_from_db()
    assert draft.status == Status.SENT
    # The record stays on the (frozen) revision.
    assert draft.approval_state == ApprovalState.APPROVED and draft.approval_decided_at


def test_a_rejection_keeps_sending_blocked_and_needs_a_reason(
    draft: QuoteRevision, sales_user: User, manager: User
) -> None:
    _below_floor(draft)
    services.approval_request(revision=draft, actor=sales_user)
    with pytest.raises(services.QuoteError, match="reason"):
        services.approval_decide(revision=draft, actor=manager, approve=False, reason=" ")
    services.approval_decide(revision=draft, actor=manager, approve=False, reason="Too cheap")
    draft.refresh_from_db()
    assert draft.approval_state == ApprovalState.REJECTED
    with pytest.raises(services.QuoteError, match="Too cheap"):
        send(draft, sales_user)
    # Deciding twice is refused; asking again (on the same lines) is possible.
    with pytest.raises(services.QuoteError, match="No approval has been requested"):
        services.approval_decide(revision=draft, actor=manager, approve=True)


def test_changing_lines_after_an_approval_invalidates_it(
    draft: QuoteRevision, sales_user: User, manager: User
) -> None:
    _below_floor(draft)
    services.approval_request(revision=draft, actor=sales_user)
    services.approval_decide(revision=draft, actor=manager, approve=True)
    line = server_line(draft)
    services.revision_update_line(
        revision=draft,
        line_id=line.pk,
        quantity=line.quantity,
        unit_price=line.unit_price - 1000,
        discount_pct=line.discount_pct,
    )
    draft.refresh_from_db()
    status = services.approval_status(draft)
    assert status.state == "stale" and status.blocks_sending
    with pytest.raises(services.QuoteError):
        send(draft, sales_user)


def test_a_decision_on_lines_changed_after_the_request_is_refused(
    draft: QuoteRevision, sales_user: User, manager: User
) -> None:
    _below_floor(draft)
    services.approval_request(revision=draft, actor=sales_user)
    services.revision_set_discount(revision=draft, discount_pct=Decimal(12))
    with pytest.raises(services.QuoteError, match="changed after approval was requested"):
        services.approval_decide(revision=draft, actor=manager, approve=True)


def test_no_approval_is_asked_above_the_floor(draft: QuoteRevision, sales_user: User) -> None:
    with pytest.raises(services.QuoteError, match="no approval is needed"):
        services.approval_request(revision=draft, actor=sales_user)


def test_the_team_floor_decides(draft: QuoteRevision, sales_user: User) -> None:
    team = draft.quote.team
    team.margin_floor_pct = Decimal(40)
    team.save()
    draft.refresh_from_db()
    assert services.approval_status(draft).blocks_sending
    team.margin_floor_pct = Decimal(0)
    team.save()
    _below_floor(draft)
    assert not services.approval_status(draft).blocks_sending


def test_revise_copies_units_costs_and_discount_but_not_the_approval(
    draft: QuoteRevision, sales_user: User, manager: User
) -> None:
    _below_floor(draft)
    services.approval_request(revision=draft, actor=sales_user)
    services.approval_decide(revision=draft, actor=manager, approve=True)
    send(draft, sales_user)
    new = services.quote_revise(revision=draft, actor=sales_user)
    assert new.discount_pct == Decimal(10) and new.approval_state == ApprovalState.NOT_NEEDED
    old = [(line.unit, line.cost_price) for line in draft.lines.order_by("position")]
    assert [(line.unit, line.cost_price) for line in new.lines.order_by("position")] == old
    assert services.approval_status(new).blocks_sending


@pytest.mark.parametrize(
    ("language", "value", "shown"),
    [
        ("en", Decimal("19.00"), "19"),
        ("nl", Decimal("19.00"), "19"),
        ("en", Decimal("2.50"), "2.5"),
        ("nl", Decimal("2.50"), "2,5"),
        ("nl", "1250.00", "1.250"),
        ("en", "0.33", "0.33"),
    ],
)
def test_quantities_without_decimals_when_whole(language: str, value: Any, shown: str) -> None:
    with translation.override(language):
        assert quantity(value) == shown
