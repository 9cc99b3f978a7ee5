"""Draft lines whose catalog price changed after they were priced: notice and re-price.

Prices change the way staff change them, through a price-list import (which records the
history), never by editing rows behind the catalog's back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from catalog.models import FxRate, InfrastructureItem, ServerModel
from catalog.schema import ALL_SPECS
from catalog.selectors import price_changed_since, prices_changed_since
from catalog.services import import_price_file
from common.formatting import format_money
from quotes import selectors, services
from quotes.models import (
    Customer,
    LineKind,
    ProposalRender,
    Quote,
    QuoteLine,
    QuoteRevision,
    Status,
)
from quotes.money import convert, hardware_total, to_cents, to_whole
from tests.catalog.price_files import csv_bytes, exported_rows, set_cell

from .conftest import send

pytestmark = pytest.mark.django_db

SERVERS = ("servers", "list_price")
ITEMS = ("items", "price")


def change_price(table: tuple[str, str], key: str, price: Decimal, days_ago: int = 0) -> None:
    """Import the price list of `table` with one row's price changed (effective `days_ago`)."""
    kind, column = table
    rows = exported_rows(kind)
    assert set_cell(rows, key, column, str(price))
    # The price's date column (a server's price has its own, apart from its specifications').
    dated = next(spec for spec in ALL_SPECS if spec.kind == kind).price_date
    set_cell(rows, key, dated, (timezone.localdate() - timedelta(days=days_ago)).isoformat())
    import_price_file(kind=kind, filename=f"{kind}.csv", data=csv_bytes(rows), source="test")


def change_eur_usd(rate: Decimal) -> None:
    """Publish today's EUR/USD rate (a new row of the pair's history)."""
    rows = exported_rows("fx")
    header = rows[0]
    row = dict(zip(header, rows[-1], strict=True))
    row.update(rate=str(rate), as_of=timezone.localdate().isoformat(), source="test")
    rows.append([row[column] for column in header])
    import_price_file(kind="fx", filename="fx.csv", data=csv_bytes(rows), source="test")


def catalog_key(line: QuoteLine) -> str:
    return line.catalog_key.partition(":")[2]


def server_line(revision: QuoteRevision) -> QuoteLine:
    return revision.lines.get(kind=LineKind.SERVER)


def current_unit(price: Decimal, currency: str, quote_currency: str) -> Decimal:
    """The pricing rule (docs/quotes.md): converted prices in whole currency units."""
    latest = FxRate.objects.filter(base="EUR", quote="USD").order_by("-as_of").first()
    assert latest is not None
    rate = latest.rate
    exact = convert(price, currency, quote_currency, rate)
    return to_whole(exact) if currency != quote_currency else to_cents(exact)


