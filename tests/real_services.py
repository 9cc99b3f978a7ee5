"""Pytest plugin: start a real PostgreSQL and a real Redis for the test run.

Loaded with `-p tests.real_services` (see pyproject.toml) so that it runs before
pytest-django reads the settings: it exports DATABASE_URL and REDIS_URL pointing at
servers it starts from the installed binaries on free loopback ports, and stops them
(and removes their data) when the run ends. PostgreSQL refuses to run as root, so as
root the server runs as the `postgres` user in a temporary directory that user owns.
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(
    port: int, process: subprocess.Popen[bytes], name: str, timeout: float = 30
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with code {process.returncode} while starting")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{name} did not open port {port} within {timeout} s")


@dataclass
class Service:
    name: str
    process: subprocess.Popen[bytes]
    workdir: Path
    url: str

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM if self.name == "redis" else signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


@dataclass
class RunningServices:
    services: list[Service] = field(default_factory=list)

    def stop(self) -> None:
        while self.services:
            self.services.pop().stop()


RUNNING = RunningServices()
atexit.register(RUNNING.stop)


# The workers the Procfile runs, by role, and the queues each consumes (config/settings/
# base.py): PDFs on their own, so that emails and periodic work never wait behind them.
WORKER_QUEUES = {"render": "render", "email": "email,celery"}


def celery_worker_command(*, concurrency: int, name: str, role: str) -> list[str]:
    """A real Celery worker for `role` (WORKER_QUEUES), quiet about cluster chatter (tests,
    bench)."""
    celery = Path(sys.executable).with_name("celery")
    return [
        str(celery),
        "-A",
        "config",
        "worker",
        "--pool=prefork",
        f"--concurrency={concurrency}",
        "-Q",
        WORKER_QUEUES[role],
        "--without-heartbeat",
        "--without-gossip",
        "--without-mingle",
        "--loglevel=INFO",
        "-n",
        f"{name}@%h",
    ]


def _postgres_bindir() -> Path:
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4])
    )
    if not found:
        raise RuntimeError("PostgreSQL server binaries not found: run `make test` (installs them)")
    return Path(found[-1]).parent


def start_postgres() -> Service:
    bindir = _postgres_bindir()
    workdir = Path(tempfile.mkdtemp(prefix="gputco-pg-"))
    run_as: str | None = None
    if os.geteuid() == 0:
        run_as = "postgres"
        account = pwd.getpwnam(run_as)
        os.chown(workdir, account.pw_uid, account.pw_gid)
    data = workdir / "data"
    subprocess.run(
        [
            bindir / "initdb",
            "-D",
            data,
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        ],
        check=True,
        user=run_as,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    port = free_port()
    process = subprocess.Popen(
        [
            bindir / "postgres",
            "-D",
            data,
            "-p",
            str(port),
            "-k",
            workdir,
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
            "-c",
            "synchronous_commit=off",
            "-c",
            "full_page_writes=off",
            "-c",
            "max_connections=100",
        ],
        user=run_as,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    service = Service("postgres", process, workdir, f"postgres://postgres@127.0.0.1:{port}/gputco")
    RUNNING.services.append(service)  # registered before anything can fail, so it is stopped
    wait_for_port(port, process, "PostgreSQL")
    # The server accepts TCP a moment before it accepts logins: wait for a real query.
    import psycopg

    deadline = time.monotonic() + 30
    while True:
        try:
            with psycopg.connect(
                f"postgresql://postgres@127.0.0.1:{port}/postgres", autocommit=True
            ) as conn:
                conn.execute("CREATE DATABASE gputco")
            break
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    return service


def suite_redis() -> Service:
    """The Redis this test run started (broker, caches, rate-limit counters)."""
    return next(service for service in RUNNING.services if service.name == "redis")


def stop_redis(service: Service) -> None:
    """Stop a Redis started here, keeping its port and directory for `restart_redis` (it
    keeps no data: everything it held is gone)."""
    if service.process.poll() is None:
        service.process.terminate()
        service.process.wait(15)


def restart_redis(service: Service) -> None:
    """Start a stopped Redis again with the same arguments, on the same port."""
    if service.process.poll() is None:
        return  # running
    service.process = subprocess.Popen(
        service.process.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    port = int(service.url.rsplit(":", 1)[1].split("/")[0])
    wait_for_port(port, service.process, "Redis")


def start_redis() -> Service:
    server = shutil.which("redis-server")
    if server is None:
        raise RuntimeError("redis-server not found: run `make test` (installs it)")
    workdir = Path(tempfile.mkdtemp(prefix="gputco-redis-"))
    port = free_port()
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
            "--daemonize",
            "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    service = Service("redis", process, workdir, f"redis://127.0.0.1:{port}/0")
    RUNNING.services.append(service)
    wait_for_port(port, process, "Redis")
    return service


def _is_xdist_controller(early_config: pytest.Config) -> bool:
    workers = getattr(early_config.known_args_namespace, "numprocesses", None)
    return bool(workers) and "PYTEST_XDIST_WORKER" not in os.environ


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    if early_config.pluginmanager.is_blocked("django"):
        return  # engine-only runs (`-p no:django`) need no servers
    if _is_xdist_controller(early_config):
        return  # under `-n N` each worker process starts its own servers; this one runs no test
    postgres = start_postgres()
    redis = start_redis()
    os.environ["DATABASE_URL"] = postgres.url
    os.environ["REDIS_URL"] = redis.url
    # Playwright's sync API runs an event loop in the test thread; Django's ORM would
    # otherwise refuse to be called from it.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_unconfigure(config: pytest.Config) -> None:
    RUNNING.stop()
