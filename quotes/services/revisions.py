"""Creating quotes and their revisions, editing a draft's terms, the buyer's decision and expiry."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qsl, urlencode

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from catalog.models import InfrastructureItem
from common.bounds import VALID_UNTIL
from common.text import one_line
from tco.report import OwningExtras, Report

from ..models import (
    Customer,
    DeclineReason,
    EmailKind,
    LineKind,
    LineUnit,
    Quote,
    QuoteRevision,
    Status,
    Team,
)
from ..money import to_cents
from ..vat import vat_for
from .analysis import analyse_calculator_query, tco_snapshot
from .bom import copy_lines, installation_item
from .drafts import locked_draft, locked_revision
from .errors import QuoteError
from .lines import revision_add_free_line
from .numbering import next_quote_number, revision_letter
from .options import (
    MAX_OPTIONS,
    alternative_of,
    answer_alternatives,
    free_letter,
    new_option,
    option_add_lease,
)
from .pricing import revision_add_line, revision_reprice
from .queue import email_once
from .tiers import DEAL_TERM_FIELDS
from .validity import category_label, longest_allowed, restart

# What a revised quote takes over from the latest revision besides its lines and options:
# the deal registration and the protection given to the buyer included, the margin
# approval not (it holds for one revision's prices).
CARRIED_OVER = (
    "tco",
    "terms",
    "discount_pct",
    "analysis_presentation",
    "analysis_reason",
    "option_name",
    "lease_term_months",
    *DEAL_TERM_FIELDS,
)


def default_terms(language: str) -> str:
    """The company profile's terms in the buyer's language, else the built-in wording."""
    from .seller import company_terms

    terms = company_terms(language)
    if terms:
        return terms
    with translation.override(language):
        # Delivery and warranty are not stated here: the proposal's terms section refers
        # to its own delivery schedule and the warranty per line (pdf/proposal.html).
        return _(
            "Prices exclude shipping unless stated. Payment 30 days net from invoice. "
            "This offer is subject to our general terms of sale."
        )


def new_revision(*, quote: Quote, seq: int, currency: str, customer: Customer) -> QuoteRevision:
    vat = vat_for(country=customer.country, vat_number=customer.vat_number)
    return QuoteRevision.objects.create(
        quote=quote,
        seq=seq,
        letter=revision_letter(seq),
        currency=currency,
        vat_rate=vat.rate,
        vat_kind=vat.kind,
        valid_until=timezone.localdate() + timedelta(days=settings.QUOTE_VALIDITY_DAYS),
        terms=default_terms(customer.language),
        payment_schedule=quote.team.payment_schedule,
    )


@transaction.atomic
def quote_create(
    *,
    customer: Customer,
    owner: User,
    currency: str = "EUR",
    tco: dict[str, Any] | None = None,
) -> Quote:
    team = customer.team
    if not Team.objects.filter(pk=team.pk, members=owner).exists() and not getattr(
        owner, "is_staff", False
    ):
        raise QuoteError(_("You can only quote for customers of your own team."))
    quote = Quote.objects.create(
        number=next_quote_number(year=timezone.localdate().year),
        team=team,
        customer=customer,
        owner=owner,
    )
    revision = new_revision(quote=quote, seq=1, currency=currency, customer=customer)
    if tco is not None:
        revision.tco = tco
        revision.save(update_fields=["tco"])
    return quote


@transaction.atomic
def quote_create_from_calculator(
    *,
    customer: Customer,
    owner: User,
    query: str,
    alternatives: int = 0,
    lease_term_months: int | None = None,
) -> Quote:
    """A draft with the recommended servers, their fabric, installation and support, and
    the calculator analysis attached; with `alternatives`, as many more options: the next
    cheapest servers of the calculator's ranking with another GPU, each sized and analysed
    for the same work; with `lease_term_months`, last, the option of leasing the recommended
    servers over that term (services.options.option_add_lease)."""
    analysis = analyse_calculator_query(query=query)
    currency = analysis.report.currency
    tco = tco_snapshot(analysis=analysis, query=query, language=customer.language)
    quote = quote_create(customer=customer, owner=owner, currency=currency, tco=tco)
    revision = quote.revisions.get()
    _add_sized_lines(revision, analysis)
    room = MAX_OPTIONS - 1 - (1 if lease_term_months else 0)
    servers = alternative_servers(analysis, max(0, min(alternatives, room)))
    if servers or lease_term_months:
        revision.option_name = _fleet_name(analysis)
        revision.save(update_fields=["option_name"])
    for server in servers:
        option_query = _with_server(query, server.key)
        other = analyse_calculator_query(query=option_query)
        option = new_option(
            revision,
            name=_fleet_name(other),
            letter=free_letter(revision),
            tco=tco_snapshot(analysis=other, query=option_query, language=customer.language),
        )
        _add_sized_lines(option, other)
    if lease_term_months:
        option_add_lease(revision=revision, term_months=lease_term_months)
    return quote


def alternative_servers(analysis: Any, count: int) -> list[Any]:
    """The next cheapest servers that can do the work, each with another GPU than the
    recommended one and than each other (the calculator's ranking on "auto"; none when
    the server was chosen)."""
    chosen = analysis.built.server_model
    gpus = {chosen.gpu_id}
    picked: list[Any] = []
    for candidate in getattr(analysis, "candidates", None) or []:
        server = candidate.server
        if len(picked) == count:
            break
        if candidate.onprem_total is None or server.gpu_id in gpus:
            continue
        gpus.add(server.gpu_id)
        picked.append(server)
    return picked


def _with_server(query: str, server_key: str) -> str:
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "server"]
    return urlencode([*pairs, ("server", server_key)])


def _fleet_name(analysis: Any) -> str:
    """An option's name from its analysis: "17 × Supermicro HGX B200 8-GPU"."""
    servers = analysis.report.sizing.servers_required
    return f"{servers} × {analysis.built.server_model.name}"[:120]


