from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from common.admin import WrittenOnceAdmin

from .models import (
    AcceptanceRecord,
    CompanyProfile,
    Customer,
    Lead,
    LeadRoute,
    OutboxEmail,
    ProposalRender,
    Quote,
    QuoteRevision,
    SalesProfile,
    SavedScenario,
    Team,
)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin[Team]):
    list_display = ["name", "margin_floor_pct", "remind_buyers"]
    search_fields = ["name"]
    filter_horizontal = ["members"]


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin[Customer]):
    list_display = ["company", "contact_name", "email", "country", "team", "tier"]
    list_filter = ["team", "country", "language", "tier"]
    search_fields = ["company", "contact_name", "email", "vat_number"]


class RevisionInline(admin.TabularInline[QuoteRevision, Quote]):
    model = QuoteRevision
    readonly_fields = (
        "letter",
        "status",
        "currency",
        "vat_rate",
        "discount_pct",
        "valid_until",
        "sent_at",
        "approval_state",
        "approval_decided_by",
        "approval_reason",
    )
    fields = readonly_fields
    extra = 0
    can_delete = False


@admin.register(Quote)
class QuoteAdmin(admin.ModelAdmin[Quote]):
    list_display = ["number", "customer", "owner", "team", "created_at"]
    list_filter = ["team"]
    search_fields = ["number", "customer__company"]
    inlines = [RevisionInline]
    readonly_fields = ["number", "public_id"]


@admin.register(Lead)
class LeadAdmin(admin.ModelAdmin[Lead]):
    list_display = ["name", "company", "email", "country", "team", "owner", "status", "created_at"]
    list_filter = ["status", "team"]
    search_fields = ["name", "company", "email"]
    exclude = ["tco"]


@admin.register(LeadRoute)
class LeadRouteAdmin(admin.ModelAdmin[LeadRoute]):
    """Lead routing: a country's leads go to its team; teams without a country take turns."""

    list_display = ["country", "team"]
    list_filter = ["team"]


@admin.register(AcceptanceRecord)
class AcceptanceRecordAdmin(WrittenOnceAdmin[AcceptanceRecord]):
    list_display = ["revision", "name", "role", "po_number", "accepted_at", "accepted_sha256"]
    search_fields = ["name", "po_number", "revision__quote__number"]
    exclude = ["pdf"]
    readonly_fields = [f.name for f in AcceptanceRecord._meta.fields if f.name != "pdf"]


@admin.register(OutboxEmail)
class OutboxEmailAdmin(admin.ModelAdmin[OutboxEmail]):
    list_display = ["to_email", "kind", "status", "attempts", "created_at", "sent_at"]
    list_filter = ["status", "kind"]
    search_fields = ["to_email", "subject", "idempotency_key"]
    readonly_fields = [f.name for f in OutboxEmail._meta.fields]


@admin.register(ProposalRender)
class ProposalRenderAdmin(admin.ModelAdmin[ProposalRender]):
    list_display = ["pk", "revision", "lead", "language", "status", "pages", "rendered_at"]
    list_filter = ["status"]
    exclude = ["pdf"]
    readonly_fields = ["sha256", "pages", "attempts", "last_error", "rendered_at"]


def _is_staff(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and user.is_staff)


@admin.register(CompanyProfile)
class CompanyProfileAdmin(admin.ModelAdmin[CompanyProfile]):
    """The seller's details printed on every proposal: staff only, one row, never deleted."""

    list_display = ["legal_name", "kvk_number", "vat_id", "updated_at"]
    fieldsets = [
        (None, {"fields": ["legal_name", "trade_name", "logo"]}),
        ("Address", {"fields": ["street", "postal_code", "city", "country"]}),
        ("Registration and bank", {"fields": ["kvk_number", "vat_id", "iban", "bic", "bank_name"]}),
        ("Contact", {"fields": ["phone", "email", "website"]}),
        ("Default terms", {"fields": ["terms_en", "terms_nl"]}),
        (
            "General terms of sale (attached to proposals as pages, else linked)",
            {"fields": ["general_terms_url", "general_terms_en", "general_terms_nl"]},
        ),
        (
            "Clauses on every proposal (export control and end use; cancellation and returns)",
            {
                "fields": [
                    "export_control_en",
                    "export_control_nl",
                    "cancellation_en",
                    "cancellation_nl",
                ]
            },
        ),
    ]

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _is_staff(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _is_staff(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _is_staff(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _is_staff(request) and not CompanyProfile.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(SalesProfile)
class SalesProfileAdmin(admin.ModelAdmin[SalesProfile]):
    list_display = ["user", "role", "role_nl", "phone"]
    search_fields = ["user__username", "user__first_name", "user__last_name", "role"]
    autocomplete_fields = ["user"]


@admin.register(SavedScenario)
class SavedScenarioAdmin(admin.ModelAdmin[SavedScenario]):
    """Saved scenarios (services.scenarios): what was saved is kept as saved; staff may
    remove one."""

    list_display = ["name", "customer", "owner", "catalog_date", "created_at"]
    list_filter = ["customer__team"]
    search_fields = ["name", "customer__company"]
    readonly_fields = ["public_id", "customer", "owner", "document", "summary", "catalog_date"]
