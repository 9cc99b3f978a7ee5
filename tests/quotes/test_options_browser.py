"""The issue's walk through one deal with options, in Chromium: option A (B300) and option B
(H200) → the sales engineer changes A's server quantity in the line editor (its per-server
lines follow) and a lead time → the preview's comparison page, A's lines and schedule agree
→ send → the buyer accepts option B on a 390 px phone in Dutch → the quote page shows option
B accepted and option A not chosen."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse
from django.utils import formats, timezone, translation
from playwright.sync_api import Browser, Page
from pytest_django.live_server_helper import LiveServer

from common.formatting import money, money0
from quotes import pdf, services
from quotes.models import AcceptanceRecord, LineKind, Status
from quotes.winloss import outcomes

from .conftest import pdf_text
from .test_acceptance import finish_render
from .test_lines_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Pre-training 70B on B300 servers, needed in 30 days (the catalog ships B300 in weeks).
QUERY = "preset=pretrain-70b&server=smc-822gs-nb3rt-b300&needed_in_days=30"
H200 = "server:smc-821ge-tnhr-h200"


def _with_options(customer: Any, sales_user: Any) -> tuple[Any, Any]:
    quote = services.quote_create_from_calculator(customer=customer, owner=sales_user, query=QUERY)
    main = quote.revisions.get()
    services.option_rename(revision=main, name="B300")
    option = services.option_add(revision=main, name="24 × H200")
    b300 = option.lines.get(kind=LineKind.SERVER)
    b300.children.all().delete()
    services.revision_remove_line(revision=option, line_id=b300.pk)
    services.revision_add_line(revision=option, catalog_key=H200, quantity=Decimal(24))
    services.revision_add_line(
        revision=option, catalog_key="item:installation-per-server", quantity=Decimal(24)
    )
    for revision in (main, option):
        if services.presentation_needed(revision, services.deal_analysis(revision=revision)):
            services.revision_set_presentation(revision=revision, presentation="without")
    return main, option


def _eur(amount: Any) -> str:
    """An amount as the PDF prints it (in the active language), spaces as _text reads them."""
    return money(amount, "EUR").replace("\u00a0", " ")


def _eur0(amount: Any) -> str:
    return money0(amount, "EUR").replace("\u00a0", " ")


def _text(data: bytes) -> str:
    return re.sub(r"\s+", " ", pdf_text(data)[0].replace("\u00a0", " "))


def test_a_deal_with_options_from_the_line_editor_to_the_buyers_choice(
    chromium: Browser,
    live_server: LiveServer,
    page: Page,
    seed_catalog: object,
    customer: Any,
    sales_user: Any,
) -> None:
    customer.language = "nl"
    customer.save()
    main, option = _with_options(customer, sales_user)
    server = main.lines.get(kind=LineKind.SERVER)
    children = list(server.children.all())
    assert children and server.quantity != 16
    detail = f"/quotes/{main.quote.public_id}/"

    # The sales engineer sets option A to 16 servers in the line editor: Enter saves it.
    log_in(page, live_server, sales_user.username, detail)
    total_before = page.locator("#total").inner_text()
    quantity = page.locator(f"#id_line-{server.pk}-quantity")
    quantity.fill("16")
    quantity.press("Enter")
    page.wait_for_function(
        "before => document.querySelector('#total').innerText !== before", arg=total_before
    )
    for child in children:  # the network and installation per server follow
        assert page.locator(f"#id_line-{child.pk}-quantity").input_value() == "16"
    assert page.locator("#option-tab-B").count() == 1
    services.revision_set_line_delivery(
        revision=main, line_id=server.pk, lead_time_weeks=Decimal(8), reason="Vendor slot"
    )

    # The preview: the options side by side, option A's 16 servers delivered in 8 weeks
    # (the preview's own snapshot, laid out without its charts to keep the test quick).
    preview = pdf.render_revision(
        services.proposal_snapshot(revision=main), language="nl", draft=True, with_charts=False
    )
    text = _text(preview.pdf)
    assert "Uw opties" in text and "Optie B" in text and "24 × H200" in text
    snapshot = services.proposal_snapshot(revision=main)
    # Delivered 8 weeks after the day the proposal is issued (whatever day the test runs).
    issued = date.fromisoformat(snapshot["issued"])
    with translation.override("nl"):
        delivered = formats.date_format(issued + timedelta(weeks=8), "DATE_FORMAT")
    assert delivered in text
    rows = services.comparison(snapshot)
    a_net, b_net = rows[0]["net"], rows[1]["net"]
    assert rows[1]["difference"] == b_net - a_net
    assert {line["quantity"] for line in snapshot["lines"] if line["kind"] != "support"} == {"16"}
    # Read from the PDF's text: the comparison's prices are each option's own totals, option
    # B's section lists its 24 H200 servers with their delivery, the comparison's cost of
    # owning is option A's analysis' (its own pages show it too), and both options are
    # compared with one rental of the same work.
    with translation.override("nl"):
        b = snapshot["options"][0]["snapshot"]
        assert "Optie B: 24 × H200" in text
        for net in (a_net, b_net):
            assert _eur0(net) in text
        assert _eur(Decimal(b["totals"]["net"])) in text
        (h200,) = [line for line in b["lines"] if line["catalog_key"] == H200]
        assert h200["quantity"] == "24" and _eur(Decimal(h200["amount"])) in text
        b_delivered = date.fromisoformat(h200["delivery"]["expected_delivery"])
        assert formats.date_format(b_delivered, "DATE_FORMAT") in text
        if rows[0]["owning"] is not None:  # the analysis is presented with option A
            assert text.count(_eur0(rows[0]["owning"])) >= 2
        assert rows[0]["rental_total"] == rows[1]["rental_total"]

    # Send (from the page), and the PDF is rendered.
    page.goto(live_server.url + detail)
    page.locator("#send-button").click()
    page.wait_for_selector("#revision-status")
    main.refresh_from_db()
    assert main.status == Status.SENT
    finish_render(main)

    # On a 1366 px screen the buyer sees every column of the comparison without scrolling it.
    desk = chromium.new_context(viewport={"width": 1366, "height": 900})
    try:
        wide = desk.new_page()
        wide.goto(
            live_server.url
            + reverse("quotes:buyer", args=[services.buyer_link_token(revision=main)])
        )
        table = wide.evaluate(
            "(() => { const w = document.querySelector('table.option-comparison').parentElement;"
            " return [w.scrollWidth, w.clientWidth]; })()"
        )
        assert table[0] <= table[1], table
    finally:
        desk.close()

    # The buyer accepts option B on a phone, in Dutch.
    phone = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    buyer = phone.new_page()
    buyer.set_default_timeout(15_000)
    try:
        buyer.goto(
            live_server.url
            + reverse("quotes:buyer", args=[services.buyer_link_token(revision=main)])
        )
        buyer.wait_for_selector("#accept-form")
        assert "Uw opties" in buyer.locator("#options").inner_text()
        width = buyer.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert width[0] <= width[1], width
        buyer.check("input[name=option][value=B]")
        buyer.check("#id_terms")
        buyer.fill("#id_name", "Jan de Vries")
        buyer.fill("#id_role", "CTO")
        buyer.locator("#accept-button").click()
        buyer.wait_for_selector("#acceptance-done")
    finally:
        phone.close()

    record = AcceptanceRecord.objects.get(revision=main)
    assert (record.option_letter, record.option_name) == ("B", "24 × H200")
    option.refresh_from_db()
    assert option.status == Status.ACCEPTED
    assert "Optie B: 24 × H200" in _text(bytes(record.pdf))
    # The quote page: option B accepted, option A not chosen.
    page.goto(live_server.url + detail)
    assert "option B" in page.locator("#option-chosen").inner_text()
    assert page.locator("#option-status-A").inner_text() == "not chosen"
    assert page.locator("#option-status-B").inner_text() == "accepted"
    # Won, with option B's net total (the sales figures count the option chosen).
    today = timezone.localdate()
    (outcome,) = [
        o for o in outcomes(user=sales_user, start=today, end=today) if o.quote == main.quote
    ]
    assert (outcome.outcome, outcome.option, outcome.value) == ("won", "B", b_net)
