"""One deal, one set of figures: after the sales engineer edits a quote (servers 17 → 16, a
line's lead time, a quote discount), the proposal's price page, its delivery schedule, its
analysis and the quote's workbook still agree (issue "one deal model", item 3; the audit
found network lines at 17 for 16 servers, 12 weeks in the schedule against 10 in the
analysis, and two costs of owning on one page)."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import formats, translation

from quotes import pdf, services
from quotes.models import LineKind
from quotes.workbook import revision_workbook
from tests.tco.test_workbook import recalculate

from .conftest import pdf_text, send

pytestmark = pytest.mark.django_db

# Pre-training 70B on B200 servers (the catalog: 12 weeks, 7 days' installation), needed in
# 30 days: 17 servers, the buyer's 10 weeks typed into the calculator.
TRAINING = "preset=pretrain-70b&server=smc-822gs-nbrt-b200&needed_in_days=30&lead_time_weeks=10"


def test_an_edited_quote_agrees_with_itself_in_the_pdf_and_the_workbook(
    seed_catalog: object, customer: Any, sales_user: Any, frozen_today: date
) -> None:
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query=TRAINING
    )
    revision = quote.revisions.get()
    server = revision.lines.get(kind=LineKind.SERVER)
    assert (server.quantity, server.lead_time_weeks) == (Decimal(17), Decimal(12))
    services.revision_update_line(
        revision=revision,
        line_id=server.pk,
        quantity=Decimal(16),
        unit_price=server.unit_price,
        discount_pct=server.discount_pct,
    )
    services.revision_set_line_delivery(
        revision=revision, line_id=server.pk, lead_time_weeks=Decimal(8), reason="Vendor slot"
    )
    services.revision_set_discount(revision=revision, discount_pct=Decimal(2))
    send(revision, sales_user)
    revision.refresh_from_db()
    snapshot = revision.snapshot
    assert snapshot is not None

    # The price page: the servers and the lines per server are all 16.
    quantities = {line["kind"]: line["quantity"] for line in snapshot["lines"]}
    assert quantities[LineKind.SERVER] == "16"
    assert quantities[LineKind.NETWORKING] == quantities[LineKind.INSTALLATION] == "16"

    document = pdf.render_revision(snapshot, language="en", with_charts=False)
    text = re.sub(r"\s+", " ", pdf_text(document.pdf)[0])
    text = text.replace("\u00a0", " ")
    # The delivery schedule and the analysis count from the same 8 weeks: delivered on
    # 3 Dec 2026 + 56 days = 28 Jan 2027; ready after 7 days' installation, on day 63.
    with translation.override("en"):
        delivered = formats.date_format(frozen_today + timedelta(weeks=8), "DATE_FORMAT")
    assert "8 weeks" in text and delivered in text
    assert "Server lead time (weeks) 8.0" in text
    report = services.stored_report(snapshot["tco"])
    assert report is not None and report.onprem is not None and report.capacity is not None
    own = report.onprem
    assert own.ready_date == frozen_today + timedelta(days=63)
    assert report.capacity.lead_time_weeks == 8.0
    # The analysis is of the quoted deal: 16 servers, the hardware net of the 2 % discount.
    deal = snapshot["tco"]["deal"]
    assert Decimal(deal["servers"]) == 16
    assert own.upfront_cost == pytest.approx(float(deal["hardware_net"]), abs=0.01)

    # One cost of owning, bridge included: the reconcile box, the options table and the
    # summary print the same figure.
    assert own.time is not None and own.time.extra_cost
    owning = f"€{own.total_cost:,.0f}"
    assert text.count(owning) >= 3, owning
    # The quote's workbook, recalculated by LibreOffice, has it too.
    content, _name = revision_workbook(revision=revision)
    book = recalculate(content)
    sheet, ref = next(iter(book.defined_names["onprem_total"].destinations))
    assert book[sheet][ref.replace("$", "")].value == pytest.approx(own.total_cost, abs=1)
