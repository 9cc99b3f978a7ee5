from django.urls import include, path

from .views import (
    acceptance,
    configure,
    deal_terms,
    exports,
    leads,
    lines,
    options,
    payments,
    preview,
    quotes,
    report,
    scenarios,
)

app_name = "quotes"

# One revision (an option of a quote), below revisions/<uuid:public_id>/: the quote page's
# actions, its options, the line editor, payment and deal terms, the configurator, downloads.
revision_patterns = [
    path("workbook.xlsx", exports.revision_workbook_download, name="revision_workbook"),
    path("lines/", quotes.line_add, name="line_add"),
    path("lines/<int:line_id>/delete/", quotes.line_remove, name="line_remove"),
    path("edit/", quotes.revision_edit, name="revision_edit"),
    path("send/", quotes.revision_send, name="send"),
    path("resend/", quotes.revision_resend, name="resend"),
    path("revise/", quotes.revision_revise, name="revise"),
    path("options/add/", options.option_add, name="option_add"),
    path("options/rename/", options.option_rename, name="option_rename"),
    path("options/remove/", options.option_remove, name="option_remove"),
    path("options/make-main/", options.option_make_main, name="option_make_main"),
    path("options/lease/", options.option_lease, name="option_lease"),
    path("reprice/", quotes.revision_reprice, name="reprice"),
    path("rate/", quotes.revision_fix_rate, name="fix_rate"),
    path("status/", quotes.revision_status, name="status"),
    # The line editor, the quote discount and the margin approval (quotes/views/lines.py).
    path("lines/<int:line_id>/edit/", lines.line_edit, name="line_edit"),
    path("lines/<int:line_id>/delivery/", lines.line_delivery, name="line_delivery"),
    path("lines/free/", lines.free_line_add, name="free_line_add"),
    path("discount/", lines.discount_set, name="discount_set"),
    path("presentation/", lines.presentation_set, name="presentation_set"),
    path("approval/request/", lines.approval_request, name="approval_request"),
    path("approval/decide/", lines.approval_decide, name="approval_decide"),
    # The signed copy of an acceptance with evidence (quotes/views/acceptance.py).
    path("accepted.pdf", acceptance.acceptance_pdf, name="acceptance_pdf"),
    # The draft's payment schedule and support billing (quotes/views/payments.py).
    path("payment/", payments.payment_terms, name="payment_terms"),
    # The draft's preview PDF (watermarked, never stored).
    path("preview.pdf", preview.revision_preview_pdf, name="revision_preview_pdf"),
    # The deal terms: end customer, deal registration, price protection.
    path("deal-terms/", deal_terms.deal_terms, name="deal_terms"),
    # An option's bill of materials as CSV/XLSX (quotes/views/exports.py).
    path("bom.<str:fmt>", exports.revision_bom_export, name="revision_bom"),
    # The configurator of a draft option (quotes/views/configure.py).
    path("configure/", configure.configurator, name="configure"),
    path("configure/add/", configure.configured_add, name="configure_add"),
]

# Public: the buyer's signed link, below p/<str:token>/.
buyer_patterns = [
    path("", quotes.buyer_view, name="buyer"),
    path("decide/", quotes.buyer_decide, name="buyer_decide"),
    path("pdf/", quotes.buyer_pdf, name="buyer_pdf"),
    path("viewed/", quotes.buyer_viewed, name="buyer_viewed"),
    path("done/", quotes.buyer_done, name="buyer_done"),
    # Acceptance with evidence (quotes/views/acceptance.py).
    path("accept/", acceptance.buyer_accept, name="buyer_accept"),
    path("accepted.pdf", acceptance.buyer_acceptance_pdf, name="buyer_acceptance_pdf"),
]

# Public: the calculator's PDF request, below analysis-pdf/.
lead_pdf_patterns = [
    path("form/", quotes.lead_form, name="lead_form"),
    path("", quotes.lead_request, name="lead_request"),
    path("confirm/<str:token>/", quotes.lead_confirm, name="lead_confirm"),
    path("<str:token>/", quotes.lead_status, name="lead_status"),
    path("<str:token>/pdf/", quotes.lead_pdf, name="lead_pdf"),
]

# A customer's saved scenarios: a calculator result kept for a customer
# (quotes/views/scenarios.py), below customers/<uuid:public_id>/.
customer_patterns = [
    path("", scenarios.customer_detail, name="customer"),
    path("compare/", scenarios.scenario_compare, name="scenario_compare"),
    path("quote/", scenarios.scenario_quote, name="scenario_quote"),
]

urlpatterns = [
    path("", quotes.quote_list, name="list"),
    path("new/", quotes.quote_new, name="new"),
    path("customers/", quotes.customer_list, name="customers"),
    path("customers/new/", quotes.customer_new, name="customer_new"),
    path("leads/", quotes.lead_list, name="leads"),
    path("export/quotes.<str:fmt>", exports.quotes_export, name="quotes_export"),
    path("export/leads.<str:fmt>", exports.leads_export, name="leads_export"),
    path("report/", report.winloss_report, name="report"),
    path("report/export.<str:fmt>", report.winloss_export, name="report_export"),
    path("<uuid:public_id>/", quotes.quote_detail, name="detail"),
    path("revisions/<uuid:public_id>/", include(revision_patterns)),
    path("pdf/<uuid:public_id>/", quotes.render_pdf, name="pdf"),
    path("p/<str:token>/", include(buyer_patterns)),
    path("analysis-pdf/", include(lead_pdf_patterns)),
    # Leads and onboarding (quotes/views/leads.py).
    path("leads/<uuid:public_id>/", leads.lead_update, name="lead_update"),
    path("onboarding/team/", leads.team_join, name="team_join"),
    path("customers/<uuid:public_id>/", include(customer_patterns)),
    path("scenarios/save/", scenarios.scenario_save, name="scenario_save"),
    path(
        "scenarios/<uuid:public_id>/reprice/", scenarios.scenario_reprice, name="scenario_reprice"
    ),
]