def _add_sized_lines(revision: QuoteRevision, analysis: Any) -> None:
    """The analysis' servers, their networking and installation per server, and support for
    the horizon (quantity in years), so that the deal's analysis costs what the calculator
    costed: the networking line carries the analysis' own figure per server (a front-end
    network for one server, a GPU fabric sized by its tiers for a training fleet), not a
    catalog fabric a single server does not need."""
    report: Report = analysis.report
    servers = Decimal(report.sizing.servers_required)
    server = analysis.built.server_model
    revision_add_line(revision=revision, catalog_key=f"server:{server.key}", quantity=servers)
    extras = report.owning_extras
    per_server = to_cents(Decimal(str((extras and extras.networking_per_server) or 0)))
    items = {i.key: i for i in InfrastructureItem.objects.all()}
    if per_server > 0:
        with translation.override(revision.quote.customer.language):
            description = sized_networking_description(extras)
        revision_add_free_line(
            revision=revision,
            description=description,
            quantity=servers,
            unit=LineUnit.PCS,
            unit_price=per_server,
            cost_price=_networking_cost(per_server, items.get(NETWORKING_COST_ITEM)),
            kind=LineKind.NETWORKING,
        )
    installation = extras.installation_per_server if extras else None
    install_item = installation_item(whole_rack=bool(server.whole_rack))
    if install_item in items and installation != 0:
        revision_add_line(revision=revision, catalog_key=f"item:{install_item}", quantity=servers)
    if "support-10pct" in items:
        years = Decimal(report.horizon_months) / 12
        revision_add_line(
            revision=revision, catalog_key="item:support-10pct", quantity=to_cents(years)
        )
    for key, quantity in build_out_quantities(analysis.report).items():
        if key in items:
            revision_add_line(revision=revision, catalog_key=f"item:{key}", quantity=quantity)


