from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from . import selectors


@require_GET
def catalog_overview(request: HttpRequest) -> HttpResponse:
    context = {
        "gpus": selectors.gpu_list(),
        "servers": selectors.server_list(),
        "offerings": selectors.cloud_offering_list(),
        "sites": selectors.site_list(),
        "items": selectors.item_list(),
        "fx": selectors.latest_fx_rate("EUR", "USD"),
        "stale_after_days": settings.PRICE_STALE_AFTER_DAYS,
    }
    return render(request, "catalog/overview.html", context)
