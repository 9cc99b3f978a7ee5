"""Price books and tiers, deal registration and price protection (docs/quotes.md).

Hand numbers: the NVIDIA DGX H100 lists at $300,000 (catalog seed, cost $255,000) and is
quoted in USD, so no conversion enters: partner −12 % → 300,000 × 88 / 100 = $264,000.
"""

from __future__ import annotations

import csv
import doctest
import io
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time
from decimal import Decimal

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

import quotes.tiers
from catalog.models import PriceBookRow, PriceTier
from catalog.services import (
    apply_price_import,
    create_price_import,
    export_price_list,
    preview_price_file,
)
from quotes import selectors, services
from quotes.models import Customer, EndCustomer, Quote, QuoteLine, QuoteRevision, Team
from tests.catalog.price_files import csv_bytes
from tests.tco.test_dutch_pages import untranslated  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

DGX = "server:nvidia-dgx-h100"
LIST = Decimal("300000.00")


def _at(day: date) -> time_machine.travel:
    return time_machine.travel(datetime.combine(day, time(9, 0), tzinfo=UTC), tick=False)


@pytest.fixture
def on_day() -> Iterator[Callable[[date], None]]:
    """Move the clock to a day (09:00 UTC) for the rest of the test."""
    travellers: list[time_machine.travel] = []

    def move(day: date) -> None:
        if travellers:
            travellers.pop().stop()
        traveller = _at(day)
        traveller.start()
        travellers.append(traveller)

    yield move
    for traveller in travellers:
        traveller.stop()


@pytest.fixture
def partner(seed_catalog: object, customer: Customer) -> PriceTier:
    """The partner tier: −12 % on servers through 2026, −15 % from 2027."""
    tier = PriceTier.objects.get(key="partner")
    PriceBookRow.objects.create(
        key="partner-servers-2026",
        tier=tier,
        category="server",
        discount_pct=Decimal("12"),
        valid_from=date(2026, 1, 1),
        valid_to=date(2026, 12, 31),
    )
    PriceBookRow.objects.create(
        key="partner-servers-2027",
        tier=tier,
        category="server",
        discount_pct=Decimal("15"),
        valid_from=date(2027, 1, 1),
    )
    customer.tier = tier
    customer.save(update_fields=["tier"])
    return tier


@pytest.fixture
def revision(partner: PriceTier, customer: Customer, sales_user: User) -> QuoteRevision:
    quote = services.quote_create(customer=customer, owner=sales_user, currency="USD")
    return quote.revisions.get()


def _add(revision: QuoteRevision) -> QuoteLine:
    return services.revision_add_line(revision=revision, catalog_key=DGX, quantity=Decimal(1))


def test_a_new_line_takes_the_tier_price_valid_today(
    revision: QuoteRevision, on_day: Callable[[date], None]
) -> None:
    on_day(date(2026, 12, 3))
    line = _add(revision)
    assert (line.list_price, line.unit_price) == (LIST, Decimal("264000.00"))
    # The margin works on the net price: (264,000 − 255,000) / 264,000 = 3.4 %.
    margin = services.revision_margin(revision)
    assert margin.revenue == Decimal("264000.00")
    assert margin.pct == Decimal("3.4")
    assert margin.below_floor  # under the team's 10 % floor: sending needs an approval
    # From 2027 the 15 % row holds: 300,000 × 85 / 100 = 255,000.
    on_day(date(2027, 1, 1))
    assert _add(revision).unit_price == Decimal("255000.00")


def test_a_customer_without_a_tier_buys_at_list(
    revision: QuoteRevision, customer: Customer, on_day: Callable[[date], None]
) -> None:
    customer.tier = None
    customer.save(update_fields=["tier"])
    on_day(date(2026, 12, 3))
    line = _add(revision)
    assert (line.unit_price, line.price_basis) == (LIST, "")


