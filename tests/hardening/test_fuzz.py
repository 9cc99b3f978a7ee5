"""No input gives a 500: every public and sales URL, driven with generated requests.

Hypothesis generates paths (valid ids and tokens, or hostile text), query parameters and
form bodies (the forms' own field names and random ones; NUL and other control characters,
huge numbers, NaN/inf, other scripts' digits, long values, repeated and missing keys) and
uploaded files, and sends them through Django's test client in-process against the suite's
PostgreSQL, under the production settings that change behaviour: HTTPS redirect and
secure cookies, hashed static files (ManifestStaticFilesStorage after `collectstatic`),
DEBUG off. Any 500 fails the test with the request that caused it.

`make test` sends FUZZ_REQUESTS (default 2,000) requests, the same ones every run; `make
fuzz` sends 20,000 new ones (FUZZ_RANDOM=1) and prints the count of each status.

The bounds of issue 32 each have their class of generated input: JSON scenario bodies for
the API's estimate and workbook (offering lists up to three times the bound, with repeats
and formula text in overrides and names; objects nested up to 60 deep; now and then a body
over the upload limit), hostile X-Forwarded-For chains, price files built to exhaust a
worker (a zip bomb, a 16,384-column sheet, a 50,000-column CSV header), names with line
breaks for the buyer's answers, sign-in and password-reset posts, the approval decision,
the lead confirmation link and the buyer's thank-you and "viewed" URLs. Besides "no 500",
every response keeps its Content-Disposition short and ASCII, and every workbook served
holds no formula made of text that came from outside.
"""

from __future__ import annotations

import io
import json
import os
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import openpyxl
import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client, override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.services import export_price_list
from quotes import services
from quotes.models import Team
from tco.inputs.forms import CalculatorForm
from tco.inputs.presets import PRESETS, preset_data
from tco.limits import MAX_CLOUD_OFFERINGS
from tco.presentation.downloads import XLSX_CONTENT_TYPE

pytestmark = pytest.mark.django_db

REQUESTS = int(os.environ.get("FUZZ_REQUESTS", "2000"))
BATCH = 10  # requests per generated example

HOSTILE = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\x01\x1b[31m",
    "\x7f",
    "\u0085",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "1e308",
    "-1e308",
    "1e-400",
    "9" * 400,
    "1" * 5000,
    "-0",
    "0",
    "-1",
    "3.5",
    "1.234,5",
    "1,234.5",
    "1_000",
    "\u0661\u0662\u0663",
    "\U0001d7d9",
    "\u202egnp.exe",
    "\ufeff",
    "😀" * 50,
    "<script>alert(1)</script>",
    "' OR 1=1--",
    "%00",
    "../../etc/passwd",
    '=HYPERLINK("http://evil.example")',
    "Jan\r\nBcc: everyone@evil.example",
    "CTO\n\u2028X-Priority: 1",
    "true",
    "on",
    "auto",
    "2026-02-30",
    "9999-12-31",
    str(uuid.uuid4()),
    *[preset.slug for preset in PRESETS],
]
CONTROLS = st.builds(
    lambda before, control, after: before + control + after,
    st.sampled_from(["", "aws", "7", "EUR", "preset"]),
    st.sampled_from(["\x00", "\x01", "\x08", "\x1b", "\x7f", "\x85", "\x9f"]),
    st.sampled_from(["", "x", "-od", "1"]),
)
VALUES = st.one_of(
    st.sampled_from(HOSTILE),
    CONTROLS,
    st.text(max_size=40),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
FIELD_NAMES = sorted(
    {
        *CalculatorForm.base_fields,
        "q",
        "status",
        "calc",
        "kind",
        "format",
        "language",
        "next",
        "name",
        "company",
        "email",
        "consent",
        "query",
        "idempotency_key",
        "started",
        "website",
        "decision",
        "customer",
        "contact_name",
        "country",
        "vat_number",
        "currency",
        "catalog_key",
        "quantity",
        "discount_pct",
        "optional",
        "valid_until",
        "terms",
        "username",
        "password",
        "csrfmiddlewaretoken",
        "role",
        "po_number",
        "pdf_sha256",
        "owner",
        "team",
        "new_name",
    }
)
# True nine times in ten (Hypothesis favours the first of a sampled list when shrinking).
MOSTLY = st.sampled_from([True] * 9 + [False])
PARAMS = st.dictionaries(
    st.one_of(st.sampled_from(FIELD_NAMES), st.text(min_size=1, max_size=12)),
    st.lists(VALUES, min_size=1, max_size=3),
    max_size=8,
)


@dataclass
class Site:
    """The ids, tokens and users the generated requests can use."""

    sales: User
    staff: User
    quote_id: str
    revision_id: str
    render_id: str
    line_id: int
    buyer_token: str
    lead_token: str
    confirm_token: str
    bombs: dict[str, bytes]
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)


