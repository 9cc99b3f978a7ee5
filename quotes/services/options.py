"""Options: one proposal, up to four configurations the buyer chooses from.

A revision is its quote's option A. An alternative (B, C, D) is a revision row of the same
quote and sequence that points at it (``option_of``): it has its own lines, quote discount,
margin approval and analysis of its deal, so the line editor, the approval, the re-price
check and the deal analysis work on it unchanged. Sending option A checks and freezes every
option (each its own snapshot, option A's snapshot holding them all for the PDF); the buyer
accepts exactly one, and the others are marked not chosen. Docs: docs/quotes.md, "Options".
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import QuoteRevision, Status
from .analysis import stored_report
from .bom import copy_lines
from .drafts import ensure_draft, locked_draft
from .errors import QuoteError
from .lease import lease_figures, lease_term, lease_terms

LETTERS = "ABCD"
MAX_OPTIONS = len(LETTERS)


def main_option(revision: QuoteRevision) -> QuoteRevision:
    """Option A of `revision`'s set (the revision itself when it is option A)."""
    return revision.option_of if revision.option_of is not None else revision


def options_of(revision: QuoteRevision) -> list[QuoteRevision]:
    """Every option of `revision`'s set, A first."""
    main = main_option(revision)
    return [main, *main.alternatives.order_by("option_letter")]


def option_label(revision: QuoteRevision) -> str:
    """An option's label, with its name when it has one: Option B: 24 × H200."""
    label = _("Option %(letter)s") % {"letter": revision.option_letter}
    return f"{label}: {revision.option_name}" if revision.option_name else label


@transaction.atomic
def option_add(
    *, revision: QuoteRevision, name: str, copy_of: QuoteRevision | None = None
) -> QuoteRevision:
    """A new alternative to a draft: a copy of `copy_of`'s lines, discount, analysis and
    presentation (option A's by default), named `name`; QuoteError beyond four options."""
    main = locked_draft(main_option(revision))
    source = copy_of or main
    if main_option(source).pk != main.pk:
        raise QuoteError(_("Copy an option of this proposal."))
    option = new_option(main, name=name, letter=free_letter(main), tco=source.tco)
    option.discount_pct = source.discount_pct
    option.analysis_presentation = source.analysis_presentation
    option.analysis_reason = source.analysis_reason
    option.save(update_fields=["discount_pct", "analysis_presentation", "analysis_reason"])
    copy_lines(source, option)
    return option


def free_letter(main: QuoteRevision) -> str:
    """The next free option letter of `main`'s set; QuoteError when all four are taken."""
    taken = set(main.alternatives.values_list("option_letter", flat=True)) | {"A"}
    free = [letter for letter in LETTERS if letter not in taken]
    if not free:
        raise QuoteError(_("A proposal offers at most four options."))
    return free[0]


def new_option(
    main: QuoteRevision, *, name: str, letter: str, tco: dict[str, Any] | None
) -> QuoteRevision:
    """An alternative to `main` without lines, with the revision's terms and `tco`."""
    return alternative_of(main, option_letter=letter, option_name=option_name(name), tco=tco)


def option_name(name: str, *, required: bool = True) -> str:
    """`name` on one line of at most 120 characters. An alternative needs one (the buyer
    tells options apart by it); option A may go without (it is the proposal itself)."""
    name = " ".join(name.split())[:120]
    if required and not name:
        raise QuoteError(_("Give the option a name, e.g. “24 × H200”."))
    return name


def alternative_of(main: QuoteRevision, **own: Any) -> QuoteRevision:
    """A new alternative to `main` without lines, with its `own` fields (letter, name,
    analysis …) and `main`'s currency, VAT, validity, terms and payment schedule: the
    options are sent and accepted as one proposal, on one set of terms."""
    return QuoteRevision.objects.create(
        quote=main.quote,
        seq=main.seq,
        letter=main.letter,
        option_of=main,
        currency=main.currency,
        vat_rate=main.vat_rate,
        vat_kind=main.vat_kind,
        valid_until=main.valid_until,
        terms=main.terms,
        payment_schedule=main.payment_schedule,
        **own,
    )


@transaction.atomic
def option_rename(*, revision: QuoteRevision, name: str) -> QuoteRevision:
    revision = locked_draft(revision)
    revision.option_name = option_name(name, required=revision.is_alternative)
    revision.save(update_fields=["option_name"])
    return revision


@transaction.atomic
def option_remove(*, revision: QuoteRevision) -> QuoteRevision:
    """Remove a draft alternative; returns option A. Option A itself stays."""
    if not revision.is_alternative:
        raise QuoteError(_("Option A is the proposal itself: remove the alternatives instead."))
    revision = locked_draft(revision)
    main = main_option(revision)
    revision.delete()
    return main


