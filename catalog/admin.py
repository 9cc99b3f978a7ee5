from django.contrib import admin

from .models import CloudOffering, FxRate, Gpu, InfrastructureItem, ServerModel, Site

PROVENANCE_FIELDS = ("source", "source_url", "as_of", "is_estimate")


@admin.register(Gpu)
class GpuAdmin(admin.ModelAdmin):
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


@admin.register(ServerModel)
class ServerModelAdmin(admin.ModelAdmin):
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
        "as_of",
    )
    list_filter = ("vendor", "gpu", "cooling", "currency", "price_is_estimate", "is_estimate")
    search_fields = ("key", "sku", "name", "source", "price_source")
    list_select_related = ("gpu",)


@admin.register(CloudOffering)
class CloudOfferingAdmin(admin.ModelAdmin):
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


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
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


@admin.register(InfrastructureItem)
class InfrastructureItemAdmin(admin.ModelAdmin):
    list_display = ("name", "category", "unit", "price", "currency", "as_of", "is_estimate")
    list_filter = ("category", "unit", "currency", "is_estimate")
    search_fields = ("key", "name", "source")


@admin.register(FxRate)
class FxRateAdmin(admin.ModelAdmin):
    list_display = ("base", "quote", "rate", "as_of", "is_estimate")
    list_filter = ("base", "quote", "is_estimate")
    search_fields = ("source",)
    date_hierarchy = "as_of"
