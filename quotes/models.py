"""Customers, quotes with their revisions and lines, leads, PDF renders and the email outbox.

A quote is a number and a customer; what is offered lives in its revisions (A, B, …).
A draft revision can be edited; sending freezes it: its lines, prices and the TCO
analysis are copied into ``QuoteRevision.snapshot`` and the services refuse any change
afterwards (docs/quotes.md). Rows are addressed in URLs by a random UUID
(``public_id``), never by their sequential primary key.

State changes go through the quotes/services package only; these classes hold data and small
read-only helpers.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.mail import make_msgid
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalog.models import Currency, PriceTier

from . import clauses
from .billing import LineBilling, default_schedule, validate_schedule
from .vat import COUNTRY_CHOICES


def _public_id() -> models.UUIDField[uuid.UUID, uuid.UUID]:
    return models.UUIDField(default=uuid.uuid4, unique=True, editable=False)


def default_margin_floor() -> Decimal:
    """The margin floor a new team starts with (setting QUOTES_DEFAULT_MARGIN_FLOOR_PCT)."""
    return Decimal(str(getattr(settings, "QUOTES_DEFAULT_MARGIN_FLOOR_PCT", 10)))


_PERCENT = [MinValueValidator(Decimal(0)), MaxValueValidator(Decimal(100))]


class Team(models.Model):
    """A sales team: its members see (only) the team's customers, quotes and renders."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="sales_teams", blank=True
    )
    # Sending a draft whose margin is below this needs a sales manager's approval.
    margin_floor_pct = models.DecimalField(
        _("margin floor (%)"),
        max_digits=5,
        decimal_places=2,
        default=default_margin_floor,
        validators=_PERCENT,
    )
    # The payment schedule a new quote of the team starts with (quotes/billing.py);
    # each draft can change its own copy.
    payment_schedule = models.JSONField(
        _("default payment schedule"),
        default=default_schedule,
        validators=[validate_schedule],
        help_text=_(
            'Milestones that add up to 100 %, e.g. [{"event": "order", "pct": "30"}, '
            '{"event": "delivery", "pct": "70"}]; events: order, shipment, delivery, '
            "installation, acceptance."
        ),
    )
    # Before a sent quote expires its owner is reminded (services.followup); with this
    # switch the buyer is reminded too, with the link to the proposal.
    remind_buyers = models.BooleanField(
        _("remind buyers before a quote expires"),
        default=False,
        help_text=_("The buyer gets an email with the link to the proposal, once per revision."),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("team")

    def __str__(self) -> str:
        return self.name


class Language(models.TextChoices):
    EN = "en", _("English")
    NL = "nl", _("Dutch")


class Customer(models.Model):
    public_id = _public_id()
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="customers")
    company = models.CharField(_("company"), max_length=200)
    contact_name = models.CharField(_("contact name"), max_length=200)
    email = models.EmailField(_("email"))
    country = models.CharField(_("country"), max_length=2, choices=COUNTRY_CHOICES)
    vat_number = models.CharField(_("VAT number"), max_length=30, blank=True)
    language = models.CharField(
        _("preferred language"), max_length=2, choices=Language.choices, default=Language.EN
    )
    # The channel tier the customer buys at; empty: list price (docs/quotes.md, "Price
    # books and tiers").
    tier = models.ForeignKey(
        PriceTier,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="customers",
        verbose_name=_("price tier"),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["company"]
        verbose_name = _("customer")

    def __str__(self) -> str:
        return f"{self.company} ({self.contact_name})"


class QuoteCounter(models.Model):
    """The last quote number handed out in a year; locked with SELECT … FOR UPDATE."""

    year = models.PositiveIntegerField(primary_key=True)
    last_number = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.year}: {self.last_number}"


class Quote(models.Model):
    public_id = _public_id()
    number = models.CharField(_("number"), max_length=20, unique=True)
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="quotes")
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="quotes")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_quotes"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("quote")

    def __str__(self) -> str:
        return self.number


