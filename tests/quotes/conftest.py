"""Helpers for the quote tests: users and teams, quotes, a loopback SMTP server, and real
Celery worker processes on the suite's Redis and test database."""

from __future__ import annotations

import atexit
import contextlib
import email
import email.policy
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import quote as urlquote

import pytest

from tests.real_services import celery_worker_command, free_port

ROOT = Path(__file__).resolve().parents[2]


# --- people, teams, quotes ---------------------------------------------------------------


@pytest.fixture
def make_sales_user(db: None) -> Callable[..., Any]:
    from django.contrib.auth.models import Group, User

    from quotes.models import Team

    def make(username: str, team: str | None = "Benelux", sales: bool = True) -> Any:
        user = User.objects.create_user(
            username, f"{username}@distributor.example", "pw-" + username, first_name=username
        )
        if sales:
            user.groups.add(Group.objects.get_or_create(name="sales")[0])
        if team:
            Team.objects.get_or_create(name=team)[0].members.add(user)
        return user

    return make


@pytest.fixture
def sales_user(make_sales_user: Callable[..., Any]) -> Any:
    return make_sales_user("anna")


@pytest.fixture
def customer(sales_user: Any) -> Any:
    from quotes import services
    from quotes.models import Team

    return services.customer_create(
        team=Team.objects.get(name="Benelux"),
        company="Deep Learning BV",
        contact_name="Jan de Vries",
        email="jan@buyer.example",
        country="NL",
        vat_number="NL123456789B01",
        language="en",
    )


@pytest.fixture
def draft_quote(seed_catalog: object, customer: Any, sales_user: Any) -> Any:
    from quotes import services

    return services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=pretrain-7b"
    )


def send(revision: Any, user: Any) -> Any:
    from quotes import services

    return services.quote_send(revision=revision, actor=user, idempotency_key=str(uuid.uuid4()))


# --- SMTP on loopback --------------------------------------------------------------------


@dataclass
class SmtpRecorder:
    """aiosmtpd handler: refuses the first `refuse_next` DATA commands with 451."""

    refuse_next: int = 0
    attempts: int = 0
    refused: int = 0
    messages: list[EmailMessage] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.attempts += 1
            if self.refuse_next > 0:
                self.refuse_next -= 1
                self.refused += 1
                return "451 4.3.0 Mailbox busy, try again later"
            message = email.message_from_bytes(envelope.content, policy=email.policy.default)
            self.messages.append(message)  # type: ignore[arg-type]
        return "250 2.0.0 OK"

    def reset(self) -> None:
        with self.lock:
            self.refuse_next = self.attempts = self.refused = 0
            self.messages.clear()

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if address in str(m["To"])]


@dataclass
class SmtpServer:
    host: str
    port: int
    recorder: SmtpRecorder


def start_smtp() -> tuple[Any, SmtpServer]:
    from aiosmtpd.controller import Controller

    recorder = SmtpRecorder()
    port = free_port()
    controller = Controller(recorder, hostname="127.0.0.1", port=port)
    controller.start()
    return controller, SmtpServer("127.0.0.1", port, recorder)


@pytest.fixture(scope="module")
def smtp_server() -> Iterator[SmtpServer]:
    controller, server = start_smtp()
    yield server
    controller.stop()


def wait_until(
    predicate: Callable[[], Any], timeout: float, interval: float = 0.1, what: str = ""
) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        time.sleep(interval)