# The site fit's build-out lines (tco/engine/site.py) and the catalog items that price them.
BUILD_OUT_ITEMS = {
    "cdu": "cdu-in-row-250kw",
    "liquid_cooling": "liquid-cooling-per-kw",
    "rack_power": "power-per-kw",
    "facility_power": "power-per-kw",
}


def build_out_quantities(report: Report) -> dict[str, Decimal]:
    """What the buyer's own site needs built, as catalog item keys and quantities (CDUs, kW),
    when the analysis priced a build-out there (none when the fleet fits or moves to a
    colocation)."""
    fit = report.site_fit
    if fit is None or fit.status != "build_out":
        return {}
    quantities: dict[str, Decimal] = {}
    for line in fit.build_out_lines:
        key = BUILD_OUT_ITEMS.get(line.item)
        if key is not None:
            quantities[key] = quantities.get(key, Decimal(0)) + Decimal(str(line.quantity))
    return {key: to_cents(q) for key, q in quantities.items()}


# The catalog's networking item whose cost-to-price ratio costs a networking line sized by
# the analysis (the margin check then sees it like any catalog line).
NETWORKING_COST_ITEM = "ib-ndr-400g-per-node"


def _networking_cost(price: Decimal, item: InfrastructureItem | None) -> Decimal | None:
    if item is None or item.cost_price is None or not item.price:
        return None
    return to_cents(price * item.cost_price / item.price)


def sized_networking_description(extras: OwningExtras | None) -> str:
    """The networking line of a quote started from an analysis, in the active language."""
    if extras is not None and extras.networking == "fabric":
        tiers = extras.fabric_tiers or 1
        return ngettext(
            "GPU fabric per server as sized: NICs, optics and switch ports in %(tiers)d "
            "tier, with the front-end network",
            "GPU fabric per server as sized: NICs, optics and switch ports in %(tiers)d "
            "tiers, with the front-end network",
            tiers,
        ) % {"tiers": tiers}
    return _("Front-end network per server as sized: NIC and top-of-rack switch ports")


@transaction.atomic
def quote_create_from_scenario(
    *, customer: Customer, owner: User, document: dict[str, Any]
) -> Quote:
    """A draft from a scenario document (the API's estimate format), like one started from
    the calculator: the sized servers, their networking as sized, installation and support
    lines, and the analysis attached (with the document, so it can be evaluated again)."""
    analysis = _document_analysis(document)
    tco = _document_tco(analysis, document, customer.language)
    quote = quote_create(customer=customer, owner=owner, currency=analysis.report.currency, tco=tco)
    _add_sized_lines(quote.revisions.get(), analysis)
    return quote


@transaction.atomic
def quote_create_from_scenarios(
    *, customer: Customer, owner: User, scenarios: list[tuple[str, dict[str, Any]]]
) -> Quote:
    """A draft whose options A, B, … are the named scenario documents (saved scenarios,
    services.scenarios): option A as `quote_create_from_scenario` makes it, each other one
    an option with the same kind of lines sized by its own analysis. The documents must
    be priced in one currency (a quote's options share its currency)."""
    if not 1 <= len(scenarios) <= MAX_OPTIONS:
        raise QuoteError(_("A proposal offers at most four options."))
    analyses = [_document_analysis(document) for _name, document in scenarios]
    if len({analysis.report.currency for analysis in analyses}) > 1:
        raise QuoteError(_("The scenarios are priced in different currencies."))
    (first_name, first), *others = scenarios
    quote = quote_create(
        customer=customer,
        owner=owner,
        currency=analyses[0].report.currency,
        tco=_document_tco(analyses[0], first, customer.language),
    )
    revision = quote.revisions.get()
    _add_sized_lines(revision, analyses[0])
    if others:
        revision.option_name = " ".join(first_name.split())[:120]
        revision.save(update_fields=["option_name"])
    for (name, document), analysis in zip(others, analyses[1:], strict=True):
        option = new_option(
            revision,
            name=name,
            letter=free_letter(revision),
            tco=_document_tco(analysis, document, customer.language),
        )
        _add_sized_lines(option, analysis)
    return quote


