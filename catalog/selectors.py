"""Reads of the catalog, with the joins each page needs (one query per table)."""

from django.db.models import QuerySet

from .models import CloudOffering, FxRate, Gpu, InfrastructureItem, ServerModel, Site


def gpu_list() -> QuerySet[Gpu]:
    return Gpu.objects.order_by("-bf16_tflops", "name")


def server_list() -> QuerySet[ServerModel]:
    return ServerModel.objects.select_related("gpu").order_by("gpu__bf16_tflops", "vendor", "sku")


def cloud_offering_list() -> QuerySet[CloudOffering]:
    return CloudOffering.objects.select_related("gpu").order_by("gpu__name", "provider", "term")


def site_list() -> QuerySet[Site]:
    return Site.objects.order_by("name")


def item_list() -> QuerySet[InfrastructureItem]:
    return InfrastructureItem.objects.order_by("category", "name")


def latest_fx_rate(base: str, quote: str) -> FxRate | None:
    return FxRate.objects.filter(base=base, quote=quote).order_by("-as_of").first()
