from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from common.http import AuthenticatedHttpRequest

from . import selectors, services
from .audience import OWN_PRICE_KINDS, OWN_PRICE_SOURCE, sees_internal_prices
from .forms import PriceImportForm
from .models import ImportStatus, PriceImport, PriceKind, ServerModel, past_sale_life
from .schema import PRICE_SPECS_BY_KIND

# Rows per category shown on a preview page; the counts are always complete.
PREVIEW_ROWS = 500


@require_safe
def catalog_overview(request: HttpRequest) -> HttpResponse:
    servers = list(selectors.server_list())
    context = {
        "gpus": selectors.gpu_list(),
        "servers": servers,
        "past_sale_life": past_sale_life(servers),
        "offerings": selectors.cloud_offering_list(),
        "apis": selectors.api_offering_list(),
        "sites": selectors.site_list(),
        "items": selectors.item_list(),
        "fx": selectors.latest_fx_rate("EUR", "USD"),
        "stale_after_days": settings.PRICE_STALE_AFTER_DAYS,
        # Own list prices' dates, ages and estimate marks are for staff and sales only.
        "internal": sees_internal_prices(request.user),
        "own_price_source": OWN_PRICE_SOURCE,
    }
    return render(request, "catalog/overview.html", context)


def _import_page(
    request: HttpRequest,
    form: PriceImportForm,
    preview: services.ImportPreview | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "form": form,
        "preview": preview,
        "imports": selectors.recent_imports(),
        "kinds": PriceKind.choices,
        "max_bytes": settings.PRICE_IMPORT_MAX_BYTES,
        "max_rows": settings.PRICE_IMPORT_MAX_ROWS,
        "preview_rows": PREVIEW_ROWS,
    }
    return render(request, "catalog/import.html", context, status=status)


@staff_member_required
@require_http_methods(["GET", "POST"])
def price_import(request: AuthenticatedHttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _import_page(request, PriceImportForm())
    form = PriceImportForm(request.POST, request.FILES)
    if not form.is_valid():  # refused uploads are 400s, with every reason on the page
        return _import_page(request, form, status=400)
    upload = form.cleaned_data["file"]
    preview, price_import = services.create_price_import(
        kind=form.cleaned_data["kind"],
        filename=upload.name,
        data=upload.read(),
        uploaded_by=request.user,
    )
    if price_import is None:
        return _import_page(request, form, preview, status=400)
    return redirect("catalog:import_detail", pk=price_import.pk)


def _detail_page(
    request: HttpRequest,
    price_import: PriceImport,
    preview: services.ImportPreview | None = None,
) -> HttpResponse:
    pending = price_import.status == ImportStatus.PENDING
    if preview is None and pending:
        preview = services.pending_preview(price_import)
    context = {
        "price_import": price_import,
        "pending": pending,
        "preview": preview,
        "preview_rows": PREVIEW_ROWS,
    }
    return render(request, "catalog/import_detail.html", context)


@staff_member_required
@require_safe
def price_import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    price_import = get_object_or_404(PriceImport, pk=pk)
    return _detail_page(request, price_import)


@staff_member_required
@require_POST
def price_import_apply(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    price_import = get_object_or_404(PriceImport.objects.defer("content"), pk=pk)
    try:
        outcome = services.apply_price_import(price_import_id=pk, user=request.user)
    except services.PriceImportError as exc:
        price_import.refresh_from_db()
        return _detail_page(request, price_import, exc.preview)
    if outcome.applied:
        assert outcome.preview is not None
        counts = outcome.preview.counts()
        messages.success(
            request,
            _("Import applied: %(new)d new, %(changed)d changed, %(unchanged)d unchanged.")
            % counts,
        )
    else:
        messages.warning(
            request,
            _("This import was already %(status)s; nothing was changed.")
            % {"status": ImportStatus(outcome.status).label},
        )
    return redirect("catalog:import_detail", pk=pk)


@staff_member_required
@require_POST
def price_import_discard(request: HttpRequest, pk: int) -> HttpResponse:
    get_object_or_404(PriceImport.objects.defer("content"), pk=pk)
    if services.discard_price_import(price_import_id=pk):
        messages.success(request, _("Import discarded; nothing was changed."))
    else:
        messages.warning(request, _("This import was no longer pending; nothing was changed."))
    return redirect("catalog:import")


@staff_member_required
@require_safe
def price_export(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind", "all")
    file_format = request.GET.get("format", "xlsx" if kind == "all" else "csv")
    if kind not in {"all", *PRICE_SPECS_BY_KIND} or file_format not in {"csv", "xlsx"}:
        return HttpResponseBadRequest(
            _("Choose kind=all, cloud, servers, items or fx and format=csv or xlsx.")
        )
    export = services.export_price_list(kind=kind, file_format=file_format)
    response = HttpResponse(export.content, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


@require_safe
def price_history(request: HttpRequest, kind: str, key: str) -> HttpResponse:
    if kind not in PRICE_SPECS_BY_KIND or PRICE_SPECS_BY_KIND[kind].price_field is None:
        raise Http404  # a price book keeps no history (its rows have validity dates)
    row = selectors.current_price_row(kind, key)
    history = selectors.price_history(kind, key)
    if row is None and not history:
        raise Http404
    spec = PRICE_SPECS_BY_KIND[kind]
    context: dict[str, Any] = {
        "kind": kind,
        "kind_label": PriceKind(kind).label,
        "key": key,
        "row": row,
        "price": getattr(row, spec.price_field or "", None) if row else None,
        "currency": (spec.history_currency(vars(row)) if row else None),
        "history": history,
        "stale_after_days": settings.PRICE_STALE_AFTER_DAYS,
        # Who changed a price and from which file is for staff; everyone else reads
        # "staff" and the kind of change.
        "show_authors": request.user.is_staff,
        # An own list price's date, age and estimate mark are internal (catalog/audience.py);
        # a third-party price shows them to everyone.
        "internal_flags": kind not in OWN_PRICE_KINDS or sees_internal_prices(request.user),
        "estimate": _price_is_estimate(row),
        "own_price_source": OWN_PRICE_SOURCE,
    }
    return render(request, "catalog/price_history.html", context)


def _price_is_estimate(row: object) -> bool:
    """Whether a row's price is an estimate: a server's price has its own flag (its row's
    `is_estimate` is about the specifications)."""
    if isinstance(row, ServerModel):
        return row.price_is_estimate
    return bool(getattr(row, "is_estimate", False))
