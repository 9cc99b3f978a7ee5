"""Exactly-once delivery under faults, with real processes.

A Celery worker and Celery beat (the periodic requeue, every second here) run against the
suite's Redis and test database; they send through a fault-injecting TCP front
(`FaultySmtp`) to an aiosmtpd server on loopback, which records what it accepted. The
front can refuse connections (nothing listens), accept and stay silent (the client times
out), or pass a whole message through and then drop the connection before the server's
"250" reaches the client (accepted, but the sender cannot know). Retry and requeue
settings are short so that each fault plays out in seconds.

After each fault the test waits until the outbox is quiescent — every row sent or
failed, no task queued or unacknowledged in Redis, and the number of received messages
unchanged for a while — instead of sleeping a fixed time, so a late duplicate is seen.

In its own module: its worker is the only consumer of the queue meanwhile. The Redis
restart comes last, so that no other test here depends on beat having reconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.contrib.auth.models import User
from django.test import Client

from quotes.models import OutboxEmail, OutboxStatus, Quote
from tests.real_services import free_port, restart_redis, stop_redis, suite_redis

from .conftest import (
    Beat,
    SmtpRecorder,
    SmtpServer,
    Worker,
    purge_broker,
    send,
    start_worker,
    wait_quiescent,
    wait_until,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BUYER = "jan@buyer.example"
# Short budgets: 3 retries 0.3 s apart (doubling), a 2 s SMTP timeout, requeue after 3 s,
# failed emails retried 4 s after failing, a 6 s lease for a send that never finished.
FAST: dict[str, Any] = {
    "EMAIL_TIMEOUT": "2",
    "QUOTES_RETRY_BASE_SECONDS": "0.3",
    "QUOTES_EMAIL_MAX_RETRIES": "3",
    "QUOTES_REQUEUE_AFTER_SECONDS": "3",
    "QUOTES_REQUEUE_EVERY_SECONDS": "1",
    "QUOTES_FAILED_RETRY_AFTER_SECONDS": "4",
    "QUOTES_SENDING_LEASE_SECONDS": "6",
}


class SlowRecorder(SmtpRecorder):
    """The recorder of conftest, optionally holding RCPT (the worker is mid-conversation)."""

    rcpt_delay: float = 0.0
    in_rcpt: threading.Event

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        self.in_rcpt.set()
        if self.rcpt_delay:
            await asyncio.sleep(self.rcpt_delay)
        envelope.rcpt_tos.append(address)
        return "250 OK"


class FaultySmtp:
    """A TCP front for the SMTP server with switchable faults."""

    def __init__(self, backend_port: int) -> None:
        self.backend_port = backend_port
        self.port = free_port()
        self.mode = "ok"  # ok | silent | drop_once
        self.listener: socket.socket | None = None
        self.connections: list[socket.socket] = []
        self.lock = threading.Lock()
        self.listen()

    # refused: nothing listens on the port
    def refuse(self) -> None:
        with self.lock:
            if self.listener is not None:
                # shutdown first: close alone leaves a socket that a thread blocked in
                # accept() holds open, still listening.
                with contextlib.suppress(OSError):
                    self.listener.shutdown(socket.SHUT_RDWR)
                self.listener.close()
                self.listener = None

    def listen(self) -> None:
        with self.lock:
            if self.listener is not None:
                return
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            listener.listen(16)
            self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def close(self) -> None:
        self.refuse()
        for conn in self.connections:
            with contextlib.suppress(OSError):
                conn.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            self.connections.append(client)
            if self.mode == "silent":
                continue  # never greet: the client's timeout fires
            backend = socket.create_connection(("127.0.0.1", self.backend_port))
            self.connections.append(backend)
            drop = self.mode == "drop_once"
            if drop:
                self.mode = "ok"
            state = {"data_sent": False}
            threading.Thread(
                target=self._pump, args=(client, backend, state, "up"), daemon=True
            ).start()
            threading.Thread(
                target=self._pump, args=(backend, client, state, "down", drop), daemon=True
            ).start()

    @staticmethod
    def _pump(
        source: socket.socket,
        target: socket.socket,
        state: dict[str, bool],
        direction: str,
        drop: bool = False,
    ) -> None:
        try:
            while chunk := source.recv(65536):
                if direction == "up" and chunk.endswith(b"\r\n.\r\n"):
                    state["data_sent"] = True
                if direction == "down" and drop and state["data_sent"]:
                    # The server accepted the message; its reply never reaches the sender.
                    for sock in (source, target):
                        with contextlib.suppress(OSError):
                            sock.shutdown(socket.SHUT_RDWR)
                    return
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


@pytest.fixture(scope="module")
def backend() -> Iterator[SmtpServer]:
    from aiosmtpd.controller import Controller

    recorder = SlowRecorder()
    recorder.in_rcpt = threading.Event()
    port = free_port()
    controller = Controller(recorder, hostname="127.0.0.1", port=port)
    controller.start()
    yield SmtpServer("127.0.0.1", port, recorder)
    controller.stop()


@pytest.fixture(scope="module")
def front(backend: SmtpServer) -> Iterator[FaultySmtp]:
    proxy = FaultySmtp(backend.port)
    yield proxy
    proxy.close()


@pytest.fixture(scope="module")
def smtp_via_front(front: FaultySmtp, backend: SmtpServer) -> SmtpServer:
    return SmtpServer("127.0.0.1", front.port, backend.recorder)


class Workers:
    """The module's worker; a test may kill it and start another."""

    def __init__(self, smtp: SmtpServer) -> None:
        self.smtp = smtp
        self.current: Worker = start_worker(smtp, **FAST)

    def restart(self) -> None:
        self.current.stop()
        self.current = start_worker(self.smtp, **FAST)


