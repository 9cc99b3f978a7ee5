"""Win/loss: a hand-made set of quotes and the figures worked out by hand, the page and its
exports for each role (docs/quotes.md, "Win/loss")."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from quotes import services, winloss
from quotes.models import (
    AcceptanceRecord,
    Customer,
    ProposalRender,
    Quote,
    RenderStatus,
    Status,
    Team,
)
from tests.tco.test_dutch_pages import untranslated  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

TODAY = date(2026, 12, 3)
PERIOD = {"from": "2026-10-01", "to": "2026-12-03"}
RENT = {"tco": {"executive": {"buy": False}}, "analysis": {"presentation": "like_for_like"}}


def _at(day: date) -> datetime:
    return datetime.combine(day, time(9, 0), tzinfo=UTC)


def _quote(
    customer: Customer,
    owner: User,
    *,
    sent: date,
    net: str,
    status: str,
    decided: date | None = None,
    reason: str = "",
    note: str = "",
    extra: dict[str, Any] | None = None,
) -> Quote:
    """A quote whose revision A was sent on `sent` for `net` excl. VAT and ended as
    `status`: the fields quote_send and the buyer's answer leave behind."""
    quote = services.quote_create(customer=customer, owner=owner)
    revision = quote.revisions.get()
    revision.status = status
    revision.sent_at = _at(sent)
    revision.valid_until = sent + timedelta(days=30)
    revision.decided_at = _at(decided) if decided else None
    revision.decline_reason = reason
    revision.decline_note = note
    revision.snapshot = {"totals": {"net": net}, **(extra or {})}
    revision.save()
    return quote


def _accept_option(quote: Quote, letter: str) -> None:
    revision = quote.revisions.get()
    assert revision.decided_at is not None
    render = ProposalRender.objects.create(
        revision=revision, language="en", status=RenderStatus.DONE, pdf=b"%PDF"
    )
    AcceptanceRecord.objects.create(
        revision=revision,
        render=render,
        name="Jan de Vries",
        role="CTO",
        terms_accepted=True,
        accepted_at=revision.decided_at,
        language="en",
        accepted_sha256="0" * 64,
        option_letter=letter,
        pdf=b"%PDF",
        sha256="0" * 64,
        pages=1,
    )


@pytest.fixture
def nordics(make_sales_user: Callable[..., User]) -> tuple[User, Customer]:
    nils = make_sales_user("nils", team="Nordics")
    customer = services.customer_create(
        team=Team.objects.get(name="Nordics"),
        company="Fjord AI AS",
        contact_name="Ola Nordmann",
        email="ola@fjord.example",
        country="NO",
        vat_number="",
        language="en",
    )
    return nils, customer


@pytest.fixture
def book(customer: Customer, sales_user: User, nordics: tuple[User, Customer]) -> list[Quote]:
    """Benelux: 5 quotes sent from 1 Oct to 3 Dec 2026 (2 won, 2 lost, 1 expired), one sent
    before the period; Nordics: one won quote in the period."""
    with time_machine.travel(_at(TODAY), tick=False):
        options = {
            "options": [
                {"letter": "B", "name": "24 × H200", "snapshot": {"totals": {"net": "150000.00"}}}
            ]
        }
        quotes = [
            # won, no options: 2 → 12 Nov = 10 days, €100,000
            _quote(customer, sales_user, sent=date(2026, 11, 2), net="100000.00",
                   status=Status.ACCEPTED, decided=date(2026, 11, 12)),
            # won, option B chosen: 5 → 25 Nov = 20 days, B's €150,000 (not A's €200,000)
            _quote(customer, sales_user, sent=date(2026, 11, 5), net="200000.00",
                   status=Status.ACCEPTED, decided=date(2026, 11, 25), extra=options),
            # lost on price: 10 → 14 Nov = 4 days, €80,000; the analysis said rent
            _quote(customer, sales_user, sent=date(2026, 11, 10), net="80000.00",
                   status=Status.DECLINED, decided=date(2026, 11, 14), reason="price",
                   note="=HYPERLINK(\"http://evil.example\")", extra=RENT),
            # lost to the cloud: 12 Nov → 1 Dec = 19 days, €300,000; sent without the
            # analysis (only offered when it recommends renting)
            _quote(customer, sales_user, sent=date(2026, 11, 12), net="300000.00",
                   status=Status.DECLINED, decided=date(2026, 12, 1), reason="cloud",
                   extra={"analysis": {"presentation": "without"}, "tco": None}),
            # expired: sent 20 Oct, valid until 19 Nov, no answer
            _quote(customer, sales_user, sent=date(2026, 10, 20), net="50000.00",
                   status=Status.EXPIRED),
            # before the period: not counted
            _quote(customer, sales_user, sent=date(2026, 9, 1), net="999999.00",
                   status=Status.ACCEPTED, decided=date(2026, 9, 2)),
        ]  # fmt: skip
        _accept_option(quotes[1], "B")
        nils, fjord = nordics
        _quote(fjord, nils, sent=date(2026, 11, 3), net="70000.00",
               status=Status.ACCEPTED, decided=date(2026, 11, 4))  # fmt: skip
    return quotes