def _document_analysis(document: dict[str, Any]) -> Any:
    """A scenario document's analysis with today's catalog, or QuoteError."""
    from tco.analysis import AnalysisError, analyse

    try:
        return analyse(document)
    except AnalysisError as exc:
        raise QuoteError(str(exc)) from exc


def _document_tco(analysis: Any, document: dict[str, Any], language: str) -> dict[str, Any]:
    """A document's analysis as a revision keeps it, with the document (so that it can be
    evaluated again)."""
    tco = tco_snapshot(analysis=analysis, query="", language=language)
    tco["scenario"] = document
    return tco


@transaction.atomic
def revision_update(*, revision: QuoteRevision, valid_until: date, terms: str) -> QuoteRevision:
    revision = locked_draft(revision)
    if valid_until < timezone.localdate():
        raise QuoteError(_("The validity date cannot lie in the past."))
    latest = VALID_UNTIL.bounds(timezone.localdate())[1]
    if valid_until > latest:
        raise QuoteError(
            _("A proposal is valid for at most a year: until %(date)s.")
            % {"date": formats.date_format(latest)}
        )
    allowed = longest_allowed(revision)
    if allowed.category and valid_until > allowed.until(timezone.localdate()):
        raise QuoteError(
            _(
                "Line %(line)s (%(category)s) keeps its price for %(days)s days: the proposal"
                " can be valid until %(date)s at most."
            )
            % {
                "line": allowed.line,
                "category": category_label(allowed.category),
                "days": allowed.days,
                "date": formats.date_format(allowed.until(timezone.localdate())),
            }
        )
    revision.valid_until = valid_until
    revision.terms = terms
    revision.save(update_fields=["valid_until", "terms"])
    return revision


@transaction.atomic
def quote_revise(*, revision: QuoteRevision, actor: User) -> QuoteRevision:
    """The next revision as a draft, with the same lines, prices and analysis; valid from
    today over its lines' categories (services.validity).

    The sent revision stays open to the buyer (they may still accept it) until the new
    one is sent; a draft that is never sent withdraws nothing. An expired revision is
    revised in one click at today's prices, lead times and rate: the new draft and its
    options are re-priced at once (the draft page shows what moved, services.moved).
    """
    revision = locked_revision(revision)
    quote = revision.quote
    latest = quote.revisions.filter(option_of__isnull=True).order_by("-seq").first()
    assert latest is not None
    if latest.status == Status.DRAFT:
        return latest
    if latest.pk != revision.pk:
        raise QuoteError(_("Revise the latest revision."))
    if latest.status == Status.ACCEPTED:
        raise QuoteError(_("This revision was accepted; start a new quote instead."))
    new = new_revision(
        quote=quote, seq=latest.seq + 1, currency=latest.currency, customer=quote.customer
    )
    for field in CARRIED_OVER:
        setattr(new, field, getattr(latest, field))
    new.payment_schedule = latest.payment_schedule or new.payment_schedule
    new.save(update_fields=[*CARRIED_OVER, "payment_schedule"])
    copy_lines(latest, new)
    for option in latest.alternatives.order_by("option_letter"):
        copy = alternative_of(
            new,
            option_letter=option.option_letter,
            option_name=option.option_name,
            tco=option.tco,
            discount_pct=option.discount_pct,
            analysis_presentation=option.analysis_presentation,
            analysis_reason=option.analysis_reason,
            lease_term_months=option.lease_term_months,
        )
        copy_lines(option, copy)
    restart(new)  # from today, over the lines' categories
    if latest.status == Status.EXPIRED:  # one click: today's prices, lead times and rate
        for option in [new, *new.alternatives.all()]:
            revision_reprice(revision=option, actor=actor)
    return new


