"""The analysis follows the deal: the engine sees the quoted fleet and net prices."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from quotes.models import Quote
from tests.quotes.conftest import send

pytestmark = pytest.mark.django_db


def _hand_built(draft_quote: Quote, *, server_price: str, servers: int = 4) -> Any:
    """A draft with exactly: N servers, nothing else but 10 % support for 3 years."""
    from quotes import services
    from quotes.models import LineKind

    revision = draft_quote.revisions.get()
    revision.lines.exclude(kind=LineKind.SERVER).delete()
    line = revision.lines.get(kind=LineKind.SERVER)
    line.quantity = Decimal(servers)
    line.unit_price = Decimal(server_price)
    line.discount_pct = Decimal(0)
    line.save()
    services.revision_add_line(
        revision=revision, catalog_key="item:support-10pct", quantity=Decimal(3)
    )
    return revision


def _onprem(tco: dict[str, Any]) -> dict[str, Any]:
    return next(o for o in tco["summary"]["options"] if o["kind"] == "onprem")


def test_hand_calculated_deal(draft_quote: Quote) -> None:
    """4 servers at €250,000 net, support 10 % a year for 3 years.

    Upfront = 4 × 250,000 = 1,000,000 (no networking, installation or storage lines).
    Support per year = 10 % × 1,000,000 = 100,000 → support share = 100,000 / 1,000,000 = 10 %.
    """
    from quotes.services.deal import deal_analysis, deal_inputs

    revision = _hand_built(draft_quote, server_price="250000.00")
    deal = deal_inputs(revision=revision)
    assert deal.servers == 4
    assert deal.hardware_net == Decimal("1000000.00")
    assert deal.support_per_year == Decimal("100000.00")
    tco = deal_analysis(revision=revision)
    assert tco is not None
    assert "problem" not in tco["deal"], tco["deal"]
    assert tco["summary"]["currency"] == revision.currency
    assert tco["summary"]["sizing"]["servers_required"] == 4 or tco["summary"]["servers"] == 4
    onprem = _onprem(tco)
    assert Decimal(str(onprem["upfront_cost"])).quantize(Decimal("0.01")) == Decimal("1000000.00")
    assert tco["summary"]["lease"]["upfront"] == pytest.approx(1_000_000, abs=0.01)


def test_upfront_equals_the_quoted_hardware_net_total(draft_quote: Quote) -> None:
    """The calculator's own draft (servers, fabric, installation, support) with discounts."""
    from quotes.models import LineKind
    from quotes.money import line_amount, to_cents
    from quotes.services.deal import deal_analysis

    revision = draft_quote.revisions.get()
    for line in revision.lines.all():
        line.discount_pct = Decimal("7.5") if line.kind == LineKind.SERVER else Decimal("3")
        line.save()
    hardware = to_cents(
        sum(
            line_amount(line.quantity, line.unit_price, line.discount_pct)
            for line in revision.lines.exclude(kind=LineKind.SUPPORT)
        )
    )
    tco = deal_analysis(revision=revision)
    assert tco is not None and "problem" not in tco["deal"], tco and tco["deal"]
    assert tco["deal"]["hardware_net"] == str(hardware)
    upfront = Decimal(str(_onprem(tco)["upfront_cost"])).quantize(Decimal("0.01"))
    assert upfront == hardware


def test_a_repriced_line_changes_the_analysis(draft_quote: Quote) -> None:
    from quotes.services.deal import deal_analysis

    revision = _hand_built(draft_quote, server_price="325000.00")
    before = deal_analysis(revision=revision)
    line = revision.lines.get(kind="server")
    line.unit_price = Decimal("258620.00")
    line.save()
    after = deal_analysis(revision=revision)
    assert before is not None and after is not None
    assert _onprem(before)["upfront_cost"] == pytest.approx(4 * 325_000, abs=0.01)
    assert _onprem(after)["upfront_cost"] == pytest.approx(4 * 258_620, abs=0.01)
    assert _onprem(after)["total_cost"] < _onprem(before)["total_cost"]
    # The quoted price is listed among the assumptions, the catalog list price is not.
    labels = {a["label"]: a["value"] for a in after["assumptions"]}
    assert any("258,620.00" in v or "258.620,00" in v for v in labels.values()), labels