def test_a_row_for_the_item_wins_over_its_category_and_counts_from_its_first_day(
    revision: QuoteRevision, partner: PriceTier, on_day: Callable[[date], None]
) -> None:
    PriceBookRow.objects.create(
        key="partner-dgx",
        tier=partner,
        catalog_key=DGX,
        net_price=Decimal("250000"),
        currency="USD",
        valid_from=date(2026, 12, 10),
        valid_to=date(2026, 12, 20),
    )
    on_day(date(2026, 12, 9))
    assert _add(revision).unit_price == Decimal("264000.00")  # the net price starts tomorrow
    on_day(date(2026, 12, 10))
    assert _add(revision).unit_price == Decimal("250000.00")
    on_day(date(2026, 12, 21))
    assert _add(revision).unit_price == Decimal("264000.00")  # ended yesterday


def test_reprice_takes_the_tier_price_valid_today(
    revision: QuoteRevision, sales_user: User, on_day: Callable[[date], None]
) -> None:
    on_day(date(2026, 12, 3))
    line = _add(revision)
    on_day(date(2026, 12, 31))
    assert selectors.revision_price_changes(revision=revision) == []  # the 2026 row holds
    on_day(date(2027, 1, 2))
    changes = selectors.revision_price_changes(revision=revision)
    assert [(c.old_unit_price, c.unit_price) for c in changes] == [
        (Decimal("264000.00"), Decimal("255000.00"))
    ]
    assert services.revision_reprice(revision=revision, actor=sales_user) >= 1
    line.refresh_from_db()
    assert line.unit_price == Decimal("255000.00")
    assert line.price_basis == "book:partner:partner-servers-2027:pct:15"
    assert selectors.revision_price_changes(revision=revision) == []


def test_price_protection_keeps_prices_until_its_last_day(
    revision: QuoteRevision, sales_user: User, on_day: Callable[[date], None]
) -> None:
    on_day(date(2026, 12, 3))
    line = _add(revision)
    revision = services.revision_set_deal_terms(
        revision=revision, terms=services.DealTerms(protection_days=30)
    )
    # Protected from 3 Dec for 30 days: until 3 Dec + 30 = 2 Jan 2027 (inclusive).
    assert selectors.protected_until(revision) == date(2027, 1, 2)
    for day in (date(2027, 1, 1), date(2027, 1, 2)):  # day N − 1 and day N
        on_day(day)
        assert selectors.revision_price_changes(revision=revision) == []
        services.revision_reprice(revision=revision, actor=sales_user)
        line.refresh_from_db()
        assert line.unit_price == Decimal("264000.00")
    on_day(date(2027, 1, 3))  # day N + 1: the 2027 row moves it
    assert services.revision_reprice(revision=revision, actor=sales_user) >= 1
    line.refresh_from_db()
    assert line.unit_price == Decimal("255000.00")


def test_a_revised_quote_keeps_the_protection_given(
    revision: QuoteRevision, sales_user: User, on_day: Callable[[date], None]
) -> None:
    on_day(date(2026, 12, 3))
    _add(revision)
    revision = services.revision_set_deal_terms(
        revision=revision, terms=services.DealTerms(protection_days=30)
    )
    Team.objects.update(margin_floor_pct=0)  # the partner price is below the default floor
    services.quote_send(revision=revision, actor=sales_user, idempotency_key="tiers-send")
    on_day(date(2026, 12, 20))
    revised = services.quote_revise(revision=revision, actor=sales_user)
    assert selectors.protected_until(revised) == date(2027, 1, 2)
    on_day(date(2027, 1, 2))
    assert selectors.revision_price_changes(revision=revised) == []
    on_day(date(2027, 1, 3))
    assert len(selectors.revision_price_changes(revision=revised)) == 1


