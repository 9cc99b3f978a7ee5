"""Quote and lead exports (CSV, XLSX) and the "Download as Excel" links."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from catalog.schema import neutralise
from quotes import services
from quotes.models import Lead, Quote, Team

pytestmark = pytest.mark.django_db
DANGEROUS = ["=1+1", "+31 20 555", "-2", "@SUM(A1)", "\tTAB", "\rCR"]


@pytest.mark.parametrize("text", DANGEROUS)
def test_formula_starts_are_neutralised(text: str) -> None:
    assert neutralise(text) == "'" + text
    assert neutralise("Deep Learning BV") == "Deep Learning BV"


@pytest.fixture
def two_teams(draft_quote: Quote, make_sales_user: Callable[..., Any]) -> tuple[Any, Any]:
    bert = make_sales_user("bert", team="Nordics")
    customer = services.customer_create(
        team=Team.objects.get(name="Nordics"),
        company='=HYPERLINK("http://evil.example","click")',
        contact_name="@Nils",
        email="nils@buyer.example",
        country="SE",
    )
    theirs = services.quote_create(customer=customer, owner=bert)
    Lead.objects.create(
        name="-Mallory",
        company="=cmd|' /C calc'!A0",
        email="m@buyer.example",
        consent_at=timezone.now(),
        confirmed_at=timezone.now(),
        tco={"executive": {"headline": "Rent: CoreWeave"}},
        team=draft_quote.team,
    )
    Lead.objects.create(
        name="Nora",
        company="Nordic AI",
        email="nora@buyer.example",
        consent_at=timezone.now(),
        confirmed_at=timezone.now(),
        tco={},
        team=Team.objects.get(name="Nordics"),
    )
    return draft_quote, theirs


def test_quote_csv_is_team_scoped_with_totals_and_formula_safe(
    client: Client,
    two_teams: tuple[Any, Any],
    sales_user: User,
    make_sales_user: Callable[..., Any],
) -> None:
    mine, theirs = two_teams
    client.force_login(sales_user)
    response = client.get(reverse("quotes:quotes_export", args=["csv"]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [r["Quote"] for r in rows] == [mine.number]
    revision = mine.revisions.get()
    totals = services.totals_for(lines=list(revision.lines.all()), vat_rate=revision.vat_rate)
    row = rows[0]
    assert row["Total"] == str(totals.total) and row["Status"] == "draft"
    assert row["Valid until"] == revision.valid_until.isoformat() and row["Owner"] == "anna"

    boss = make_sales_user("boss", team=None)
    boss.is_staff = True
    boss.save()
    client.force_login(boss)
    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(reverse("quotes:quotes_export", args=["csv"])).content.decode(
                    "utf-8-sig"
                )
            )
        )
    )
    evil = next(r for r in rows if r["Quote"] == theirs.number)
    assert evil["Customer"] == '\'=HYPERLINK("http://evil.example","click")'
    assert evil["Contact"] == "'@Nils"


def test_quote_and_lead_xlsx_write_text_as_strings_never_formulas(
    client: Client, two_teams: tuple[Any, Any], make_sales_user: Callable[..., Any]
) -> None:
    boss = make_sales_user("boss", team=None)
    boss.is_staff = True
    boss.save()
    client.force_login(boss)
    for name in ("quotes:quotes_export", "quotes:leads_export"):
        response = client.get(reverse(name, args=["xlsx"]))
        assert response.status_code == 200
        with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
            sheet = archive.read("xl/worksheets/sheet1.xml").decode()
        assert "<f>" not in sheet  # no formula cell anywhere
        book = load_workbook(io.BytesIO(response.content))
        assert book.active is not None
        values = [c.value for row in book.active.iter_rows() for c in row]
        assert any(isinstance(v, str) and v.startswith(("=", "-")) for v in values)
    quotes_book = load_workbook(
        io.BytesIO(client.get(reverse("quotes:quotes_export", args=["xlsx"])).content)
    )
    assert quotes_book.active is not None
    header = [c.value for c in quotes_book.active[1]]
    total = quotes_book.active.cell(row=2, column=header.index("Total") + 1)
    assert isinstance(total.value, int | float)  # numbers stay numbers


def test_lead_csv_for_sales_only(
    client: Client,
    two_teams: tuple[Any, Any],
    sales_user: User,
    make_sales_user: Callable[..., Any],
) -> None:
    url = reverse("quotes:leads_export", args=["csv"])
    assert client.get(url).status_code == 302  # signed out: to the login
    client.force_login(make_sales_user("olga", sales=False))
    assert client.get(url).status_code == 403
    client.force_login(sales_user)
    rows = list(csv.DictReader(io.StringIO(client.get(url).content.decode("utf-8-sig"))))
    # The leads of anna's team only (the leads page's scope), with team, owner and status.
    assert [r["Name"] for r in rows] == ["'-Mallory"]
    assert rows[0]["Company"].startswith("'=cmd")
    assert rows[0]["Verdict"] == "Rent: CoreWeave"
    assert rows[0]["Team"] == two_teams[0].team.name
    assert rows[0]["Owner"] == "" and rows[0]["Status"] == "new"
    assert client.get(reverse("quotes:leads_export", args=["pdf"])).status_code == 404


def test_download_as_excel_on_a_quotes_analysis_and_a_calculator_result(
    client: Client, two_teams: tuple[Any, Any], sales_user: User
) -> None:
    mine, theirs = two_teams
    client.force_login(sales_user)
    detail = client.get(reverse("quotes:detail", args=[mine.public_id])).content.decode()
    revision = mine.revisions.get()
    link = reverse("quotes:revision_workbook", args=[revision.public_id])
    assert link in detail
    response = client.get(link)
    assert response.status_code == 200
    book = load_workbook(io.BytesIO(response.content))
    assert book["Summary"]["A1"].value.endswith(f"{mine.number}-A")
    other = reverse("quotes:revision_workbook", args=[theirs.revisions.get().public_id])
    assert client.get(other).status_code == 404  # another team's quote

    page = client.get(reverse("tco:calculator"), {"preset": "pretrain-7b"}).content.decode()
    assert 'id="download-workbook"' in page
    response = Client().get(reverse("tco:workbook"), {"preset": "pretrain-7b"})
    assert response.status_code == 200
    assert '-tco-model.xlsx"; filename*=UTF-8' in response["Content-Disposition"]
    assert "Inputs" in load_workbook(io.BytesIO(response.content)).sheetnames
    invalid = Client().get(reverse("tco:workbook"), {"preset": "pretrain-7b", "pue": "-3"})
    assert invalid.status_code == 302 and invalid["Location"].startswith(reverse("tco:calculator"))


@pytest.mark.dates
def test_quote_workbook_keeps_the_prices_of_the_day_of_the_analysis(
    client: Client, draft_quote: Quote, sales_user: User
) -> None:
    from datetime import timedelta

    from catalog.models import PriceChange, ServerModel

    revision = draft_quote.revisions.get()
    url = reverse("quotes:revision_workbook", args=[revision.public_id])
    client.force_login(sales_user)

    def inputs() -> dict[str, Any]:
        book = load_workbook(io.BytesIO(client.get(url).content), read_only=True)
        return {
            str(row[6]): row[1] for row in book["Inputs"].iter_rows(min_row=2, values_only=True)
        }

    before = inputs()
    assert revision.tco is not None
    assert before["servers"] == revision.tco["summary"]["sizing"]["servers_required"]
    # The analysis was made yesterday; the server's price doubled today.
    revision.tco["computed_at"] = (timezone.now() - timedelta(days=1)).isoformat()
    revision.save(update_fields=["tco"])
    server = ServerModel.objects.get(key=revision.tco["server"]["key"])
    PriceChange.objects.create(
        kind="servers",
        key=server.key,
        field="list_price",
        old_value=server.list_price,
        new_value=server.list_price * 2,
        currency=server.currency,
        effective_from=timezone.localdate(),
        source="test",
    )
    server.list_price *= 2
    server.save(update_fields=["list_price"])
    assert inputs()["server_price"] == pytest.approx(before["server_price"])


def test_quote_workbook_models_the_quoted_deal(
    client: Client, draft_quote: Quote, sales_user: User
) -> None:
    """The Excel model of a quote is the deal's: a 10 % discount on the server line lowers
    its server price by 10 %, and the fleet is the quoted quantity."""
    from decimal import Decimal

    from quotes import services

    revision = draft_quote.revisions.get()
    url = reverse("quotes:revision_workbook", args=[revision.public_id])
    client.force_login(sales_user)

    def inputs() -> dict[str, Any]:
        book = load_workbook(io.BytesIO(client.get(url).content), read_only=True)
        return {
            str(row[6]): row[1] for row in book["Inputs"].iter_rows(min_row=2, values_only=True)
        }

    before = inputs()
    line = revision.lines.get(kind="server")
    services.revision_update_line(
        revision=revision,
        line_id=line.pk,
        quantity=line.quantity + 2,
        unit_price=line.unit_price,
        discount_pct=Decimal(10),
    )
    after = inputs()
    assert after["servers"] == int(line.quantity) + 2
    assert after["server_price"] == pytest.approx(before["server_price"] * 0.9, rel=1e-9)