@transaction.atomic
def option_set_lease(*, revision: QuoteRevision, term_months: int | None) -> QuoteRevision:
    """Lease the draft option's hardware over `term_months` (one of the terms its analysis
    computed), or buy it (None); QuoteError on another term or without an analysis."""
    from .deal import deal_analysis

    revision = locked_draft(revision)
    if term_months is not None:
        terms = lease_terms(deal_analysis(revision=revision))
        if term_months not in terms:
            raise QuoteError(
                _("Lease over one of the terms the analysis computes: %(terms)s months.")
                % {"terms": ", ".join(str(t) for t in terms) or "–"}
            )
    revision.lease_term_months = term_months
    revision.save(update_fields=["lease_term_months"])
    return revision


def option_add_lease(*, revision: QuoteRevision, term_months: int) -> QuoteRevision:
    """A new option leasing option A's hardware over `term_months`: a copy of its lines,
    discount and analysis, named after it ("17 × B300, leased over 36 months")."""
    from django.utils import translation

    main = main_option(revision)
    with translation.override(main.quote.customer.language):
        name = _("%(name)s, leased over %(months)s months") % {
            "name": main.option_name or _("Option A"),
            "months": term_months,
        }
    option = option_add(revision=main, name=name)
    return option_set_lease(revision=option, term_months=term_months)


# What the revision as a whole says, whichever option is the main one: the new main option
# takes them from the old one (an alternative keeps the copy it was made with).
REVISION_FIELDS = ("currency", "vat_rate", "vat_kind", "valid_until", "terms", "payment_schedule")


@transaction.atomic
def option_make_main(*, revision: QuoteRevision) -> QuoteRevision:
    """Make the draft alternative `revision` option A: it becomes the revision (the headline
    total is its own, the others show their difference from it) and the old option A takes
    its letter. Each option keeps its name, lines, discount, approval and analysis (they are
    its own row's); the revision's terms stay the revision's. QuoteError on option A or a
    sent revision. Returns the new option A."""
    if not revision.is_alternative:
        raise QuoteError(_("This option is already the main one."))
    old = locked_draft(main_option(revision))
    new = locked_draft(revision)
    letter = new.option_letter
    others = old.alternatives.exclude(pk=new.pk)
    # In an order the constraints accept at every step: the old A becomes an alternative of
    # the new one (no row is the revision for a moment), then the others follow.
    old.option_of, old.option_letter = new, letter
    old.save(update_fields=["option_of", "option_letter"])
    others.update(option_of=new)
    new.option_of, new.option_letter = None, "A"
    for name in REVISION_FIELDS:
        setattr(new, name, getattr(old, name))
    new.save(update_fields=["option_of", "option_letter", *REVISION_FIELDS])
    return new


def check_alternatives(main: QuoteRevision) -> list[QuoteRevision]:
    """The draft alternatives of `main`, each checked as sending checks option A (lines,
    margin approval, how its analysis is presented); QuoteError naming the option."""
    from .approvals import ensure_sending_allowed
    from .presentation import ensure_analysis_presented

    alternatives = list(main.alternatives.order_by("option_letter"))
    for option in alternatives:
        try:
            ensure_draft(option)
            if not option.lines.exists():
                raise QuoteError(_("Add at least one line before sending."))
            ensure_sending_allowed(option)
            ensure_analysis_presented(option)
        except QuoteError as exc:
            raise QuoteError(f"{option_label(option)}: {exc}") from exc
    return alternatives


def freeze_alternatives(main: QuoteRevision, alternatives: list[QuoteRevision]) -> None:
    """Freeze each alternative with option A (its own snapshot, sent with A) and give A's
    snapshot the options the PDF and the buyer page show."""
    from .snapshots import revision_snapshot

    for option in alternatives:
        option.snapshot = revision_snapshot(revision=option)
        option.status = Status.SENT
        option.sent_at = main.sent_at or timezone.now()
        option.sent_by = main.sent_by
        option.save(update_fields=["snapshot", "status", "sent_at", "sent_by"])
    if main.snapshot is not None and alternatives:
        with_options(main.snapshot, main, [(o, o.snapshot or {}) for o in alternatives])
        main.save(update_fields=["snapshot"])


def proposal_snapshot(*, revision: QuoteRevision) -> dict[str, Any]:
    """What sending `revision`'s set would freeze (the draft's preview): option A's
    snapshot with every alternative's."""
    from .snapshots import revision_snapshot

    main = main_option(revision)
    snapshot = revision_snapshot(revision=main)
    alternatives = list(main.alternatives.order_by("option_letter"))
    if alternatives:
        with_options(snapshot, main, [(o, revision_snapshot(revision=o)) for o in alternatives])
    return snapshot