def wait_quiescent(recorder: SmtpRecorder, timeout: float = 120, settle: float = 4) -> None:
    """Until every email is sent or failed, Redis holds no task, and no new message arrived
    for `settle` seconds (longer than the requeue period): bounded by `timeout`."""
    import redis

    from quotes.models import OutboxEmail, OutboxStatus, ProposalRender, RenderStatus

    broker = redis.Redis.from_url(os.environ["REDIS_URL"])
    deadline = time.monotonic() + timeout
    last = (-1, 0.0)
    while time.monotonic() < deadline:
        busy = (
            OutboxEmail.objects.exclude(
                status__in=[OutboxStatus.SENT, OutboxStatus.FAILED]
            ).exists()
            or ProposalRender.objects.exclude(
                status__in=[RenderStatus.DONE, RenderStatus.FAILED]
            ).exists()
            or broker.llen("celery") > 0
            or broker.hlen("unacked") > 0
        )
        count = recorder.attempts
        now = time.monotonic()
        if busy or count != last[0]:
            last = (count, now)
        elif now - last[1] >= settle:
            return
        time.sleep(0.2)
    rows = list(OutboxEmail.objects.values_list("pk", "status", "attempts", "last_error"))
    raise AssertionError(
        f"the outbox did not become quiescent within {timeout} s: emails {rows}, "
        f"renders {list(ProposalRender.objects.values_list('pk', 'status'))}, "
        f"queued {broker.llen('celery')}, unacked {broker.hlen('unacked')}"
    )


def pdf_attachment(message: EmailMessage) -> bytes:
    for part in message.iter_attachments():
        if part.get_content_type() == "application/pdf":
            payload = part.get_content()
            assert isinstance(payload, bytes)
            return payload
    raise AssertionError("no PDF attached")


def pdf_text(data: bytes) -> tuple[str, int]:
    import io

    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() for page in reader.pages), len(reader.pages)


# --- real Celery workers -----------------------------------------------------------------


def worker_database_url() -> str:
    """The URL of the database pytest-django created (test_gputco), for worker processes."""
    from django.db import connection

    s = connection.settings_dict
    user = urlquote(s["USER"] or "postgres")
    password = f":{urlquote(s['PASSWORD'])}" if s.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL the whole worker (main process and pool children), like a crash."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        # Leave nothing behind from the worker's session (pool children).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)


def worker_env(smtp: SmtpServer, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": worker_database_url(),
        "DATABASE_CONN_MAX_AGE": "0",
        "REDIS_URL": os.environ["REDIS_URL"],
        "EMAIL_HOST": smtp.host,
        "EMAIL_PORT": str(smtp.port),
        "EMAIL_TIMEOUT": "10",
        "CELERY_VISIBILITY_TIMEOUT": "10",
        "QUOTES_RETRY_BASE_SECONDS": "0.5",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    env.update(extra)
    return env


# Worker logs live in one directory that goes away with the test run.
WORKER_LOGS = Path(tempfile.mkdtemp(prefix="gputco-worker-logs-"))
atexit.register(shutil.rmtree, WORKER_LOGS, True)


def start_worker(smtp: SmtpServer, concurrency: int = 1, **extra: str) -> Worker:
    log = Path(tempfile.mkstemp(prefix="worker-", suffix=".log", dir=WORKER_LOGS)[1])
    process = subprocess.Popen(
        celery_worker_command(concurrency=concurrency, name=f"test-{uuid.uuid4().hex[:8]}"),
        cwd=ROOT,
        env=worker_env(smtp, **extra),
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    worker = Worker(process, log)
    try:
        wait_until(
            lambda: " ready." in worker.output() or process.poll() is not None,
            timeout=60,
            what="the Celery worker to start",
        )
    except AssertionError:
        worker.stop()
        raise
    if process.poll() is not None:
        raise RuntimeError("Celery worker exited:\n" + worker.output()[-3000:])
    return worker


def purge_broker() -> None:
    """Forget tasks left in the suite's Redis by earlier tests (their rows are gone).

    Only Celery's keys, so nothing else the suite keeps in that database is touched."""
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    client.delete("celery", "unacked", "unacked_index", "unacked_mutex")


@pytest.fixture(scope="module")
def celery_worker(smtp_server: SmtpServer, django_db_setup: None) -> Iterator[Worker]:
    purge_broker()
    worker = start_worker(smtp_server)
    yield worker
    worker.stop()
