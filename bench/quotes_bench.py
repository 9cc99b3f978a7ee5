"""Proposal PDFs and their delivery: render time, and 100 quotes through Celery to SMTP.

Issue targets:

1. A standard proposal (about 6 pages, 3 charts) renders in under 1.5 s in a warm process
   (kaleido's Chromium already started, one warm-up render done; median of 5). Printed
   beside the same document without charts (same length: the charts' boxes stay empty),
   which is what WeasyPrint alone costs.
2. 100 quotes sent at once are rendered and delivered to a loopback SMTP server by 2
   Celery worker processes in under 120 s, with none lost and none duplicated.

The script is self-contained and leaves nothing behind: it starts its own PostgreSQL and
Redis (tests/real_services.py) on free loopback ports, migrates and loads the seed catalog,
runs an aiosmtpd server in-process, starts one Celery worker with 2 prefork processes, and
stops and removes everything at the end. Worker processes start cold (their Chromium
starts on their first render), as after a deploy.

It is a report, not a test: it exits 0 when a target is missed and non-zero only when the
benchmark could not run. Options (environment): ``BENCH_QUOTES`` (default 100),
``BENCH_QUOTES_TIMEOUT`` (seconds to wait for the deliveries, default 300).
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUOTES = int(os.environ.get("BENCH_QUOTES", "100"))
DELIVERY_TIMEOUT_S = float(os.environ.get("BENCH_QUOTES_TIMEOUT", "300"))
RENDER_RUNS = 5
TARGET_RENDER_S = 1.5
TARGET_DELIVERY_S = 120.0
PRESET_QUERY = "preset=pretrain-7b"


class BenchError(RuntimeError):
    """The benchmark could not run (as opposed to: it ran and missed a target)."""


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


class Recorder:
    """aiosmtpd handler that keeps (To, Message-ID) of every accepted message."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.received: list[tuple[str, str]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.received.append((str(message["To"]), str(message["Message-ID"])))
        return "250 2.0.0 OK"

    def count(self) -> int:
        with self.lock:
            return len(self.received)


def setup_django(database_url: str, redis_url: str, smtp_port: int) -> None:
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DEBUG": "false",
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp_port),
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)


def make_owner() -> tuple[Any, Any]:
    from django.contrib.auth.models import Group, User

    from quotes.models import Team

    user = User.objects.create_user("bench", "bench@distributor.example", "bench")
    user.groups.add(Group.objects.get(name="sales"))
    team = Team.objects.create(name="Bench")
    team.members.add(user)
    return user, team


def make_quote(owner: Any, team: Any, n: int) -> Any:
    from quotes import services

    customer = services.customer_create(
        team=team,
        company=f"Bench Buyer {n} BV",
        contact_name=f"Buyer {n}",
        email=f"buyer-{n}@bench.example",
        country="NL",
        vat_number="",
        language="en",
    )
    return services.quote_create_from_calculator(customer=customer, owner=owner, query=PRESET_QUERY)


def bench_render(owner: Any, team: Any) -> tuple[float, float, int, int]:
    """Median warm render time with charts and without, and the page counts."""
    from quotes import pdf, services

    revision = make_quote(owner, team, 0).revisions.get()
    snapshot = services.revision_snapshot(revision=revision)  # what quote_send freezes
    first = pdf.render_revision(snapshot, language="en")  # starts Chromium: the warm-up
    with_charts: list[float] = []
    without: list[float] = []
    bare = first
    for _ in range(RENDER_RUNS):
        started = time.perf_counter()
        pdf.render_revision(snapshot, language="en")
        with_charts.append(time.perf_counter() - started)
        started = time.perf_counter()
        bare = pdf.render_revision(snapshot, language="en", with_charts=False)
        without.append(time.perf_counter() - started)
    pdf.CHARTS.close()
    return statistics.median(with_charts), statistics.median(without), first.pages, bare.pages


