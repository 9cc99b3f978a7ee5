from typing import Any

from django.contrib import admin
from django.contrib.auth.models import User
from django.db import models, transaction
from django.http import HttpRequest

from common.admin import WrittenOnceAdmin

from . import services
from .models import (
    ApiOffering,
    ChassisDefault,
    ChassisRules,
    CloudAvailability,
    CloudOffering,
    CloudRegion,
    Component,
    FxRate,
    Gpu,
    InfrastructureItem,
    PriceBookRow,
    PriceChange,
    PriceImport,
    PriceTier,
    ServerAvailability,
    ServerModel,
    ServerPart,
    Site,
    StalePriceNotice,
)
from .schema import PRICE_SPECS_BY_KIND

PROVENANCE_FIELDS = ("source", "source_nl", "source_url", "as_of", "is_estimate")


def _staff(request: HttpRequest) -> User:
    """The admin's user: the admin site lets only signed-in staff in."""
    assert isinstance(request.user, User)
    return request.user


class PriceHistoryAdmin[M: models.Model](admin.ModelAdmin[M]):
    """Price edits made here are kept in the price history like imported ones."""

    price_kind = ""

    def save_model(self, request: HttpRequest, obj: M, form: Any, change: bool) -> None:
        spec = PRICE_SPECS_BY_KIND[self.price_kind]
        old = None
        if change and spec.price_field:
            manager: models.Manager[Any] = type(obj)._default_manager
            old = manager.filter(pk=obj.pk).values_list(spec.price_field, flat=True).first()
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            services.record_price_edit(
                spec=spec, instance=obj, old_price=old, created=not change, user=_staff(request)
            )


@admin.register(Gpu)
class GpuAdmin(admin.ModelAdmin[Gpu]):
    list_display = (
        "name",
        "memory_gb",
        "memory_bandwidth_tbps",
        "bf16_tflops",
        "fp8_tflops",
        "fp4_tflops",
        "tdp_w",
        "as_of",
        "is_estimate",
    )
    list_filter = ("vendor", "form_factor", "is_estimate")
    search_fields = ("key", "name", "source")


class ServerPartInline(admin.TabularInline[ServerPart, ServerModel]):
    """The configuration printed per server line on a proposal (catalog/data/server_parts.csv)."""

    model = ServerPart
    extra = 0
    fields = (
        *("position", "role", "quantity", "description", "description_nl", "part_number"),
        *PROVENANCE_FIELDS,
    )


@admin.register(ServerModel)
class ServerModelAdmin(PriceHistoryAdmin[ServerModel]):
    price_kind = "servers"
    inlines = (ServerPartInline,)
    list_display = (
        "sku",
        "name",
        "gpu",
        "gpu_count",
        "max_power_kw",
        "cooling",
        "list_price",
        "currency",
        "price_is_estimate",
        "price_as_of",
    )
    list_filter = ("vendor", "gpu", "cooling", "currency", "price_is_estimate", "is_estimate")
    search_fields = ("key", "sku", "name", "source", "price_source")
    list_select_related = ("gpu",)


@admin.register(CloudOffering)
class CloudOfferingAdmin(PriceHistoryAdmin[CloudOffering]):
    price_kind = "cloud"
    list_display = (
        "provider",
        "instance_type",
        "region",
        "gpu",
        "gpu_count",
        "term",
        "price_per_hour",
        "currency",
        "as_of",
        "is_estimate",
    )
    list_filter = ("provider", "term", "gpu", "currency", "is_estimate")
    search_fields = ("key", "provider", "instance_type", "region", "source")
    list_select_related = ("gpu",)


@admin.register(ApiOffering)
class ApiOfferingAdmin(PriceHistoryAdmin[ApiOffering]):
    price_kind = "api"
    list_display = (
        "provider",
        "model",
        "region",
        "jurisdiction",
        "data_country",
        "price_input_per_million",
        "price_output_per_million",
        "currency",
        "as_of",
        "is_estimate",
    )
    list_filter = ("provider", "model", "jurisdiction", "currency", "is_estimate")
    search_fields = ("key", "provider", "model", "region", "source")


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin[Site]):
    list_display = (
        "name",
        "kind",
        "country",
        "electricity_price_per_kwh",
        "pue",
        "colocation_per_kw_month",
        "rack_power_limit_kw",
        "currency",
        "as_of",
    )
    list_filter = ("kind", "country", "currency", "is_estimate")
    search_fields = ("key", "name", "source")


