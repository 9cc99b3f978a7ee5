from django.urls import path

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
    path(
        "revisions/<uuid:public_id>/workbook.xlsx",
        exports.revision_workbook_download,
        name="revision_workbook",
    ),
    path("<uuid:public_id>/", quotes.quote_detail, name="detail"),
    path("revisions/<uuid:public_id>/lines/", quotes.line_add, name="line_add"),
    path(
        "revisions/<uuid:public_id>/lines/<int:line_id>/delete/",
        quotes.line_remove,
        name="line_remove",
    ),
    path("revisions/<uuid:public_id>/edit/", quotes.revision_edit, name="revision_edit"),
    path("revisions/<uuid:public_id>/send/", quotes.revision_send, name="send"),
    path("revisions/<uuid:public_id>/resend/", quotes.revision_resend, name="resend"),
    path("revisions/<uuid:public_id>/revise/", quotes.revision_revise, name="revise"),
    path("revisions/<uuid:public_id>/options/add/", options.option_add, name="option_add"),
    path("revisions/<uuid:public_id>/options/rename/", options.option_rename, name="option_rename"),
    path("revisions/<uuid:public_id>/options/remove/", options.option_remove, name="option_remove"),
    path(
        "revisions/<uuid:public_id>/options/make-main/",
        options.option_make_main,
        name="option_make_main",
    ),
    path("revisions/<uuid:public_id>/options/lease/", options.option_lease, name="option_lease"),
    path("revisions/<uuid:public_id>/reprice/", quotes.revision_reprice, name="reprice"),
    path("revisions/<uuid:public_id>/rate/", quotes.revision_fix_rate, name="fix_rate"),
    path("revisions/<uuid:public_id>/status/", quotes.revision_status, name="status"),
    path("pdf/<uuid:public_id>/", quotes.render_pdf, name="pdf"),
    # Public: signed buyer links and the calculator's PDF request.
    path("p/<str:token>/", quotes.buyer_view, name="buyer"),
    path("p/<str:token>/decide/", quotes.buyer_decide, name="buyer_decide"),
    path("p/<str:token>/pdf/", quotes.buyer_pdf, name="buyer_pdf"),
    path("p/<str:token>/viewed/", quotes.buyer_viewed, name="buyer_viewed"),
    path("p/<str:token>/done/", quotes.buyer_done, name="buyer_done"),
    path("analysis-pdf/form/", quotes.lead_form, name="lead_form"),
    path("analysis-pdf/", quotes.lead_request, name="lead_request"),
    path("analysis-pdf/confirm/<str:token>/", quotes.lead_confirm, name="lead_confirm"),
    path("analysis-pdf/<str:token>/", quotes.lead_status, name="lead_status"),
    path("analysis-pdf/<str:token>/pdf/", quotes.lead_pdf, name="lead_pdf"),
    # The line editor, the quote discount and the margin approval (quotes/views/lines.py).
    path(
        "revisions/<uuid:public_id>/lines/<int:line_id>/edit/",
        lines.line_edit,
        name="line_edit",
    ),
    path(
        "revisions/<uuid:public_id>/lines/<int:line_id>/delivery/",
        lines.line_delivery,
        name="line_delivery",
    ),
    path("revisions/<uuid:public_id>/lines/free/", lines.free_line_add, name="free_line_add"),
    path("revisions/<uuid:public_id>/discount/", lines.discount_set, name="discount_set"),
    path(
        "revisions/<uuid:public_id>/presentation/",
        lines.presentation_set,
        name="presentation_set",
    ),
    path(
        "revisions/<uuid:public_id>/approval/request/",
        lines.approval_request,
        name="approval_request",
    ),
    path(
        "revisions/<uuid:public_id>/approval/decide/",
        lines.approval_decide,
        name="approval_decide",
    ),
    # Acceptance with evidence (quotes/views/acceptance.py).
    path("p/<str:token>/accept/", acceptance.buyer_accept, name="buyer_accept"),
    path(
        "p/<str:token>/accepted.pdf",
        acceptance.buyer_acceptance_pdf,
        name="buyer_acceptance_pdf",
    ),
    path(
        "revisions/<uuid:public_id>/accepted.pdf",
        acceptance.acceptance_pdf,
        name="acceptance_pdf",
    ),
    # Leads and onboarding (quotes/views/leads.py).
    path("leads/<uuid:public_id>/", leads.lead_update, name="lead_update"),
    path("onboarding/team/", leads.team_join, name="team_join"),
]

# The draft's payment schedule and support billing (quotes/views/payments.py).
urlpatterns += [
    path(
        "revisions/<uuid:public_id>/payment/",
        payments.payment_terms,
        name="payment_terms",
    ),
]

# The draft's preview PDF (watermarked, never stored).
urlpatterns += [
    path(
        "revisions/<uuid:public_id>/preview.pdf",
        preview.revision_preview_pdf,
        name="revision_preview_pdf",
    ),
    # The deal terms: end customer, deal registration, price protection.
    path("revisions/<uuid:public_id>/deal-terms/", deal_terms.deal_terms, name="deal_terms"),
]

# Saved scenarios: a calculator result kept for a customer (quotes/views/scenarios.py).
urlpatterns += [
    path("customers/<uuid:public_id>/", scenarios.customer_detail, name="customer"),
    path(
        "customers/<uuid:public_id>/compare/", scenarios.scenario_compare, name="scenario_compare"
    ),
    path("customers/<uuid:public_id>/quote/", scenarios.scenario_quote, name="scenario_quote"),
    path("scenarios/save/", scenarios.scenario_save, name="scenario_save"),
    path(
        "scenarios/<uuid:public_id>/reprice/", scenarios.scenario_reprice, name="scenario_reprice"
    ),
]

# An option's bill of materials as CSV/XLSX (quotes/views/exports.py).
urlpatterns += [
    path(
        "revisions/<uuid:public_id>/bom.<str:fmt>",
        exports.revision_bom_export,
        name="revision_bom",
    ),
]

# The configurator of a draft option (quotes/views/configure.py).
urlpatterns += [
    path("revisions/<uuid:public_id>/configure/", configure.configurator, name="configure"),
    path(
        "revisions/<uuid:public_id>/configure/add/",
        configure.configured_add,
        name="configure_add",
    ),
]
