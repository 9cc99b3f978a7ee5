from django.contrib import admin

from .models import Customer, Lead, OutboxEmail, ProposalRender, Quote, QuoteRevision, Team


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "margin_floor_pct"]
    search_fields = ["name"]
    filter_horizontal = ["members"]


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["company", "contact_name", "email", "country", "team"]
    list_filter = ["team", "country", "language"]
    search_fields = ["company", "contact_name", "email", "vat_number"]


class RevisionInline(admin.TabularInline):  # type: ignore[type-arg]
    model = QuoteRevision
    fields = [
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
    ]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Quote)
class QuoteAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["number", "customer", "owner", "team", "created_at"]
    list_filter = ["team"]
    search_fields = ["number", "customer__company"]
    inlines = [RevisionInline]
    readonly_fields = ["number", "public_id"]


@admin.register(Lead)
class LeadAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "company", "email", "created_at"]
    search_fields = ["name", "company", "email"]
    exclude = ["tco"]


@admin.register(OutboxEmail)
class OutboxEmailAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["to_email", "kind", "status", "attempts", "created_at", "sent_at"]
    list_filter = ["status", "kind"]
    search_fields = ["to_email", "subject", "idempotency_key"]
    readonly_fields = [f.name for f in OutboxEmail._meta.fields]


@admin.register(ProposalRender)
class ProposalRenderAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["pk", "revision", "lead", "language", "status", "pages", "rendered_at"]
    list_filter = ["status"]
    exclude = ["pdf"]
    readonly_fields = ["sha256", "pages", "attempts", "last_error", "rendered_at"]
