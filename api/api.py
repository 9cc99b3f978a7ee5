"""The JSON API, /api/v1/ (django-ninja: OpenAPI 3.1 generated from the Pydantic schemas).

Endpoints are thin: they parse input, call the same services, selectors and engine as the
web pages, and shape the answer. Errors are RFC 9457 problem details (api.problems).
Sales endpoints need a personal API token (``Authorization: Bearer gtco_…``) of a sales
engineer; they see what the web pages show them (their teams' customers and quotes; staff
every team's) and nothing else.
"""

from collections.abc import Callable
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from ninja import NinjaAPI, Query, Router, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.pagination import LimitOffsetPagination, paginate
from ninja.security import HttpBearer
from pydantic import Field

from catalog.audience import OWN_PRICE_SOURCE, sees_internal_prices, source_name
from catalog.models import CloudOffering, FxRate, Gpu, InfrastructureItem, ServerModel, Site
from common.downloads import attachment
from quotes import exports as quote_exports
from quotes import selectors as quote_selectors
from quotes import services as quote_services
from quotes.models import Quote, QuoteRevision
from tco.presentation.downloads import XLSX_CONTENT_TYPE, workbook_filename
from tco.report.models import Report

from . import schemas as s
from .models import ApiToken
from .parser import BodyRefused, BoundedJsonParser
from .problems import PROBLEM_CONTENT_TYPE, field_path, problem
from .services import bearer_token, token_authenticate

# PostgreSQL text cannot hold NUL: such filters are refused as invalid input (422).
NO_NUL = r"^[^\x00]*$"
PROBLEMS = {400: s.Problem, 401: s.Problem, 403: s.Problem, 404: s.Problem, 422: s.Problem}
PUBLIC_PROBLEMS = {400: s.Problem, 404: s.Problem, 413: s.Problem, 422: s.Problem, 429: s.Problem}
SALES_PROBLEMS = {**PROBLEMS, 413: s.Problem, 429: s.Problem}
# The workbook endpoints answer a file, not JSON: their 200 is described here, once.
WORKBOOK_RESPONSES = {
    200: {
        "description": "An .xlsx workbook",
        "content": {XLSX_CONTENT_TYPE: {"schema": {"type": "string", "format": "binary"}}},
    }
}


class TokenAuth(HttpBearer):
    openapi_description = "A personal API token (create one at /api/tokens/)."

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        # The rate limiter has looked the token up already (unless limits are off).
        found = getattr(request, "api_token", None) or token_authenticate(token)
        if found is None:
            return None
        request.user = found.user
        return found


class ProblemDetailsAPI(NinjaAPI):
    """NinjaAPI whose schema documents error responses as application/problem+json."""

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> Any:
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        # The scenario document's schema is the model's (tco.scenario), not one of ninja's.
        components = schema["components"]["schemas"]
        components.update(s.scenario_components())
        components["QuoteCreate"]["properties"]["scenario"] = {
            "anyOf": [{"$ref": s.SCENARIO_REF}, {"type": "null"}],
            "description": "a scenario document, as for POST /estimate",
        }
        for path in schema["paths"].values():
            for operation in path.values():
                for code, response in operation.get("responses", {}).items():
                    content = response.get("content") or {}
                    if int(code) >= 400 and "application/json" in content:
                        response["content"] = {PROBLEM_CONTENT_TYPE: content["application/json"]}
                    if int(code) == 429:
                        response["headers"] = {
                            "Retry-After": {
                                "description": "seconds until the limit resets",
                                "schema": {"type": "string"},
                            }
                        }
        return schema


api = ProblemDetailsAPI(
    title="GPU TCO API",
    version="1.0.0",
    description=(
        "Buy GPU servers or rent cloud GPUs: estimates (the engine's verdict), the catalog "
        "with sources and dates, and the sales team's customers, quotes and leads. "
        "Errors are RFC 9457 problem details. See docs/api.md."
    ),
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url="/docs",
    parser=BoundedJsonParser(),
)