class Status(models.TextChoices):
    DRAFT = "draft", _("draft")
    SENT = "sent", _("sent")
    VIEWED = "viewed", _("viewed")
    ACCEPTED = "accepted", _("accepted")
    DECLINED = "declined", _("declined")
    EXPIRED = "expired", _("expired")
    # An option the buyer did not choose when accepting another (services.options).
    NOT_CHOSEN = "not_chosen", _("not chosen")


class DeclineReason(models.TextChoices):
    """Why a buyer declined, as the buyer page offers it (with a free text beside it)."""

    PRICE = "price", _("the price")
    TIMING = "timing", _("the timing or delivery")
    CLOUD = "cloud", _("we chose renting or the cloud")
    OTHER_SUPPLIER = "other_supplier", _("we chose another supplier")
    CANCELLED = "cancelled", _("the project was cancelled")
    OTHER = "other", _("another reason")


class AnalysisPresentation(models.TextChoices):
    """How a proposal presents its analysis when the analysis recommends something other
    than what is quoted (services.presentation)."""

    FULL = "full", _("with the analysis as it is")
    WITHOUT = "without", _("without the analysis")
    LIKE_FOR_LIKE = "like_for_like", _("as a like-for-like comparison, with the reason")


class ApprovalState(models.TextChoices):
    NOT_NEEDED = "not_needed", _("not requested")
    REQUESTED = "requested", _("approval requested")
    APPROVED = "approved", _("approved")
    REJECTED = "rejected", _("rejected")


