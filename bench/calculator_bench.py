"""Latency of the calculator's result page, served by gunicorn, beside a trivial Django view.

Issue targets (issue 10, "Fast"): uncached result pages (every request distinct inputs, so
each is computed: the cache miss), served by gunicorn with 2 workers under 16 concurrent
clients, have a p95 latency of at most 100 ms and at least 10 % of the throughput of a
trivial Django view (``/ping``) on the same server. The cached preset page
(``/calculator/?preset=pretrain-7b``) is printed beside them for reference (earlier target:
p95 under 150 ms and 30 % of /ping).

The script is self-contained and leaves nothing behind: it creates a temporary directory
with a SQLite database, migrates it, loads the seed catalog, starts gunicorn on a free
loopback port, drives the URLs with 16 client threads on keep-alive-capable
``http.client`` connections (bounded by a request count and a time limit per endpoint),
prints the figures beside their targets, then stops gunicorn and removes the directory.

This machine's speed drifts by up to 2x within minutes, so the trivial view and the
uncached page are measured in turn, in several rounds, and each round's throughput ratio
compares two measurements taken seconds apart; the ratio reported is the median of the
rounds', the p95 is over every uncached request of all rounds. The trivial view gets 8x
the uncached page's request bound: 400 requests of ``/ping`` last a quarter of a second,
too short a sample to be steady.

During the uncached rounds it also counts the CPU the gunicorn workers and the load
generator spent (from /proc), per request: on this 2-core machine that cost bounds the
throughput, and with 16 clients that each wait for their answer the mean latency is
16 ÷ throughput (Little's law), so the line shows how far the p95 target is from the CPU
each request takes (no target of its own).

It is a report, not a test: it exits 0 when a target is missed and non-zero only when the
benchmark could not run (setup failed, a response was not 200 or not the expected page).

Options (environment): ``BENCH_CALC_REQUESTS`` (uncached requests per round, default 400;
the cached page and ``/ping`` get 8x as many), ``BENCH_CALC_SECONDS`` (time limit per
endpoint and round, default 10), ``BENCH_CALC_ROUNDS`` (default 3), ``BENCH_CALC_PRESET``
(default ``pretrain-7b``).
"""

from __future__ import annotations

import contextlib
import http.client
import math
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

HOST = "127.0.0.1"
WORKERS = 2
CLIENTS = 16
WARMUP_REQUESTS = 32
MEASURED_REQUESTS = int(os.environ.get("BENCH_CALC_REQUESTS", "400"))
TIME_LIMIT_S = float(os.environ.get("BENCH_CALC_SECONDS", "10"))
ROUNDS = int(os.environ.get("BENCH_CALC_ROUNDS", "3"))
PING_FACTOR = 8  # /ping's request bound against the uncached page's
PRESET = os.environ.get("BENCH_CALC_PRESET", "pretrain-7b")

CALCULATOR_PATH = f"/calculator/?preset={PRESET}"
# Every request a distinct URL (a different discount rate), so each is computed afresh:
# the cost of the work itself, not of the page cache.
UNCACHED_BASE = (
    "/calculator/?kind=pretrain&params_billion=7&tokens_billion=1000&deadline_days=30"
    "&server=auto&site=nl-colo-amsterdam&horizon_years=5&currency=EUR&utilization_pct=70"
    "&precision=bf16&optimizer=adam_mixed&sharding=auto&sequence_length=4096"
    "&interconnect=infiniband&mfu_pct=40&goodput_pct=90&context_tokens=8192&concurrency=64"
    "&serving_efficiency_pct=50&providers=AWS&providers=Google+Cloud&providers=CoreWeave"
    "&terms=on_demand&terms=reserved_3y"
)


def uncached_path(ticket: int) -> str:
    return f"{UNCACHED_BASE}&discount_rate_pct={8 + ticket / 10_000:.4f}"