# (method, path template, who): {id}, {rev}, {render}, {line}, {token}, {lead} are filled
# with a valid value or with generated text.
ENDPOINTS: list[tuple[str, str, str]] = [
    ("GET", "/", "anon"),
    ("GET", "/ping", "anon"),
    ("GET", "/healthz", "anon"),
    ("GET", "/language/", "anon"),
    ("GET", "/calculator/", "anon"),
    ("GET", "/calculator/", "sales"),
    ("GET", "/catalog/", "anon"),
    ("GET", "/catalog/prices/{kind}/{key}/", "anon"),
    ("GET", "/accounts/login/", "anon"),
    ("POST", "/accounts/login/", "anon"),
    ("GET", "/quotes/p/{token}/", "anon"),
    ("POST", "/quotes/p/{token}/decide/", "anon"),
    ("GET", "/quotes/p/{token}/pdf/", "anon"),
    ("GET", "/quotes/analysis-pdf/form/", "anon"),
    ("POST", "/quotes/analysis-pdf/", "anon"),
    ("GET", "/quotes/analysis-pdf/{lead}/", "anon"),
    ("GET", "/quotes/analysis-pdf/{lead}/pdf/", "anon"),
    ("GET", "/quotes/", "sales"),
    ("GET", "/quotes/", "anon"),
    ("GET", "/quotes/new/", "sales"),
    ("POST", "/quotes/new/", "sales"),
    ("GET", "/quotes/customers/", "sales"),
    ("GET", "/quotes/customers/new/", "sales"),
    ("POST", "/quotes/customers/new/", "sales"),
    ("GET", "/quotes/leads/", "sales"),
    ("GET", "/quotes/{id}/", "sales"),
    ("POST", "/quotes/revisions/{rev}/lines/", "sales"),
    ("POST", "/quotes/revisions/{rev}/lines/{line}/delete/", "sales"),
    ("POST", "/quotes/revisions/{rev}/edit/", "sales"),
    ("POST", "/quotes/revisions/{rev}/send/", "sales"),
    ("POST", "/quotes/revisions/{rev}/resend/", "sales"),
    ("POST", "/quotes/revisions/{rev}/revise/", "sales"),
    ("POST", "/quotes/revisions/{rev}/reprice/", "sales"),
    ("GET", "/quotes/revisions/{rev}/status/", "sales"),
    ("GET", "/quotes/pdf/{render}/", "sales"),
    ("GET", "/catalog/import/", "staff"),
    ("POST", "/catalog/import/", "staff"),
    ("GET", "/catalog/import/{pk}/", "staff"),
    ("POST", "/catalog/import/{pk}/apply/", "staff"),
    ("POST", "/catalog/import/{pk}/discard/", "staff"),
    ("GET", "/catalog/export/", "staff"),
    ("GET", "/admin/catalog/cloudoffering/", "staff"),
    ("POST", "/quotes/p/{token}/accept/", "anon"),
    ("GET", "/quotes/p/{token}/accepted.pdf", "anon"),
    ("GET", "/quotes/revisions/{rev}/accepted.pdf", "sales"),
    ("POST", "/quotes/leads/{id}/", "sales"),
    ("POST", "/quotes/onboarding/team/", "sales"),
    ("POST", "/quotes/onboarding/team/", "staff"),
    # Issue 32's classes.
    ("JSON", "/api/v1/estimate", "anon"),
    ("JSON", "/api/v1/estimate/workbook", "anon"),
    ("POST", "/accounts/password_reset/", "anon"),
    ("GET", "/quotes/p/{token}/done/", "anon"),
    ("POST", "/quotes/p/{token}/viewed/", "anon"),
    ("GET", "/quotes/analysis-pdf/confirm/{confirm}/", "anon"),
    ("POST", "/quotes/analysis-pdf/confirm/{confirm}/", "anon"),
    ("POST", "/quotes/revisions/{rev}/approval/request/", "sales"),
    ("POST", "/quotes/revisions/{rev}/approval/decide/", "sales"),
]

