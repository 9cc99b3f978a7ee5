"""Options (quotes/services/options.py): a proposal offers up to four configurations; each
has its own lines, totals and analysis; sending freezes them all; the buyer accepts exactly
one, which the signed copy names, and the others are marked not chosen."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from quotes import pdf, services
from quotes.models import ApprovalState, LineKind, Status

from .conftest import pdf_text, send
from .test_acceptance import finish_render

pytestmark = pytest.mark.django_db

# Serving a 70B model: option A on HGX B200, option B on HGX H200.
QUERY = "preset=serve-70b&server=smc-822gs-nbrt-b200"
H200 = "server:smc-821ge-tnhr-h200"


@pytest.fixture
def offer(seed_catalog: object, customer: Any, sales_user: Any) -> tuple[Any, Any]:
    quote = services.quote_create_from_calculator(customer=customer, owner=sales_user, query=QUERY)
    main = quote.revisions.get()
    services.option_rename(revision=main, name="B200")
    option = services.option_add(revision=main, name="H200")
    # Option B: the B200 server line replaced by H200 servers (its per-server lines follow).
    b200 = option.lines.get(kind=LineKind.SERVER)
    for child in b200.children.all():
        child.delete()
    services.revision_remove_line(revision=option, line_id=b200.pk)
    services.revision_add_line(revision=option, catalog_key=H200, quantity=Decimal(2))
    return main, option


def present_without_analysis_where_needed(*revisions: Any) -> None:
    """An option whose analysis recommends renting is sent without it (services.presentation)."""
    for revision in revisions:
        if services.presentation_needed(revision, services.deal_analysis(revision=revision)):
            services.revision_set_presentation(revision=revision, presentation="without")


def test_each_option_has_its_own_lines_totals_and_analysis(offer: tuple[Any, Any]) -> None:
    main, option = offer
    assert (option.option_letter, option.option_of_id, option.seq) == ("B", main.pk, main.seq)
    assert [o.option_letter for o in services.options_of(option)] == ["A", "B"]
    a_servers = main.lines.get(kind=LineKind.SERVER)
    b_servers = option.lines.get(kind=LineKind.SERVER)
    assert b_servers.catalog_key == H200 and a_servers.catalog_key != H200
    # Each option's deal analysis is of its own servers.
    assert services.deal_inputs(revision=option).server_key == "smc-821ge-tnhr-h200"
    assert services.deal_inputs(revision=main).server_key == "smc-822gs-nbrt-b200"


def test_at_most_four_options(offer: tuple[Any, Any]) -> None:
    main, _option = offer
    services.option_add(revision=main, name="C")
    services.option_add(revision=main, name="D")
    with pytest.raises(services.QuoteError, match="at most four"):
        services.option_add(revision=main, name="E")


def test_an_alternative_keeps_a_name_and_option_a_may_go_without(
    offer: tuple[Any, Any],
) -> None:
    """A buyer tells the alternatives apart by their names: renaming one to blanks is refused
    as adding one without a name is; option A, the proposal itself, may drop its name."""
    main, option = offer
    with pytest.raises(services.QuoteError, match="Give the option a name"):
        services.option_rename(revision=option, name=" \t ")
    option.refresh_from_db()
    assert option.option_name == "H200"
    assert services.option_rename(revision=main, name="  ").option_name == ""
    assert services.option_rename(revision=option, name=" 2 ×\n H200 ").option_name == "2 × H200"


def test_sending_freezes_every_option_and_the_pdf_compares_them(
    offer: tuple[Any, Any], sales_user: Any
) -> None:
    main, option = offer
    present_without_analysis_where_needed(main, option)
    send(option, sales_user)  # sending from an option sends the set, from option A
    main.refresh_from_db()
    option.refresh_from_db()
    assert (main.status, option.status) == (Status.SENT, Status.SENT)
    assert option.snapshot is not None and main.snapshot is not None
    assert [s["letter"] for s in main.snapshot["options"]] == ["B"]
    rows = services.comparison(main.snapshot)
    net_a, net_b = (
        Decimal(main.snapshot["totals"]["net"]),
        Decimal(option.snapshot["totals"]["net"]),
    )
    assert [r["net"] for r in rows] == [net_a, net_b]
    assert rows[1]["difference"] == net_b - net_a  # hand: B's net minus A's
    document = pdf.render_revision(main.snapshot, language="en", with_charts=False)
    text = re.sub(r"\s+", " ", pdf_text(document.pdf)[0]).replace("\u00a0", " ")
    assert "Your options" in text and "Option B: H200" in text
    assert f"€{net_b:,.0f}" in text and f"€{net_a:,.0f}" in text


def test_the_buyer_accepts_one_option(
    offer: tuple[Any, Any], sales_user: Any, settings: Any
) -> None:
    main, option = offer
    present_without_analysis_where_needed(main, option)
    send(main, sales_user)
    finish_render(main)  # the proposal PDF, without charts (this test reads the signed page)
    with pytest.raises(services.QuoteError, match="Choose one of the options"):
        services.revision_accept(
            revision=main,
            name="Kim",
            role="CTO",
            terms_accepted=True,
            ip_address="10.0.0.1",
            user_agent="test",
        )
    record = services.revision_accept(
        revision=main,
        name="Kim",
        role="CTO",
        terms_accepted=True,
        ip_address="10.0.0.1",
        user_agent="test",
        option="B",
    )
    assert (record.option_letter, record.option_name) == ("B", "H200")
    main.refresh_from_db()
    option.refresh_from_db()
    assert (main.status, option.status) == (Status.ACCEPTED, Status.ACCEPTED)
    signed = re.sub(r"\s+", " ", pdf_text(bytes(record.pdf))[0])
    assert "Option B: H200" in signed


def test_a_new_revision_keeps_the_options(offer: tuple[Any, Any], sales_user: Any) -> None:
    main, option = offer
    services.option_set_lease(revision=option, term_months=36)
    present_without_analysis_where_needed(main, option)
    send(main, sales_user)
    option.refresh_from_db()
    assert option.snapshot is not None and option.snapshot["lease"]["term_months"] == 36
    new = services.quote_revise(revision=main, actor=sales_user)
    [copy] = new.alternatives.all()
    assert (copy.option_letter, copy.option_name, copy.seq) == ("B", "H200", new.seq)
    assert (new.lease_term_months, copy.lease_term_months) == (None, 36)
    assert copy.lines.get(kind=LineKind.SERVER).catalog_key == H200


def test_a_quote_from_the_calculator_offers_the_next_servers_as_options(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    # pretrain-70b on "the cheapest that fits": option A is the calculator's server; B and C
    # the next cheapest with other GPUs, each sized for the same work (its own lines and
    # analysis).
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=pretrain-70b", alternatives=2
    )
    main = quote.revisions.get(option_of__isnull=True)
    options = services.options_of(main)
    assert [o.option_letter for o in options] == ["A", "B", "C"]
    gpus = set()
    for option in options:
        server = option.lines.get(kind=LineKind.SERVER)
        deal = services.deal_inputs(revision=option)
        assert deal.server_key == server.catalog_key.partition(":")[2]
        assert option.option_name.startswith(f"{int(server.quantity)} × ")
        assert option.tco is not None and option.tco["server"]["key"] == deal.server_key
        gpus.add(option.tco["server"]["gpu"])
    assert len(gpus) == 3  # three different GPUs


def test_the_preview_shows_every_option(
    offer: tuple[Any, Any], sales_user: Any, client: Any
) -> None:
    from django.urls import reverse

    _main, option = offer
    client.force_login(sales_user)
    # The preview of any option is the whole proposal: option A's pages and option B's.
    response = client.get(reverse("quotes:revision_preview_pdf", args=[option.public_id]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text = re.sub(r"\s+", " ", pdf_text(response.content)[0]).replace("\u00a0", " ")
    assert "Your options" in text and "Option B: H200" in text and "Option A: B200" in text


def _lines(revision: Any) -> list[tuple[str, str, Decimal]]:
    return [(x.kind, x.catalog_key, x.quantity) for x in revision.lines.order_by("position")]


def test_another_option_becomes_the_main_one(
    offer: tuple[Any, Any], sales_user: Any, client: Any
) -> None:
    """ "Make main" on option B: B's row becomes the revision (option A, the headline total)
    and the old option A takes the letter B; each keeps its name, lines and approval, and
    the revision's terms stay the revision's. Refused once the revision is sent."""
    from django.urls import reverse

    main, option = offer
    a_lines, b_lines = _lines(main), _lines(option)
    option.approval_state = ApprovalState.REQUESTED  # B's margin approval, asked for
    option.save(update_fields=["approval_state"])
    main.terms = "Delivered DDP Amsterdam."
    main.save(update_fields=["terms"])
    before = services.comparison(services.proposal_snapshot(revision=main))
    a_net, b_net = before[0]["net"], before[1]["net"]

    client.force_login(sales_user)
    detail = reverse("quotes:detail", args=[main.quote.public_id])
    page = client.get(f"{detail}?option=B").content.decode()
    assert 'id="option-make-main-button"' in page  # on an alternative of a draft
    assert 'id="option-lease-form"' in page and "lease over 36 months" in page
    response = client.post(reverse("quotes:option_make_main", args=[option.public_id]))
    assert response.status_code == 302
    assert response["Location"] == detail
    main.refresh_from_db()
    option.refresh_from_db()
    assert (option.option_of_id, option.option_letter, option.option_name) == (None, "A", "H200")
    assert (main.option_of_id, main.option_letter, main.option_name) == (option.pk, "B", "B200")
    assert (_lines(option), _lines(main)) == (b_lines, a_lines)
    assert (option.approval_state, main.approval_state) == (
        ApprovalState.REQUESTED,
        ApprovalState.NOT_NEEDED,
    )
    assert option.terms == "Delivered DDP Amsterdam."
    assert [o.pk for o in services.options_of(main)] == [option.pk, main.pk]
    # The headline is H200's net; B200 shows its difference: a_net − b_net (the opposite
    # of before).
    after = services.comparison(services.proposal_snapshot(revision=main))
    assert [(r["letter"], r["name"], r["net"]) for r in after] == [
        ("A", "H200", b_net),
        ("B", "B200", a_net),
    ]
    assert after[1]["difference"] == a_net - b_net
    page = client.get(detail).content.decode()
    assert 'id="option-tab-A"' in page and "</strong>: H200" in page
    assert 'id="option-make-main-button"' not in page  # option A is the main one

    option.approval_state = ApprovalState.NOT_NEEDED
    option.save(update_fields=["approval_state"])
    present_without_analysis_where_needed(option, main)
    send(option, sales_user)
    main.refresh_from_db()
    with pytest.raises(services.QuoteError, match="has been sent"):
        services.option_make_main(revision=main)
    with pytest.raises(services.QuoteError, match="already the main one"):
        services.option_make_main(revision=option)


# Pre-training 70B three times a year within 90 days, needed in 30: 17 × B300 (option A)
# against 24 × H200 (option B), a fleet too slow for three runs a year.
TRAINING = "preset=pretrain-70b&server=smc-822gs-nb3rt-b300&needed_in_days=30"


def test_the_options_compare_with_one_rental_of_the_same_work(
    seed_catalog: object, customer: Any, sales_user: Any
) -> None:
    """Renting is sized to the work, never to the owned servers, so every option is
    compared with the same best rental. Option B's 24 × H200 take 3,629.6 h a run: three
    runs a year need 3 × 3,629.6 = 10,889 h, more than the 8,760 the fleet has, so its
    utilization stops at 100 %; the rental used to follow it and came out at 8,760 ÷ 10,889
    = 80.4 % of option A's (€20.2 M against €25.2 M). Renting all 15 runs (3 a year × 5
    years) costs 15 × one run's rental on the same instances, whichever option is bought."""
    quote = services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query=TRAINING
    )
    main = quote.revisions.get()
    option = services.option_add(revision=main, name="24 × H200")
    b300 = option.lines.get(kind=LineKind.SERVER)
    b300.children.all().delete()
    services.revision_remove_line(revision=option, line_id=b300.pk)
    services.revision_add_line(revision=option, catalog_key=H200, quantity=Decimal(24))

    reports = [services.stored_report(services.deal_analysis(revision=r)) for r in (main, option)]
    a_run, b_run = (r.demand.run_hours if r and r.demand else None for r in reports)
    assert a_run is not None and b_run is not None
    assert 3 * a_run < 8760 < 3 * b_run  # option A keeps up with the runs, B does not
    rows = services.comparison(services.proposal_snapshot(revision=main))
    assert rows[0]["best_rental"] == rows[1]["best_rental"]
    assert rows[0]["rental_total"] == pytest.approx(rows[1]["rental_total"], abs=0.01)
    for report, row in zip(reports, rows, strict=True):
        assert report is not None and report.demand is not None and report.demand.runs == 15
        (rental,) = [o for o in report.options if o.name == report.verdict.reference_cloud]
        assert rental.cost_of_run is not None
        assert row["rental_total"] == pytest.approx(15 * rental.cost_of_run, rel=1e-6)


