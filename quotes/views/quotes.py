"""Quote pages (sales engineers), buyer pages (signed links) and the calculator's PDF request.

Views parse input with a form, call a service or selector, and render or redirect.
Signed-out visitors are sent to the login page; users outside the "sales" group get 403; rows of
another team are 404 (selectors scope every read to the user's teams).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from common import challenge
from common.client_ip import client_ip
from common.downloads import pdf_download
from common.formatting import number
from common.http import AuthenticatedHttpRequest, HtmxHttpRequest

from .. import selectors, services
from ..forms import (
    ActionForm,
    CustomerForm,
    DecisionForm,
    LeadForm,
    LineForm,
    QuoteFilterForm,
    QuoteStartForm,
    RateForm,
    RevisionForm,
    lead_form_stamp,
)
from ..models import AcceptanceRecord, OutboxEmail, RenderStatus, Status
from ..services import moved
from ..vat import country_choices, vat_note
from .access import buyer_language, buyer_link, buyer_revision, lead_of_link, sales_required
from .actions import revision_action, saved, valid_data
from .buyer_page import buyer_context

# --- sales pages -------------------------------------------------------------------------


@require_safe
@sales_required
def quote_list(request: HttpRequest) -> HttpResponse:
    from ..exports import quote_row

    form = QuoteFilterForm(request.GET, owners=selectors.quote_owners(user=request.user))
    quotes = selectors.quote_list_with_lines(user=request.user, **form.filters())[:200]
    rows = [
        {"quote": quote, "status_label": Status(row["status"]).label, **row}
        for quote in quotes
        for row in [quote_row(quote)]
    ]
    from .leads import onboarding_context

    context = {
        "form": form,
        "rows": rows,
        "query": request.GET.urlencode(),
        **onboarding_context(request.user),
    }
    return render(request, "quotes/list.html", context)


@require_http_methods(["GET", "POST"])
@sales_required
def quote_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    from .leads import lead_for_user, onboarding_context, quote_initial_from_lead

    team = services.team_for(user=request.user)
    customers = selectors.customer_list(user=request.user)
    calc = request.GET.get("calc", "")
    initial = {"calc": calc, "language": translation.get_language() or "en"}
    lead = lead_for_user(
        user=request.user, public_id=request.POST.get("lead") or request.GET.get("lead")
    )
    if lead is not None:
        initial.update(quote_initial_from_lead(lead))
        calc = initial["calc"]
    form = QuoteStartForm(request.POST or None, customers=customers, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            with transaction.atomic():
                customer = data["customer"]
                if customer is None:
                    if team is None:
                        raise services.QuoteError(_("You are not in a sales team yet."))
                    customer = services.customer_create(
                        team=team,
                        company=data["company"],
                        contact_name=data["contact_name"],
                        email=data["email"],
                        country=data["country"],
                        vat_number=data["vat_number"],
                        language=data["language"],
                    )
                    services.customer_set_tier(customer=customer, tier=data.get("tier"))
                if data["calc"] or request.POST.get("from_calculator"):
                    quote = services.quote_create_from_calculator(
                        customer=customer,
                        owner=request.user,
                        query=data["calc"],
                        alternatives=data["alternatives"] or 0,
                        lease_term_months=data["lease_term_months"] or None,
                    )
                else:
                    quote = services.quote_create(
                        customer=customer, owner=request.user, currency=data["currency"] or "EUR"
                    )
                if lead is not None:
                    services.lead_mark_quoted(lead=lead, owner=request.user)
        except services.QuoteError as exc:
            form.add_error(None, str(exc))
        except ValidationError as exc:  # model validation of the new customer
            form.add_error(None, " ".join(exc.messages))
        else:
            messages.success(request, _("Quote %(number)s created.") % {"number": quote.number})
            return redirect("quotes:detail", public_id=quote.public_id)
    return render(
        request,
        "quotes/new.html",
        {
            "form": form,
            "calc": calc,
            "has_team": team is not None,
            "lead": lead,
            **onboarding_context(request.user),
        },
    )


@require_safe
@sales_required
def quote_detail(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    quote = selectors.quote_detail(user=request.user, public_id=public_id)
    revisions = list(quote.revisions.all())
    # Option B, C or D of the latest revision with ?option=B; option A is the revision.
    options = services.options_of(revisions[0])
    letter = request.GET.get("option", "A")
    current = next((o for o in options if o.option_letter == letter), options[0])
    # The acceptance is option A's revision's, whichever option the buyer chose.
    acceptance = AcceptanceRecord.objects.filter(revision=options[0]).defer("pdf").first()
    lines = list(current.lines.all())
    totals = services.revision_totals(current, lines) if current.is_draft else None
    price_changes = selectors.revision_price_changes(revision=current, lines=lines)
    clause = services.currency_clause_of(revision=current, lines=lines)
    # The analysis of the quoted deal: recomputed for a draft when its lines changed
    # (cached), frozen in the snapshot once sent.
    deal = (
        services.deal_analysis(revision=current, lines=lines)
        if current.is_draft
        else (current.snapshot or {}).get("tco")
    )
    context = {
        "quote": quote,
        "revisions": revisions,
        "options": options if len(options) > 1 or current.is_draft else [],
        "option_rows": _option_rows(options, acceptance),
        "current": current,
        "lines": lines,
        "totals": totals,
        "snapshot": current.snapshot,
        "deal": deal,
        "deal_report": services.stored_report(deal),  # the analysis' figures (tco.report)
        "deal_decisions": services.analysis_decisions(deal),  # beside its headline
        # The lease terms the option's analysis computed (an option may be leased).
        "lease_terms": services.lease_terms(deal) if current.is_draft else [],
        "vat_note": (current.snapshot or {}).get("vat", {}).get("legal_text")
        or vat_note(current.vat_kind, quote.customer.vat_number),
        "line_form": LineForm(choices=services.catalog_choices()) if current.is_draft else None,
        "revision_form": RevisionForm(
            initial={"valid_until": current.valid_until, "terms": current.terms}
        ),
        "action_key": uuid.uuid4(),
        "delivery": selectors.delivery_state(revision=current),
        "undelivered": selectors.undelivered_emails(quote=quote),
        # A draft revision: the sent one it revises stays open to the buyer until it goes.
        "still_open": (
            services.open_earlier_revision(revision=current) if current.is_draft else None
        ),
        "acceptance": acceptance,
        # Drafts only (a sent revision is frozen); everyone who sees the page may edit it.
        "price_changes": price_changes,
        # What a re-price would do to the totals and the margin (sales view only).
        "reprice_effect": moved.reprice_effect(current, lines, price_changes),
        # Today's EUR/USD rate against the rates the lines were priced at (draft or sent).
        "rate_moves": services.rate_moves(revision=current, lines=lines, clause=clause),
        "currency_clause": clause,
        "rate_form": RateForm(),
        # A new revision against the one the buyer held: prices, lead times, total.
        "since_previous": moved.since_previous(current, lines),
        "lead_time_changes": services.revision_lead_time_changes(revision=current, lines=lines),
        "buyer_url": (
            services.buyer_url(revision=current)
            if current.status in (Status.SENT, Status.VIEWED)
            else None
        ),
    }
    context.update(_deal_context(quote, current))
    if current.is_draft:  # the line editor, amounts, margin and approval; payment terms
        from .deal_terms import deal_terms_form
        from .lines import draft_context
        from .payments import payment_context

        context.update(draft_context(current, lines))
        context.update(payment_context(current))
        context["deal_form"] = deal_terms_form(current, lines)
    return render(request, "quotes/detail.html", context)


def _deal_context(quote: Any, current: Any) -> dict[str, Any]:
    """The end customer, the deal registration and the protection, for the sales view."""
    root = selectors.deal_root(current)
    registration = (
        {"number": root.deal_registration, "expires": root.deal_registration_expires}
        if root.deal_registration
        else None
    )
    return {
        "end_customer": services.end_customer_of(quote),
        "deal_registration": registration,
        "protected_until": services.protection_state(current),
    }


def _option_rows(options: list[Any], acceptance: AcceptanceRecord | None) -> list[dict[str, Any]]:
    """Each option's total excl. VAT, its difference from option A and its state, for the
    tabs (option A is "not chosen" when the buyer accepted another)."""
    rows = []
    chosen = acceptance.option_letter if acceptance else ""
    for option in options:
        if option.is_draft:
            totals = services.revision_totals(option)
            net = totals.net if totals.net is not None else totals.subtotal
        else:
            net = Decimal((option.snapshot or {}).get("totals", {}).get("net") or 0)
        status = option.get_status_display()
        if not option.is_alternative and chosen not in ("", "A"):
            status = Status.NOT_CHOSEN.label
        rows.append({"option": option, "net": net, "status": status})
    for row in rows[1:]:
        row["difference"] = row["net"] - rows[0]["net"]
    return rows


@require_POST
@sales_required
def line_add(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def add(revision: Any) -> str:
        data = valid_data(LineForm(request.POST, choices=services.catalog_choices()))
        services.revision_add_line(
            revision=revision,
            catalog_key=data["catalog_key"],
            quantity=data["quantity"],
            discount_pct=data["discount_pct"] or Decimal(0),
            optional=data["optional"],
        )
        return _("Line added.")

    return revision_action(request, public_id, add)


@require_POST
@sales_required
def line_remove(request: HttpRequest, public_id: uuid.UUID, line_id: int) -> HttpResponse:
    def remove(revision: Any) -> str:
        services.revision_remove_line(revision=revision, line_id=line_id)
        return _("Line removed.")

    return revision_action(request, public_id, remove)


@require_POST
@sales_required
def revision_edit(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def edit(revision: Any) -> str:
        data = valid_data(RevisionForm(request.POST))
        services.revision_update(
            revision=revision, valid_until=data["valid_until"], terms=data["terms"]
        )
        return _("Saved.")

    return revision_action(request, public_id, edit)


def _email_action(
    request: AuthenticatedHttpRequest,
    public_id: uuid.UUID,
    queue: Callable[..., OutboxEmail],
    done: str,
) -> HttpResponse:
    """Send or send again: the form's idempotency key makes a double submit queue one email;
    `done` names the recipient as %(email)s."""
    form = ActionForm(request.POST)

    def act(revision: Any) -> str:
        if not form.is_valid():
            raise services.QuoteError(_("The form has expired; reload the page and try again."))
        email = queue(
            revision=revision,
            actor=request.user,
            idempotency_key=str(form.cleaned_data["idempotency_key"]),
        )
        return done % {"email": email.to_email}

    return revision_action(request, public_id, act)


@require_POST
@sales_required
def revision_send(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    return _email_action(
        request,
        public_id,
        services.quote_send,
        _("Revision sent to %(email)s: the PDF is being prepared."),
    )


@require_POST
@sales_required
def revision_resend(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    return _email_action(
        request, public_id, services.revision_resend, _("Sent again to %(email)s.")
    )


@require_POST
@sales_required
def revision_revise(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def revise(revision: Any) -> str:
        expired = revision.status == Status.EXPIRED  # re-priced at once (services.quote_revise)
        new = services.quote_revise(revision=revision, actor=request.user)
        if expired:
            return _(
                "Revision %(letter)s is a draft at today's prices, lead times and rate; "
                "what moved is listed below."
            ) % {"letter": new.letter}
        return _("Revision %(letter)s is a draft.") % {"letter": new.letter}

    return revision_action(request, public_id, revise)


@require_POST
@sales_required
def revision_reprice(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    def reprice(revision: Any) -> str:
        count = services.revision_reprice(revision=revision, actor=request.user)
        if not count:
            return _("The prices of this revision are up to date.")
        return ngettext(
            "%(count)d line re-priced at the current catalog price.",
            "%(count)d lines re-priced at the current catalog prices.",
            count,
        ) % {"count": count}

    return revision_action(request, public_id, reprice)


@require_POST
@sales_required
def revision_fix_rate(request: AuthenticatedHttpRequest, public_id: uuid.UUID) -> HttpResponse:
    """Fix the draft's EUR/USD rate by hand with a reason, or release it (services.fx)."""

    def fix(revision: Any) -> str:
        data = valid_data(RateForm(request.POST))
        rate = None if data["release"] else data["rate"]
        count = services.revision_fix_rate(
            revision=revision, rate=rate, reason=data["reason"], actor=request.user
        )
        done = (
            _("The EUR/USD rate is fixed at %(rate)s.") % {"rate": number(rate, 4)}
            if rate is not None
            else _("The EUR/USD rate follows the market again.")
        )
        repriced = ngettext(
            "%(count)d line priced again.", "%(count)d lines priced again.", count
        ) % {"count": count}
        return f"{done} {repriced}"

    return revision_action(request, public_id, fix)