class QuoteRevision(models.Model):
    public_id = _public_id()
    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="revisions")
    seq = models.PositiveIntegerField()  # 1, 2, 3 … → letters A, B, C …
    letter = models.CharField(_("revision"), max_length=3)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    vat_rate = models.DecimalField(_("VAT rate (%)"), max_digits=5, decimal_places=2)
    vat_kind = models.CharField(_("VAT treatment"), max_length=20)
    valid_until = models.DateField(_("valid until"))
    terms = models.TextField(_("terms"), blank=True)
    # The calculator analysis the quote was started from (query string, summary, chart
    # figures, assumptions); see services.tco_snapshot. Empty for quotes built by hand.
    tco = models.JSONField(_("TCO analysis"), null=True, blank=True)
    # Everything the buyer sees, frozen when the revision is sent (services.quote_send).
    snapshot = models.JSONField(_("snapshot"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    sent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    viewed_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by_name = models.CharField(max_length=200, blank=True)
    decline_reason = models.CharField(
        _("reason for declining"), max_length=20, choices=DeclineReason.choices, blank=True
    )
    decline_note = models.TextField(_("the buyer's words on declining"), blank=True)
    # Quote-level discount on the subtotal of the non-optional lines (services.totals_for).
    discount_pct = models.DecimalField(
        _("quote discount %"), max_digits=5, decimal_places=2, default=Decimal(0)
    )
    # Margin approval (services.approvals): who asked, who decided, why. The approval holds
    # only for the lines it was given on (`approval_fingerprint`, see pricing_fingerprint).
    approval_state = models.CharField(
        _("approval"),
        max_length=12,
        choices=ApprovalState.choices,
        default=ApprovalState.NOT_NEEDED,
    )
    approval_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    approval_requested_at = models.DateTimeField(null=True, blank=True)
    # A request sent past the team (its requester is its only manager): this sales manager
    # of another team, or an administrator, decides instead (services.approvals).
    approval_escalated_to = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    approval_request_note = models.TextField(_("approval request note"), blank=True)
    approval_decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    approval_decided_at = models.DateTimeField(null=True, blank=True)
    approval_reason = models.TextField(_("approval reason"), blank=True)
    approval_margin_pct = models.DecimalField(max_digits=7, decimal_places=2, null=True, blank=True)
    approval_fingerprint = models.CharField(max_length=64, blank=True)
    # A proposal whose analysis recommends renting must not argue against itself: the sales
    # engineer sends it without the analysis, or as a like-for-like comparison with the
    # buyer's reason for owning (services.presentation).
    analysis_presentation = models.CharField(
        _("analysis in the proposal"),
        max_length=20,
        choices=AnalysisPresentation.choices,
        default=AnalysisPresentation.FULL,
    )
    analysis_reason = models.TextField(_("reason for owning"), blank=True)
    # Deposit and milestones (quotes/billing.py), copied from the team's default when the
    # revision is made; an empty list is a revision made before schedules existed.
    payment_schedule = models.JSONField(_("payment schedule"), default=list, blank=True)
    # Options (services.options): a revision is its quote's option A; the buyer may be
    # offered up to three alternatives (B, C, D), each a revision row of the same quote and
    # sequence that points here, with its own lines, discount, approval and analysis. They
    # are sent, frozen and answered together with option A.
    option_of = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="alternatives",
        verbose_name=_("alternative to"),
    )
    option_letter = models.CharField(_("option"), max_length=1, default="A")
    option_name = models.CharField(_("option name"), max_length=120, blank=True)
    # The EUR/USD rate fixed by hand for this revision and its options (services.fx): the
    # lines priced from list prices in the other currency are converted at it, the proposal
    # states it instead of the currency clause's threshold, and the rate watch leaves the
    # revision alone. The reason stays internal.
    fx_fixed_rate = models.DecimalField(
        _("fixed EUR/USD rate"), max_digits=12, decimal_places=6, null=True, blank=True
    )
    fx_fixed_reason = models.TextField(_("reason for fixing the rate"), blank=True)
    fx_fixed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    fx_fixed_at = models.DateTimeField(null=True, blank=True)
    # A deal registered with the vendor (or a special bid): its number and the day its
    # registered prices (QuoteLine.registered_price) end.
    deal_registration = models.CharField(_("deal registration number"), max_length=60, blank=True)
    deal_registration_expires = models.DateField(
        _("deal registration expires"), null=True, blank=True
    )
    # Price protection: the lines' prices are not re-priced before
    # price_protection_from + price_protection_days (services.tiers.protected_until).
    price_protection_days = models.PositiveSmallIntegerField(
        _("price protection (days)"), default=0, validators=[MaxValueValidator(365)]
    )
    price_protection_from = models.DateField(null=True, blank=True)
    # An option that leases its hardware instead of buying it: paid in monthly instalments
    # over this many months, at the lease rate of its analysis (one of the terms the engine
    # computes; services.lease.lease_figures). Empty: bought.
    lease_term_months = models.PositiveSmallIntegerField(
        _("lease term (months)"), null=True, blank=True
    )

    class Meta:
        ordering = ["quote", "seq", "option_letter"]
        verbose_name = _("quote revision")
        constraints = [
            models.CheckConstraint(
                condition=Q(discount_pct__gte=0) & Q(discount_pct__lte=100),
                name="revision_discount_0_100",
            ),
            models.UniqueConstraint(
                fields=["quote", "seq"],
                condition=Q(option_of__isnull=True),
                name="revision_seq_unique",
            ),
            models.UniqueConstraint(
                fields=["option_of", "option_letter"], name="revision_option_letter_unique"
            ),
            models.CheckConstraint(
                condition=Q(status="draft") | Q(snapshot__isnull=False),
                name="revision_sent_has_snapshot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quote.number}-{self.letter}"

    @property
    def label(self) -> str:
        return f"{self.quote.number} rev. {self.letter}"

    @property
    def is_draft(self) -> bool:
        return self.status == Status.DRAFT

    @property
    def is_alternative(self) -> bool:
        """Option B, C or D of a revision (option A is the revision itself)."""
        return self.option_of_id is not None

    @property
    def fixed_fx_rate(self) -> Decimal | None:
        """The EUR/USD rate fixed for this revision: option A's, for its options too."""
        main = self.option_of if self.option_of_id is not None else self
        assert main is not None
        return main.fx_fixed_rate


class LineKind(models.TextChoices):
    SERVER = "server", _("server")
    NETWORKING = "networking", _("networking")
    STORAGE = "storage", _("storage")
    INSTALLATION = "installation", _("installation")
    SUPPORT = "support", _("support")
    SHIPPING = "shipping", _("shipping and freight")
    FACILITY = "facility", _("site build-out")
    OTHER = "other", _("other")
    # A component of a configured system (catalog key "component:<part number>"), under
    # its system line with `per_parent` per system (catalog/configure, docs/configure.md).
    COMPONENT = "component", _("component")


class LineUnit(models.TextChoices):
    """The unit a line's quantity counts (printed next to it on the proposal)."""

    PCS = "pcs", _("pcs")
    YEARS = "years", _("years")
    MONTHS = "months", _("months")
    LOT = "lot", _("lot")
    KW = "kw", _("kW")

    @classmethod
    def label_for(cls, unit: str) -> str:
        """The unit's label in the active language; an unknown unit as it is."""
        try:
            return str(cls(unit).label)
        except ValueError:
            return unit


class QuoteLine(models.Model):
    revision = models.ForeignKey(QuoteRevision, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveIntegerField()
    kind = models.CharField(_("kind"), max_length=20, choices=LineKind.choices)
    # "server:<key>" or "item:<key>"; empty for a free line (typed by the sales engineer).
    catalog_key = models.CharField(_("catalog item"), max_length=80, blank=True)
    description = models.CharField(_("description"), max_length=300)
    quantity = models.DecimalField(_("quantity"), max_digits=10, decimal_places=2)
    unit = models.CharField(
        _("unit"), max_length=10, choices=LineUnit.choices, default=LineUnit.PCS
    )
    # Copied from the catalog (converted to the quote's currency) when the line is added.
    unit_price = models.DecimalField(_("unit price"), max_digits=14, decimal_places=2)
    discount_pct = models.DecimalField(_("discount %"), max_digits=5, decimal_places=2)
    # What one unit costs us, in the quote's currency (from the catalog's cost price, or
    # typed for a free line); empty when unknown. Never shown to the buyer.
    cost_price = models.DecimalField(
        _("unit cost"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    optional = models.BooleanField(_("optional"), default=False)
    # A "% of hardware" item's percentage while its price follows the hardware lines
    # (services.pricing.follow_hardware); empty for every other line, and once a sales
    # engineer types a price of their own on it.
    hardware_share_pct = models.DecimalField(
        _("share of hardware (%)"), max_digits=6, decimal_places=2, null=True, blank=True
    )
    # A support line is invoiced up front (with the milestones) or per support year.
    billing = models.CharField(
        _("billing"), max_length=10, choices=LineBilling.choices, default=LineBilling.UPFRONT
    )
    price_as_of = models.DateField(_("price as of"), null=True, blank=True)
    price_is_estimate = models.BooleanField(default=False)
    # When unit_price was copied from the catalog (kept by a revise, renewed by a
    # re-price): catalog price changes recorded after it make a draft line out of date.
    priced_at = models.DateTimeField(_("priced at"), default=timezone.now)
    # Delivery of a server line (docs/quotes.md): copied from the catalog's stock and lead
    # time when priced (in stock when the stock covers the quantity, then 0 weeks), or set
    # by the sales engineer with a reason (kept internal); empty lead time: not a server.
    lead_time_weeks = models.DecimalField(
        _("lead time (weeks)"), max_digits=5, decimal_places=1, null=True, blank=True
    )
    in_stock = models.BooleanField(_("in stock"), default=False)
    availability_as_of = models.DateField(_("availability as of"), null=True, blank=True)
    delivery_reason = models.CharField(
        _("reason for the delivery time"), max_length=300, blank=True
    )
    # The bill of materials (services.bom): a per-system line (networking, installation)
    # hangs under its system line (a server or rack-scale system) and counts `per_parent`
    # of it, so its quantity follows the system's; a quantity set by hand stops following
    # and keeps its reason (internal, like a delivery reason).
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="children",
        verbose_name=_("system"),
    )
    per_parent = models.DecimalField(
        _("quantity per system"), max_digits=10, decimal_places=2, null=True, blank=True
    )
    quantity_reason = models.CharField(_("reason for the quantity"), max_length=300, blank=True)
    # The catalog's list price per unit in the quote's currency when the line was priced,
    # and the rule that made its unit price from it ("" list, "book:<row>:…" a price-book
    # row, "deal:<number>" a registered deal price): services.tiers.
    list_price = models.DecimalField(
        _("list price"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    price_basis = models.CharField(max_length=160, blank=True)
    # The net unit price registered with the vendor for this line (the revision's deal
    # registration); it wins over the tier's price until the registration expires.
    registered_price = models.DecimalField(
        _("registered price"), max_digits=14, decimal_places=2, null=True, blank=True
    )

    class Meta:
        ordering = ["revision", "position"]
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gt=0), name="line_quantity_positive"),
            models.CheckConstraint(condition=Q(unit_price__gte=0), name="line_price_non_negative"),
            models.CheckConstraint(
                condition=Q(cost_price__isnull=True) | Q(cost_price__gte=0),
                name="line_cost_non_negative",
            ),
            models.CheckConstraint(
                condition=Q(discount_pct__gte=0) & Q(discount_pct__lte=100),
                name="line_discount_0_100",
            ),
            models.CheckConstraint(
                condition=Q(parent__isnull=True) | Q(per_parent__gt=0),
                name="line_child_counts_per_system",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} × {self.description}"

    @property
    def follows_system(self) -> bool:
        """A child line whose quantity is its system's × per system (not set by hand)."""
        return self.parent_id is not None and not self.quantity_reason


class EndCustomer(models.Model):
    """The end customer a reseller (the quote's Customer) buys for: kept apart from the
    reseller's data, printed on the proposal as "for end customer …"."""

    quote = models.OneToOneField(Quote, on_delete=models.CASCADE, related_name="end_customer")
    company = models.CharField(_("end customer"), max_length=200)
    country = models.CharField(
        _("end customer's country"), max_length=2, choices=COUNTRY_CHOICES, blank=True
    )
    contact_name = models.CharField(_("end customer's contact"), max_length=200, blank=True)
    contact_email = models.EmailField(_("end customer's email"), blank=True)

    class Meta:
        verbose_name = _("end customer")

    def __str__(self) -> str:
        return self.company


class LeadStatus(models.TextChoices):
    NEW = "new", _("new")
    CONTACTED = "contacted", _("contacted")
    QUOTED = "quoted", _("quoted")
    LOST = "lost", _("lost")


class Lead(models.Model):
    """A calculator visitor who asked for the analysis as a PDF (seen by sales engineers)."""

    public_id = _public_id()
    name = models.CharField(_("name"), max_length=200)
    company = models.CharField(_("company"), max_length=200)
    email = models.EmailField(_("email"))
    consent_at = models.DateTimeField(_("consent given at"))
    # When the visitor followed the link in the confirmation email: only then is the PDF
    # sent and the lead shown to the sales team (an unconfirmed address may be anyone's).
    confirmed_at = models.DateTimeField(_("address confirmed at"), null=True, blank=True)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.EN)
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    # The sales team that follows the lead up; only its members (and staff) see the lead.
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="leads", null=True, blank=True
    )
    tco = models.JSONField(_("TCO analysis"))
    # Where the visitor's company is (optional on the form); routes the lead (LeadRoute).
    country = models.CharField(_("country"), max_length=2, choices=COUNTRY_CHOICES, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="owned_leads",
        verbose_name=_("owner"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=LeadStatus.choices, default=LeadStatus.NEW
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("lead")

    def __str__(self) -> str:
        return f"{self.name} ({self.company})"


class LeadRoute(models.Model):
    """Which sales team gets a calculator lead (edited by staff in the admin).

    A row with a country sends that country's leads to its team; rows without a country
    form the round-robin pool for every other lead (no such rows: all teams take turns).
    """

    country = models.CharField(
        _("country"),
        max_length=2,
        choices=COUNTRY_CHOICES,
        blank=True,
        help_text=_("Empty: the team takes its turn for leads from any other country."),
    )
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="lead_routes")

    class Meta:
        ordering = ["country", "team__name"]
        verbose_name = _("lead route")
        constraints = [
            models.UniqueConstraint(
                fields=["country"], condition=~Q(country=""), name="lead_route_one_per_country"
            ),
            models.UniqueConstraint(
                fields=["team"], condition=Q(country=""), name="lead_route_pool_once_per_team"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.country or '*'} → {self.team}"


class RenderStatus(models.TextChoices):
    PENDING = "pending", _("waiting")
    RENDERING = "rendering", _("rendering")
    DONE = "done", _("ready")
    FAILED = "failed", _("failed")


class ProposalRender(models.Model):
    """A proposal PDF: for one sent revision (in one language) or for one lead.

    Stored once with its SHA-256; a revision is rendered at most once per language and
    the bytes never change after status DONE (services.render_execute).
    """

    public_id = _public_id()
    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, null=True, blank=True, related_name="renders"
    )
    lead = models.OneToOneField(
        Lead, on_delete=models.CASCADE, null=True, blank=True, related_name="render"
    )
    language = models.CharField(max_length=2, choices=Language.choices)
    status = models.CharField(
        max_length=10, choices=RenderStatus.choices, default=RenderStatus.PENDING
    )
    pdf = models.BinaryField(null=True, blank=True, editable=False)
    sha256 = models.CharField(max_length=64, blank=True)
    pages = models.PositiveIntegerField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    rendered_at = models.DateTimeField(null=True, blank=True)
    render_seconds = models.FloatField(null=True, blank=True)
    # When the current (or last) attempt began, and the last sign of life of the process
    # rendering it (services/jobs.py: a render whose heartbeat stops is taken up again).
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # Set while its task could not be handed to the broker (services/queue.py).
    not_queued_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["revision", "language"],
                condition=Q(revision__isnull=False),
                name="one_render_per_revision_language",
            ),
            models.CheckConstraint(
                condition=Q(revision__isnull=False) ^ Q(lead__isnull=False),
                name="render_for_revision_xor_lead",
            ),
        ]

    def __str__(self) -> str:
        return f"PDF {self.public_id} ({self.status})"

    @property
    def filename(self) -> str:
        if self.revision is not None:
            return f"{self.revision.quote.number}-{self.revision.letter}.pdf"
        return "gpu-tco-analysis.pdf"


class OutboxStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    SENDING = "sending", _("sending")
    SENT = "sent", _("sent")
    FAILED = "failed", _("failed")  # retries spent; tried again later (docs/quotes.md)
    # The message itself cannot be built (a malformed header): never retried.
    UNSENDABLE = "unsendable", _("cannot be sent")


class EmailKind(models.TextChoices):
    PROPOSAL = "proposal", _("proposal to buyer")
    LEAD_PDF = "lead_pdf", _("calculator PDF")
    DECISION = "decision", _("decision notice to owner")
    ACCEPTANCE = "acceptance", _("signed acceptance")
    LEAD_NOTICE = "lead_new", _("new lead notice to team")
    APPROVAL = "approval", _("margin approval notice")
    LEAD_CONFIRM = "confirm", _("address confirmation to visitor")
    UNLOCK = "unlock", _("account unlock link to its owner")
    REMINDER = "reminder", _("reminder before a quote expires")
    FX_MOVE = "fx_move", _("exchange rate moved past the currency clause")


def new_message_id() -> str:
    return make_msgid(domain="proposals.gputco")


class OutboxEmail(models.Model):
    """One email to send, recorded before anything is enqueued (see docs/quotes.md)."""

    public_id = _public_id()
    idempotency_key = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=10, choices=EmailKind.choices)
    to_email = models.EmailField()
    subject = models.CharField(max_length=300)
    body = models.TextField()
    # Fixed when the row is created, so every attempt carries the same Message-ID.
    # Fixed when the row is created, so a resent copy carries the same Message-ID.
    message_id = models.CharField(max_length=200, default=new_message_id)
    render = models.ForeignKey(
        ProposalRender, on_delete=models.PROTECT, null=True, blank=True, related_name="emails"
    )
    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, null=True, blank=True, related_name="emails"
    )
    lead = models.ForeignKey(
        Lead, on_delete=models.CASCADE, null=True, blank=True, related_name="emails"
    )
    # The signed copy of an accepted proposal, attached instead of a render.
    acceptance = models.ForeignKey(
        "AcceptanceRecord",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="emails",
    )
    status = models.CharField(
        max_length=10, choices=OutboxStatus.choices, default=OutboxStatus.QUEUED
    )
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    sending_started_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Set while its task could not be handed to the broker (services/queue.py).
    not_queued_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("outbox email")
        indexes = [models.Index(fields=["status", "updated_at"], name="outbox_status_updated")]

    def __str__(self) -> str:
        return f"{self.kind} → {self.to_email} ({self.status})"