def test_the_registered_deal_price_wins_over_the_tier_until_it_expires(
    revision: QuoteRevision, sales_user: User, on_day: Callable[[date], None]
) -> None:
    on_day(date(2026, 12, 3))
    line = _add(revision)
    revision = services.revision_set_deal_terms(
        revision=revision,
        terms=services.DealTerms(
            registration="DR-2026-0042", registration_expires=date(2027, 1, 31)
        ),
    )
    services.line_set_registered_price(
        revision=revision, line_id=line.pk, price=Decimal("240000.00")
    )
    line.refresh_from_db()
    assert line.unit_price == Decimal("240000.00")
    on_day(date(2027, 1, 31))  # the tier moved to −15 %; the registration still holds
    assert selectors.revision_price_changes(revision=revision) == []
    on_day(date(2027, 2, 1))  # expired: the tier's price, 300,000 × 85 / 100
    services.revision_reprice(revision=revision, actor=sales_user)
    line.refresh_from_db()
    assert line.unit_price == Decimal("255000.00")


def test_the_end_customer_is_kept_apart_from_the_reseller(
    revision: QuoteRevision, customer: Customer
) -> None:
    services.revision_set_deal_terms(
        revision=revision,
        terms=services.DealTerms(
            end_company="Universiteit Twente", end_country="nl", end_contact="Dr. K. Bos"
        ),
    )
    end = services.end_customer_of(revision.quote)
    assert end is not None and (end.company, end.country) == ("Universiteit Twente", "NL")
    customer.refresh_from_db()
    assert customer.company == "Deep Learning BV"  # the reseller's data unchanged
    services.revision_set_deal_terms(revision=revision, terms=services.DealTerms())
    assert services.end_customer_of(Quote.objects.get(pk=revision.quote_id)) is None


# --- the sales view, the buyer's page, who may set the deal terms -------------------------


