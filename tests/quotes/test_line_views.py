"""The line editor's views: htmx fragments, the plain POST fallback, permissions, the
margin approval, and the quotes list with filters and CSV export."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from common.formatting import format_money
from quotes import services
from quotes.models import ApprovalState, Customer, LineKind, Quote, QuoteRevision, Status
from tests.quotes.conftest import send

pytestmark = pytest.mark.django_db
HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def draft(draft_quote: Quote) -> QuoteRevision:
    return draft_quote.revisions.get()


@pytest.fixture
def manager(make_sales_user: Callable[..., User]) -> User:
    user = make_sales_user("marta")
    user.groups.add(Group.objects.get_or_create(name="sales-manager")[0])
    return user


def edit_data(line: Any, **values: Any) -> dict[str, str]:
    data = {
        "quantity": str(line.quantity),
        "unit": line.unit,
        "unit_price": str(line.unit_price),
        "discount_pct": str(line.discount_pct),
    }
    data.update({k: str(v) for k, v in values.items()})
    return {f"line-{line.pk}-{k}": v for k, v in data.items()}


def edit_url(draft: QuoteRevision, line: Any) -> str:
    return reverse("quotes:line_edit", args=[draft.public_id, line.pk])


def test_the_draft_page_shows_amounts_margin_and_inline_forms(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User
) -> None:
    client.force_login(sales_user)
    html = client.get(reverse("quotes:detail", args=[draft_quote.public_id])).content.decode()
    line = draft.lines.get(kind=LineKind.SERVER)
    assert 'id="draft-lines"' in html and f'id="lineform-{line.pk}"' in html
    assert f'hx-post="{edit_url(draft, line)}"' in html
    assert f'form="lineform-{line.pk}"' in html  # the row's fields belong to its form
    margin = services.revision_margin(draft)
    assert format_money(margin.lines[line.pk].amount, draft.currency) in html
    assert 'id="margin-total"' in html and "Team floor: 10.0 %" in html
    assert 'id="request-approval-button"' not in html  # above the floor


def test_a_line_numbered_past_a_thousand_keeps_its_form_and_ids(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User
) -> None:
    # Numbers on pages carry thousands separators; a line's number in its ids and form
    # link must not ("lineform-1,234" broke every test once the database counted past it).
    line = draft.lines.filter(parent=None, children=None).first()
    assert line is not None
    draft.lines.filter(pk=line.pk).update(id=1234)
    client.force_login(sales_user)
    html = client.get(reverse("quotes:detail", args=[draft_quote.public_id])).content.decode()
    assert 'id="lineform-1234"' in html and 'form="lineform-1234"' in html
    assert 'id="line-1234-amount"' in html
    assert "1,234" not in html


def test_an_htmx_edit_returns_the_fragment_with_new_amounts(
    client: Client, draft: QuoteRevision, sales_user: User
) -> None:
    client.force_login(sales_user)
    line = draft.lines.get(kind=LineKind.SERVER)
    response = client.post(
        edit_url(draft, line), edit_data(line, quantity=5, unit_price="100000"), **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="draft-lines"') and "<html" not in html
    assert response["HX-Trigger"] == "quote-lines-changed"
    line.refresh_from_db()
    assert (line.quantity, line.unit_price) == (Decimal(5), Decimal(100000))
    totals = services.revision_totals(draft)
    assert format_money(Decimal("500000"), draft.currency) in html
    assert format_money(totals.total, draft.currency) in html
    margin = services.revision_margin(draft)
    assert format_money(margin.margin, draft.currency) in html


def test_an_invalid_htmx_edit_shows_the_error_next_to_the_field(
    client: Client, draft: QuoteRevision, sales_user: User
) -> None:
    client.force_login(sales_user)
    line = draft.lines.get(kind=LineKind.SERVER)
    before = line.quantity
    response = client.post(edit_url(draft, line), edit_data(line, quantity="-3"), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    row = html[html.index(f'id="line-{line.pk}"') :]
    row = row[: row.index("</tr>")]
    assert 'aria-invalid="true"' in row and "field-error" in row and 'value="-3"' in row
    line.refresh_from_db()
    assert line.quantity == before


def test_without_javascript_a_plain_post_saves_and_redirects(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User
) -> None:
    client.force_login(sales_user)
    line = draft.lines.get(kind=LineKind.SERVER)
    response = client.post(edit_url(draft, line), edit_data(line, discount_pct="7.5"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("quotes:detail", args=[draft_quote.public_id]))
    line.refresh_from_db()
    assert line.discount_pct == Decimal("7.5")
    # Invalid: a page with the form and the error next to the field.
    response = client.post(edit_url(draft, line), edit_data(line, unit_price="lots"))
    assert response.status_code == 400
    html = response.content.decode()
    assert "field-error" in html and f'name="line-{line.pk}-unit_price"' in html


def test_dutch_users_type_decimal_commas(
    client: Client, draft: QuoteRevision, sales_user: User
) -> None:
    client.force_login(sales_user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
    line = draft.lines.get(kind=LineKind.SUPPORT)
    response = client.post(
        edit_url(draft, line),
        edit_data(line, quantity="2,5", unit_price="1.234,50", discount_pct="0"),
        **HTMX,
    )
    assert response.status_code == 200
    line.refresh_from_db()
    assert (line.quantity, line.unit_price) == (Decimal("2.5"), Decimal("1234.50"))
    html = response.content.decode()
    assert 'value="2,5"' in html and '<option value="years" selected>jaar</option>' in html
    assert "Marge" in html


def test_free_lines_and_the_quote_discount_through_the_views(
    client: Client, draft: QuoteRevision, sales_user: User
) -> None:
    client.force_login(sales_user)
    response = client.post(
        reverse("quotes:free_line_add", args=[draft.public_id]),
        {
            "description": "Cluster acceptance test",
            "kind": "installation",
            "quantity": "1",
            "unit": "lot",
            "unit_price": "8000",
            "cost_price": "5000",
        },
    )
    assert response.status_code == 302
    free = draft.lines.get(description="Cluster acceptance test")
    assert free.catalog_key == ""  # a free line
    assert (free.unit, free.cost_price, free.kind) == ("lot", Decimal("5000"), "installation")
    # A free line without a cost is refused next to the field.
    response = client.post(
        reverse("quotes:free_line_add", args=[draft.public_id]),
        {"description": "x", "kind": "other", "quantity": "1", "unit": "pcs", "unit_price": "1"},
    )
    assert response.status_code == 400 and "field-error" in response.content.decode()

    response = client.post(
        reverse("quotes:discount_set", args=[draft.public_id]), {"discount_pct": "3"}, **HTMX
    )
    draft.refresh_from_db()
    assert draft.discount_pct == 3
    totals = services.revision_totals(draft)
    html = response.content.decode()
    assert 'id="discount"' in html and format_money(totals.net, draft.currency) in html
    response = client.post(
        reverse("quotes:discount_set", args=[draft.public_id]), {"discount_pct": "300"}, **HTMX
    )
    assert "field-error" in response.content.decode()
    draft.refresh_from_db()
    assert draft.discount_pct == 3


def test_line_views_respect_teams_and_frozen_revisions(
    client: Client, draft: QuoteRevision, sales_user: User, make_sales_user: Callable[..., User]
) -> None:
    line = draft.lines.get(kind=LineKind.SERVER)
    url = edit_url(draft, line)
    assert client.post(url, edit_data(line, quantity=9)).status_code == 403  # anonymous
    client.force_login(make_sales_user("otto", team="DACH"))
    assert client.post(url, edit_data(line, quantity=9), **HTMX).status_code == 404
    assert (
        client.post(
            reverse("quotes:discount_set", args=[draft.public_id]), {"discount_pct": "50"}
        ).status_code
        == 404
    )
    client.force_login(sales_user)
    send(draft, sales_user)
    response = client.post(url, edit_data(line, quantity=9), follow=True)
    assert "cannot change" in response.content.decode()
    line.refresh_from_db()
    assert line.quantity != 9


def test_approval_through_the_views(
    client: Client, draft_quote: Quote, draft: QuoteRevision, sales_user: User, manager: User
) -> None:
    services.revision_set_discount(revision=draft, discount_pct=Decimal(10))
    detail = reverse("quotes:detail", args=[draft_quote.public_id])
    client.force_login(sales_user)
    html = client.get(detail).content.decode()
    assert 'id="request-approval-button"' in html
    response = client.post(
        reverse("quotes:send", args=[draft.public_id]),
        {"idempotency_key": "6f1c1d52-0c4f-4d6c-9d62-7b0d1cfb8e11"},
        follow=True,
    )
    assert "ask a sales manager" in response.content.decode()
    client.post(reverse("quotes:approval_request", args=[draft.public_id]), {"note": "Big deal"})
    # The engineer sees no decision buttons and cannot decide by posting.
    assert 'id="approve-button"' not in client.get(detail).content.decode()
    decide = reverse("quotes:approval_decide", args=[draft.public_id])
    assert client.post(decide, {"decision": "approve"}).status_code == 403
    draft.refresh_from_db()
    assert draft.approval_state == ApprovalState.REQUESTED

    client.force_login(manager)
    html = client.get(detail).content.decode()
    assert 'id="approve-button"' in html and "Big deal" in html
    client.post(decide, {"decision": "approve", "reason": "Reference customer"})
    draft.refresh_from_db()
    assert draft.approval_state == ApprovalState.APPROVED

    client.force_login(sales_user)
    client.post(
        reverse("quotes:send", args=[draft.public_id]),
        {"idempotency_key": "0a6a55b4-1f0d-4a3c-8f8b-0c6ad2b6c1f2"},
    )
    draft.refresh_from_db()
    assert draft.status == Status.SENT


def test_list_shows_net_total_validity_owner_and_filters_by_owner(
    client: Client,
    draft_quote: Quote,
    customer: Customer,
    sales_user: User,
    make_sales_user: Callable[..., User],
) -> None:
    colleague = make_sales_user("bram")
    other = services.quote_create(customer=customer, owner=colleague)
    draft = draft_quote.revisions.get()
    services.revision_set_discount(revision=draft, discount_pct=Decimal(2))
    draft.refresh_from_db()
    client.force_login(sales_user)
    html = client.get(reverse("quotes:list")).content.decode()
    assert format_money(services.revision_totals(draft).net, draft.currency) in html
    assert "bram" in html and "anna" in html
    html = client.get(reverse("quotes:list"), {"owner": colleague.pk}).content.decode()
    assert other.number in html and draft_quote.number not in html
    # Nonsense filters are ignored, not a 500.
    response = client.get(reverse("quotes:list"), {"owner": "x", "status": "nope"})
    assert response.status_code == 200


def test_csv_export_follows_the_filters_and_neutralises_formulas(
    client: Client, draft_quote: Quote, customer: Customer, sales_user: User
) -> None:
    customer.company = "=HYPERLINK(1)"
    customer.save()
    other = services.quote_create(customer=customer, owner=sales_user)
    send(draft_quote.revisions.get(), sales_user)
    client.force_login(sales_user)
    response = client.get(reverse("quotes:quotes_export", args=["csv"]), {"status": "sent"})
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [row["Quote"] for row in rows] == [draft_quote.number]
    assert other.number not in response.content.decode()
    assert rows[0]["Customer"] == "'=HYPERLINK(1)"
    totals = services.revision_totals(draft_quote.revisions.get())
    assert rows[0]["Net"] == str(totals.net) and rows[0]["Quote discount"] == "0.00"


browser_text = st.one_of(
    st.sampled_from(["", "0", "-1", "1e999", "NaN", "2,5", "1.234,5", "x" * 400, "\x00"]),
    st.text(max_size=20),
)


@hsettings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    target=st.sampled_from(["edit", "free", "discount", "request", "decide"]),
    data=st.dictionaries(
        st.sampled_from(
            [
                "quantity",
                "unit",
                "unit_price",
                "discount_pct",
                "cost_price",
                "description",
                "kind",
                "note",
                "reason",
                "decision",
            ]
        ),
        browser_text,
    ),
    htmx=st.booleans(),
)
def test_nothing_posted_to_the_line_editor_gives_a_500(
    client: Client,
    draft: QuoteRevision,
    manager: User,
    target: str,
    data: dict[str, str],
    htmx: bool,
) -> None:
    client.force_login(manager)
    line = draft.lines.order_by("position").first()
    assert line is not None
    if target == "edit":
        url = edit_url(draft, line)
        data = {f"line-{line.pk}-{k}": v for k, v in data.items()}
    else:
        name = {
            "free": "free_line_add",
            "discount": "discount_set",
            "request": "approval_request",
            "decide": "approval_decide",
        }[target]
        url = reverse(f"quotes:{name}", args=[draft.public_id])
    response = client.post(url, data, **(HTMX if htmx else {}))
    assert response.status_code < 500