# --- errors as problem details ------------------------------------------------------------


@api.exception_handler(ValidationError)
def _validation(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = [
        {"field": field_path(e.get("loc", ())), "message": str(e.get("msg", "invalid"))}
        for e in exc.errors
    ]
    first = errors[0] if errors else {"field": None, "message": "invalid input"}
    return problem(
        422, f"{first['field'] or 'input'}: {first['message']}", field=first["field"], errors=errors
    )


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return problem(
        401,
        "Send a personal API token: Authorization: Bearer <token>.",
        headers={"WWW-Authenticate": "Bearer"},
    )


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    # Ninja wraps every parser error in "Cannot parse request body"; ours say why.
    if isinstance(exc.__cause__, BodyRefused):
        return problem(400, str(exc.__cause__))
    return problem(exc.status_code, str(exc))


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return problem(413, f"The request body is larger than {limit:,} bytes.")


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return problem(404, "No such resource (or not one your team can see).")


# --- estimate ---------------------------------------------------------------------------


def _scenario(data: object) -> Any:
    """The scenario document in ``data``, read by its schema, or a 400 naming the field."""
    from tco.analysis import AnalysisError, parse

    try:
        return parse(data)
    except AnalysisError as exc:
        raise ProblemError(
            400,
            str(exc),
            field=exc.path,
            errors=[{"field": field, "message": message} for field, message in exc.errors],
        ) from exc


def _scenario_body(request: HttpRequest) -> Any:
    """The request's body as a scenario document: the estimate endpoints read it through the
    scenario schema themselves, so that a bad document is answered like every scenario
    problem (400, naming the field); the body is parsed by the API's bounded parser."""
    try:
        data = api.parser.parse_body(request)
    except BodyRefused as exc:
        raise ProblemError(400, str(exc)) from exc
    except ValueError as exc:  # not JSON, or not UTF-8
        raise ProblemError(400, f"Cannot parse request body ({exc})") from exc
    return _scenario(data)


def _evaluate(document: Any) -> Any:
    """The document's analysis (tco.analysis), or a problem-details HttpError: 400 for the
    document's fault, 422 for what the engine cannot evaluate."""
    # The engine (numpy) is imported on the first estimate, not when the URLs load.
    from tco.analysis import OVERFLOW, SCENARIO, AnalysisError, analyse

    try:
        # Absurd inputs may overflow to inf/NaN; the result then shows them as null.
        return analyse(document)
    except AnalysisError as exc:
        if exc.code == SCENARIO:
            raise ProblemError(400, str(exc), field=exc.path) from exc
        if exc.code == OVERFLOW:
            raise ProblemError(422, f"The scenario cannot be evaluated: {exc}") from exc
        raise ProblemError(422, str(exc), field=exc.path) from exc


class ProblemError(Exception):
    def __init__(
        self,
        status: int,
        detail: str,
        field: str | None = None,
        errors: list[dict[str, Any]] | None = None,
    ):
        super().__init__(detail)
        self.status, self.detail, self.field, self.errors = status, detail, field, errors


@api.exception_handler(ProblemError)
def _problem(request: HttpRequest, exc: ProblemError) -> HttpResponse:
    return problem(exc.status, exc.detail, field=exc.field, errors=exc.errors)


@api.post(
    "/estimate",
    response={200: Report, **PUBLIC_PROBLEMS},
    tags=["estimate"],
    summary="Evaluate a scenario: the same JSON as `manage.py tco estimate`",
    openapi_extra=s.SCENARIO_BODY,
)
def estimate(request: HttpRequest) -> HttpResponse:
    analysis = _evaluate(_scenario_body(request))
    # The report's JSON form (tco/report): the response schema is the report's.
    return JsonResponse(analysis.report.to_json())


@api.post(
    "/estimate/workbook",
    response={200: None, **PUBLIC_PROBLEMS},
    tags=["estimate"],
    summary="The scenario's TCO model as an Excel workbook with live formulas",
    openapi_extra={
        **s.SCENARIO_BODY,
        "responses": WORKBOOK_RESPONSES,
    },
)
def estimate_workbook(request: HttpRequest) -> HttpResponse:
    analysis = _evaluate(_scenario_body(request))
    from tco.presentation.workbook import analysis_workbook

    # An anonymous estimate (the API's estimate needs no token) is public: own list prices
    # without their internal date and estimate mark (catalog/audience.py).
    content = analysis_workbook(analysis, internal=_sees_internal_prices(request))
    return _xlsx(content, analysis.report.scenario)


def _xlsx(content: bytes, name: str) -> HttpResponse:
    response = HttpResponse(content, content_type=XLSX_CONTENT_TYPE)
    response["Content-Disposition"] = attachment(workbook_filename(name))
    return response


class Pages(LimitOffsetPagination):
    """?limit= (1–100, default 100) and ?offset= (bounded: the database's OFFSET is a bigint)."""

    class Input(Schema):
        limit: int = Field(100, ge=1, le=100)
        offset: int = Field(0, ge=0, le=1_000_000)


# --- catalog ----------------------------------------------------------------------------

catalog = Router(tags=["catalog"])


class CatalogFilter(Schema):
    key: str | None = Field(None, pattern=NO_NUL, max_length=80, description="exact catalog key")
    is_estimate: bool | None = Field(None, description="only estimates (true) or not (false)")


def _sees_internal_prices(request: HttpRequest) -> bool:
    """Whether the caller reads the internal flags of our own list prices: a staff member or
    sales engineer, by a live API token or a signed-in session (catalog/audience.py)."""
    # The rate limiter has looked the token up already (unless limits are off).
    token = getattr(request, "api_token", None) or bearer_token(request)
    return sees_internal_prices(token.user if token is not None else request.user)


def _public_server(row: ServerModel) -> s.ServerOut:
    """A server as callers other than staff and sales read it: the name of its source without
    our remarks (as the catalog page shows it), our price list as the price's source, no
    date and no estimate flags (catalog/audience.py)."""
    return s.ServerOut.model_validate(row).model_copy(
        update={
            "source": source_name(row.source),
            "as_of": None,
            "is_estimate": None,
            "price_source": _own_price_source(),
            "price_as_of": None,
            "price_is_estimate": None,
        }
    )


def _public_item(row: InfrastructureItem) -> s.ItemOut:
    """An item as callers other than staff and sales read it: our price list as its source,
    without date and estimate flag (catalog/audience.py)."""
    hidden = {"source": _own_price_source(), "as_of": None, "is_estimate": None}
    return s.ItemOut.model_validate(row).model_copy(update=hidden)


def _own_price_source() -> str:
    """ "Our price list", in English like the rest of the catalog's data."""
    with translation.override("en"):
        return str(OWN_PRICE_SOURCE)


def _filtered(queryset: Any, filters: CatalogFilter, *, internal: bool = True) -> Any:
    """The rows the filters select; the estimate filter only where the caller may read the
    flag (own list prices: staff and sales only; for others it is ignored)."""
    if filters.key:
        queryset = queryset.filter(key=filters.key)
    if filters.is_estimate is not None and internal:
        queryset = queryset.filter(is_estimate=filters.is_estimate)
    return queryset


@catalog.get("/gpus", response={200: list[s.GpuOut], **PUBLIC_PROBLEMS})
@paginate(Pages)
def gpus(request: HttpRequest, filters: Query[CatalogFilter]) -> Any:
    return _filtered(Gpu.objects.order_by("key"), filters)


class ServerFilter(CatalogFilter):
    gpu: str | None = Field(None, pattern=NO_NUL, max_length=40, description="GPU key")
    vendor: str | None = Field(None, pattern=NO_NUL, max_length=40)


@catalog.get("/servers", response={200: list[s.ServerOut], **PUBLIC_PROBLEMS})
@paginate(Pages)
def servers(request: HttpRequest, filters: Query[ServerFilter]) -> Any:
    internal = _sees_internal_prices(request)
    rows = _filtered(
        ServerModel.objects.select_related("gpu").order_by("key"), filters, internal=internal
    )
    if filters.gpu:
        rows = rows.filter(gpu__key=filters.gpu)
    if filters.vendor:
        rows = rows.filter(vendor__iexact=filters.vendor)
    return [s.ServerOut.model_validate(row) if internal else _public_server(row) for row in rows]


class SiteFilter(CatalogFilter):
    country: str | None = Field(None, pattern=NO_NUL, max_length=2)


@catalog.get("/sites", response={200: list[s.SiteOut], **PUBLIC_PROBLEMS})
@paginate(Pages)
def sites(request: HttpRequest, filters: Query[SiteFilter]) -> Any:
    rows = _filtered(Site.objects.order_by("key"), filters)
    if filters.country:
        rows = rows.filter(country__iexact=filters.country)
    return rows


class OfferingFilter(CatalogFilter):
    provider: str | None = Field(None, pattern=NO_NUL, max_length=40)
    gpu: str | None = Field(None, pattern=NO_NUL, max_length=40, description="GPU key")
    term: str | None = Field(
        None, pattern=NO_NUL, max_length=20, description="on_demand, reserved_1y, …"
    )


@catalog.get("/cloud-offerings", response={200: list[s.CloudOfferingOut], **PUBLIC_PROBLEMS})
@paginate(Pages)
def cloud_offerings(request: HttpRequest, filters: Query[OfferingFilter]) -> Any:
    rows = _filtered(CloudOffering.objects.select_related("gpu").order_by("key"), filters)
    if filters.provider:
        rows = rows.filter(provider__iexact=filters.provider)
    if filters.gpu:
        rows = rows.filter(gpu__key=filters.gpu)
    if filters.term:
        rows = rows.filter(term=filters.term)
    return rows


class ItemFilter(CatalogFilter):
    category: str | None = Field(None, pattern=NO_NUL, max_length=20)


@catalog.get("/items", response={200: list[s.ItemOut], **PUBLIC_PROBLEMS})
@paginate(Pages)
def items(request: HttpRequest, filters: Query[ItemFilter]) -> Any:
    internal = _sees_internal_prices(request)
    rows = _filtered(InfrastructureItem.objects.order_by("key"), filters, internal=internal)
    if filters.category:
        rows = rows.filter(category=filters.category)
    return [s.ItemOut.model_validate(row) if internal else _public_item(row) for row in rows]


class FxFilter(Schema):
    base: str | None = Field(None, pattern=NO_NUL, max_length=3)
    quote: str | None = Field(None, pattern=NO_NUL, max_length=3)
    is_estimate: bool | None = None


@catalog.get("/fx-rates", response={200: list[s.FxRateOut], **PUBLIC_PROBLEMS})
@paginate(Pages)
def fx_rates(request: HttpRequest, filters: Query[FxFilter]) -> Any:
    rows = FxRate.objects.order_by("base", "quote", "-as_of")
    if filters.base:
        rows = rows.filter(base=filters.base.upper())
    if filters.quote:
        rows = rows.filter(quote=filters.quote.upper())
    if filters.is_estimate is not None:
        rows = rows.filter(is_estimate=filters.is_estimate)
    return rows


api.add_router("/catalog", catalog)


# --- sales (token auth, team-scoped as on the web pages) ----------------------------------


class Rows:
    """A queryset shaped row by row after the paginator sliced it (one page, one query)."""

    def __init__(self, queryset: Any, shape: Callable[[Any], dict[str, Any]]) -> None:
        self.queryset, self.shape = queryset, shape

    def __len__(self) -> int:
        return int(self.queryset.count())

    def __getitem__(self, page: slice) -> list[dict[str, Any]]:
        return [self.shape(row) for row in self.queryset[page]]


sales = Router(tags=["sales"], auth=TokenAuth())


def _token(request: HttpRequest) -> ApiToken:
    """The token TokenAuth accepted: django-ninja sets it as `request.auth`."""
    token = vars(request).get("auth")
    assert isinstance(token, ApiToken)
    return token


def _sales_user(request: HttpRequest, *, write: bool = False) -> Any:
    token = _token(request)
    if not quote_services.is_sales(token.user):
        raise HttpError(403, "The token's user is not a sales engineer.")
    if write and not token.can_write:
        raise HttpError(403, "This token is read-only; create a read-write token to do this.")
    return token.user


@sales.get("/me", response={200: s.TokenInfo, **SALES_PROBLEMS})
def me(request: HttpRequest) -> Any:
    token = _token(request)
    return {
        "name": token.name,
        "scope": token.scope,
        "user": token.user.get_username(),
        "sales": quote_services.is_sales(token.user),
    }


@sales.get("/customers", response={200: list[s.CustomerOut], **SALES_PROBLEMS})
@paginate(Pages)
def customers(request: HttpRequest) -> Any:
    user = _sales_user(request)
    return quote_selectors.customer_list(user=user).order_by("company", "pk")


class QuoteFilter(Schema):
    q: str | None = Field(
        None, pattern=NO_NUL, max_length=100, description="number, company, contact or email"
    )
    status: str | None = Field(
        None, pattern=NO_NUL, max_length=10, description="draft, sent, viewed, …"
    )


def _quote(row: dict[str, Any], quote: Quote) -> dict[str, Any]:
    return {
        "id": quote.public_id,
        "number": quote.number,
        "customer": quote.customer.public_id,
        "company": row["company"],
        "team": row["team"],
        "owner": row["owner"],
        "status": row["status"],
        "revision": row["revision"],
        "currency": row["currency"],
        "total": str(row["total"]),
        "valid_until": row["valid_until"],
        "created_at": row["created_at"],
    }


@sales.get("/quotes", response={200: list[s.QuoteOut], **SALES_PROBLEMS})
@paginate(Pages)
def quotes(request: HttpRequest, filters: Query[QuoteFilter]) -> Any:
    user = _sales_user(request)
    listed = quote_selectors.quote_list(
        user=user, search=filters.q or "", status=filters.status or ""
    ).prefetch_related("revisions__lines", "team")
    return Rows(listed, lambda q: _quote(quote_exports.quote_row(q), q))


def _option_figures(revision: QuoteRevision) -> dict[str, Any]:
    """An option's analysis figures: its deal's (a draft) or as frozen (sent); a leased
    option's payment terms with them (frozen with a sent option, analysis or not)."""
    if revision.is_draft:
        tco = quote_services.deal_analysis(revision=revision)
        figures = quote_services.analysis_figures(tco, revision.lease_term_months)
        return {**figures, "lease": quote_services.lease_payment(figures["lease"])}
    snapshot = revision.snapshot or {}
    figures = quote_services.analysis_figures(
        snapshot.get("tco"), quote_services.lease_term(snapshot)
    )
    return {**figures, "lease": snapshot.get("lease")}


def _priced(revision: QuoteRevision) -> dict[str, Any]:
    """What a revision and each of its options report alike: totals, lines, analysis."""
    lines = list(revision.lines.order_by("position"))
    totals = quote_services.revision_totals(revision, lines)
    return {
        "totals": {
            "currency": revision.currency,
            "subtotal": str(totals.subtotal),
            "vat": str(totals.vat),
            "total": str(totals.total),
            "optional_subtotal": str(totals.optional_subtotal),
        },
        "lines": [quote_services.line_snapshot(line) for line in lines],
        "analysis": _option_figures(revision),
    }


def _option(revision: QuoteRevision) -> dict[str, Any]:
    return {
        "letter": revision.option_letter,
        "name": revision.option_name,
        "status": revision.status,
        **_priced(revision),
    }


def _revision(revision: QuoteRevision) -> dict[str, Any]:
    alternatives = revision.alternatives.order_by("option_letter")
    return {
        "id": revision.public_id,
        "quote": revision.quote.number,
        "letter": revision.letter,
        "status": revision.status,
        "currency": revision.currency,
        "vat_rate": str(revision.vat_rate),
        "vat_kind": revision.vat_kind,
        "valid_until": revision.valid_until,
        "created_at": revision.created_at,
        "sent_at": revision.sent_at,
        **_priced(revision),
        "has_analysis": bool(revision.tco),
        "option_name": revision.option_name,
        "options": [_option(option) for option in alternatives],
    }


@sales.get("/quotes/{quote_id}", response={200: s.QuoteDetailOut, **SALES_PROBLEMS})
def quote_detail(request: HttpRequest, quote_id: UUID) -> Any:
    user = _sales_user(request)
    quote = quote_selectors.quote_detail(user=user, public_id=quote_id)
    row = quote_exports.quote_row(quote)
    return {**_quote(row, quote), "revisions": [_revision(r) for r in quote.revisions.all()]}


@sales.get("/revisions/{revision_id}", response={200: s.RevisionOut, **SALES_PROBLEMS})
def revision_detail(request: HttpRequest, revision_id: UUID) -> Any:
    user = _sales_user(request)
    return _revision(quote_selectors.revision_for_user(user=user, public_id=revision_id))


@sales.get(
    "/revisions/{revision_id}/workbook",
    response={200: None, **SALES_PROBLEMS},
    summary="The revision's TCO analysis as an Excel workbook with live formulas",
    openapi_extra={"responses": WORKBOOK_RESPONSES},
)
def revision_workbook(request: HttpRequest, revision_id: UUID) -> HttpResponse:
    from quotes.workbook import revision_workbook as build

    user = _sales_user(request)
    revision = quote_selectors.revision_for_user(user=user, public_id=revision_id)
    try:
        content, name = build(revision=revision)
    except quote_services.QuoteError as exc:
        raise HttpError(404, str(exc)) from exc
    return _xlsx(content, name)


@sales.post("/quotes", response={201: s.QuoteDetailOut, **SALES_PROBLEMS})
def quote_create(request: HttpRequest, payload: s.QuoteCreate) -> Any:
    user = _sales_user(request, write=True)
    if (payload.calculator_query is None) == (payload.scenario is None):
        raise ProblemError(
            400, "Give exactly one of calculator_query and scenario.", field="calculator_query"
        )
    customer = quote_selectors.customer_list(user=user).filter(public_id=payload.customer).first()
    if customer is None:
        raise ProblemError(400, "No such customer in your teams.", field="customer")
    try:
        with transaction.atomic():
            if payload.calculator_query is not None:
                quote = quote_services.quote_create_from_calculator(
                    customer=customer, owner=user, query=payload.calculator_query
                )
            else:
                document = _scenario(payload.scenario)
                _evaluate(document)  # problems named by field before anything is written
                quote = quote_services.quote_create_from_scenario(
                    customer=customer,
                    owner=user,
                    document=document.model_dump(mode="json", exclude_unset=True),
                )
    except quote_services.QuoteError as exc:
        raise ProblemError(400, str(exc), field="calculator_query") from exc
    quote = quote_selectors.quote_detail(user=user, public_id=quote.public_id)
    row = quote_exports.quote_row(quote)
    return Status(
        201, {**_quote(row, quote), "revisions": [_revision(r) for r in quote.revisions.all()]}
    )


@sales.get("/leads", response={200: list[s.LeadOut], **SALES_PROBLEMS})
@paginate(Pages)
def leads(request: HttpRequest) -> Any:
    user = _sales_user(request)
    return Rows(
        quote_selectors.lead_list(user=user),  # the user's teams' leads (staff: all)
        lambda lead: {**quote_exports.lead_row(lead), "id": lead.public_id},
    )


api.add_router("/sales", sales)