@admin.register(CloudRegion)
class CloudRegionAdmin(admin.ModelAdmin[CloudRegion]):
    list_display = ("provider", "region", "pue", "carbon_g_per_kwh", "as_of", "is_estimate")
    list_filter = ("provider", "is_estimate")
    search_fields = ("key", "provider", "region", "source")


@admin.register(ServerAvailability)
class ServerAvailabilityAdmin(admin.ModelAdmin[ServerAvailability]):
    list_display = (
        "server",
        "units_in_stock",
        "lead_time_weeks",
        "lead_time_weeks_max",
        "install_days",
        "as_of",
        "is_estimate",
    )
    list_filter = ("is_estimate",)
    list_select_related = ("server__gpu",)
    search_fields = ("server__key", "server__sku", "source")


@admin.register(CloudAvailability)
class CloudAvailabilityAdmin(admin.ModelAdmin[CloudAvailability]):
    list_display = ("offering", "obtained", "lead_days", "minimum_days", "as_of", "is_estimate")
    list_filter = ("obtained", "is_estimate")
    list_select_related = ("offering",)
    search_fields = ("offering__key", "note", "source")


@admin.register(InfrastructureItem)
class InfrastructureItemAdmin(PriceHistoryAdmin[InfrastructureItem]):
    price_kind = "items"
    list_display = ("name", "category", "unit", "price", "currency", "as_of", "is_estimate")
    list_filter = ("category", "unit", "currency", "is_estimate")
    search_fields = ("key", "name", "source")


@admin.register(FxRate)
class FxRateAdmin(PriceHistoryAdmin[FxRate]):
    price_kind = "fx"
    list_display = ("base", "quote", "rate", "as_of", "is_estimate")
    list_filter = ("base", "quote", "is_estimate")
    search_fields = ("source",)
    date_hierarchy = "as_of"


@admin.register(PriceChange)
class PriceChangeAdmin(WrittenOnceAdmin[PriceChange]):
    """History is written by the catalog writer only; the admin shows it."""

    list_display = (
        "kind",
        "key",
        "old_value",
        "new_value",
        "currency",
        "effective_from",
        "changed_by",
        "changed_at",
    )
    list_filter = ("kind", "currency")
    search_fields = ("key", "source")
    date_hierarchy = "effective_from"


@admin.register(PriceImport)
class PriceImportAdmin(admin.ModelAdmin[PriceImport]):
    list_display = ("filename", "kind", "status", "uploaded_by", "created_at", "decided_at")
    list_filter = ("kind", "status")
    exclude = ("content",)
    readonly_fields = ("kind", "filename", "uploaded_by", "created_at", "decided_at", "summary")


@admin.register(StalePriceNotice)
class StalePriceNoticeAdmin(admin.ModelAdmin[StalePriceNotice]):
    list_display = ("sent_on", "stale_count", "recipient_count")


# --- configure to order (docs/configure.md) ---------------------------------------------


@admin.register(Component)
class ComponentAdmin(PriceHistoryAdmin[Component]):
    price_kind = "components"
    list_display = (
        "part_number",
        "manufacturer",
        "role",
        "name",
        "list_price",
        "currency",
        "typical_w",
        "max_w",
        "price_is_estimate",
        "is_estimate",
    )
    list_filter = ("role", "manufacturer", "price_is_estimate", "is_estimate")
    search_fields = ("part_number", "name", "source")


@admin.register(ChassisRules)
class ChassisRulesAdmin(admin.ModelAdmin[ChassisRules]):
    list_display = ("server", "fixed", "cpu_sockets", "memory_slots", "psu_bays", "psu_redundancy")
    list_filter = ("fixed", "psu_redundancy", "is_estimate")
    list_select_related = ("server",)


@admin.register(ChassisDefault)
class ChassisDefaultAdmin(admin.ModelAdmin[ChassisDefault]):
    list_display = ("server", "position", "component", "quantity", "is_estimate")
    list_filter = ("server",)
    list_select_related = ("server", "component")
    autocomplete_fields = ("component",)


@admin.register(PriceTier)
class PriceTierAdmin(admin.ModelAdmin[PriceTier]):
    list_display = ["key", "name", "name_nl", "position"]


@admin.register(PriceBookRow)
class PriceBookRowAdmin(admin.ModelAdmin[PriceBookRow]):
    """Rows are imported and exported with the price lists (/catalog/import/)."""

    list_display = [
        "key",
        "tier",
        "catalog_key",
        "category",
        "discount_pct",
        "net_price",
        "currency",
        "valid_from",
        "valid_to",
    ]
    list_filter = ["tier", "category"]
    search_fields = ["key", "catalog_key", "note"]