class AcceptanceRecord(models.Model):
    """The evidence of a buyer's acceptance: who, when, from where, and which PDF.

    ``accepted_sha256`` is the SHA-256 of the exact proposal PDF the buyer accepted (the
    bytes of ``render``); ``pdf`` is a new copy, that PDF with an acceptance page appended,
    with its own ``sha256``. Written once, never changed.
    """

    public_id = _public_id()
    revision = models.OneToOneField(
        QuoteRevision, on_delete=models.PROTECT, related_name="acceptance"
    )
    render = models.ForeignKey(ProposalRender, on_delete=models.PROTECT, related_name="acceptances")
    name = models.CharField(_("name"), max_length=200)
    role = models.CharField(_("role"), max_length=200)
    po_number = models.CharField(_("purchase order number"), max_length=100, blank=True)
    terms_accepted = models.BooleanField(_("terms accepted"))
    accepted_at = models.DateTimeField(_("accepted at"))
    ip_address = models.GenericIPAddressField(_("IP address"), null=True, blank=True)
    user_agent = models.CharField(_("browser"), max_length=500, blank=True)
    language = models.CharField(max_length=2, choices=Language.choices)
    accepted_sha256 = models.CharField(_("SHA-256 of the accepted PDF"), max_length=64)
    # The option the buyer chose (A: the revision itself; empty: a proposal without options).
    option_letter = models.CharField(_("option chosen"), max_length=1, blank=True)
    option_name = models.CharField(_("name of the option chosen"), max_length=120, blank=True)
    pdf = models.BinaryField(editable=False)
    sha256 = models.CharField(_("SHA-256 of the signed copy"), max_length=64)
    pages = models.PositiveIntegerField()

    class Meta:
        ordering = ["-accepted_at"]
        verbose_name = _("acceptance")
        constraints = [
            models.CheckConstraint(condition=Q(terms_accepted=True), name="acceptance_terms"),
        ]

    def __str__(self) -> str:
        return f"{self.revision} accepted by {self.name}"

    @property
    def filename(self) -> str:
        return f"{self.revision.quote.number}-{self.revision.letter}-accepted.pdf"