def detail(client: Client, quote: Quote) -> str:
    response = client.get(reverse("quotes:detail", args=[quote.public_id]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def draft(draft_quote: Quote) -> QuoteRevision:
    return draft_quote.revisions.get()


def test_a_fresh_draft_has_no_notice(client: Client, draft_quote: Quote, sales_user: User) -> None:
    # The seed load recorded its prices (and a second EUR/USD rate) before the lines.
    client.force_login(sales_user)
    html = detail(client, draft_quote)
    assert 'id="price-changes"' not in html and "Re-price" not in html
    assert selectors.revision_price_changes(revision=draft_quote.revisions.get()) == []


@pytest.mark.dates
def test_a_price_change_after_pricing_shows_old_and_new_price(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User
) -> None:
    line = server_line(draft)
    server = ServerModel.objects.get(key=catalog_key(line))
    new_price = server.list_price + Decimal("12345")
    change_price(SERVERS, server.key, new_price)

    changes = selectors.revision_price_changes(revision=draft)
    by_kind = {change.line.kind: change for change in changes}
    # The server, and the support priced as a percentage of the hardware.
    assert set(by_kind) == {LineKind.SERVER, LineKind.SUPPORT}
    expected = current_unit(new_price, server.currency, draft.currency)
    assert by_kind[LineKind.SERVER].unit_price == expected != line.unit_price
    assert by_kind[LineKind.SERVER].old_unit_price == line.unit_price
    assert by_kind[LineKind.SERVER].price_as_of == timezone.localdate()

    client.force_login(sales_user)
    html = detail(client, draft_quote)
    assert 'id="price-changes"' in html
    old, new = format_money(line.unit_price, draft.currency), format_money(expected, draft.currency)
    assert f"{old} → {new}" in html
    notice = html[
        html.index('id="price-changes"') : html.index("</div>", html.index("price-changes"))
    ]
    assert reverse("quotes:reprice", args=[draft.public_id]) in notice
    assert 'method="post"' in notice and "csrfmiddlewaretoken" in notice and "Re-price" in notice


@pytest.mark.dates
def test_reprice_updates_lines_and_totals_and_the_notice_goes(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User
) -> None:
    before = {line.pk: line for line in draft.lines.all()}
    old_totals = services.totals_for(lines=list(before.values()), vat_rate=draft.vat_rate)
    server = ServerModel.objects.get(key=catalog_key(server_line(draft)))
    installation = InfrastructureItem.objects.get(key="installation-per-server")
    change_price(SERVERS, server.key, server.list_price * 2, days_ago=5)
    change_price(ITEMS, installation.key, installation.price + 1000)
    expected = {c.line.pk: c.unit_price for c in selectors.revision_price_changes(revision=draft)}
    assert len(expected) == 3  # server, installation, support (% of hardware)

    client.force_login(sales_user)
    response = client.post(reverse("quotes:reprice", args=[draft.public_id]), follow=True)
    html = response.content.decode()
    assert response.status_code == 200
    assert "3 lines re-priced" in html and 'id="price-changes"' not in html

    after = {line.pk: line for line in draft.lines.all()}
    assert set(after) == set(before)
    for pk, line in after.items():
        if pk in expected:
            assert line.unit_price == expected[pk] != before[pk].unit_price
            assert line.priced_at > before[pk].priced_at
        else:  # the networking line (sized by the analysis, no catalog price): unchanged
            assert (line.unit_price, line.priced_at) == (
                before[pk].unit_price,
                before[pk].priced_at,
            )
        assert (line.quantity, line.discount_pct) == (before[pk].quantity, before[pk].discount_pct)
    server_after = after[server_line(draft).pk]
    assert server_after.price_as_of == timezone.localdate() - timedelta(days=5)
    support = draft.lines.get(kind=LineKind.SUPPORT)
    hardware = hardware_total(after.values())  # servers and their networking
    support_item = InfrastructureItem.objects.get(key=catalog_key(support))
    assert support.unit_price == to_cents(hardware * support_item.price / 100)

    totals = services.totals_for(lines=list(after.values()), vat_rate=draft.vat_rate)
    assert totals.total > old_totals.total
    assert format_money(totals.subtotal, draft.currency) in html
    assert selectors.revision_price_changes(revision=draft) == []
    # Nothing left to do: a second re-price changes nothing.
    assert services.revision_reprice(revision=draft, actor=sales_user) == 0


def test_a_change_recorded_before_the_line_was_priced_gives_no_notice(
    client: Client, seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    storage = InfrastructureItem.objects.get(key="storage-parallel-fs-500tb")
    change_price(ITEMS, storage.key, storage.price + 500)
    change_eur_usd(Decimal("1.20"))
    quote = services.quote_create(customer=customer, owner=sales_user, currency="EUR")
    revision = quote.revisions.get()
    line = services.revision_add_line(
        revision=revision, catalog_key="item:storage-parallel-fs-500tb", quantity=Decimal(2)
    )
    assert line.unit_price == current_unit(storage.price + 500, "USD", "EUR")
    assert selectors.revision_price_changes(revision=revision) == []
    client.force_login(sales_user)
    assert 'id="price-changes"' not in detail(client, quote)
    assert services.revision_reprice(revision=revision, actor=sales_user) == 0


def test_an_exchange_rate_change_affects_converted_lines_only(
    seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    quote = services.quote_create(customer=customer, owner=sales_user, currency="USD")
    revision = quote.revisions.get()
    services.revision_add_line(
        revision=revision, catalog_key="item:storage-parallel-fs-500tb", quantity=Decimal(1)
    )
    # A USD catalog price in a USD quote needs no rate; the same in EUR does.
    euro = services.quote_create(customer=customer, owner=sales_user, currency="EUR")
    euro_revision = euro.revisions.get()
    euro_line = services.revision_add_line(
        revision=euro_revision, catalog_key="item:storage-parallel-fs-500tb", quantity=Decimal(1)
    )
    change_eur_usd(Decimal("1.25"))
    assert selectors.revision_price_changes(revision=revision) == []
    [change] = selectors.revision_price_changes(revision=euro_revision)
    assert change.line.pk == euro_line.pk
    assert change.unit_price == to_cents(
        InfrastructureItem.objects.get(key="storage-parallel-fs-500tb").price / Decimal("1.25")
    )


def test_a_revise_keeps_when_lines_were_priced(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User
) -> None:
    send(draft, sales_user)
    server = ServerModel.objects.get(key=catalog_key(server_line(draft)))
    change_price(SERVERS, server.key, server.list_price + 1)
    new = services.quote_revise(revision=draft, actor=sales_user)
    copied = server_line(new)
    assert copied.priced_at == server_line(draft).priced_at
    assert {c.line.kind for c in selectors.revision_price_changes(revision=new)} == {
        LineKind.SERVER,
        LineKind.SUPPORT,
    }
    client.force_login(sales_user)
    assert 'id="price-changes"' in detail(client, draft_quote)


def test_a_sent_revision_never_shows_the_notice_and_cannot_be_repriced(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User
) -> None:
    send(draft, sales_user)
    render = services.render_execute(render_id=ProposalRender.objects.get(revision=draft).pk)
    assert render is not None
    assert render.pdf is not None
    stored, digest = bytes(render.pdf), render.sha256
    draft.refresh_from_db()
    frozen = draft.snapshot
    lines = list(draft.lines.values("unit_price", "price_as_of", "priced_at"))

    server = ServerModel.objects.get(key=catalog_key(server_line(draft)))
    change_price(SERVERS, server.key, server.list_price * 3)
    change_eur_usd(Decimal("1.30"))

    assert selectors.revision_price_changes(revision=draft) == []
    client.force_login(sales_user)
    html = detail(client, draft_quote)
    assert 'id="price-changes"' not in html and "Re-price" not in html
    with pytest.raises(services.RevisionLocked):
        services.revision_reprice(revision=draft, actor=sales_user)
    response = client.post(reverse("quotes:reprice", args=[draft.public_id]), follow=True)
    assert "has been sent and cannot change" in response.content.decode()

    draft.refresh_from_db()
    assert draft.status == Status.SENT and draft.snapshot == frozen
    assert list(draft.lines.values("unit_price", "price_as_of", "priced_at")) == lines
    render.refresh_from_db()
    assert bytes(render.pdf) == stored and render.sha256 == digest


def test_only_the_quotes_team_may_reprice(
    client: Client,
    draft_quote: Quote,
    draft: QuoteRevision,
    sales_user: User,
    make_sales_user: Callable[..., User],
) -> None:
    server = ServerModel.objects.get(key=catalog_key(server_line(draft)))
    change_price(SERVERS, server.key, server.list_price + 1000)
    url = reverse("quotes:reprice", args=[draft.public_id])
    prices = list(draft.lines.order_by("pk").values_list("unit_price", flat=True))

    assert client.post(url).status_code == 403  # anonymous, like every quote URL
    client.force_login(make_sales_user("bob", sales=False))
    assert client.post(url).status_code == 403
    client.force_login(make_sales_user("olaf", team="Nordics"))
    assert client.post(url).status_code == 404
    assert client.get(reverse("quotes:detail", args=[draft_quote.public_id])).status_code == 404
    assert list(draft.lines.order_by("pk").values_list("unit_price", flat=True)) == prices

    client.force_login(sales_user)
    assert client.get(url).status_code == 405  # a change: POST only
    assert client.post(url).status_code == 302
    assert list(draft.lines.order_by("pk").values_list("unit_price", flat=True)) != prices


def test_reprice_needs_the_csrf_token(draft: QuoteRevision, sales_user: User) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(sales_user)
    assert client.post(reverse("quotes:reprice", args=[draft.public_id])).status_code == 403


def test_detail_page_queries_do_not_grow_with_changed_lines(
    client: Client, seed_catalog: object, customer: Customer, sales_user: User
) -> None:
    quote = services.quote_create(customer=customer, owner=sales_user, currency="EUR")
    revision = quote.revisions.get()
    servers = list(ServerModel.objects.order_by("key")[:6])
    items = list(InfrastructureItem.objects.exclude(unit="pct_hw_year").order_by("key")[:3])
    assert len(servers) == 6 and len(items) == 3

    def add(rows: list[Any], prefix: str) -> None:
        for row in rows:
            services.revision_add_line(
                revision=revision, catalog_key=f"{prefix}:{row.key}", quantity=Decimal(1)
            )

    add(servers[:1], "server")
    services.revision_add_line(
        revision=revision, catalog_key="item:support-10pct", quantity=Decimal(3)
    )
    change_price(SERVERS, servers[0].key, servers[0].list_price + 1)
    client.force_login(sales_user)
    with CaptureQueriesContext(connection) as few:
        html = detail(client, quote)
    # One arrow per changed line, and two for what the re-price does to the total and margin.
    assert html.count("→") == 2 + 2

    add(servers[1:], "server")
    add(items, "item")
    for server in servers[1:]:
        change_price(SERVERS, server.key, server.list_price + 1)
    for item in items:
        change_price(ITEMS, item.key, item.price + 1)
    with CaptureQueriesContext(connection) as many:
        html = detail(client, quote)
    assert html.count("→") == 2 + 5 + 3 + 2
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


@pytest.mark.dates
def test_the_batched_history_check_agrees_with_the_single_one(draft: QuoteRevision) -> None:
    line = server_line(draft)
    server_key = catalog_key(line)
    change_price(SERVERS, server_key, ServerModel.objects.get(key=server_key).list_price + 1)
    earlier = line.priced_at - timedelta(days=1)
    later = timezone.now() + timedelta(minutes=1)
    today = timezone.localdate()
    since = {
        ("servers", server_key): line.priced_at,
        ("items", "installation-per-server"): earlier,
        ("fx", "EUR-USD"): today,
        ("cloud", "aws-p5-48xlarge-od"): earlier,
    }
    found = prices_changed_since(since=since)
    for (kind, key), when in since.items():
        assert ((kind, key) in found) == price_changed_since(kind=kind, key=key, since=when)
    # A date means the start of that day: the seed load's second EUR/USD rate, recorded
    # today, counts; the installation price and the cloud offering never changed.
    assert set(found) == {("servers", server_key), ("fx", "EUR-USD")}
    assert prices_changed_since(since={("servers", server_key): later}) == {}
    assert prices_changed_since(since={}) == {}


def test_the_notice_speaks_dutch(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User
) -> None:
    server = ServerModel.objects.get(key=catalog_key(server_line(draft)))
    change_price(SERVERS, server.key, server.list_price + 1000)
    client.force_login(sales_user)
    url = reverse("quotes:detail", args=[draft_quote.public_id])
    # The request activates Dutch for this thread; leave the language as it was.
    with translation.override(translation.get_language()):
        html = client.get(url, HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert "De catalogusprijzen zijn gewijzigd" in html and "Opnieuw prijzen" in html
    assert f"Regel {server_line(draft).position}," in html


def test_every_line_kind_has_the_catalog_price_it_follows() -> None:
    # A line kind without one answered 500 on the draft's page (a site build-out line).
    from quotes.models import LineKind
    from quotes.selectors import PRICE_KIND_OF_LINE

    assert set(PRICE_KIND_OF_LINE) == set(LineKind)