PING_PATH = "/ping"
RESULT_MARKER = b'id="verdict"'  # the verdict headline block of a result

# Uncached results (issue 10).
TARGET_P95_MS = 100.0
TARGET_THROUGHPUT_RATIO = 0.10

# Production settings store static files with whitenoise's CompressedManifestStaticFilesStorage,
# which needs a `collectstatic` first (a minute on this machine: it compresses every file,
# the API docs' 24 MB with Brotli too). The pages measured here request no static file
# and name them only in the layout, which is rendered once per language, so the server runs
# the local settings with DEBUG=false: same middleware, apps and templates, plain static
# storage. (bench/page_bench.py collects them, into its temporary directory, for the
# browser's first chart.)
SETTINGS_MODULE = "config.settings.local"
SETTINGS_NOTE = (
    "config.settings.local with DEBUG=false (config.settings.production needs a collectstatic "
    "of a minute; these pages request no static file)"
)


class BenchError(RuntimeError):
    """The benchmark could not run (as opposed to: it ran and missed a target)."""


# ---------------------------------------------------------------------------- statistics


def percentile(values: Sequence[float], pct: float) -> float:
    """The pct-th percentile (0-100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * pct / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    if low == high:
        return ordered[low]
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass(frozen=True)
class Measurement:
    label: str
    latencies_s: tuple[float, ...]
    elapsed_s: float

    @property
    def count(self) -> int:
        return len(self.latencies_s)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies_s) * 1000.0

    @property
    def p95_ms(self) -> float:
        return percentile(self.latencies_s, 95) * 1000.0

    @property
    def throughput(self) -> float:
        return self.count / self.elapsed_s if self.elapsed_s > 0 else 0.0


@dataclass(frozen=True)
class CpuShare:
    """CPU seconds spent while a load ran: by the server's workers and by the load generator."""

    workers_s: float
    load_generator_s: float
    requests: int

    def per_request_ms(self) -> tuple[float, float]:
        n = max(self.requests, 1)
        return self.workers_s * 1000.0 / n, self.load_generator_s * 1000.0 / n

    def ceiling(self, cores: int) -> float:
        """Requests per second the cores could serve at this CPU cost, nothing else running."""
        total = self.workers_s + self.load_generator_s
        return cores * self.requests / total if total > 0 else 0.0


def process_cpu_s(pid: int) -> float:
    """User + system CPU of one process (all its threads) so far, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (gunicorn's workers of its master)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def cpu_while(master: int, load: Callable[[], Measurement]) -> tuple[Measurement, CpuShare]:
    """Run `load`, and count the CPU the master's workers and this process spent meanwhile."""
    workers = children(master)
    before = [process_cpu_s(pid) for pid in workers]
    mine = time.process_time()
    measurement = load()
    spent_mine = time.process_time() - mine
    spent = sum(process_cpu_s(pid) - b for pid, b in zip(workers, before, strict=True))
    return measurement, CpuShare(spent, spent_mine, measurement.count)


def pooled(rounds: Sequence[Measurement], label: str) -> Measurement:
    """The rounds' requests as one measurement: every latency, over their summed time."""
    return Measurement(
        label,
        tuple(latency for m in rounds for latency in m.latencies_s),
        sum(m.elapsed_s for m in rounds),
    )


# ---------------------------------------------------------------------------- load generator

Check = Callable[[int, bytes], str | None]


def check_ok_text(expected: bytes) -> Check:
    def check(status: int, body: bytes) -> str | None:
        if status != 200:
            return f"HTTP {status}"
        if body.strip() != expected:
            return f"body {body[:80]!r}, expected {expected!r}"
        return None

    return check


def check_page(marker: bytes) -> Check:
    def check(status: int, body: bytes) -> str | None:
        if status != 200:
            return f"HTTP {status}"
        if marker not in body:
            return f"{marker.decode()!r} not in the {len(body)}-byte page"
        return None

    return check