# Chains a client may send; only the last TRUSTED_PROXY_COUNT (1) entries are believed.
FORWARDED = [
    "203.0.113.9",
    "198.51.100.7",
    "1.1.1.1, 203.0.113.9",
    "not-an-address",
    "",
    "2001:db8::1",
    ", , ,",
    "203.0.113.9, " * 200,
]
FORMULA_TEXT = ['=HYPERLINK("http://evil.example")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3"]
BASE_DOCUMENT = {
    "name": "fuzz",
    "workload": {"kind": "finetune", "params_billion": 8, "tokens_billion": 2},
    "server": "smc-821ge-tnhr-h100",
    "site": "nl-colo-amsterdam",
    "cloud_offerings": ["aws-p5-48xlarge-od"],
}
OFFERING_KEYS = ["aws-p5-48xlarge-od", "coreweave-h100-8x-od", "no-such-offering"]


def _nested(depth: int) -> Any:
    value: Any = 1
    for level in range(depth):
        value = {"a": value} if level % 2 else [value]
    return value


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A scenario body: the valid base with a few of issue 32's hostile changes."""
    document: dict[str, Any] = {**BASE_DOCUMENT}
    if draw(st.booleans()):
        entries = st.one_of(
            st.sampled_from(OFFERING_KEYS),
            st.builds(
                lambda key, field, text: {"key": key, field: text},
                st.sampled_from(OFFERING_KEYS),
                st.sampled_from(["provider", "instance_type", "region", "price_per_hour"]),
                st.one_of(st.sampled_from(FORMULA_TEXT), VALUES),
            ),
        )
        size = draw(st.sampled_from([0, 1, 2, MAX_CLOUD_OFFERINGS, MAX_CLOUD_OFFERINGS + 1]))
        size = draw(st.sampled_from([size, 3 * MAX_CLOUD_OFFERINGS]))
        first = draw(st.lists(entries, min_size=1, max_size=3))
        document["cloud_offerings"] = (
            (first * size)[:size]
            if draw(st.booleans())
            else [{"key": "aws-p5-48xlarge-od", "price_per_hour": 50 + i} for i in range(size)]
        )
    if draw(st.booleans()):
        document["name"] = draw(
            st.one_of(VALUES, st.sampled_from(FORMULA_TEXT), st.just("ä" * 300))
        )
    if draw(st.booleans()):
        field_name = draw(st.sampled_from(["finance", "workload", "demand", "constraints"]))
        document[field_name] = {"x": _nested(draw(st.integers(min_value=0, max_value=60)))}
    if draw(st.integers(min_value=0, max_value=49)) == 0:  # now and then over the limit
        document["name"] = "x" * 3_000_000
    return json.dumps(document)


@st.composite
def requests(draw: st.DrawFn, site: Site) -> dict[str, Any]:
    method, template, who = draw(st.sampled_from(ENDPOINTS))
    valid = {
        "id": site.quote_id,
        "rev": site.revision_id,
        "render": site.render_id,
        "line": str(site.line_id),
        "token": site.buyer_token,
        "lead": site.lead_token,
        "confirm": site.confirm_token,
        "kind": draw(st.sampled_from(["cloud", "servers", "items", "fx"])),
        "key": draw(st.sampled_from(["aws-p5-48xlarge-od", "EUR-USD", "nvidia-dgx-h100"])),
        "pk": "1",
    }
    path = template
    for name, good in valid.items():
        if "{" + name + "}" in path:
            value = good if draw(st.booleans()) else draw(VALUES)
            path = path.replace("{" + name + "}", quote(value, safe="") or "x")
    files = {}
    if template == "/catalog/import/" and method == "POST" and draw(st.booleans()):
        name = draw(st.sampled_from(["p.csv", "p.xlsx", "p.txt", "p", "\x00.csv"]))
        if draw(st.integers(min_value=0, max_value=3)) == 0:  # built to exhaust a worker
            name = draw(st.sampled_from(sorted(site.bombs)))
            files["file"] = SimpleUploadedFile(name, site.bombs[name])
        elif draw(st.booleans()):
            content = export_price_list(kind="cloud", file_format="csv").content
            cut = draw(st.integers(min_value=0, max_value=len(content)))
            content = content[:cut] + draw(st.binary(max_size=64)) + content[cut:]
        else:
            content = draw(st.binary(max_size=2000))
        if "file" not in files:
            files["file"] = SimpleUploadedFile(name, content)
    params = draw(PARAMS)
    if template == "/calculator/" and draw(MOSTLY):
        # A real result URL with a few fields changed: reaches the engine, not only the form.
        base = preset_data(draw(st.sampled_from([p.slug for p in PRESETS]))) or {}
        params = {
            **{k: v if isinstance(v, list) else [str(v)] for k, v in base.items()},
            **dict(list(params.items())[:2]),
        }
    return {
        "method": method,
        "path": path,
        "who": who,
        "params": params,
        "files": files,
        "body": draw(documents()) if method == "JSON" else None,
        "forwarded": draw(st.sampled_from(FORWARDED)),
        "https": draw(MOSTLY),  # some plain http (redirected)
        "htmx": draw(st.booleans()),
    }


@pytest.fixture
def site(seed_catalog: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    from django.contrib.auth.models import Group

    sales = User.objects.create_user("fuzz-sales", password="pw")
    sales.groups.add(Group.objects.get_or_create(name="sales")[0])
    team = Team.objects.create(name="Fuzz")
    team.members.add(sales)
    staff = User.objects.create_user("fuzz-staff", is_staff=True, is_superuser=True)
    customer = services.customer_create(
        team=team,
        company="Fuzz BV",
        contact_name="F",
        email="f@buyer.example",
        country="NL",
        vat_number="",
        language="en",
    )
    sent = services.quote_create_from_calculator(
        customer=customer, owner=sales, query="preset=serve-70b"
    )
    revision = sent.revisions.get()
    services.quote_send(revision=revision, actor=sales, idempotency_key=str(uuid.uuid4()))
    draft = services.quote_revise(revision=revision, actor=sales)
    lead = services.lead_confirm(
        lead=services.lead_request_pdf(
            name="Kim",
            company="Co",
            email="kim@example.com",
            query="preset=finetune-8b",
            language="en",
            ip_address=None,
            idempotency_key=str(uuid.uuid4()),
        )
    )
    unconfirmed = services.lead_request_pdf(
        name="Lou",
        company="Co",
        email="lou@example.com",
        query="preset=finetune-8b",
        language="en",
        ip_address=None,
        idempotency_key=str(uuid.uuid4()),
    )
    static_root = tmp_path_factory.mktemp("static")
    production = {
        "DEBUG": False,
        "SECURE_SSL_REDIRECT": True,
        "SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https"),
        "SECURE_HSTS_SECONDS": 3600,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "TRUSTED_PROXY_COUNT": 1,
        # The limiter runs but lets the generated requests reach the endpoints.
        "API_RATE_LIMIT_ANONYMOUS": 1_000_000,
        "QUOTES_LEAD_MIN_FILL_SECONDS": 3,
        "STATIC_ROOT": str(static_root),
        "STORAGES": {
            "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
            "staticfiles": {
                "BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"
            },
        },
    }
    first_line = draft.lines.first()
    assert first_line is not None
    with override_settings(**production):
        call_command("collectstatic", interactive=False, verbosity=0)
        yield Site(
            sales=sales,
            staff=staff,
            quote_id=str(sent.public_id),
            revision_id=str(draft.public_id),
            render_id=str(revision.renders.get().public_id),
            line_id=first_line.pk,
            buyer_token=services.buyer_link_token(revision=revision),
            lead_token=services.lead_token(lead=lead),
            confirm_token=services.lead_confirm_url(lead=unconfirmed).rstrip("/").rsplit("/")[-1],
            bombs=_bombs(),
        )


def _bombs() -> dict[str, bytes]:
    """Price files built to exhaust a worker, small to send (tests/catalog/test_import_bombs)."""
    from tests.catalog.test_import_bombs import _zip_bomb

    wide = openpyxl.Workbook()
    assert wide.active is not None
    for column in (1, 16_384):
        wide.active.cell(row=1, column=column, value="key")
        wide.active.cell(row=2, column=column, value="x")
    buffer = io.BytesIO()
    wide.save(buffer)
    header = ",".join(f"c{i}" for i in range(50_000)).encode()
    return {"bomb.xlsx": _zip_bomb(20_000_000), "wide.xlsx": buffer.getvalue(), "wide.csv": header}


def _check(site: Site, request: dict[str, Any], response: Any) -> None:
    """What every answer keeps to, besides not being a 500."""
    disposition = response.get("Content-Disposition", "")
    if len(disposition) > 400 or not disposition.isascii():
        site.errors.append(f"Content-Disposition {disposition[:100]!r} for {request['path']}")
    if response.status_code == 200 and response.get("Content-Type") == XLSX_CONTENT_TYPE:
        workbook = openpyxl.load_workbook(io.BytesIO(response.content))
        for sheet in workbook.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    value = cell.value
                    if cell.data_type == "f" and any(
                        mark in str(value) for mark in ("evil.example", "cmd|", "SUM(1)")
                    ):
                        site.errors.append(f"formula {value!r} in {sheet.title}!{cell.coordinate}")


def _send(clients: dict[str, Client], site: Site, request: dict[str, Any]) -> None:
    client = clients[request["who"]]
    extra: dict[str, Any] = {"secure": request["https"]}
    if request["https"]:  # what the TLS proxy tells the app (SECURE_PROXY_SSL_HEADER)
        extra["HTTP_X_FORWARDED_PROTO"] = "https"
    if request["htmx"]:
        extra["HTTP_HX_REQUEST"] = "true"
    extra["HTTP_X_FORWARDED_FOR"] = request["forwarded"]
    if request["method"] == "GET":
        response = client.get(request["path"], request["params"], **extra)
    elif request["method"] == "JSON":
        response = client.post(
            request["path"], request["body"], content_type="application/json", **extra
        )
    else:
        data = {**request["params"], **request["files"]}
        response = client.post(request["path"], data, **extra)
    site.statuses[response.status_code] += 1
    _check(site, request, response)
    if response.status_code >= 500:
        site.errors.append(f"{response.status_code} {request['method']} {request['path']} "
                           f"params={request['params']!r}")  # fmt: skip


def test_no_generated_request_gives_a_500(site: Site) -> None:
    clients = {"anon": Client(raise_request_exception=False)}
    clients["sales"] = Client(raise_request_exception=False)
    clients["sales"].force_login(site.sales)
    clients["staff"] = Client(raise_request_exception=False)
    clients["staff"].force_login(site.staff)

    @settings(
        max_examples=max(1, REQUESTS // BATCH),
        deadline=None,
        database=None,
        # The suite is reproducible; `make fuzz` explores (FUZZ_RANDOM=1).
        derandomize=os.environ.get("FUZZ_RANDOM") != "1",
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(requests(site), min_size=BATCH, max_size=BATCH))
    def run(batch: list[dict[str, Any]]) -> None:
        for request in batch:
            _send(clients, site, request)

    run()
    total = sum(site.statuses.values())
    counts = ", ".join(f"{status}: {n}" for status, n in sorted(site.statuses.items()))
    print(f"\nfuzz: {total} requests; by status: {counts}")
    assert total >= REQUESTS
    assert not site.errors, "\n".join(site.errors[:20])
    # The requests reached real pages, not only the refusals.
    assert site.statuses[200] >= total // 20