def _detail(client: Client, revision: QuoteRevision) -> str:
    response = client.get(reverse("quotes:detail", args=[revision.quote.public_id]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_line_editor_shows_the_tier_price_against_list(
    client: Client,
    revision: QuoteRevision,
    sales_user: User,
    on_day: Callable[[date], None],
    untranslated: list[str],  # noqa: F811
) -> None:
    on_day(date(2026, 12, 3))
    line = _add(revision)
    client.force_login(sales_user)
    page = _detail(client, revision)
    assert f'id="line-{line.pk}-price-note">list $300,000.00, Partner −12 %<' in page
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
    page = _detail(client, revision)
    assert f'id="line-{line.pk}-price-note">lijstprijs $\u00a0300.000,00, Partner −12 %<' in page
    assert untranslated == []  # every text on the page was looked up in Dutch and found
    # A price typed over the tier's: (300,000 − 250,000) / 300,000 = 16.7 % off list.
    services.revision_update_line(
        revision=revision,
        line_id=line.pk,
        quantity=Decimal(1),
        unit_price=Decimal("250000"),
        discount_pct=Decimal(0),
    )
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    note = "list $300,000.00, −16.7 % (price typed by hand)"
    assert f'id="line-{line.pk}-price-note">{note}<' in _detail(client, revision)


def _post_terms(client: Client, revision: QuoteRevision, user: User | None) -> int:
    client.logout()
    if user is not None:
        client.force_login(user)
    url = reverse("quotes:deal_terms", args=[revision.public_id])
    data = {"end_company": "Universiteit Twente", "end_country": "NL", "protection_days": "60"}
    return client.post(url, data).status_code


def test_only_sales_of_the_quotes_team_set_the_deal_terms(
    client: Client, revision: QuoteRevision, make_sales_user: Callable[..., User]
) -> None:
    def saved() -> bool:
        return EndCustomer.objects.filter(quote=revision.quote).exists()

    assert _post_terms(client, revision, None) == 403  # a signed-out action
    assert _post_terms(client, revision, make_sales_user("piet", team=None, sales=False)) == 403
    assert _post_terms(client, revision, make_sales_user("lone", team=None)) == 404
    assert _post_terms(client, revision, make_sales_user("nils", team="Nordics")) == 404
    assert not saved()
    assert _post_terms(client, revision, make_sales_user("bert")) == 302
    assert saved()
    EndCustomer.objects.all().delete()
    marta = make_sales_user("marta")
    marta.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    assert _post_terms(client, revision, marta) == 302 and saved()
    EndCustomer.objects.all().delete()
    boss = User.objects.create_user("boss", "boss@distributor.example", "pw", is_staff=True)
    assert _post_terms(client, revision, boss) == 302 and saved()


@pytest.mark.parametrize(
    ("language", "end_customer", "protected"),
    [
        ("en", "for end customer Universiteit Twente (NL)", "Prices protected until 1 Feb 2027"),
        ("nl", "voor eindklant Universiteit Twente (NL)", "Prijzen gegarandeerd tot 1 feb. 2027"),
    ],
)
def test_the_buyer_page_states_the_end_customer_and_the_protection(
    client: Client,
    revision: QuoteRevision,
    customer: Customer,
    sales_user: User,
    on_day: Callable[[date], None],
    untranslated: list[str],  # noqa: F811
    language: str,
    end_customer: str,
    protected: str,
) -> None:
    customer.language = language
    customer.save(update_fields=["language"])
    on_day(date(2026, 12, 3))
    _add(revision)
    assert _post_terms(client, revision, sales_user) == 302
    Team.objects.update(margin_floor_pct=0)
    services.quote_send(revision=revision, actor=sales_user, idempotency_key="tiers-buyer")
    revision.refresh_from_db()
    # 60 days from 3 Dec 2026: 3 Dec + 28 = 31 Dec, + 31 = 31 Jan 2027, + 1 = 1 Feb 2027.
    assert (revision.snapshot or {})["protected_until"] == "2027-02-01"
    client.logout()
    url = services.buyer_url(revision=revision).partition("//")[2].partition("/")[2]
    page = client.get("/" + url).content.decode()
    assert end_customer in page and protected in page
    assert untranslated == []


# --- price books import and export like the other price lists -----------------------------

FORMULA = '=HYPERLINK("http://evil.example","click")'


def test_price_books_round_trip_through_export_preview_and_apply(partner: PriceTier) -> None:
    PriceBookRow.objects.create(
        key="partner-roce",
        tier=partner,
        catalog_key="item:roce-400g-per-node",
        net_price=Decimal("2100"),
        currency="USD",
        valid_from=date(2026, 1, 1),
        note=FORMULA,
    )
    export = export_price_list(kind="price_book", file_format="csv")
    rows = list(csv.reader(io.StringIO(export.content.decode("utf-8-sig"))))
    note = rows[0].index("note")
    assert [row[note] for row in rows[1:] if row[0] == "partner-roce"] == ["'" + FORMULA]
    # Read back, the file is the price book as it is: nothing new, nothing changed.
    preview = preview_price_file(kind="price_book", filename="b.csv", data=export.content)
    assert preview.ok and (len(preview.new), len(preview.changed)) == (0, 0)
    assert len(preview.unchanged) == 3
    xlsx = export_price_list(kind="price_book", file_format="xlsx")
    preview = preview_price_file(kind="price_book", filename="b.xlsx", data=xlsx.content)
    assert preview.ok and len(preview.unchanged) == 3

    # A new row: previewed (nothing written), then applied.
    rows.append(
        ["education-servers", "education", "", "server", "20", "", "", "2027-01-01", "", ""]
    )
    staff = User.objects.create_user("boss", "boss@distributor.example", "pw", is_staff=True)
    preview, pending = create_price_import(
        kind="price_book", filename="b.csv", data=csv_bytes(rows), uploaded_by=staff
    )
    assert preview.ok and len(preview.new) == 1 and pending is not None
    assert not PriceBookRow.objects.filter(key="education-servers").exists()
    assert apply_price_import(price_import_id=pending.pk, user=staff).applied
    added = PriceBookRow.objects.get(key="education-servers")
    assert (added.tier.key, added.discount_pct, added.valid_to) == (
        "education",
        Decimal("20.00"),
        None,
    )


def test_a_price_book_row_a_spreadsheet_would_run_or_that_prices_twice_is_refused(
    partner: PriceTier,
) -> None:
    header = export_price_list(kind="price_book", file_format="csv").content.decode("utf-8-sig")
    columns = header.splitlines()[0].split(",")
    bad = [
        ["=cmd|' /C calc'!A0", "partner", "", "server", "5", "", "", "2027-01-01", "", ""],
        [
            "both",
            "partner",
            "server:nvidia-dgx-h100",
            "",
            "5",
            "250000",
            "USD",
            "2027-01-01",
            "",
            "",
        ],
        ["backwards", "partner", "", "server", "5", "", "", "2027-02-01", "2027-01-01", ""],
    ]
    preview = preview_price_file(
        kind="price_book", filename="b.csv", data=csv_bytes([columns, *bad])
    )
    reasons = [error.reason for error in preview.errors]
    assert not preview.ok
    assert any("would run it as a formula" in reason for reason in reasons)
    assert "give either discount_pct or net_price" in reasons
    assert "2027-01-01 is before valid_from 2027-02-01" in reasons


def test_only_staff_import_and_export_price_books(
    client: Client, partner: PriceTier, make_sales_user: Callable[..., User]
) -> None:
    export = {"kind": "price_book", "format": "csv"}
    marta = make_sales_user("marta")
    marta.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    people = [
        None,
        make_sales_user("piet", team=None, sales=False),
        make_sales_user("lone", team=None),
        make_sales_user("bert"),
        marta,
        make_sales_user("nils", team="Nordics"),
    ]
    for person in people:  # every one of them is sent to the staff login
        client.logout()
        if person is not None:
            client.force_login(person)
        response = client.get("/catalog/export/", export)
        assert response.status_code == 302 and "/login/" in response["Location"]
    boss = User.objects.create_user("boss", "boss@distributor.example", "pw", is_staff=True)
    client.force_login(boss)
    response = client.get("/catalog/export/", export)
    assert response.status_code == 200
    rows = response.content.decode("utf-8-sig").splitlines()
    assert rows[1].startswith("partner-servers-2026,partner,,server,12")
    rows.append("education-servers,education,,server,20,,,2027-01-01,,")
    upload = io.BytesIO("\n".join(rows).encode())
    upload.name = "price_book.csv"
    response = client.post("/catalog/import/", {"kind": "price_book", "file": upload})
    assert response.status_code == 302
    preview = client.get(response["Location"]).content.decode()
    assert "education-servers" in preview
    assert not PriceBookRow.objects.filter(key="education-servers").exists()
    # A price book keeps no price history: its preview rows link to none, and there is none.
    assert "/catalog/prices/price_book/" not in preview
    history = reverse("catalog:price_history", args=["price_book", "partner-servers-2026"])
    assert client.get(history).status_code == 404


def test_a_new_customer_gets_its_tier_from_the_forms(
    client: Client, partner: PriceTier, sales_user: User
) -> None:
    client.force_login(sales_user)
    new = {
        "contact_name": "Els Jansen",
        "email": "els@reseller.example",
        "country": "NL",
        "language": "nl",
        "tier": "reseller",
        "currency": "USD",
    }
    response = client.post(reverse("quotes:new"), {**new, "company": "Wederverkoop BV"})
    assert response.status_code == 302
    assert Customer.objects.get(company="Wederverkoop BV").tier == PriceTier.objects.get(
        key="reseller"
    )
    form = {
        **new,
        "company": "Onderwijs BV",
        "tier": str(PriceTier.objects.get(key="education").pk),
    }
    assert client.post(reverse("quotes:customer_new"), form).status_code == 302
    customers = client.get(reverse("quotes:customers")).content.decode()
    assert "Education" in customers and "Reseller" in customers


def test_the_pricing_rules_hand_calculations() -> None:
    """quotes/ is outside the doctest paths: its rules' worked examples run here."""
    outcome = doctest.testmod(quotes.tiers)
    assert outcome.attempted >= 15 and outcome.failed == 0