def run_load(
    port: int,
    path: str,
    check: Check,
    *,
    clients: int,
    max_requests: int,
    time_limit_s: float,
    label: str = "",
    host: str = HOST,
    path_of: Callable[[int], str] | None = None,
) -> Measurement:
    """Send GET `path` from `clients` threads until `max_requests` or `time_limit_s`.

    Each thread keeps one ``http.client`` connection (re-opened by http.client when the
    server closes it, as gunicorn's sync workers do after every response). Latency is
    measured from sending the request to having read the whole body.
    """
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise BenchError("this benchmark only talks to the loopback interface")
    lock = threading.Lock()
    issued = 0
    latencies: list[float] = []
    errors: list[str] = []
    start_barrier = threading.Barrier(clients + 1)
    deadline = 0.0

    def take_ticket() -> int | None:
        nonlocal issued
        with lock:
            if errors or issued >= max_requests or time.perf_counter() >= deadline:
                return None
            issued += 1
            return issued

    def client() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        mine: list[float] = []
        try:
            start_barrier.wait()
            while (ticket := take_ticket()) is not None:
                target = path_of(ticket) if path_of else path
                t0 = time.perf_counter()
                try:
                    conn.request("GET", target, headers={"Accept-Language": "en"})
                    response = conn.getresponse()
                    body = response.read()
                except (OSError, http.client.HTTPException) as exc:
                    # One retry on a fresh connection: a keep-alive socket the server has
                    # just closed is not a failed request.
                    conn.close()
                    try:
                        conn.request("GET", target, headers={"Accept-Language": "en"})
                        response = conn.getresponse()
                        body = response.read()
                    except (OSError, http.client.HTTPException) as exc2:
                        with lock:
                            errors.append(f"{exc.__class__.__name__} then {exc2!r}")
                        return
                elapsed = time.perf_counter() - t0
                problem = check(response.status, body)
                if problem is not None:
                    with lock:
                        errors.append(f"GET {path}: {problem}")
                    return
                mine.append(elapsed)
        finally:
            conn.close()
            with lock:
                latencies.extend(mine)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    deadline = time.perf_counter() + time_limit_s
    t_start = time.perf_counter()
    start_barrier.wait()
    for thread in threads:
        thread.join(time_limit_s + 120)
    elapsed = time.perf_counter() - t_start
    if any(thread.is_alive() for thread in threads):
        raise BenchError(f"GET {path}: client threads did not finish")
    if errors:
        raise BenchError(f"{len(errors)} failed request(s); first: {errors[0]}")
    if not latencies:
        raise BenchError(f"GET {path}: no request completed")
    return Measurement(label or path, tuple(latencies), elapsed)