def with_options(
    snapshot: dict[str, Any],
    main: QuoteRevision,
    alternatives: list[tuple[QuoteRevision, dict[str, Any]]],
) -> None:
    """Give option A's snapshot its name and each alternative's snapshot (without the
    analysis' chart figures, which only option A's pages draw)."""
    snapshot["option"] = {"letter": "A", "name": main.option_name}
    sections = []
    for option, frozen in alternatives:
        frozen = dict(frozen)
        if isinstance(frozen.get("tco"), dict):
            frozen["tco"] = {k: v for k, v in frozen["tco"].items() if k != "figures"}
        sections.append(
            {"letter": option.option_letter, "name": option.option_name, "snapshot": frozen}
        )
    snapshot["options"] = sections


def chosen_option(main: QuoteRevision, letter: str) -> tuple[str, str, dict[str, Any]]:
    """The option a buyer accepts: (letter, name, its frozen snapshot); QuoteError when the
    proposal offers options and `letter` is not one of them. Without options: A."""
    snapshot = main.snapshot or {}
    sections = snapshot.get("options") or []
    if not sections:
        return "", "", snapshot
    letter = (letter or "").strip().upper()
    if letter == "A":
        return "A", (snapshot.get("option") or {}).get("name", ""), snapshot
    for section in sections:
        if section["letter"] == letter:
            return letter, section["name"], section["snapshot"]
    raise QuoteError(_("Choose one of the options."))


def answer_alternatives(main: QuoteRevision, *, status: str, chosen: str = "") -> None:
    """The buyer answered option A's revision: the alternatives follow (declined or expired
    with it; when accepting, the chosen one accepted and the others not chosen)."""
    for option in main.alternatives.all():
        if status == Status.ACCEPTED:
            option.status = Status.ACCEPTED if option.option_letter == chosen else Status.NOT_CHOSEN
        else:
            option.status = status
        option.decided_at = main.decided_at
        option.decided_by_name = main.decided_by_name
        option.save(update_fields=["status", "decided_at", "decided_by_name"])


def comparison(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The options side by side, read from the frozen snapshots (option A's and those it
    holds): price excl. and incl. VAT, the difference from A, the cost of owning over the
    horizon and the best rental it is compared with, the saving, payback, delivery, power
    and racks. Empty for a proposal without alternatives."""
    sections = snapshot.get("options") or []
    if not sections:
        return []
    main = {"letter": "A", "name": (snapshot.get("option") or {}).get("name", "")}
    rows = [_comparison_row(main, snapshot)]
    rows += [_comparison_row(s, s["snapshot"]) for s in sections]
    base = rows[0]["net"]
    for row in rows:
        row["difference"] = row["net"] - base if row is not rows[0] else None
    return rows


def analysis_figures(
    tco: dict[str, Any] | None, lease_term_months: int | None = None
) -> dict[str, Any]:
    """An option's analysis in the figures the options are compared by (all None without
    an analysis): the cost of owning over the horizon (bridge included), the best rental
    and its total, the saving (of buying, or of renting when ``buy`` is false), payback,
    IT power and racks. A leased option (``lease_term_months``): its ``lease`` figures, and
    the cost of owning and the saving with the lease instead of the purchase (no payback:
    the cash purchase's does not describe a lease)."""
    report = stored_report(tco)
    executive = (tco or {}).get("executive") or {}
    figures = {
        "owning": report.onprem.total_cost if report and report.onprem else None,
        "best_rental": executive.get("best_cloud") or None,
        "rental_total": executive.get("cloud_total"),
        "saving": executive.get("saving"),
        "buy": executive.get("buy"),
        "payback_month": executive.get("payback_month"),
        "it_kw": report.racks.it_kw if report else None,
        "racks": report.racks.racks_required if report else None,
        "lease": None,
    }
    lease = lease_figures(tco, lease_term_months)
    if lease is not None:
        rental = figures["rental_total"]
        saving = rental - lease["owning"] if rental is not None else None
        figures.update(
            owning=lease["owning"],
            lease=lease,
            saving=abs(saving) if saving is not None else None,
            buy=saving > 0 if saving is not None else None,
            payback_month=None,
        )
    return figures


def _comparison_row(option: dict[str, Any], snapshot: dict[str, Any]) -> dict[str, Any]:
    totals = snapshot.get("totals") or {}
    deliveries = [
        line["delivery"]["expected_delivery"]
        for line in snapshot.get("lines", [])
        if line.get("delivery") and not line.get("optional")
    ]
    return {
        "letter": option["letter"],
        "name": option.get("name") or "",
        "net": Decimal(totals.get("net") or totals.get("subtotal") or 0),
        "total": Decimal(totals.get("total") or 0),
        # None: sent without the analysis (services.presentation)
        **analysis_figures(snapshot.get("tco"), lease_term(snapshot)),
        # How it is paid: frozen with the option (its analysis may be left out).
        "lease": snapshot.get("lease"),
        "delivery": max(deliveries) if deliveries else None,
    }