def test_the_quote_discount_reaches_the_analysis(draft_quote: Quote) -> None:
    from quotes.services.deal import deal_analysis

    revision = _hand_built(draft_quote, server_price="250000.00")
    revision.discount_pct = Decimal("10")  # the attribute the quote-level discount adds
    tco = deal_analysis(revision=revision)
    assert tco is not None
    assert _onprem(tco)["upfront_cost"] == pytest.approx(900_000, abs=0.01)


def test_the_snapshot_holds_what_the_buyer_saw(draft_quote: Quote, sales_user: User) -> None:
    from catalog.models import ServerModel
    from quotes import services
    from quotes.services.deal import deal_analysis

    revision = _hand_built(draft_quote, server_price="250000.00")
    seen = deal_analysis(revision=revision)
    # Four servers for a one-server workload: renting wins, so the engineer says why owning.
    services.revision_set_presentation(
        revision=revision, presentation="like_for_like", reason="Data stays on site."
    )
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None and seen is not None
    frozen = revision.snapshot["tco"]
    assert frozen["deal"] == seen["deal"]
    assert _onprem(frozen)["upfront_cost"] == _onprem(seen)["upfront_cost"]
    ServerModel.objects.update(list_price=Decimal("999999"))
    revision.refresh_from_db()
    assert revision.snapshot["tco"] == frozen


def test_the_draft_page_shows_the_analysis_of_the_quoted_deal(
    draft_quote: Quote, sales_user: User, client: Client
) -> None:
    revision = _hand_built(draft_quote, server_price="250000.00")
    client.force_login(sales_user)
    html = client.get(f"/quotes/{draft_quote.public_id}/").content.decode()
    assert 'id="deal-hardware">€1,000,000.00<' in html
    assert 'id="deal-upfront">€1,000,000.00<' in html
    assert 'id="preview-pdf"' in html
    line = revision.lines.get(kind="server")
    line.unit_price = Decimal("240000.00")
    line.save()
    html = client.get(f"/quotes/{draft_quote.public_id}/").content.decode()
    assert 'id="deal-upfront">€960,000.00<' in html


@pytest.mark.parametrize(
    ("language", "servers", "expected"),
    [
        ("en", 1, "1 server at €250,000.00 net (as quoted)"),
        ("en", 4, "4 servers at €250,000.00 net each (as quoted)"),
        ("nl", 1, "1 server à € 250.000,00 netto (zoals aangeboden)"),
    ],
)
def test_the_draft_page_counts_its_servers(
    draft_quote: Quote,
    sales_user: User,
    client: Client,
    language: str,
    servers: int,
    expected: str,
) -> None:
    """Issue 43: the draft page said "1 servers at …". The analysis block speaks the buyer's
    language (the proposal's), whatever the sales engineer's page language."""
    from django.conf import settings

    draft_quote.customer.language = language
    draft_quote.customer.save(update_fields=["language"])
    _hand_built(draft_quote, server_price="250000.00", servers=servers)
    client.force_login(sales_user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en" if language == "nl" else "nl"
    html = client.get(f"/quotes/{draft_quote.public_id}/").content.decode()
    assert expected in html.replace("\u00a0", " ")


def test_a_catalog_price_change_recomputes_the_draft_analysis(draft_quote: Quote) -> None:
    from catalog.models import PriceChange
    from quotes.services.deal import lines_hash

    revision = _hand_built(draft_quote, server_price="250000.00")
    before = lines_hash(revision=revision)
    assert lines_hash(revision=revision) == before
    last = PriceChange.objects.order_by("-pk").first()
    assert last is not None
    last.pk = None
    last.save()
    assert lines_hash(revision=revision) != before