# ---------------------------------------------------------------------------- server setup


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def server_env(tmp: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE", "STATIC_ROOT"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE=SETTINGS_MODULE,
        DATABASE_URL=f"sqlite:///{tmp / 'bench.sqlite3'}",
        SECRET_KEY=secrets.token_urlsafe(48),  # 64 characters
        DEBUG="false",
        ALLOWED_HOSTS=HOST,
        SECURE_SSL_REDIRECT="false",
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        LOG_LEVEL="WARNING",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


# `make setup`'s migrate and load_catalog, in one process: one Django start-up (~1.3 s of
# CPU) fewer for every benchmark that prepares its own database.
PREPARE_DATABASE = """
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
call_command("load_catalog")
"""


def prepare_database(env: dict[str, str]) -> None:
    run_manage(["shell", "-c", PREPARE_DATABASE], env)


def run_manage(args: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise BenchError(
            f"manage.py {' '.join(args)} failed ({result.returncode}):\n"
            f"{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )


def gunicorn_command(port: int) -> list[str]:
    venv_gunicorn = Path(sys.executable).with_name("gunicorn")
    launcher = (
        [str(venv_gunicorn)] if venv_gunicorn.exists() else [sys.executable, "-m", "gunicorn"]
    )
    return [
        *launcher,
        "config.wsgi:application",
        "--workers",
        str(WORKERS),
        "--bind",
        f"{HOST}:{port}",
        "--log-level",
        "warning",
    ]


def wait_until_serving(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:]
            raise BenchError(f"gunicorn exited with {proc.returncode}:\n{tail}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=5)
            conn.request("GET", PING_PATH)
            response = conn.getresponse()
            response.read()
            conn.close()
            if response.status == 200:
                return
            raise BenchError(f"GET {PING_PATH} answered {response.status} at startup")
        except OSError:
            time.sleep(0.2)
    tail = log.read_text(errors="replace")[-3000:]
    raise BenchError(f"gunicorn did not answer within 60 s:\n{tail}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the gunicorn master we started (it stops its workers), then its process group."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    # The master ran in its own session: clear any worker it left behind.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


# ---------------------------------------------------------------------------- report


def report_line(m: Measurement, width: int) -> str:
    return (
        f"{m.label + ':':<{width}} median {m.median_ms:.1f} ms, p95 {m.p95_ms:.1f} ms, "
        f"{m.throughput:.0f} req/s  ({m.count} requests in {m.elapsed_s:.1f} s)"
    )


def print_cpu_bound(rounds: Sequence[CpuShare], cores: int) -> None:
    """Why the uncached p95 is what it is: the CPU each request took under the load, and
    the latency that cost implies. With `CLIENTS` clients that each send their next request
    when the last is answered, the mean latency is CLIENTS ÷ throughput (Little's law)."""
    total = CpuShare(
        sum(r.workers_s for r in rounds),
        sum(r.load_generator_s for r in rounds),
        sum(r.requests for r in rounds),
    )
    workers_ms, generator_ms = total.per_request_ms()
    ceiling = total.ceiling(cores)
    budget_ms = cores * TARGET_P95_MS / CLIENTS
    print(
        f"  CPU per uncached request under this load: workers {workers_ms:.1f} ms, load "
        f"generator {generator_ms:.1f} ms; {cores} cores serve at most {ceiling:.0f} req/s at "
        f"that cost, so {CLIENTS} clients wait at least {CLIENTS / ceiling * 1000:.0f} ms on "
        f"average (a mean of {TARGET_P95_MS:.0f} ms needs ≤ {budget_ms:.1f} ms of CPU a "
        "request, all included; no target)"
        if ceiling
        else "  CPU per uncached request under this load: not measured (no CPU counted)"
    )


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="gputco-calcbench-"))
    proc: subprocess.Popen[bytes] | None = None
    log_file = None
    try:
        env = server_env(tmp)
        prepare_database(env)

        port = free_port()
        log = tmp / "gunicorn.log"
        log_file = log.open("wb")
        proc = subprocess.Popen(
            gunicorn_command(port),
            cwd=ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_until_serving(proc, port, log)

        calc_check = check_page(RESULT_MARKER)
        ping_check = check_ok_text(b"ok")
        # Warm both workers' caches (imports, templates, catalog queries) before measuring.
        for path, check in ((CALCULATOR_PATH, calc_check), (PING_PATH, ping_check)):
            run_load(
                port,
                path,
                check,
                clients=CLIENTS,
                max_requests=WARMUP_REQUESTS,
                time_limit_s=TIME_LIMIT_S,
            )

        cached_rounds: list[Measurement] = []
        ping_rounds: list[Measurement] = []
        fresh_rounds: list[Measurement] = []
        fresh_cpu: list[CpuShare] = []
        many: dict[str, Any] = dict(clients=CLIENTS, max_requests=MEASURED_REQUESTS * PING_FACTOR)
        for round_ in range(ROUNDS):
            offset = round_ * (MEASURED_REQUESTS + 1)  # distinct inputs in every round too
            cached_rounds.append(
                run_load(port, CALCULATOR_PATH, calc_check, time_limit_s=TIME_LIMIT_S, **many)
            )
            ping_rounds.append(
                run_load(port, PING_PATH, ping_check, time_limit_s=TIME_LIMIT_S, **many)
            )

            def fresh_load(offset: int = offset) -> Measurement:
                return run_load(
                    port,
                    UNCACHED_BASE,
                    calc_check,
                    clients=CLIENTS,
                    max_requests=MEASURED_REQUESTS,
                    time_limit_s=TIME_LIMIT_S,
                    path_of=lambda ticket: uncached_path(ticket + offset),
                )

            measured, cpu = cpu_while(proc.pid, fresh_load)
            fresh_rounds.append(measured)
            fresh_cpu.append(cpu)
        calc = pooled(cached_rounds, f"calculator result page ({PRESET})")
        ping = pooled(ping_rounds, f"trivial view ({PING_PATH})")
        fresh = pooled(fresh_rounds, "calculator, every request computed (cache miss)")
        ratios = [
            f.throughput / p.throughput if p.throughput else 0.0
            for f, p in zip(fresh_rounds, ping_rounds, strict=True)
        ]

        cores = os.cpu_count() or 0
        print(f"settings: {SETTINGS_NOTE}; SQLite in a temporary directory; no REDIS_URL")
        print(
            f"server: gunicorn, {WORKERS} sync workers, {HOST}:{port}; load: {CLIENTS} client "
            f"threads (http.client; the sync workers close every connection, so each request "
            f"includes a TCP connect); {WARMUP_REQUESTS} warm-up requests, then {ROUNDS} "
            f"round(s) of the three in turn, each up to {MEASURED_REQUESTS} uncached requests "
            f"({MEASURED_REQUESTS * PING_FACTOR} of the others) or {TIME_LIMIT_S:g} s"
        )
        print(
            f"note: the load generator runs on the same {cores}-core machine as the server, "
            "so it takes CPU from the workers (most for the cheap /ping)"
        )
        for number, (p, f, r) in enumerate(zip(ping_rounds, fresh_rounds, ratios, strict=True)):
            print(
                f"  round {number + 1}: /ping {p.throughput:.0f} req/s; uncached "
                f"{f.throughput:.0f} req/s, p95 {f.p95_ms:.1f} ms; ratio {r * 100:.1f} %"
            )
        width = max(len(calc.label), len(ping.label), len(fresh.label)) + 1
        print(f"{report_line(calc, width)}   (cached page, for reference)")
        print(report_line(ping, width))
        ok_p95 = fresh.p95_ms <= TARGET_P95_MS
        print(
            f"{report_line(fresh, width)}   "
            f"[target uncached p95 ≤ {TARGET_P95_MS:.0f} ms: {verdict(ok_p95)}]"
        )
        print_cpu_bound(fresh_cpu, cores)
        ratio = statistics.median(ratios)
        ok_ratio = ratio >= TARGET_THROUGHPUT_RATIO
        print(
            f"uncached throughput ratio: {ratio * 100:.1f} % of the trivial view (median of "
            f"{len(ratios)} rounds)   "
            f"[target ≥ {TARGET_THROUGHPUT_RATIO * 100:.0f} %: {verdict(ok_ratio)}]"
        )
        cached_ratio = calc.throughput / ping.throughput if ping.throughput else 0.0
        print(
            f"cached page: {cached_ratio * 100:.1f} % of the trivial view's throughput; latency "
            f"median {calc.median_ms / ping.median_ms:.1f}x, p95 {calc.p95_ms / ping.p95_ms:.1f}x "
            "the trivial view's"
        )
        return 0
    except (BenchError, subprocess.SubprocessError, OSError) as exc:
        print(f"calculator benchmark could not run: {exc}", file=sys.stderr)
        return 2
    finally:
        if proc is not None:
            stop(proc)
        if log_file is not None:
            log_file.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
