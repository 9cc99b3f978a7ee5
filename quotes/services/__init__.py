"""Business rules and writes of quotes: every state change is a named, keyword-only function.

One module per concern (errors, customers, numbering, analysis, drafts, pricing,
snapshots, offer, commercial, links, revisions, delivery, leads); this package re-exports
their public names, so callers write ``from quotes import services`` and
``services.quote_send(...)``. Underscore names stay in their module; the draft guard
(drafts.ensure_draft, drafts.locked_revision) is for the service modules only.

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

from ..decisions import analysis_decisions
from .acceptance import (
    acceptance_page_pdf,
    accepted_render,
    append_pages,
    revision_accept,
)
from .analysis import (
    PDF_CHARTS,
    analyse_calculator_query,
    calculator_analysis,
    executive_summary,
    plain,
    stored_report,
    tco_snapshot,
)
from .approvals import (
    SALES_MANAGER_GROUP,
    ApprovalStatus,
    LineMargin,
    Margin,
    approval_decide,
    approval_refusal,
    approval_request,
    approval_status,
    ensure_sending_allowed,
    escalation_candidates,
    is_sales_manager,
    needs_escalation,
    pricing_fingerprint,
    revision_margin,
    team_managers,
)
from .availability import (
    LeadTimeChange,
    delivery_snapshot,
    revision_lead_time_changes,
    revision_set_line_delivery,
)
from .bom import bom_order, installation_item
from .commercial import revision_set_payment_terms
from .customers import (
    customer_create,
    is_sales,
    team_for,
)
from .deal import (
    DealInputs,
    deal_analysis,
    deal_inputs,
    lines_hash,
)
from .delivery import (
    outbox_deliver,
    outbox_mark_failed,
    outbox_requeue_stuck,
    quote_send,
    render_claim,
    render_execute,
    render_mark_retrying,
    revision_resend,
)
from .descriptions import (
    catalog_name,
    line_description,
)
from .errors import (
    BuyerLinkExpired,
    BuyerLinkInvalid,
    QuoteError,
    RateLimited,
    RevisionLocked,
    TransientDeliveryError,
)
from .followup import quotes_remind, revisions_to_remind
from .jobs import jobs_recover, render_mark_failed
from .leads import (
    display_company,
    display_name,
    lead_confirm,
    lead_mark_quoted,
    lead_notify_team,
    lead_owner_choices,
    lead_rate_limit,
    lead_request_pdf,
    lead_team,
    lead_update,
)
from .lines import (
    revision_add_free_line,
    revision_set_discount,
    revision_update_line,
)
from .links import (
    BUYER_LINK_SALT,
    LEAD_LINK_SALT,
    buyer_link_token,
    buyer_url,
    lead_confirm_url,
    lead_from_confirm_token,
    lead_from_token,
    lead_token,
    revision_from_token,
)
from .numbering import (
    next_quote_number,
    revision_letter,
)
from .onboarding import team_join
from .options import (
    analysis_figures,
    comparison,
    lease_figures,
    lease_payment,
    lease_term,
    lease_terms,
    main_option,
    option_add,
    option_add_lease,
    option_label,
    option_make_main,
    option_remove,
    option_rename,
    option_set_lease,
    options_of,
    proposal_snapshot,
)
from .presentation import (
    argues_against_itself,
    presentation_needed,
    revision_set_presentation,
)
from .pricing import (
    Totals,
    catalog_choices,
    past_sale_life_lines,
    revision_add_line,
    revision_remove_line,
    revision_reprice,
    revision_totals,
    totals_for,
)
from .revisions import (
    default_terms,
    ensure_answerable,
    new_revision,
    open_earlier_revision,
    quote_create,
    quote_create_from_calculator,
    quote_create_from_scenario,
    quote_revise,
    quotes_expire,
    revision_decide,
    revision_is_latest,
    revision_mark_viewed,
    revision_update,
)
from .seller import (
    company_terms,
    owner_snapshot,
    seller_snapshot,
)
from .snapshots import (
    lead_snapshot,
    line_snapshot,
    revision_snapshot,
)

__all__ = [
    "BUYER_LINK_SALT",
    "LEAD_LINK_SALT",
    "PDF_CHARTS",
    "SALES_MANAGER_GROUP",
    "ApprovalStatus",
    "BuyerLinkExpired",
    "BuyerLinkInvalid",
    "DealInputs",
    "LeadTimeChange",
    "LineMargin",
    "Margin",
    "QuoteError",
    "RateLimited",
    "RevisionLocked",
    "Totals",
    "TransientDeliveryError",
    "acceptance_page_pdf",
    "accepted_render",
    "analyse_calculator_query",
    "analysis_decisions",
    "analysis_figures",
    "append_pages",
    "approval_decide",
    "approval_refusal",
    "approval_request",
    "approval_status",
    "argues_against_itself",
    "bom_order",
    "buyer_link_token",
    "buyer_url",
    "calculator_analysis",
    "catalog_choices",
    "catalog_name",
    "company_terms",
    "comparison",
    "customer_create",
    "deal_analysis",
    "deal_inputs",
    "default_terms",
    "delivery_snapshot",
    "display_company",
    "display_name",
    "ensure_answerable",
    "ensure_sending_allowed",
    "escalation_candidates",
    "executive_summary",
    "installation_item",
    "is_sales",
    "is_sales_manager",
    "jobs_recover",
    "lead_confirm",
    "lead_confirm_url",
    "lead_from_confirm_token",
    "lead_from_token",
    "lead_mark_quoted",
    "lead_notify_team",
    "lead_owner_choices",
    "lead_rate_limit",
    "lead_request_pdf",
    "lead_snapshot",
    "lead_team",
    "lead_token",
    "lead_update",
    "lease_figures",
    "lease_payment",
    "lease_term",
    "lease_terms",
    "line_description",
    "line_snapshot",
    "lines_hash",
    "main_option",
    "needs_escalation",
    "new_revision",
    "next_quote_number",
    "open_earlier_revision",
    "option_add",
    "option_add_lease",
    "option_label",
    "option_make_main",
    "option_remove",
    "option_rename",
    "option_set_lease",
    "options_of",
    "outbox_deliver",
    "outbox_mark_failed",
    "outbox_requeue_stuck",
    "owner_snapshot",
    "past_sale_life_lines",
    "plain",
    "presentation_needed",
    "pricing_fingerprint",
    "proposal_snapshot",
    "quote_create",
    "quote_create_from_calculator",
    "quote_create_from_scenario",
    "quote_revise",
    "quote_send",
    "quotes_expire",
    "quotes_remind",
    "render_claim",
    "render_execute",
    "render_mark_failed",
    "render_mark_retrying",
    "revision_accept",
    "revision_add_free_line",
    "revision_add_line",
    "revision_decide",
    "revision_from_token",
    "revision_is_latest",
    "revision_lead_time_changes",
    "revision_letter",
    "revision_margin",
    "revision_mark_viewed",
    "revision_remove_line",
    "revision_reprice",
    "revision_resend",
    "revision_set_discount",
    "revision_set_line_delivery",
    "revision_set_payment_terms",
    "revision_set_presentation",
    "revision_snapshot",
    "revision_totals",
    "revision_update",
    "revision_update_line",
    "revisions_to_remind",
    "seller_snapshot",
    "stored_report",
    "tco_snapshot",
    "team_for",
    "team_join",
    "team_managers",
    "totals_for",
]