def revision_mark_viewed(*, revision: QuoteRevision) -> None:
    QuoteRevision.objects.filter(pk=revision.pk, status=Status.SENT).update(
        status=Status.VIEWED, viewed_at=timezone.now()
    )


def revision_is_latest(*, revision: QuoteRevision) -> bool:
    """No newer revision has been sent: a draft being prepared does not withdraw what the
    buyer holds; sending it does (quote_send)."""
    return not (
        QuoteRevision.objects.filter(
            quote_id=revision.quote_id, seq__gt=revision.seq, option_of__isnull=True
        )
        .exclude(status=Status.DRAFT)
        .exists()
    )


def open_earlier_revision(*, revision: QuoteRevision) -> QuoteRevision | None:
    """The sent revision the buyer can still answer while `revision` (a draft) is being
    prepared: the page warns that it stays open until the draft is sent."""
    return (
        QuoteRevision.objects.filter(
            quote_id=revision.quote_id,
            seq__lt=revision.seq,
            option_of__isnull=True,
            status__in=[Status.SENT, Status.VIEWED],
            valid_until__gte=timezone.localdate(),
        )
        .order_by("-seq")
        .first()
    )


def ensure_answerable(revision: QuoteRevision) -> None:
    """The buyer may still answer: sent or viewed, the latest revision, not expired."""
    if revision.status not in (Status.SENT, Status.VIEWED):
        raise QuoteError(_("This proposal has already been answered or is no longer open."))
    if not revision_is_latest(revision=revision):
        raise QuoteError(_("A newer revision of this proposal exists."))
    if revision.valid_until < timezone.localdate():
        raise QuoteError(_("This proposal has expired."))


@transaction.atomic
def revision_decide(
    *, revision: QuoteRevision, accept: bool, name: str, reason: str = "", note: str = ""
) -> QuoteRevision:
    """The buyer accepts or declines; the name and time are recorded, the owner told. A
    decline keeps the buyer's reason (DeclineReason) and words, for the sales engineer."""
    revision = locked_revision(revision)
    ensure_answerable(revision)
    name = one_line(name)  # it goes into the owner's email subject
    if not name:
        raise QuoteError(_("Please type your name."))
    if reason and reason not in DeclineReason.values:
        raise QuoteError(_("Please choose why you decline."))
    revision.status = Status.ACCEPTED if accept else Status.DECLINED
    revision.decided_at = timezone.now()
    revision.decided_by_name = name[:200]
    revision.decline_reason = "" if accept else reason
    revision.decline_note = "" if accept else note.strip()[:2000]
    revision.save(
        update_fields=["status", "decided_at", "decided_by_name", "decline_reason", "decline_note"]
    )
    answer_alternatives(revision, status=revision.status, chosen="A")
    owner = revision.quote.owner
    if owner.email:
        # The sales desk's language for subject and text alike: the buyer's page may be in
        # another language, but the email goes to the quote's owner.
        with translation.override(settings.LANGUAGE_CODE):
            subject = (
                _("%(number)s rev. %(letter)s accepted by %(name)s")
                if accept
                else _("%(number)s rev. %(letter)s declined by %(name)s")
            ) % {"number": revision.quote.number, "letter": revision.letter, "name": name}
            body = render_to_string(
                "quotes/email/decision.txt",
                {"revision": revision, "accept": accept, "name": name},
            )
        email_once(
            key=f"decision:{revision.public_id}",
            kind=EmailKind.DECISION,
            to=owner.email,
            subject=subject,
            body=body,
            revision=revision,
        )
    return revision


def quotes_expire(*, today: date | None = None) -> int:
    """Mark open revisions whose validity date has passed as expired."""
    today = today or timezone.localdate()
    return QuoteRevision.objects.filter(
        status__in=[Status.SENT, Status.VIEWED], valid_until__lt=today
    ).update(status=Status.EXPIRED)