def start_worker(log: Path) -> subprocess.Popen[bytes]:
    from tests.real_services import celery_worker_command

    process = subprocess.Popen(
        celery_worker_command(concurrency=2, name=f"bench-{uuid.uuid4().hex[:6]}"),
        cwd=ROOT,
        env={**os.environ, "LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1"},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while " ready." not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise BenchError("Celery worker did not start:\n" + log.read_text()[-2000:])
        time.sleep(0.1)
    return process


def stop_worker(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def bench_delivery(owner: Any, team: Any, recorder: Recorder) -> dict[str, Any]:
    from quotes import services
    from quotes.models import OutboxEmail, OutboxStatus

    drafts = [make_quote(owner, team, n).revisions.get() for n in range(1, QUOTES + 1)]
    log = Path(tempfile.mkstemp(prefix="gputco-bench-worker-", suffix=".log")[1])
    worker = start_worker(log)
    try:
        started = time.perf_counter()
        for revision in drafts:
            services.quote_send(revision=revision, actor=owner, idempotency_key=str(uuid.uuid4()))
        sent_s = time.perf_counter() - started
        deadline = time.monotonic() + DELIVERY_TIMEOUT_S
        while recorder.count() < QUOTES and time.monotonic() < deadline:
            time.sleep(0.1)
        elapsed = time.perf_counter() - started
        time.sleep(3)  # a duplicate would arrive within this window
    finally:
        stop_worker(worker)
        log.unlink(missing_ok=True)
    with recorder.lock:
        received = list(recorder.received)
    expected = {f"buyer-{n}@bench.example" for n in range(1, QUOTES + 1)}
    per_recipient = Counter(to for to, _ in received if to in expected)
    statuses = Counter(
        OutboxEmail.objects.filter(revision__in=drafts).values_list("status", flat=True)
    )
    return {
        "elapsed": elapsed,
        "enqueue": sent_s,
        "delivered": len(per_recipient),
        "duplicates": sum(c - 1 for c in per_recipient.values()),
        "lost": len(expected - set(per_recipient)),
        "marked_sent": statuses.get(OutboxStatus.SENT, 0),
    }


def main() -> int:
    from aiosmtpd.controller import Controller

    from tests.real_services import RUNNING, free_port, start_postgres, start_redis

    recorder = Recorder()
    smtp_port = free_port()
    controller = Controller(recorder, hostname="127.0.0.1", port=smtp_port)
    try:
        postgres = start_postgres()
        redis = start_redis()
        controller.start()
        setup_django(postgres.url, redis.url, smtp_port)
        owner, team = make_owner()

        print("proposal render (in-process, warm Chromium, median of 5):", flush=True)
        warm, bare, pages, bare_pages = bench_render(owner, team)
        print(
            f"  with 3 charts (SVG via kaleido): {warm:.2f} s, {pages} pages "
            f"(target < {TARGET_RENDER_S:.1f} s) {verdict(warm < TARGET_RENDER_S)}"
        )
        print(
            f"  same document without charts:   {bare:.2f} s, {bare_pages} pages (WeasyPrint only)"
        )
        print(f"  charts cost:                    {warm - bare:.2f} s", flush=True)

        print(f"{QUOTES} quotes sent, rendered and delivered by 2 worker processes:", flush=True)
        result = bench_delivery(owner, team, recorder)
        ok_time = result["elapsed"] < TARGET_DELIVERY_S and result["delivered"] == QUOTES
        print(
            f"  elapsed: {result['elapsed']:.1f} s (send actions took {result['enqueue']:.1f} s; "
            f"target < {TARGET_DELIVERY_S:.0f} s) {verdict(ok_time)}"
        )
        print(
            f"  delivered: {result['delivered']} of {QUOTES} "
            f"(target {QUOTES}) {verdict(result['delivered'] == QUOTES)}"
        )
        print(
            f"  duplicates: {result['duplicates']} (target 0) {verdict(result['duplicates'] == 0)}"
        )
        print(f"  lost: {result['lost']} (target 0) {verdict(result['lost'] == 0)}")
        print(f"  outbox rows marked sent: {result['marked_sent']} of {QUOTES}")
    except BenchError as exc:
        print(f"benchmark could not run: {exc}", file=sys.stderr)
        return 2
    finally:
        if getattr(controller, "_thread", None) is not None:
            controller.stop()
        RUNNING.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