def test_a_leased_option_states_its_instalments_and_its_cost_against_renting(
    seed_catalog: object, customer: Any, sales_user: Any, client: Any
) -> None:
    """The calculator's quote with the lease of its servers as option B (the "Start a
    quote" form's "Also offer a lease"): the same lines,
    paid in 36 monthly instalments at the analysis' lease rate (6 % a year). Serving 70B on
    one HGX B200: the hardware's net total P = €438,339.69 (the deal's upfront amount);
    i = 6 % ÷ 12 = 0.5 % a month; instalment = P × i ÷ (1 − 1.005^−36) = €2,191.70 ÷
    0.164355 = €13,335.14; 36 of them = €480,065.04. Owning with the lease costs the
    purchase's cost of owning + what the instalments add to the price: + €480,065.04 −
    €438,339.69 = + €41,725.35 (the running costs and residual are the purchase's)."""
    from django.urls import reverse

    from quotes.models import Quote

    # "Start a quote" from the calculator result, also offering the lease over 36 months.
    client.force_login(sales_user)
    form = {"customer": customer.public_id, "calc": QUERY, "lease_term_months": "36"}
    form |= {"country": "NL", "language": "en"}
    response = client.post(reverse("quotes:new"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    main = Quote.objects.get().revisions.get(option_of__isnull=True)
    bought, leased = services.options_of(main)
    assert (bought.lease_term_months, leased.lease_term_months) == (None, 36)
    assert leased.option_name == f"{main.option_name}, leased over 36 months"
    assert _lines(leased) == _lines(bought)

    deal = services.deal_analysis(revision=leased)
    assert deal is not None
    p = Decimal(deal["deal"]["hardware_net"])
    i = Decimal("0.06") / 12
    instalment = p * i / (1 - (1 + i) ** -36)
    rows = services.comparison(services.proposal_snapshot(revision=main))
    assert rows[0]["lease"] is None
    lease = rows[1]["lease"]
    assert lease["term_months"] == 36 and lease["annual_rate"] == pytest.approx(0.06)
    assert lease["monthly_payment"] == pytest.approx(float(instalment), abs=0.01)
    assert lease["total_paid"] == pytest.approx(36 * float(instalment), abs=0.36)
    extra = 36 * float(instalment) - float(p)
    assert rows[1]["owning"] == pytest.approx(rows[0]["owning"] + extra, abs=1.0)
    assert rows[1]["rental_total"] == rows[0]["rental_total"]
    assert rows[1]["saving"] == pytest.approx(abs(rows[1]["rental_total"] - rows[1]["owning"]))
    assert rows[1]["payback_month"] is None  # the purchase's payback says nothing of a lease

    # The proposal states it: in the comparison, option B's section and the signature
    # block; with option A leased over 48 months too, beside A's own price summary.
    services.option_set_lease(revision=bought, term_months=48)
    main.refresh_from_db()
    document = pdf.render_revision(
        services.proposal_snapshot(revision=main), language="en", draft=True, with_charts=False
    )
    text = re.sub(r"\s+", " ", pdf_text(document.pdf)[0]).replace("\u00a0", " ")
    monthly = f"€{instalment:,.0f}"
    assert f"lease: 36 × {monthly} a month" in text
    section = text[text.index("Option B: ") :]
    assert (
        f"Leased instead of bought: the hardware, €{p:,.2f} excl. VAT, in 36 monthly "
        f"instalments of €{instalment:,.2f}"
    ) in section
    # A lease rate is the finance partner's to confirm: the proposal says so, not as a term.
    assert "The lease figures are indicative: the lease is provided by a finance partner" in section
    assert f"the hardware leased: 36 × €{instalment:,.2f} a month" in text  # to sign
    summary = text[text.index("Option A: ") : text.index("Option B: ")]
    assert f"Leased instead of bought: the hardware, €{p:,.2f} excl. VAT, in 48 monthly" in summary
    assert "This schedule is that of a purchase. Leased, the hardware" in text  # A's payment

    # Only the terms the analysis computed; the quote page sets another, or the purchase.
    with pytest.raises(services.QuoteError, match="36, 48, 60 months"):
        services.option_set_lease(revision=leased, term_months=24)
    client.post(reverse("quotes:option_lease", args=[leased.public_id]), {"term_months": "48"})
    leased.refresh_from_db()
    assert leased.lease_term_months == 48
    client.post(reverse("quotes:option_lease", args=[leased.public_id]), {"term_months": ""})
    leased.refresh_from_db()
    assert leased.lease_term_months is None