@pytest.fixture(scope="module")
def pipeline(smtp_via_front: SmtpServer, django_db_setup: None) -> Iterator[Workers]:
    purge_broker()
    workers = Workers(smtp_via_front)
    beat = Beat(smtp_via_front, **FAST)
    yield workers
    beat.stop()
    workers.current.stop()


@pytest.fixture(autouse=True)
def healthy_front(front: FaultySmtp, backend: SmtpServer) -> None:
    front.mode = "ok"
    front.listen()
    recorder = backend.recorder
    assert isinstance(recorder, SlowRecorder)  # the backend fixture's
    recorder.reset()
    recorder.rcpt_delay = 0
    recorder.in_rcpt.clear()


def _one_delivery(recorder: SmtpRecorder, outbox: OutboxEmail) -> OutboxEmail:
    messages = recorder.to(BUYER)
    assert len(messages) == 1, [m["Message-ID"] for m in messages]
    assert messages[0]["Message-ID"] == outbox.message_id
    row = OutboxEmail.objects.get(pk=outbox.pk)
    assert row.status == OutboxStatus.SENT
    return row


def test_connection_refused_then_back(
    pipeline: Workers, front: FaultySmtp, backend: SmtpServer, draft_quote: Quote, sales_user: User
) -> None:
    front.refuse()
    outbox = send(draft_quote.revisions.get(), sales_user)
    try:
        wait_until(
            lambda: "refused" in OutboxEmail.objects.get(pk=outbox.pk).last_error.lower(),
            timeout=90,
            what="a refused connection to be recorded",
        )
    except AssertionError:
        row = OutboxEmail.objects.get(pk=outbox.pk)
        raise AssertionError(  # with the worker's log, to see why
            f"{row.status} {row.last_error!r}\n" + pipeline.current.output()[-4000:]
        ) from None
    front.listen()
    wait_quiescent(backend.recorder)
    row = _one_delivery(backend.recorder, outbox)
    assert row.attempts >= 2


def test_a_silent_server_times_out_then_delivers_once(
    pipeline: Workers, front: FaultySmtp, backend: SmtpServer, draft_quote: Quote, sales_user: User
) -> None:
    front.mode = "silent"
    outbox = send(draft_quote.revisions.get(), sales_user)
    wait_until(
        lambda: "timed out" in OutboxEmail.objects.get(pk=outbox.pk).last_error.lower(),
        timeout=90,
        what="an SMTP timeout to be recorded",
    )
    front.mode = "ok"
    wait_quiescent(backend.recorder)
    _one_delivery(backend.recorder, outbox)


