"""Business rules and writes of quotes: every state change is a named, keyword-only function.

Rules enforced here (and nowhere else):

- A revision can be edited only while it is a draft. ``quote_send`` freezes it: lines,
  totals, VAT and the TCO analysis are copied into ``QuoteRevision.snapshot``, and every
  later read for the buyer (PDF, online view) uses the snapshot only, so catalog changes
  never reach a sent revision.
- Quote numbers are ``Q-YYYY-NNNN``, sequential per year, allocated under a row lock.
- Email goes through the outbox: the row is written in the request's transaction and the
  Celery tasks are enqueued on commit with ids only; a periodic task re-enqueues rows
  that a broker or worker outage left behind.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core import signing
from django.core.cache import cache
from django.core.mail import EmailMessage, mailers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Max, Q
from django.http import QueryDict
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from catalog.models import InfrastructureItem, PricingUnit, ServerModel
from catalog.selectors import latest_fx_rate

from .models import (
    Customer,
    EmailKind,
    Lead,
    LineKind,
    OutboxEmail,
    OutboxStatus,
    ProposalRender,
    Quote,
    QuoteCounter,
    QuoteLine,
    QuoteRevision,
    RenderStatus,
    Status,
    Team,
)
from .money import HUNDRED, convert, line_amount, to_cents
from .selectors import revision_price_changes
from .vat import vat_for

logger = logging.getLogger(__name__)

BUYER_LINK_SALT = "quotes.buyer-link"
LEAD_LINK_SALT = "quotes.lead-pdf"
PDF_CHARTS = ("cumulative", "breakdown", "utilization")


class QuoteError(Exception):
    """A request the rules refuse; the message is shown to the user."""


class RevisionLocked(QuoteError):
    """The revision was sent: it can no longer change."""


class BuyerLinkInvalid(QuoteError):
    pass


class BuyerLinkExpired(BuyerLinkInvalid):
    pass


class TransientDeliveryError(Exception):
    """The SMTP server did not take the message this time; the task retries."""


class RateLimited(QuoteError):
    pass


# --- teams -------------------------------------------------------------------------------


def is_sales(user: Any) -> bool:
    """Sales engineers (members of the "sales" group) and staff reach the quote pages."""
    if not (user.is_authenticated and user.is_active):
        return False
    return bool(user.is_staff or user.groups.filter(name="sales").exists())


def team_for(*, user: AbstractBaseUser) -> Team | None:
    return Team.objects.filter(members=user).order_by("pk").first()


# --- customers ---------------------------------------------------------------------------


def customer_create(
    *,
    team: Team,
    company: str,
    contact_name: str,
    email: str,
    country: str,
    vat_number: str = "",
    language: str = "en",
) -> Customer:
    customer = Customer(
        team=team,
        company=company.strip(),
        contact_name=contact_name.strip(),
        email=email.strip(),
        country=country.upper(),
        vat_number=vat_number.strip().upper().replace(" ", ""),
        language=language,
    )
    customer.full_clean()
    customer.save()
    return customer


# --- TCO analysis snapshot ---------------------------------------------------------------


def executive_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """Buy or rent, in numbers and in words: the engine's verdict, worded in the active language.

    The decision itself comes from the engine (``summary["verdict"]``); this only words it,
    so the page, the quote and the PDF say the same thing.
    """
    from tco.wording import break_even_sentence, cloud_label, verdict_headline

    options = summary.get("options") or []
    verdict = summary.get("verdict")
    onprem = next((o for o in options if o.get("kind") == "onprem"), None)
    if not verdict or onprem is None:
        return {"buy": None}
    reference = next((o for o in options if o.get("name") == verdict.get("reference_cloud")), None)
    params = verdict.get("params") or {}
    buy = verdict.get("action") in ("buy", "hybrid")
    return {
        "buy": buy,
        "action": verdict.get("action"),
        "headline": verdict_headline(verdict, summary.get("currency", "EUR")),
        "break_even": break_even_sentence(summary),
        "best_cloud": cloud_label(verdict.get("reference_cloud") or ""),
        # The cheapest way to own (kept or resold), so the saving reconciles with it.
        "onprem_total": params.get("cost") if buy else params.get("owning_cost"),
        "cloud_total": reference["total_cost"] if reference else None,
        "saving": params.get("saving"),
        "saving_pct": params.get("saving_pct") if buy else None,
        "break_even_utilization": summary.get("break_even_utilization"),
        "break_even_month": summary.get("break_even_month"),
        "payback_month": summary.get("break_even_month"),
    }


def plain(value: Decimal) -> str:
    """A Decimal as plain digits without exponent or trailing zeros: 10.00 → "10"."""
    return format(value.normalize(), "f")


def tco_snapshot(*, analysis: Any, query: str, language: str) -> dict[str, Any]:
    """A JSON-safe copy of a calculator analysis, with the PDF's charts as Plotly JSON.

    The figures are built here, from the engine result, by the same builders as the web
    page (tco.charts) and in the buyer's language, so that a PDF rendered later shows the
    analysis as it was, whatever happens to the catalog in between.
    """
    from tco.chart_context import SEPARATORS, chart_labels
    from tco.charts import all_charts, figure_payload

    limit = settings.PRICE_STALE_AFTER_DAYS
    today = timezone.localdate()
    with translation.override(language):
        # Built in the buyer's language: labels, amounts in their number format, charts.
        figures = all_charts(
            analysis.result, chart_labels(analysis.result), SEPARATORS.get(language, ".,")
        )
        payloads = {name: figure_payload(figures[name]) for name in PDF_CHARTS}
        server = analysis.built.server_model
        summary = analysis.summary
        snapshot = {
            "query": query,
            "language": language,
            "computed_at": timezone.now().isoformat(),
            "summary": summary,
            "executive": executive_summary(summary),
            "server": {
                "key": server.key,
                "vendor": server.vendor,
                "sku": server.sku,
                "name": server.name,
                "gpu": server.gpu.name,
                "gpu_count": server.gpu_count,
            },
            "assumptions": [
                {
                    "label": a.label,
                    "value": a.value,
                    "source": a.source,
                    "as_of": a.as_of.isoformat() if a.as_of else None,
                    "is_estimate": a.is_estimate,
                    "stale": bool(a.as_of and (today - a.as_of).days > limit),
                }
                for a in analysis.built.assumptions
            ],
            "figures": payloads,
        }
        # Plain JSON now (lazy translations resolved in the buyer's language).
        return json.loads(json.dumps(snapshot, cls=DjangoJSONEncoder))


def analyse_calculator_query(*, query: str) -> Any:
    """The calculator's analysis for a result URL's query string, or QuoteError."""
    from tco.services import analyse_query

    _form, outcome = analyse_query(QueryDict(query))
    if outcome.analysis is None:
        raise QuoteError(
            outcome.problem
            or _("The calculator inputs are not valid; open the calculator and try again.")
        )
    return outcome.analysis


# --- quote numbers and revisions ---------------------------------------------------------


def next_quote_number(*, year: int) -> str:
    """Q-YYYY-NNNN, sequential per year; concurrent callers wait on the counter row."""
    with transaction.atomic():
        QuoteCounter.objects.bulk_create([QuoteCounter(year=year)], ignore_conflicts=True)
        counter = QuoteCounter.objects.select_for_update().get(year=year)
        counter.last_number += 1
        counter.save(update_fields=["last_number"])
        return f"Q-{year}-{counter.last_number:04d}"


def revision_letter(seq: int) -> str:
    """1 → A, 26 → Z, 27 → AA.

    >>> [revision_letter(n) for n in (1, 2, 26, 27, 28)]
    ['A', 'B', 'Z', 'AA', 'AB']
    """
    letters = ""
    while seq > 0:
        seq, rest = divmod(seq - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def default_terms(language: str) -> str:
    with translation.override(language):
        return _(
            "Prices exclude shipping unless stated. Payment 30 days net from invoice. "
            "Delivery time on request; hardware lead times are confirmed at order. "
            "Manufacturer warranty applies. This offer is subject to our general terms "
            "of sale."
        )


def _new_revision(*, quote: Quote, seq: int, currency: str, customer: Customer) -> QuoteRevision:
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
    )


@transaction.atomic
def quote_create(
    *,
    customer: Customer,
    owner: AbstractBaseUser,
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
    revision = _new_revision(quote=quote, seq=1, currency=currency, customer=customer)
    if tco is not None:
        revision.tco = tco
        revision.save(update_fields=["tco"])
    return quote


@transaction.atomic
def quote_create_from_calculator(
    *, customer: Customer, owner: AbstractBaseUser, query: str
) -> Quote:
    """A draft with the recommended servers, their fabric, installation and support, and
    the calculator analysis attached."""
    analysis = analyse_calculator_query(query=query)
    currency = analysis.summary.get("currency", "EUR")
    tco = tco_snapshot(analysis=analysis, query=query, language=customer.language)
    quote = quote_create(customer=customer, owner=owner, currency=currency, tco=tco)
    revision = quote.revisions.get()
    servers = Decimal(analysis.summary["sizing"]["servers_required"])
    server = analysis.built.server_model
    revision_add_line(revision=revision, catalog_key=f"server:{server.key}", quantity=servers)
    items = {i.key: i for i in InfrastructureItem.objects.all()}
    interconnect = QueryDict(query).get("interconnect", "infiniband")
    fabric = "roce-400g-per-node" if interconnect == "ethernet" else "ib-ndr-400g-per-node"
    for key in (fabric, "installation-per-server"):
        if key in items:
            revision_add_line(revision=revision, catalog_key=f"item:{key}", quantity=servers)
    if "support-10pct" in items:
        years = Decimal(analysis.summary["horizon_months"]) / 12
        revision_add_line(
            revision=revision, catalog_key="item:support-10pct", quantity=to_cents(years)
        )
    return quote


@transaction.atomic
def quote_create_from_scenario(
    *, customer: Customer, owner: AbstractBaseUser, document: dict[str, Any]
) -> Quote:
    """A draft from a scenario document (the API's estimate format), like one started from
    the calculator: the sized servers, InfiniBand fabric, installation and support lines,
    and the analysis attached (with the document, so that it can be evaluated again)."""
    from tco.engine import EngineError, evaluate, result_to_dict
    from tco.scenario_io import ScenarioError, build_scenario
    from tco.services import Analysis

    try:
        built = build_scenario(document)
        result = evaluate(built.scenario)
    except (ScenarioError, EngineError) as exc:
        raise QuoteError(str(exc)) from exc
    analysis = Analysis(built, result, result_to_dict(result), [])
    tco = tco_snapshot(analysis=analysis, query="", language=customer.language)
    tco["scenario"] = document
    quote = quote_create(
        customer=customer, owner=owner, currency=analysis.summary["currency"], tco=tco
    )
    revision = quote.revisions.get()
    servers = Decimal(analysis.summary["sizing"]["servers_required"])
    revision_add_line(
        revision=revision, catalog_key=f"server:{built.server_model.key}", quantity=servers
    )
    items = {i.key: i for i in InfrastructureItem.objects.all()}
    for key in ("ib-ndr-400g-per-node", "installation-per-server"):
        if key in items:
            revision_add_line(revision=revision, catalog_key=f"item:{key}", quantity=servers)
    if "support-10pct" in items:
        years = Decimal(analysis.summary["horizon_months"]) / 12
        revision_add_line(
            revision=revision, catalog_key="item:support-10pct", quantity=to_cents(years)
        )
    return quote


def _ensure_draft(revision: QuoteRevision) -> None:
    if revision.status != Status.DRAFT:
        raise RevisionLocked(
            _("Revision %(letter)s has been sent and cannot change; revise the quote instead.")
            % {"letter": revision.letter}
        )


def _locked_revision(revision: QuoteRevision) -> QuoteRevision:
    """Re-read the revision under a row lock (the caller's copy may be stale)."""
    return (
        QuoteRevision.objects.select_for_update()
        .select_related("quote__customer")
        .get(pk=revision.pk)
    )


def _to_currency(amount: Decimal, source: str, target: str) -> Decimal:
    if source == target:
        return amount
    fx = latest_fx_rate("EUR", "USD")
    if fx is None:
        raise QuoteError(_("No EUR/USD exchange rate in the catalog."))
    return convert(amount, source, target, fx.rate)


def catalog_choices() -> list[tuple[str, str]]:
    """What a line can be: every server model and infrastructure/service item."""
    servers = [
        (f"server:{s.key}", f"{s.vendor} {s.sku} ({s.gpu_count}× {s.gpu.name})")
        for s in ServerModel.objects.select_related("gpu").order_by("vendor", "sku")
    ]
    items = [(f"item:{i.key}", i.name) for i in InfrastructureItem.objects.order_by("name")]
    return servers + items


@transaction.atomic
def revision_add_line(
    *,
    revision: QuoteRevision,
    catalog_key: str,
    quantity: Decimal,
    discount_pct: Decimal = Decimal("0"),
    optional: bool = False,
) -> QuoteLine:
    """Add a catalog item at today's catalog price (converted to the quote's currency)."""
    revision = _locked_revision(revision)
    _ensure_draft(revision)
    kind_name, _sep, key = catalog_key.partition(":")
    if kind_name == "server":
        server = ServerModel.objects.select_related("gpu").filter(key=key).first()
        if server is None:
            raise QuoteError(_("Unknown catalog item."))
        kind = LineKind.SERVER
        description = (
            f"{server.vendor} {server.sku} — {server.name} ({server.gpu_count}× {server.gpu.name})"
        )
        unit = _to_currency(server.list_price, server.currency, revision.currency)
        as_of, estimate = server.as_of, server.price_is_estimate
    elif kind_name == "item":
        item = InfrastructureItem.objects.filter(key=key).first()
        if item is None:
            raise QuoteError(_("Unknown catalog item."))
        kind = LineKind(item.category)
        as_of, estimate = item.as_of, item.is_estimate
        if item.unit == PricingUnit.PERCENT_OF_HARDWARE_PER_YEAR:
            hardware = sum(
                (
                    line.quantity * line.unit_price
                    for line in revision.lines.filter(kind=LineKind.SERVER, optional=False)
                ),
                Decimal(0),
            )
            if not hardware:
                raise QuoteError(_("Add the servers first: this item is priced per hardware."))
            unit = hardware * item.price / HUNDRED
            description = _percent_description(item)
        else:
            unit = _to_currency(item.price, item.currency, revision.currency)
            description = item.name
    else:
        raise QuoteError(_("Unknown catalog item."))
    position = (revision.lines.aggregate(m=Max("position"))["m"] or 0) + 1
    line = QuoteLine(
        revision=revision,
        position=position,
        kind=kind,
        catalog_key=catalog_key,
        description=description[:300],
        quantity=quantity,
        unit_price=to_cents(unit),
        discount_pct=discount_pct,
        optional=optional,
        price_as_of=as_of,
        price_is_estimate=estimate,
        priced_at=timezone.now(),
    )
    line.full_clean(exclude=["revision"])
    line.save()
    return line


def _percent_description(item: InfrastructureItem) -> str:
    return _("%(name)s: %(pct)s %% of hardware per year") % {
        "name": item.name,
        "pct": formats.number_format(plain(item.price), use_l10n=True),
    }


@transaction.atomic
def revision_reprice(*, revision: QuoteRevision, actor: AbstractBaseUser) -> int:
    """Give the draft's out-of-date lines today's catalog prices; returns how many lines.

    The lines are those of selectors.revision_price_changes (a catalog price or the
    EUR/USD rate changed after the line was priced): each takes the current price,
    converted to the quote's currency as when a line is added, with its date and estimate
    flag, and is marked priced now. Quantities, discounts and options stay; the totals
    follow from the lines. A sent revision is refused (RevisionLocked).
    """
    revision = _locked_revision(revision)
    _ensure_draft(revision)
    now = timezone.now()
    changes = revision_price_changes(revision=revision)
    for change in changes:
        line = change.line
        line.unit_price = change.unit_price
        line.price_as_of = change.price_as_of
        line.price_is_estimate = change.price_is_estimate
        line.priced_at = now
        fields = ["unit_price", "price_as_of", "price_is_estimate", "priced_at"]
        if change.item is not None:  # "% of hardware": the percentage may have changed
            line.description = _percent_description(change.item)[:300]
            fields.append("description")
        line.save(update_fields=fields)
    if changes:
        logger.info(
            "%s re-priced %d line(s) of revision %s", actor, len(changes), revision.public_id
        )
    return len(changes)


@transaction.atomic
def revision_remove_line(*, revision: QuoteRevision, line_id: int) -> None:
    revision = _locked_revision(revision)
    _ensure_draft(revision)
    deleted, _detail = QuoteLine.objects.filter(revision=revision, pk=line_id).delete()
    if not deleted:
        raise QuoteError(_("That line is not on this revision."))


@transaction.atomic
def revision_update(*, revision: QuoteRevision, valid_until: date, terms: str) -> QuoteRevision:
    revision = _locked_revision(revision)
    _ensure_draft(revision)
    if valid_until < timezone.localdate():
        raise QuoteError(_("The validity date cannot lie in the past."))
    revision.valid_until = valid_until
    revision.terms = terms
    revision.save(update_fields=["valid_until", "terms"])
    return revision


@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    vat: Decimal
    total: Decimal
    optional_subtotal: Decimal


def totals_for(*, lines: list[dict[str, Any]] | list[QuoteLine], vat_rate: Decimal) -> Totals:
    """Subtotal of the non-optional line amounts, VAT on it (rounded once), total."""
    subtotal = Decimal("0.00")
    optional = Decimal("0.00")
    for line in lines:
        if isinstance(line, QuoteLine):
            amount = line_amount(line.quantity, line.unit_price, line.discount_pct)
            is_optional = line.optional
        else:
            amount = Decimal(line["amount"])
            is_optional = line["optional"]
        if is_optional:
            optional += amount
        else:
            subtotal += amount
    vat = to_cents(subtotal * vat_rate / HUNDRED)
    return Totals(subtotal, vat, subtotal + vat, optional)


def _line_snapshot(line: QuoteLine) -> dict[str, Any]:
    return {
        "position": line.position,
        "kind": line.kind,
        "catalog_key": line.catalog_key,
        "description": line.description,
        "quantity": plain(line.quantity),
        "unit_price": str(line.unit_price),
        "discount_pct": plain(line.discount_pct),
        "optional": line.optional,
        "amount": str(line_amount(line.quantity, line.unit_price, line.discount_pct)),
        "price_as_of": line.price_as_of.isoformat() if line.price_as_of else None,
        "price_is_estimate": line.price_is_estimate,
    }


def revision_snapshot(*, revision: QuoteRevision) -> dict[str, Any]:
    """What the buyer sees, as plain JSON (the frozen content of a sent revision)."""
    quote = revision.quote
    customer = quote.customer
    lines = [_line_snapshot(line) for line in revision.lines.order_by("position")]
    totals = totals_for(lines=lines, vat_rate=revision.vat_rate)
    return {
        "number": quote.number,
        "revision": revision.letter,
        "currency": revision.currency,
        "language": customer.language,
        "customer": {
            "company": customer.company,
            "contact_name": customer.contact_name,
            "email": customer.email,
            "country": customer.country,
            "vat_number": customer.vat_number,
        },
        "owner": {
            "name": quote.owner.get_full_name() or quote.owner.get_username(),
            "email": quote.owner.email,
        },
        "valid_until": revision.valid_until.isoformat(),
        "issued": timezone.localdate().isoformat(),
        "terms": revision.terms,
        "vat": {"rate": plain(revision.vat_rate), "kind": revision.vat_kind},
        "lines": lines,
        "totals": {
            "subtotal": str(totals.subtotal),
            "vat": str(totals.vat),
            "total": str(totals.total),
            "optional_subtotal": str(totals.optional_subtotal),
        },
        "tco": revision.tco,
    }


# --- buyer links -------------------------------------------------------------------------


def buyer_link_token(*, revision: QuoteRevision) -> str:
    """A signed token naming the revision; it expires at the end of the validity date."""
    end = timezone.make_aware(datetime.combine(revision.valid_until, datetime.max.time()))
    max_age = max(0, int((end - timezone.now()).total_seconds()))
    return signing.TimestampSigner(salt=BUYER_LINK_SALT).sign_object(
        {"r": str(revision.public_id), "a": max_age}
    )


def revision_from_token(*, token: str) -> QuoteRevision:
    signer = signing.TimestampSigner(salt=BUYER_LINK_SALT)
    try:
        payload = signer.unsign_object(token)
        signer.unsign_object(token, max_age=int(payload["a"]))
    except signing.SignatureExpired as exc:
        raise BuyerLinkExpired(_("This link has expired.")) from exc
    except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
        raise BuyerLinkInvalid(_("This link is not valid.")) from exc
    revision = (
        QuoteRevision.objects.select_related("quote__customer", "quote__owner")
        .filter(public_id=payload.get("r"))
        .first()
    )
    if revision is None or revision.status == Status.DRAFT:
        raise BuyerLinkInvalid(_("This link is not valid."))
    if revision.status == Status.EXPIRED:
        raise BuyerLinkExpired(_("This link has expired."))
    return revision


def buyer_url(*, revision: QuoteRevision) -> str:
    path = reverse("quotes:buyer", kwargs={"token": buyer_link_token(revision=revision)})
    return settings.SITE_URL.rstrip("/") + path


def lead_token(*, lead: Lead) -> str:
    return signing.TimestampSigner(salt=LEAD_LINK_SALT).sign(str(lead.public_id))


def lead_from_token(*, token: str) -> Lead:
    try:
        public_id = signing.TimestampSigner(salt=LEAD_LINK_SALT).unsign(
            token, max_age=timedelta(days=settings.QUOTE_VALIDITY_DAYS)
        )
        return Lead.objects.get(public_id=public_id)
    except (signing.BadSignature, Lead.DoesNotExist, ValueError) as exc:
        raise BuyerLinkInvalid(_("This link is not valid.")) from exc


# --- sending -----------------------------------------------------------------------------


def _enqueue(task_name: str, object_id: int) -> None:
    """Enqueue after commit; a broker outage only delays the work (requeue_stuck_outbox)."""

    def publish() -> None:
        from . import tasks

        try:
            getattr(tasks, task_name).delay(object_id)
        except Exception:  # the broker is down: the row stays queued and is re-enqueued
            logger.warning(
                "could not enqueue %s(%s); the periodic requeue will", task_name, object_id
            )

    transaction.on_commit(publish)


def _render_for_revision(revision: QuoteRevision, language: str) -> ProposalRender:
    render, _created = ProposalRender.objects.get_or_create(revision=revision, language=language)
    return render


def _proposal_email(*, revision: QuoteRevision, render: ProposalRender, key: str) -> OutboxEmail:
    customer = revision.quote.customer
    with translation.override(customer.language):
        subject = _("Proposal %(number)s (revision %(letter)s)") % {
            "number": revision.quote.number,
            "letter": revision.letter,
        }
        body = render_to_string(
            "quotes/email/proposal.txt",
            {
                "revision": revision,
                "snapshot": revision.snapshot,
                "customer": customer,
                "url": buyer_url(revision=revision),
            },
        )
    return OutboxEmail.objects.create(
        idempotency_key=key,
        kind=EmailKind.PROPOSAL,
        to_email=customer.email,
        subject=subject,
        body=body,
        render=render,
        revision=revision,
    )


@transaction.atomic
def quote_send(
    *, revision: QuoteRevision, actor: AbstractBaseUser, idempotency_key: str
) -> OutboxEmail:
    """Freeze the revision and queue the PDF and the email to the buyer.

    Submitting the same send action twice (same key) returns the first outbox row.
    """
    key = f"send:{idempotency_key}"
    existing = OutboxEmail.objects.filter(idempotency_key=key).first()
    if existing is not None:
        return existing
    revision = _locked_revision(revision)
    _ensure_draft(revision)
    if not revision.lines.exists():
        raise QuoteError(_("Add at least one line before sending."))
    if revision.valid_until < timezone.localdate():
        raise QuoteError(_("The validity date lies in the past; change it before sending."))
    newer = revision.quote.revisions.filter(seq__gt=revision.seq).exists()
    if newer:
        raise QuoteError(_("A newer revision exists."))
    revision.snapshot = revision_snapshot(revision=revision)
    revision.status = Status.SENT
    revision.sent_at = timezone.now()
    revision.sent_by = actor  # type: ignore[assignment]
    revision.save(update_fields=["snapshot", "status", "sent_at", "sent_by"])
    render = _render_for_revision(revision, revision.quote.customer.language)
    try:
        with transaction.atomic():
            email = _proposal_email(revision=revision, render=render, key=key)
    except IntegrityError:  # the same action raced in: the other one wins
        return OutboxEmail.objects.get(idempotency_key=key)
    _enqueue("render_proposal", render.pk)
    return email


@transaction.atomic
def revision_resend(
    *, revision: QuoteRevision, actor: AbstractBaseUser, idempotency_key: str
) -> OutboxEmail:
    """Email a sent revision again (same frozen PDF, no re-render)."""
    key = f"resend:{idempotency_key}"
    existing = OutboxEmail.objects.filter(idempotency_key=key).first()
    if existing is not None:
        return existing
    revision = _locked_revision(revision)
    if revision.status not in (Status.SENT, Status.VIEWED):
        raise QuoteError(_("Only a sent revision that awaits an answer can be sent again."))
    render = _render_for_revision(revision, revision.quote.customer.language)
    email = _proposal_email(revision=revision, render=render, key=key)
    if render.status == RenderStatus.DONE:
        _enqueue("send_email", email.pk)
    else:
        _enqueue("render_proposal", render.pk)
    return email


@transaction.atomic
def quote_revise(*, revision: QuoteRevision, actor: AbstractBaseUser) -> QuoteRevision:
    """The next revision as a draft, with the same lines, prices and analysis."""
    revision = _locked_revision(revision)
    quote = revision.quote
    latest = quote.revisions.order_by("-seq").first()
    assert latest is not None
    if latest.status == Status.DRAFT:
        return latest
    if latest.pk != revision.pk:
        raise QuoteError(_("Revise the latest revision."))
    if latest.status == Status.ACCEPTED:
        raise QuoteError(_("This revision was accepted; start a new quote instead."))
    new = _new_revision(
        quote=quote, seq=latest.seq + 1, currency=latest.currency, customer=quote.customer
    )
    new.tco = latest.tco
    new.terms = latest.terms
    new.save(update_fields=["tco", "terms"])
    QuoteLine.objects.bulk_create(
        [
            QuoteLine(
                revision=new,
                position=line.position,
                kind=line.kind,
                catalog_key=line.catalog_key,
                description=line.description,
                quantity=line.quantity,
                unit_price=line.unit_price,
                discount_pct=line.discount_pct,
                optional=line.optional,
                price_as_of=line.price_as_of,
                price_is_estimate=line.price_is_estimate,
                priced_at=line.priced_at,
            )
            for line in latest.lines.order_by("position")
        ]
    )
    return new


def revision_mark_viewed(*, revision: QuoteRevision) -> None:
    QuoteRevision.objects.filter(pk=revision.pk, status=Status.SENT).update(
        status=Status.VIEWED, viewed_at=timezone.now()
    )


def revision_is_latest(*, revision: QuoteRevision) -> bool:
    return not QuoteRevision.objects.filter(
        quote_id=revision.quote_id, seq__gt=revision.seq
    ).exists()


@transaction.atomic
def revision_decide(*, revision: QuoteRevision, accept: bool, name: str) -> QuoteRevision:
    """The buyer accepts or declines; the name and time are recorded, the owner told."""
    revision = _locked_revision(revision)
    if revision.status not in (Status.SENT, Status.VIEWED):
        raise QuoteError(_("This proposal has already been answered or is no longer open."))
    if not revision_is_latest(revision=revision):
        raise QuoteError(_("A newer revision of this proposal exists."))
    if revision.valid_until < timezone.localdate():
        raise QuoteError(_("This proposal has expired."))
    name = name.strip()
    if not name:
        raise QuoteError(_("Please type your name."))
    revision.status = Status.ACCEPTED if accept else Status.DECLINED
    revision.decided_at = timezone.now()
    revision.decided_by_name = name[:200]
    revision.save(update_fields=["status", "decided_at", "decided_by_name"])
    owner = revision.quote.owner
    if owner.email:
        subject = (
            _("%(number)s rev. %(letter)s accepted by %(name)s")
            if accept
            else _("%(number)s rev. %(letter)s declined by %(name)s")
        ) % {"number": revision.quote.number, "letter": revision.letter, "name": name}
        body = render_to_string(
            "quotes/email/decision.txt", {"revision": revision, "accept": accept, "name": name}
        )
        email = OutboxEmail.objects.create(
            idempotency_key=f"decision:{revision.public_id}",
            kind=EmailKind.DECISION,
            to_email=owner.email,
            subject=subject[:300],
            body=body,
            revision=revision,
        )
        _enqueue("send_email", email.pk)
    return revision


def quotes_expire(*, today: date | None = None) -> int:
    """Mark open revisions whose validity date has passed as expired."""
    today = today or timezone.localdate()
    return QuoteRevision.objects.filter(
        status__in=[Status.SENT, Status.VIEWED], valid_until__lt=today
    ).update(status=Status.EXPIRED)


# --- leads (the calculator's "email me this as PDF") -------------------------------------


def lead_rate_limited(*, email: str, ip: str | None) -> bool:
    """Per-hour limits per recipient address, per client address and for everyone together.

    Counters live in the shared cache (Redis in production, so every web process counts
    together); each request counts against every limit, refused ones included.
    """
    per_hour = settings.QUOTES_LEAD_REQUESTS_PER_HOUR
    hour = int(time.time() // 3600)
    limits = [
        (
            f"quotes:lead:email:{hashlib.sha256(email.lower().encode()).hexdigest()}:{hour}",
            per_hour,
        ),
        (f"quotes:lead:all:{hour}", settings.QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL),
    ]
    if ip:
        limits.append((f"quotes:lead:ip:{ip}:{hour}", per_hour))
    limited = False
    for key, limit in limits:
        cache.add(key, 0, timeout=3700)
        try:
            count = cache.incr(key)
        except ValueError:
            count = 1
        limited = limited or count > limit
    return limited


def calculator_analysis(*, query: str) -> tuple[Any, str]:
    """The analysis of a result URL's query and its canonical query (validated inputs only)."""
    from tco.canonical import canonical_query
    from tco.services import analyse_query

    form, outcome = analyse_query(QueryDict(query))
    if outcome.analysis is None:
        raise QuoteError(
            outcome.problem
            or _("The calculator inputs are not valid; open the calculator and try again.")
        )
    return outcome.analysis, canonical_query(form)


def display_name(name: str) -> str:
    """A visitor's name as it may appear in an email we send: letters, spaces and . ' -
    only (no links, addresses or markup), at most 60 characters.

    >>> display_name("Ann-Marie O'Neil"), display_name("Win $$$ at http://spam.example <b>")
    ("Ann-Marie O'Neil", 'Win at http spam.example b')
    """
    kept = "".join(ch if ch.isalpha() or ch in " .'-" else " " for ch in name)
    kept = re.sub(r"\.{2,}", ".", " ".join(kept.split()))
    return kept[:60].strip()


def lead_team() -> Team | None:
    """The sales team a new calculator lead goes to.

    QUOTES_LEADS_TEAM names it when set; otherwise leads go round the teams (the team with
    the fewest leads, by name on a tie). Without any team the lead is seen by staff only.
    """
    if settings.QUOTES_LEADS_TEAM:
        named = Team.objects.filter(name=settings.QUOTES_LEADS_TEAM).first()
        if named is not None:
            return named
    return Team.objects.annotate(lead_count=Count("leads")).order_by("lead_count", "name").first()


@transaction.atomic
def lead_request_pdf(
    *,
    name: str,
    company: str,
    email: str,
    query: str,
    language: str,
    ip_address: str | None,
    idempotency_key: str,
) -> Lead:
    key = f"lead:{idempotency_key}"
    existing = OutboxEmail.objects.filter(idempotency_key=key).select_related("lead").first()
    if existing is not None and existing.lead is not None:
        return existing.lead
    if lead_rate_limited(email=email, ip=ip_address):
        raise RateLimited(_("Too many requests for this address; please try again in an hour."))
    # Only the validated calculator inputs, re-serialised, go further: never the raw query.
    analysis, canonical = calculator_analysis(query=query)
    lead = Lead.objects.create(
        name=name.strip(),
        company=company.strip(),
        email=email.strip(),
        consent_at=timezone.now(),
        language=language,
        ip_address=ip_address,
        team=lead_team(),
        tco=tco_snapshot(analysis=analysis, query=canonical, language=language),
    )
    render = ProposalRender.objects.create(lead=lead, language=language)
    with translation.override(language):
        subject = _("Your GPU cost analysis")
        # A fixed template: the only visitor text in it is the sanitised name.
        body = render_to_string(
            "quotes/email/lead.txt",
            {
                "name": display_name(lead.name),
                "calculator_url": settings.SITE_URL.rstrip("/")
                + reverse("tco:calculator")
                + "?"
                + canonical,
            },
        )
    OutboxEmail.objects.create(
        idempotency_key=key,
        kind=EmailKind.LEAD_PDF,
        to_email=lead.email,
        subject=subject,
        body=body,
        render=render,
        lead=lead,
    )
    _enqueue("render_proposal", render.pk)
    return lead


# --- the pipeline: render, then send -----------------------------------------------------


def render_execute(*, render_id: int) -> ProposalRender | None:
    """Render a proposal PDF once; then enqueue the emails waiting for it.

    Safe to run twice (a redelivered task): the first finished render wins, the bytes of a
    DONE render are never replaced.
    """
    from . import pdf

    render = (
        ProposalRender.objects.select_related("revision__quote", "lead")
        .filter(pk=render_id)
        .first()
    )
    if render is None:
        return None
    if render.status != RenderStatus.DONE:
        ProposalRender.objects.filter(pk=render.pk).exclude(status=RenderStatus.DONE).update(
            status=RenderStatus.RENDERING, attempts=F("attempts") + 1, updated_at=timezone.now()
        )
        started = time.perf_counter()
        if render.revision_id:
            document = pdf.render_revision(render.revision.snapshot, language=render.language)
        else:
            document = pdf.render_lead(lead_snapshot(lead=render.lead), language=render.language)
        ProposalRender.objects.filter(pk=render.pk).exclude(status=RenderStatus.DONE).update(
            status=RenderStatus.DONE,
            pdf=document.pdf,
            sha256=hashlib.sha256(document.pdf).hexdigest(),
            pages=document.pages,
            rendered_at=timezone.now(),
            render_seconds=time.perf_counter() - started,
            last_error="",
        )
        render.refresh_from_db()
    for email_id in render.emails.filter(status=OutboxStatus.QUEUED).values_list("pk", flat=True):
        _enqueue("send_email", email_id)
    return render


def render_mark_failed(*, render_id: int, error: str) -> None:
    with transaction.atomic():
        ProposalRender.objects.filter(pk=render_id).exclude(status=RenderStatus.DONE).update(
            status=RenderStatus.FAILED, last_error=error[:2000]
        )
        OutboxEmail.objects.filter(render_id=render_id, status=OutboxStatus.QUEUED).update(
            status=OutboxStatus.FAILED, last_error=_("The PDF could not be rendered.")
        )


def lead_snapshot(*, lead: Lead) -> dict[str, Any]:
    return {
        "lead": {"name": lead.name, "company": lead.company, "email": lead.email},
        "issued": lead.created_at.date().isoformat(),
        "language": lead.language,
        "tco": lead.tco,
    }


def outbox_deliver(*, outbox_id: int) -> str:
    """Send one outbox email at most once per claim; returns what happened.

    The conditional UPDATE (queued → sending) lets exactly one worker claim the row; a
    redelivered or duplicated task finds it claimed or sent and does nothing.
    """
    email = OutboxEmail.objects.select_related("render").filter(pk=outbox_id).first()
    if email is None:
        return "missing"
    if email.render_id and email.render.status != RenderStatus.DONE:
        return "waiting for render"
    claimed = OutboxEmail.objects.filter(pk=outbox_id, status=OutboxStatus.QUEUED).update(
        status=OutboxStatus.SENDING,
        attempts=F("attempts") + 1,
        sending_started_at=timezone.now(),
        updated_at=timezone.now(),
    )
    if not claimed:
        return email.status
    message = EmailMessage(
        subject=email.subject,
        body=email.body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[email.to_email],
        headers={"Message-ID": email.message_id, "X-Outbox-Id": str(email.public_id)},
    )
    if email.render_id:
        message.attach(email.render.filename, bytes(email.render.pdf), "application/pdf")
    try:
        mailers.default.send_messages([message])
    except Exception as exc:  # SMTP refusals, timeouts, connection errors: try again later
        # updated_at too: the retry is scheduled now, so the periodic requeue must not
        # re-enqueue the row while that retry is pending.
        OutboxEmail.objects.filter(pk=outbox_id, status=OutboxStatus.SENDING).update(
            status=OutboxStatus.QUEUED,
            last_error=f"{type(exc).__name__}: {exc}"[:2000],
            updated_at=timezone.now(),
        )
        raise TransientDeliveryError(str(exc)) from exc
    OutboxEmail.objects.filter(pk=outbox_id).update(
        status=OutboxStatus.SENT, sent_at=timezone.now(), last_error=""
    )
    return OutboxStatus.SENT


def outbox_mark_failed(*, outbox_id: int, error: str) -> None:
    """The retry budget is spent: mark the email failed, for now.

    It stays recoverable: `outbox_requeue_stuck` queues it again after
    QUOTES_FAILED_RETRY_AFTER_SECONDS (for QUOTES_FAILED_GIVE_UP_AFTER_SECONDS after it
    was created), and "Send again" works at any time. Staff are told: the quote page's
    delivery badge shows "failed" with the error and the next automatic attempt, and the
    failure is logged as an error.
    """
    updated = (
        OutboxEmail.objects.filter(pk=outbox_id)
        .exclude(status=OutboxStatus.SENT)
        .update(
            status=OutboxStatus.FAILED,
            last_error=f"{error} (retried automatically later)"[:2000],
            updated_at=timezone.now(),
        )
    )
    if updated:
        logger.error("outbox email %s failed after its retries: %s", outbox_id, error)


def outbox_requeue_stuck(*, older_than: timedelta | None = None) -> int:
    """Re-enqueue work a broker or worker outage left behind; returns how many tasks.

    - queued emails whose PDF is ready and that nobody sent for a while → send task;
    - renders still pending or rendering after a while (a killed worker) → render task;
    - emails stuck in "sending" past the SMTP lease (the worker died mid-send) go back to
      queued: the one place where a message can go out twice (see docs/quotes.md).
    """
    now = timezone.now()
    cutoff = now - (
        older_than
        if older_than is not None
        else timedelta(seconds=settings.QUOTES_REQUEUE_AFTER_SECONDS)
    )
    lease = now - timedelta(seconds=settings.QUOTES_SENDING_LEASE_SECONDS)
    OutboxEmail.objects.filter(status=OutboxStatus.SENDING, sending_started_at__lt=lease).update(
        status=OutboxStatus.QUEUED, updated_at=now, last_error="requeued after sending lease"
    )
    # Emails that spent their retry budget (an outage longer than it) get another one,
    # as long as they are not too old to be worth sending.
    retry_failed_before = now - timedelta(seconds=settings.QUOTES_FAILED_RETRY_AFTER_SECONDS)
    give_up_before = now - timedelta(seconds=settings.QUOTES_FAILED_GIVE_UP_AFTER_SECONDS)
    OutboxEmail.objects.filter(
        status=OutboxStatus.FAILED,
        updated_at__lte=retry_failed_before,
        created_at__gte=give_up_before,
    ).filter(Q(render__isnull=True) | Q(render__status=RenderStatus.DONE)).update(
        status=OutboxStatus.QUEUED, updated_at=cutoff
    )
    count = 0
    stale_renders = ProposalRender.objects.filter(
        status__in=[RenderStatus.PENDING, RenderStatus.RENDERING], updated_at__lte=cutoff
    )
    for render_id in stale_renders.values_list("pk", flat=True):
        ProposalRender.objects.filter(pk=render_id).update(updated_at=now)
        _enqueue("render_proposal", render_id)
        count += 1
    stuck = OutboxEmail.objects.filter(status=OutboxStatus.QUEUED, updated_at__lte=cutoff).filter(
        Q(render__isnull=True) | Q(render__status=RenderStatus.DONE)
    )
    for email_id in stuck.values_list("pk", flat=True):
        OutboxEmail.objects.filter(pk=email_id).update(updated_at=now)
        _enqueue("send_email", email_id)
        count += 1
    return count


__all__ = [
    "BuyerLinkExpired",
    "BuyerLinkInvalid",
    "QuoteError",
    "RateLimited",
    "RevisionLocked",
    "Totals",
    "TransientDeliveryError",
    "buyer_link_token",
    "buyer_url",
    "customer_create",
    "is_sales",
    "lead_request_pdf",
    "outbox_deliver",
    "outbox_requeue_stuck",
    "quote_create",
    "quote_create_from_calculator",
    "quote_revise",
    "quote_send",
    "quotes_expire",
    "render_execute",
    "revision_add_line",
    "revision_decide",
    "revision_from_token",
    "revision_reprice",
    "totals_for",
]