def test_the_hand_made_book_gives_the_hand_worked_figures(
    book: list[Quote], sales_user: User
) -> None:
    with time_machine.travel(_at(TODAY), tick=False):
        rows = winloss.outcomes(user=sales_user, start=date(2026, 10, 1), end=TODAY)
    summary = winloss.summarise(rows)
    assert summary.sent == 5  # the September quote and the Nordics quote are not counted
    assert summary.counts == {"won": 2, "lost": 2, "expired": 1, "open": 0}
    assert summary.win_rate == Decimal("0.5")  # 2 won ÷ (2 won + 2 lost); expired undecided
    assert summary.value_won == {"EUR": Decimal("250000.00")}  # €100,000 + option B €150,000
    assert summary.value_lost == {"EUR": Decimal("380000.00")}  # €80,000 + €300,000
    assert summary.median_days == Decimal("14.5")  # days 4, 10, 19, 20 → (10 + 19) ÷ 2
    assert summary.reasons == [("price", 1), ("cloud", 1)]
    assert summary.options_won == [("A", 1), ("B", 1), ("C", 0), ("D", 0)]
    assert (summary.rent, summary.rent_won, summary.rent_lost) == (2, 0, 2)


def _page(client: Client, user: User | None, **params: str) -> Any:
    if user is not None:
        client.force_login(user)
    with time_machine.travel(_at(TODAY), tick=True):
        return client.get(reverse("quotes:report"), {**PERIOD, **params})


def test_anonymous_is_sent_to_the_login_and_a_plain_user_is_refused(
    client: Client, book: list[Quote], make_sales_user: Callable[..., User]
) -> None:
    response = _page(client, None)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    export = client.get(reverse("quotes:report_export", args=["csv"]))
    assert export.status_code == 302
    plain = make_sales_user("piet", team=None, sales=False)
    assert _page(client, plain).status_code == 403
    assert client.get(reverse("quotes:report_export", args=["csv"])).status_code == 403


def test_sales_of_another_team_see_nothing_of_this_team(
    client: Client, book: list[Quote], nordics: tuple[User, Customer]
) -> None:
    nils, _fjord = nordics
    page = _page(client, nils).content.decode()
    assert all(quote.number not in page for quote in book)
    assert 'id="winloss-sent">1<' in page  # their own won quote only
    benelux = Team.objects.get(name="Benelux")
    page = _page(client, nils, team=str(benelux.pk)).content.decode()  # not one of theirs
    assert all(quote.number not in page for quote in book)


def test_sales_without_a_team_see_no_quote(
    client: Client, book: list[Quote], make_sales_user: Callable[..., User]
) -> None:
    loner = make_sales_user("lone", team=None)
    page = _page(client, loner).content.decode()
    assert 'id="winloss-sent">0<' in page and "No quote was sent in this period." in page
    export = client.get(reverse("quotes:report_export", args=["csv"]), PERIOD)
    assert export.content.decode("utf-8-sig").count("\n") == 1  # the header only


def test_a_manager_of_the_team_and_staff_see_the_figures(
    client: Client, book: list[Quote], make_sales_user: Callable[..., User]
) -> None:
    marta = make_sales_user("marta")
    marta.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    page = _page(client, marta).content.decode()
    assert 'id="winloss-sent">5<' in page
    assert "50\u00a0%" in page and "2 of 4 decided" in page
    assert "€250,000" in page and "€380,000" in page and "14.5" in page
    assert 'id="winloss-chart"' in page

    boss = User.objects.create_user("boss", "boss@distributor.example", "pw", is_staff=True)
    client.logout()
    assert 'id="winloss-sent">6<' in _page(client, boss).content.decode()  # both teams
    benelux = Team.objects.get(name="Benelux")
    assert 'id="winloss-sent">5<' in _page(client, boss, team=str(benelux.pk)).content.decode()


def test_the_page_in_dutch(
    client: Client,
    book: list[Quote],
    sales_user: User,
    untranslated: list[str],  # noqa: F811
) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
    page = _page(client, sales_user).content.decode()
    assert untranslated == []  # every text on the page was looked up in Dutch and found
    assert "Gewonnen/verloren" in page and "2 van 4 beslist" in page
    assert "Waarom offertes verloren gingen" in page and "de prijs" in page


def test_the_exports_are_scoped_and_formula_safe(
    client: Client, book: list[Quote], sales_user: User
) -> None:
    client.force_login(sales_user)
    with time_machine.travel(_at(TODAY), tick=True):
        response = client.get(reverse("quotes:report_export", args=["csv"]), PERIOD)
        workbook = client.get(reverse("quotes:report_export", args=["xlsx"]), PERIOD)
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    # By the day first sent: 20 Oct, 2, 5, 10, 12 Nov.
    assert [row["Quote"] for row in rows] == [book[i].number for i in (4, 0, 1, 2, 3)]
    won_b = rows[2]
    assert (won_b["Outcome"], won_b["Option won"], won_b["Value excl. VAT"]) == (
        "won", "B", "150000.00"
    )  # fmt: skip
    lost = rows[3]
    assert lost["Reason for losing"] == "the price" and lost["Days to a decision"] == "4"
    assert lost["The buyer's words"].startswith("'=")  # neutralised: never a formula
    sheet = load_workbook(io.BytesIO(workbook.content)).active
    assert sheet is not None
    notes = [cell.value for cell in sheet["N"]]
    assert '=HYPERLINK("http://evil.example")' in notes
    assert all(cell.data_type == "s" for cell in sheet["N"] if cell.value)