def test_an_outage_longer_than_the_retry_budget_is_recovered_and_shown_to_staff(
    pipeline: Workers, front: FaultySmtp, backend: SmtpServer, draft_quote: Quote, sales_user: User
) -> None:
    front.refuse()
    outbox = send(draft_quote.revisions.get(), sales_user)
    wait_until(
        lambda: OutboxEmail.objects.get(pk=outbox.pk).status == OutboxStatus.FAILED,
        timeout=90,
        what="the retry budget to run out",
    )
    client = Client()
    client.force_login(sales_user)
    assert outbox.revision is not None
    badge = client.get(f"/quotes/revisions/{outbox.revision.public_id}/status/")
    assert 'data-state="failed"' in badge.content.decode()
    assert "retried automatically" in badge.content.decode()
    assert backend.recorder.attempts == 0
    front.listen()  # the outage ends; beat queues the failed email again
    wait_until(
        lambda: OutboxEmail.objects.get(pk=outbox.pk).status == OutboxStatus.SENT,
        timeout=60,
        what="the failed email to be retried and sent",
    )
    wait_quiescent(backend.recorder)
    _one_delivery(backend.recorder, outbox)


def test_accepted_but_dropped_before_the_reply_is_sent_again_with_the_same_message_id(
    pipeline: Workers, front: FaultySmtp, backend: SmtpServer, draft_quote: Quote, sales_user: User
) -> None:
    """The one case SMTP cannot make exactly-once: the server took the message, the reply
    was lost, so the sender must assume failure. The copy carries the same Message-ID,
    which lets the receiver's mail system show one email (docs/quotes.md)."""
    front.mode = "drop_once"
    outbox = send(draft_quote.revisions.get(), sales_user)
    wait_quiescent(backend.recorder)
    messages = backend.recorder.to(BUYER)
    assert len(messages) == 2
    assert {m["Message-ID"] for m in messages} == {outbox.message_id}
    row = OutboxEmail.objects.get(pk=outbox.pk)
    assert row.status == OutboxStatus.SENT and row.attempts == 2


def test_a_worker_killed_during_the_smtp_conversation_delivers_once(
    pipeline: Workers, backend: SmtpServer, draft_quote: Quote, sales_user: User
) -> None:
    recorder = backend.recorder
    assert isinstance(recorder, SlowRecorder)  # the backend fixture's
    recorder.rcpt_delay = 30
    outbox = send(draft_quote.revisions.get(), sales_user)
    wait_until(recorder.in_rcpt.is_set, timeout=90, what="the worker to be in SMTP")
    assert OutboxEmail.objects.get(pk=outbox.pk).status == OutboxStatus.SENDING
    pipeline.current.kill()  # SIGKILL, mid-conversation: nothing was accepted
    recorder.rcpt_delay = 0
    pipeline.current = start_worker(pipeline.smtp, **FAST)
    # The redelivered task finds the row claimed; after the sending lease beat queues it.
    try:
        wait_until(
            lambda: OutboxEmail.objects.get(pk=outbox.pk).status == OutboxStatus.SENT,
            timeout=120,
            what="the email to be sent after the lease",
        )
    except AssertionError:
        row = OutboxEmail.objects.get(pk=outbox.pk)
        raise AssertionError(  # with the worker's log, to see why
            f"{row.status} {row.attempts} {row.last_error!r}\n" + pipeline.current.output()[-4000:]
        ) from None
    wait_quiescent(recorder, settle=8)
    row = _one_delivery(recorder, outbox)
    assert row.attempts == 2 and row.last_error == ""


def _restart_suite_redis() -> None:
    """Stop the suite's Redis (no persistence: every queued task is lost) and start it
    again on the same port."""
    service = suite_redis()
    stop_redis(service)
    restart_redis(service)


def test_a_redis_restart_with_work_queued_still_delivers_once(
    pipeline: Workers, backend: SmtpServer, draft_quote: Quote, sales_user: User
) -> None:
    pipeline.current.stop()  # no consumer: the render task waits in Redis
    outbox = send(draft_quote.revisions.get(), sales_user)
    broker = redis.Redis.from_url(os.environ["REDIS_URL"])

    def render_queued() -> bool:
        return any(b"render_proposal" in item for item in broker.lrange("render", 0, -1))

    wait_until(render_queued, timeout=10, what="the render task to be queued")
    _restart_suite_redis()
    assert not render_queued()  # the queued work is gone with the restart
    from django.core.cache import caches

    for alias in ("default", "pages"):  # this process's pools reconnect
        with contextlib.suppress(redis.ConnectionError):
            caches[alias].clear()
    pipeline.current = start_worker(pipeline.smtp, **FAST)
    wait_quiescent(backend.recorder)  # beat finds the pending render and queues it again
    _one_delivery(backend.recorder, outbox)