@never_cache
@require_safe
@sales_required
def revision_status(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    """The delivery badge; htmx polls it until the email is sent (or failed)."""
    revision = selectors.revision_for_user(user=request.user, public_id=public_id)
    return render(
        request,
        "quotes/_delivery.html",
        {"current": revision, "delivery": selectors.delivery_state(revision=revision)},
    )


@require_safe
@sales_required
def render_pdf(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    render_row = selectors.render_for_user(user=request.user, public_id=public_id)
    return _pdf_response(render_row)


def _pdf_response(render_row: Any) -> HttpResponse:
    if render_row.status != RenderStatus.DONE or not render_row.pdf:
        return HttpResponse(_("The PDF is not ready yet."), status=404, content_type="text/plain")
    return pdf_download(render_row.pdf, filename=render_row.filename, sha256=render_row.sha256)


@require_safe
@sales_required
def customer_list(request: HttpRequest) -> HttpResponse:
    customers = selectors.customer_list(user=request.user)
    return render(request, "quotes/customers.html", {"customers": customers})


@require_http_methods(["GET", "POST"])
@sales_required
def customer_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = CustomerForm(request.POST or None)
    team = services.team_for(user=request.user)
    if request.method == "POST" and form.is_valid():
        if team is None:
            form.add_error(None, _("You are not in a sales team yet."))
        else:
            data = dict(form.cleaned_data)
            tier = data.pop("tier", None)
            customer = services.customer_create(team=team, **data)
            services.customer_set_tier(customer=customer, tier=tier)
            messages.success(request, _("Customer saved."))
            return redirect("quotes:customers")
    return render(request, "quotes/customer_new.html", {"form": form})


@require_safe
@sales_required
def lead_list(request: HttpRequest) -> HttpResponse:
    from .leads import lead_list_page

    return lead_list_page(request)


# --- buyer pages (signed links, no login) ------------------------------------------------


@never_cache
@require_safe
@buyer_link
def buyer_view(request: HttpRequest, revision: Any, token: str) -> HttpResponse:
    """The proposal. Opening the link does not mark it viewed: mail scanners open links
    too. The page's script reports the buyer's first interaction (buyer_viewed), and
    downloading the PDF counts as viewing it."""
    with translation.override(buyer_language(revision)):
        return render(request, "quotes/buyer.html", buyer_context(revision, token))


@csrf_exempt  # harmless to forge: it only moves a sent revision to "viewed"
@require_POST
def buyer_viewed(request: HttpRequest, token: str) -> HttpResponse:
    """The buyer touched, scrolled or typed on the proposal page (static/js/site.js)."""
    revision, problem = buyer_revision(request, token)
    if problem:
        return HttpResponse(status=problem.status_code)
    services.revision_mark_viewed(revision=revision)
    return HttpResponse(status=204)


@never_cache
@require_safe
@buyer_link
def buyer_done(request: HttpRequest, revision: Any, token: str) -> HttpResponse:
    """The thank-you page after accepting or declining, reached by a redirect (post/
    redirect/get): reloading it shows it again instead of posting the answer twice."""
    if revision.status not in (Status.ACCEPTED, Status.DECLINED):
        return redirect("quotes:buyer", token=token)
    context = {
        "revision": revision,
        "acceptance": AcceptanceRecord.objects.filter(revision=revision).defer("pdf").first(),
        "token": token,
    }
    with translation.override(buyer_language(revision)):
        return render(request, "quotes/buyer_done.html", context)


@require_POST
@buyer_link
def buyer_decide(request: HttpRequest, revision: Any, token: str) -> HttpResponse:
    form = DecisionForm(request.POST)

    def decide(data: dict[str, Any]) -> None:
        if data["decision"] == "accept":
            # Accepting needs the evidence of the acceptance form (views/acceptance.py).
            raise services.QuoteError(_("To accept, tick the terms and type your name and role."))
        services.revision_decide(
            revision=revision,
            accept=data["decision"] == "accept",
            name=data["name"],
            reason=data["reason"],
            note=data["note"],
        )

    with translation.override(buyer_language(revision)):
        if saved(form, decide):
            return redirect("quotes:buyer_done", token=token)
        return render(
            request, "quotes/buyer.html", buyer_context(revision, token, form), status=400
        )


@require_safe
@buyer_link
def buyer_pdf(request: HttpRequest, revision: Any, token: str) -> HttpResponse:
    render_row = revision.renders.filter(status=RenderStatus.DONE).first()
    if render_row is None:
        return HttpResponse(_("The PDF is not ready yet."), status=404, content_type="text/plain")
    services.revision_mark_viewed(revision=revision)  # opened from the page: a reader
    return _pdf_response(render_row)


# --- the calculator's "email me this as PDF" ---------------------------------------------


@never_cache
@require_safe
def lead_form(request: HtmxHttpRequest) -> HttpResponse:
    """The form, fetched on demand so that cached calculator pages carry no CSRF token."""
    context = {
        "query": request.GET.urlencode(),
        "show_form": True,
        "started": lead_form_stamp(),
        "countries": [("", "—"), *country_choices()],
        **_fresh_challenge(),
    }
    template = "quotes/_lead_form.html" if request.htmx else "quotes/lead_page.html"
    return render(request, template, context)


def _fresh_challenge() -> dict[str, Any]:
    bits = settings.PUBLIC_FORM_CHALLENGE_BITS
    return {"challenge": challenge.issue(bits), "challenge_bits": bits}


@require_POST
def lead_request(request: HtmxHttpRequest) -> HttpResponse:
    form = LeadForm(request.POST)
    template = "quotes/_lead_status.html" if request.htmx else "quotes/lead_page.html"
    if not form.is_valid():
        return render(request, template, {"form": form, "error": True}, status=400)
    data = form.cleaned_data
    try:
        lead = services.lead_request_pdf(
            name=data["name"],
            company=data["company"],
            email=data["email"],
            query=data["query"],
            language=translation.get_language() or "en",
            ip_address=client_ip(request),
            idempotency_key=str(data["idempotency_key"]),
            country=data.get("country") or "",
            challenge=data["challenge"],
            proof=data["proof"],
        )
    except services.RateLimited as exc:
        # With htmx the form stays on the page: a fresh challenge goes into it (an
        # out-of-band swap), and the page solves it before the visitor sends again.
        context = {"form": form, "problem": str(exc)}
        if request.htmx:
            context.update(_fresh_challenge())
        return render(request, template, context, status=429)
    except services.QuoteError as exc:
        return render(request, template, {"form": form, "problem": str(exc)}, status=400)
    token = services.lead_token(lead=lead)
    context = {"lead": lead, "token": token, "delivery": selectors.lead_delivery_state(lead=lead)}
    if request.htmx:  # the form's challenge may have been spent: another for a next request
        context.update(_fresh_challenge())
    return render(request, template, context)


@never_cache
@require_safe
def lead_status(request: HtmxHttpRequest, token: str) -> HttpResponse:
    lead, problem = lead_of_link(request, token)
    if problem:
        return problem
    context = {"lead": lead, "token": token, "delivery": selectors.lead_delivery_state(lead=lead)}
    template = "quotes/_lead_status.html" if request.htmx else "quotes/lead_page.html"
    return render(request, template, context)


@require_safe
def lead_pdf(request: HttpRequest, token: str) -> HttpResponse:
    lead, problem = lead_of_link(request, token)
    if problem:
        return problem
    render_row = getattr(lead, "render", None)
    if render_row is None:
        return HttpResponse(_("The PDF is not ready yet."), status=404, content_type="text/plain")
    return _pdf_response(render_row)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def lead_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link in the confirmation email. Opening it asks for a click (mail scanners
    open links too); the click confirms the address and sends the PDF, then the status
    page follows (post/redirect/get)."""
    lead, problem = lead_of_link(request, token, services.lead_from_confirm_token)
    if problem:
        return problem
    status_url = reverse("quotes:lead_status", kwargs={"token": services.lead_token(lead=lead)})
    if lead.confirmed_at is not None:
        return redirect(status_url)
    if request.method == "POST":
        services.lead_confirm(lead=lead)
        return redirect(status_url)
    with translation.override(lead.language):
        return render(request, "quotes/lead_confirm.html", {"lead": lead, "token": token})