class CompanyProfile(models.Model):
    """The seller on every proposal: one row (pk 1), edited by staff in the admin.

    Copied into a revision's snapshot when it is sent (``snapshot["seller"]``), so a sent
    proposal keeps the details it was sent with.
    """

    legal_name = models.CharField(_("legal name"), max_length=200)
    trade_name = models.CharField(_("trade name"), max_length=200, blank=True)
    street = models.CharField(_("street and number"), max_length=200)
    postal_code = models.CharField(_("postal code"), max_length=20)
    city = models.CharField(_("city"), max_length=100)
    country = models.CharField(_("country"), max_length=100, default="Nederland")
    kvk_number = models.CharField(_("KvK number"), max_length=20)
    vat_id = models.CharField(_("VAT ID"), max_length=20)
    iban = models.CharField(_("IBAN"), max_length=40)
    bic = models.CharField(_("BIC"), max_length=11)
    bank_name = models.CharField(_("bank"), max_length=100, blank=True)
    phone = models.CharField(_("phone"), max_length=40)
    email = models.EmailField(_("email"))
    website = models.CharField(_("website"), max_length=200, blank=True)
    # A file among the app's static files (the PDF renderer fetches static files only).
    logo = models.CharField(
        _("logo (static file)"),
        max_length=200,
        default="img/seller-logo.svg",
        help_text=_("Path of an SVG or PNG file among the static files, e.g. img/seller-logo.svg"),
    )
    terms_en = models.TextField(_("default terms (English)"), blank=True)
    terms_nl = models.TextField(_("default terms (Dutch)"), blank=True)
    # The general terms of sale the proposal refers to: attached as pages when the text is
    # given, else linked (the URL is printed).
    general_terms_url = models.URLField(_("general terms of sale (web address)"), blank=True)
    general_terms_en = models.TextField(_("general terms of sale (English text)"), blank=True)
    general_terms_nl = models.TextField(_("general terms of sale (Dutch text)"), blank=True)
    # Clauses every proposal states in its terms (frozen into the snapshot at send).
    export_control_en = models.TextField(
        _("export control and end use (English)"), blank=True, default=clauses.EXPORT_CONTROL_EN
    )
    export_control_nl = models.TextField(
        _("export control and end use (Dutch)"), blank=True, default=clauses.EXPORT_CONTROL_NL
    )
    cancellation_en = models.TextField(
        _("cancellation and returns (English)"), blank=True, default=clauses.CANCELLATION_EN
    )
    cancellation_nl = models.TextField(
        _("cancellation and returns (Dutch)"), blank=True, default=clauses.CANCELLATION_NL
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("company profile")
        verbose_name_plural = _("company profile")
        constraints = [models.CheckConstraint(condition=Q(pk=1), name="company_profile_single_row")]

    def __str__(self) -> str:
        return self.legal_name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.pk = 1
        super().save(*args, **kwargs)

    @classmethod
    def current(cls) -> CompanyProfile | None:
        return cls.objects.filter(pk=1).first()

    def terms_for(self, language: str) -> str:
        return (self.terms_nl if language == "nl" else self.terms_en).strip()

    def general_terms_for(self, language: str) -> str:
        """The general terms' text in `language` (the English text when there is no Dutch)."""
        text = self.general_terms_nl if language == "nl" else self.general_terms_en
        return (text or self.general_terms_en).strip()

    def clauses_for(self, language: str) -> dict[str, str]:
        """The export-control and cancellation clauses in `language` (the English text when
        there is no Dutch; an empty clause is left out of the proposal)."""
        dutch = language == "nl"
        export = (self.export_control_nl if dutch else "") or self.export_control_en
        cancellation = (self.cancellation_nl if dutch else "") or self.cancellation_en
        return {"export_control": export.strip(), "cancellation": cancellation.strip()}


class SalesProfile(models.Model):
    """A sales engineer as the buyer sees them on the cover: role and direct phone."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sales_profile"
    )
    role = models.CharField(_("role"), max_length=100, default="Sales engineer")
    role_nl = models.CharField(_("role in Dutch"), max_length=100, blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)

    class Meta:
        verbose_name = _("sales profile")

    def __str__(self) -> str:
        return f"{self.user} ({self.role})"

    def role_for(self, language: str) -> str:
        return (self.role_nl if language == "nl" and self.role_nl else self.role).strip()


class SavedScenario(models.Model):
    """A calculator result kept for a customer (services.scenarios): its scenario document,
    the figures it showed when it was saved (the report's JSON form and the owned option's
    cumulative cost by month) and the day the catalog priced it. The document is what is
    kept, not a URL: "re-price today" evaluates it again with today's catalog and a quote's
    options are started from it."""

    public_id = _public_id()
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="scenarios")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="saved_scenarios"
    )
    name = models.CharField(_("name"), max_length=120)
    note = models.TextField(_("note"), blank=True)
    document = models.JSONField()
    summary = models.JSONField()
    catalog_date = models.DateField(_("catalog date"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("saved scenario")

    def __str__(self) -> str:
        return self.name
