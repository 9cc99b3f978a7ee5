from django.urls import path

from . import (
    acceptance_views,
    export_views,
    lead_views,
    line_views,
    payment_views,
    preview_views,
    views,
)

app_name = "quotes"
urlpatterns = [
    path("", views.quote_list, name="list"),
    path("new/", views.quote_new, name="new"),
    path("customers/", views.customer_list, name="customers"),
    path("customers/new/", views.customer_new, name="customer_new"),
    path("leads/", views.lead_list, name="leads"),
    path("export/quotes.<str:fmt>", export_views.quotes_export, name="quotes_export"),
    path("export/leads.<str:fmt>", export_views.leads_export, name="leads_export"),
    path(
        "revisions/<uuid:public_id>/workbook.xlsx",
        export_views.revision_workbook_download,
        name="revision_workbook",
    ),
    path("<uuid:public_id>/", views.quote_detail, name="detail"),
    path("revisions/<uuid:public_id>/lines/", views.line_add, name="line_add"),
    path(
        "revisions/<uuid:public_id>/lines/<int:line_id>/delete/",
        views.line_remove,
        name="line_remove",
    ),
    path("revisions/<uuid:public_id>/edit/", views.revision_edit, name="revision_edit"),
    path("revisions/<uuid:public_id>/send/", views.revision_send, name="send"),
    path("revisions/<uuid:public_id>/resend/", views.revision_resend, name="resend"),
    path("revisions/<uuid:public_id>/revise/", views.revision_revise, name="revise"),
    path("revisions/<uuid:public_id>/reprice/", views.revision_reprice, name="reprice"),
    path("revisions/<uuid:public_id>/status/", views.revision_status, name="status"),
    path("pdf/<uuid:public_id>/", views.render_pdf, name="pdf"),
    # Public: signed buyer links and the calculator's PDF request.
    path("p/<str:token>/", views.buyer_view, name="buyer"),
    path("p/<str:token>/decide/", views.buyer_decide, name="buyer_decide"),
    path("p/<str:token>/pdf/", views.buyer_pdf, name="buyer_pdf"),
    path("p/<str:token>/viewed/", views.buyer_viewed, name="buyer_viewed"),
    path("p/<str:token>/done/", views.buyer_done, name="buyer_done"),
    path("analysis-pdf/form/", views.lead_form, name="lead_form"),
    path("analysis-pdf/", views.lead_request, name="lead_request"),
    path("analysis-pdf/confirm/<str:token>/", views.lead_confirm, name="lead_confirm"),
    path("analysis-pdf/<str:token>/", views.lead_status, name="lead_status"),
    path("analysis-pdf/<str:token>/pdf/", views.lead_pdf, name="lead_pdf"),
    # The line editor, the quote discount and the margin approval (quotes/line_views.py).
    path(
        "revisions/<uuid:public_id>/lines/<int:line_id>/edit/",
        line_views.line_edit,
        name="line_edit",
    ),
    path(
        "revisions/<uuid:public_id>/lines/<int:line_id>/delivery/",
        line_views.line_delivery,
        name="line_delivery",
    ),
    path("revisions/<uuid:public_id>/lines/free/", line_views.free_line_add, name="free_line_add"),
    path("revisions/<uuid:public_id>/discount/", line_views.discount_set, name="discount_set"),
    path(
        "revisions/<uuid:public_id>/presentation/",
        line_views.presentation_set,
        name="presentation_set",
    ),
    path(
        "revisions/<uuid:public_id>/approval/request/",
        line_views.approval_request,
        name="approval_request",
    ),
    path(
        "revisions/<uuid:public_id>/approval/decide/",
        line_views.approval_decide,
        name="approval_decide",
    ),
    # Acceptance with evidence (quotes/acceptance_views.py).
    path("p/<str:token>/accept/", acceptance_views.buyer_accept, name="buyer_accept"),
    path(
        "p/<str:token>/accepted.pdf",
        acceptance_views.buyer_acceptance_pdf,
        name="buyer_acceptance_pdf",
    ),
    path(
        "revisions/<uuid:public_id>/accepted.pdf",
        acceptance_views.acceptance_pdf,
        name="acceptance_pdf",
    ),
    # Leads and onboarding (quotes/lead_views.py).
    path("leads/<uuid:public_id>/", lead_views.lead_update, name="lead_update"),
    path("onboarding/team/", lead_views.team_join, name="team_join"),
]

# The draft's payment schedule and support billing (quotes/payment_views.py).
urlpatterns += [
    path(
        "revisions/<uuid:public_id>/payment/",
        payment_views.payment_terms,
        name="payment_terms",
    ),
]

# The draft's preview PDF (watermarked, never stored).
urlpatterns += [
    path(
        "revisions/<uuid:public_id>/preview.pdf",
        preview_views.revision_preview_pdf,
        name="revision_preview_pdf",
    ),
]
