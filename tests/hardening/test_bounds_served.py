"""The DoS inputs of issue 32 answer 4xx within 2 s from gunicorn under the production
settings, and /ping stays quick while they arrive.

gunicorn runs as the Procfile runs it (sync workers, two of them, the 30 s timeout) with
config.settings.production (static files collected into a temporary directory, served
over plain HTTP on loopback) on the suite's PostgreSQL test database and Redis. Before the
bounds, 2,000 offerings on the anonymous workbook held a worker past its timeout and two
such requests kept /ping waiting 32 s; a zip bomb took a worker to 5.5 GB.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.real_services import free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
BASE = {
    "name": "served bounds",
    "workload": {"kind": "pretrain", "params_billion": 7, "tokens_billion": 1000},
    "server": "smc-821ge-tnhr-h100",
    "site": "nl-colo-amsterdam",
    "cloud_offerings": ["aws-p5-48xlarge-od"],
}


def _offerings(count: int) -> list[dict[str, Any]]:
    return [{"key": "aws-p5-48xlarge-od", "price_per_hour": 50 + i} for i in range(count)]


def _bomb() -> bytes:
    """A price workbook whose one cell unpacks to 200 MB (a ~200 KB file)."""
    from tests.catalog.price_files import exported_rows, xlsx_bytes

    rows: list[list[Any]] = [list(row) for row in exported_rows("cloud")]
    rows[1][rows[0].index("source")] = "BOMB"
    original = zipfile.ZipFile(io.BytesIO(xlsx_bytes(rows)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for info in original.infolist():
            part = original.read(info.filename)
            if b">BOMB<" in part:
                head, tail = part.split(b">BOMB<")
                with bomb.open(info.filename, "w") as target:  # streamed: no 200 MB string
                    target.write(head + b">")
                    for _ in range(200):
                        target.write(b"a" * 1_000_000)
                    target.write(b"<" + tail)
                continue
            bomb.writestr(info.filename, part)
    return out.getvalue()


def _wide_sheet() -> bytes:
    """A cloud price list with a cell in the last of Excel's 16,384 columns on every row."""
    import openpyxl

    from tests.catalog.price_files import exported_rows

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    for number, row in enumerate(exported_rows("cloud"), start=1):
        for column, value in enumerate(row, start=1):
            sheet.cell(row=number, column=column, value=value)
        sheet.cell(row=number, column=16_384, value="x")
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _multipart(fields: dict[str, str], filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = "----bounds" + secrets.token_hex(8)
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), boundary


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """gunicorn with the production settings over the committed test database."""
    from django.contrib.auth.models import Group, User

    from api.services import token_create
    from catalog.loader import load_catalog
    from quotes import services
    from quotes.models import Team
    from tests.quotes.conftest import worker_database_url

    load_catalog()
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    hasher = PBKDF2PasswordHasher()  # one the production settings verify (the suite's is MD5)
    User.objects.create(
        username="staff",
        password=hasher.encode("staff-pw", hasher.salt(), iterations=1000),
        is_staff=True,
        is_superuser=True,
    )
    sales = User.objects.create_user("sales")
    sales.groups.add(Group.objects.get_or_create(name="sales")[0])
    team = Team.objects.create(name="Served")
    team.members.add(sales)
    customer = services.customer_create(
        team=team, company="Co", contact_name="C", email="c@buyer.example", country="NL"
    )
    _token, raw = token_create(user=sales, name="t", scope="read_write")
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DATABASE_URL=worker_database_url(),
        SECRET_KEY=secrets.token_urlsafe(48),
        ALLOWED_HOSTS=HOST,
        SECURE_SSL_REDIRECT="false",
        STATIC_ROOT=str(tmp_path / "static"),
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        LOG_LEVEL="ERROR",
        API_RATE_LIMIT_WINDOW="0",
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    ignore = ["--ignore", "admin", "--ignore", "ninja", "--ignore", "*.map", "--ignore", "plotly"]
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0", *ignore],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    port = free_port()
    log = (tmp_path / "gunicorn.log").open("wb")
    gunicorn = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        [str(gunicorn), "config.wsgi:application", "--workers", "2", "--timeout", "30",
         "--bind", f"{HOST}:{port}"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if _send(port, "GET", "/ping")[0] == 200:
                    break
            except OSError:
                pass
            assert process.poll() is None, (tmp_path / "gunicorn.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "gunicorn did not answer"
            time.sleep(0.2)
        for _ in range(4):  # each worker imports the engine and reads the catalog once
            _send(port, "POST", "/api/v1/estimate", json.dumps(BASE).encode(), JSON)
        yield {
            "port": port,
            "session": _sign_in(port, "staff", "staff-pw"),
            "token": raw,
            "customer": str(customer.public_id),
            "log": tmp_path / "gunicorn.log",
        }
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        log.close()


JSON = {"Content-Type": "application/json"}


def _sign_in(port: int, username: str, password: str) -> str:
    """The session cookie of a sign-in through the served login form."""
    from urllib.parse import urlencode

    csrf = secrets.token_hex(16)
    connection = http.client.HTTPConnection(HOST, port, timeout=60)
    try:
        form = {"username": username, "password": password, "csrfmiddlewaretoken": csrf}
        connection.request(
            "POST",
            "/accounts/login/",
            body=urlencode(form),
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": f"csrftoken={csrf}",
            },
        )
        response = connection.getresponse()
        response.read()
    finally:
        connection.close()
    assert response.status == 302, response.status
    cookies = response.headers.get_all("Set-Cookie") or []
    session = next(c for c in cookies if c.startswith("sessionid="))
    return session.split(";", 1)[0].removeprefix("sessionid=")


def _send(
    port: int, method: str, path: str, body: bytes | None = None, headers: Any = None
) -> tuple[int, float, bytes]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection(HOST, port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        content = response.read()
    finally:
        connection.close()
    return response.status, time.perf_counter() - started, content


def test_hostile_inputs_are_answered_within_2_s_and_ping_stays_quick(
    served: dict[str, Any],
) -> None:
    port = served["port"]
    csrf = secrets.token_hex(16)  # a 32-character secret: Django takes it unmasked
    staff = {
        "Cookie": f"sessionid={served['session']}; csrftoken={csrf}",
        "X-CSRFToken": csrf,
    }
    bomb, bomb_type = _multipart({"kind": "cloud", "csrfmiddlewaretoken": csrf}, "b.xlsx", _bomb())
    wide, wide_type = _multipart(
        {"kind": "cloud", "csrfmiddlewaretoken": csrf}, "w.xlsx", _wide_sheet()
    )
    wide_csv_rows = ",".join(f"c{i}" for i in range(200_000)).encode()
    wide_csv, csv_type = _multipart(
        {"kind": "cloud", "csrfmiddlewaretoken": csrf}, "w.csv", wide_csv_rows
    )
    token = {"Authorization": f"Bearer {served['token']}", **JSON}
    quote = {
        "customer": served["customer"],
        "scenario": {**BASE, "cloud_offerings": _offerings(4000)},
    }
    deep = json.dumps(BASE)[:-1] + ', "finance": ' + '{"a":' * 1000 + "1" + "}" * 1000 + "}"
    cases: list[tuple[str, str, str, bytes, dict[str, str], int]] = [
        ("2,000 offerings, workbook", "POST", "/api/v1/estimate/workbook",
         json.dumps({**BASE, "cloud_offerings": _offerings(2000)}).encode(), JSON, 400),
        ("30,000 offerings, estimate", "POST", "/api/v1/estimate",
         json.dumps({**BASE, "cloud_offerings": _offerings(30_000)}).encode(), JSON, 400),
        ("4,000 offerings, sales quote", "POST", "/api/v1/sales/quotes",
         json.dumps(quote).encode(), token, 400),
        ("1,000 levels deep", "POST", "/api/v1/estimate", deep.encode(), JSON, 400),
        ("3 MB body", "POST", "/api/v1/estimate",
         json.dumps({**BASE, "name": "x" * 3_000_000}).encode(), JSON, 413),
        ("2 MB name", "POST", "/api/v1/estimate/workbook",
         json.dumps({**BASE, "name": "x" * 2_000_000}).encode(), JSON, 400),
        ("zip bomb", "POST", "/catalog/import/", bomb,
         {**staff, "Content-Type": f"multipart/form-data; boundary={bomb_type}"}, 400),
        # Read up to the price list's columns (+10): a valid file, kept for its preview.
        ("16,384 columns", "POST", "/catalog/import/", wide,
         {**staff, "Content-Type": f"multipart/form-data; boundary={wide_type}"}, 302),
        ("200,000-column CSV", "POST", "/catalog/import/", wide_csv,
         {**staff, "Content-Type": f"multipart/form-data; boundary={csv_type}"}, 400),
    ]  # fmt: skip
    answers = []
    for label, method, path, body, headers, expected in cases:
        status, seconds, content = _send(port, method, path, body, headers)
        answers.append((label, status, round(seconds, 2), len(content)))
        assert status == expected, (label, status, content[:300])
    slow = [answer for answer in answers if answer[2] >= 2]
    assert not slow, answers
    assert all(answer[3] < 100_000 for answer in answers), answers  # no 12 MB error page

    # Two hostile workbook requests at once (the two workers busy): /ping still answers.
    hostile = json.dumps({**BASE, "cloud_offerings": _offerings(2000)}).encode()
    threads = [
        threading.Thread(
            target=_send, args=(port, "POST", "/api/v1/estimate/workbook", hostile, JSON)
        )
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    status, seconds, _content = _send(port, "GET", "/ping")
    for thread in threads:
        thread.join(30)
    assert status == 200 and seconds < 2, seconds
    assert "WORKER TIMEOUT" not in served["log"].read_text(errors="replace")
