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
from typing import TYPE_CHECKING, Any
from urllib.parse import quote as urlquote

import pytest

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from quotes.models import Customer, OutboxEmail, Quote, QuoteRevision

from tests.real_services import WORKER_QUEUES, celery_worker_command, free_port

ROOT = Path(__file__).resolve().parents[2]


# --- people, teams, quotes ---------------------------------------------------------------


@pytest.fixture
def make_sales_user(db: None) -> Callable[..., User]:
    from django.contrib.auth.models import Group, User

    from quotes.models import Team

    def make(username: str, team: str | None = "Benelux", sales: bool = True) -> User:
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
def sales_user(make_sales_user: Callable[..., User]) -> User:
    return make_sales_user("anna")


@pytest.fixture
def customer(sales_user: User) -> Customer:
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
def draft_quote(seed_catalog: object, customer: Customer, sales_user: User) -> Quote:
    from quotes import services

    return services.quote_create_from_calculator(
        customer=customer, owner=sales_user, query="preset=serve-70b"
    )


def send(revision: QuoteRevision, user: User) -> OutboxEmail:
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
            self.messages.append(message)
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
            or queued_tasks(broker) > 0
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
        f"queued {queued_tasks(broker)}, unacked {broker.hlen('unacked')}"
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


def lead_analysis_text(query: str, language: str, company: str) -> tuple[dict[str, Any], str]:
    """A lead's analysis PDF for a calculator query (without charts): its snapshot and its
    text with whitespace (non-breaking spaces included) collapsed to single spaces."""
    import re

    from quotes import pdf, services

    lead = services.lead_request_pdf(
        name="Kim",
        company=company,
        email=f"kim@{company.split()[0].lower()}.example",
        query=query,
        language=language,
        ip_address="10.1.1.2",
        idempotency_key=f"{query}-{language}",
    )
    snapshot = services.lead_snapshot(lead=lead)
    document = pdf.render_lead(snapshot, language=language, with_charts=False)
    text = pdf_text(document.pdf)[0].replace("\u00a0", " ")
    return snapshot, re.sub(r"\s+", " ", text)


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
    """Real Celery workers as the Procfile runs them: one per role (tests.real_services.
    WORKER_QUEUES), each a main process with its pool, in a session of its own."""

    processes: list[subprocess.Popen[bytes]]
    logs: list[Path]

    def output(self) -> str:
        return "\n".join(log.read_text(errors="replace") for log in self.logs if log.exists())

    def kill(self) -> None:
        """SIGKILL every worker (main processes and pool children), like a crash."""
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
            # Leave nothing behind from the worker's session (pool children).
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


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
        # A worker the tests kill leaves its pool's temporary directory (pymp-…) behind.
        "TMPDIR": str(WORKER_TMP),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    env.update(extra)
    return env


# Worker logs live in one directory that goes away with the test run.
WORKER_LOGS = Path(tempfile.mkdtemp(prefix="gputco-worker-logs-"))
atexit.register(shutil.rmtree, WORKER_LOGS, True)
# And the workers' temporary files, with them.
WORKER_TMP = WORKER_LOGS / "tmp"
WORKER_TMP.mkdir()


ROLES = tuple(WORKER_QUEUES)


def start_worker(
    smtp: SmtpServer, concurrency: int = 1, roles: tuple[str, ...] = ROLES, **extra: str
) -> Worker:
    """Start a worker for each role (`concurrency` rendering processes) and wait until each
    is ready; `extra` are environment variables."""
    processes: list[subprocess.Popen[bytes]] = []
    logs: list[Path] = []
    for role in roles:
        log = Path(tempfile.mkstemp(prefix=f"{role}-", suffix=".log", dir=WORKER_LOGS)[1])
        command = celery_worker_command(
            concurrency=concurrency if role == "render" else 1,
            name=f"test-{role}-{uuid.uuid4().hex[:8]}",
            role=role,
        )
        processes.append(
            subprocess.Popen(
                command,
                cwd=ROOT,
                env=worker_env(smtp, **extra),
                stdout=log.open("wb"),
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
        logs.append(log)
    worker = Worker(processes, logs)

    def ready_or_exited() -> bool:
        return any(p.poll() is not None for p in processes) or all(
            " ready." in log.read_text(errors="replace") for log in logs
        )

    try:
        wait_until(ready_or_exited, timeout=60, what="the Celery workers to start")
    except AssertionError:
        worker.stop()
        raise
    if any(p.poll() is not None for p in processes):
        worker.stop()
        raise RuntimeError("a Celery worker exited:\n" + worker.output()[-3000:])
    return worker


class Beat:
    """Celery beat as the Procfile runs it (its periodic sweeps), with `extra` environment
    variables, on the suite's Redis and test database."""

    def __init__(self, smtp: SmtpServer, **extra: str) -> None:
        import sys

        workdir = self.workdir = Path(tempfile.mkdtemp(prefix="gputco-beat-"))
        self.log = workdir / "beat.log"
        celery = Path(sys.executable).with_name("celery")
        self.process = subprocess.Popen(
            [str(celery), "-A", "config", "beat", "-s", str(workdir / "schedule"), "-l", "INFO"],
            cwd=ROOT,
            env=worker_env(smtp, **extra),
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)  # its schedule and log


def queued_tasks(broker: Any) -> int:
    """Tasks waiting in Redis, on every queue and priority (kombu keeps one list per queue
    and priority step: `render`, `render\x06\x169`, …)."""
    return sum(broker.llen(key) for key in _queue_keys(broker))


def _queue_keys(broker: Any) -> list[bytes]:
    names = {name for queues in WORKER_QUEUES.values() for name in queues.split(",")}
    return [key for name in names for key in broker.scan_iter(match=f"{name}*")]


def purge_broker() -> None:
    """Forget tasks left in the suite's Redis by earlier tests (their rows are gone).

    Only Celery's keys, so nothing else the suite keeps in that database is touched."""
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    client.delete("unacked", "unacked_index", "unacked_mutex", *_queue_keys(client))


@pytest.fixture(scope="module")
def celery_worker(smtp_server: SmtpServer, django_db_setup: None) -> Iterator[Worker]:
    purge_broker()
    worker = start_worker(smtp_server)
    yield worker
    worker.stop()
