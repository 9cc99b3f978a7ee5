"""Load: 50 concurrent clients for 60 s against result pages (misses and hits), the lead form
and the buyer page, served by gunicorn with PostgreSQL and Redis.

Issue target: no errors; report p50/p95/p99 latency and throughput for each.

Self-contained: it starts its own PostgreSQL and Redis (the test suite's launcher,
tests/real_services.py) on free loopback ports, migrates, loads the seed catalog, creates a
sent quote for the buyer page, starts gunicorn as the Procfile does (2 sync workers; the
BENCH_LOAD_WORKERS, BENCH_LOAD_WORKER_CLASS and BENCH_LOAD_THREADS variables try others) on a
free loopback port,
and drives each scenario with `BENCH_LOAD_CLIENTS` (50) threads on keep-alive connections for
`BENCH_LOAD_SECONDS` (60). Everything is stopped and removed at the end. A request that
fails, times out or answers other than 200 counts as an error (the run goes on). Settings:
config.settings.local with DEBUG=false (as bench/calculator_bench.py explains: production's
manifest storage needs a collectstatic of minutes, and these pages request no static file);
PostgreSQL and Redis as in production.

Scenarios:
- `/ping` (no database, no template): the server's own cost per request, the yardstick;
- result pages, cache misses: every request a distinct valid input (another discount rate);
- result pages, cache hits: the seven presets' canonical URLs, warmed first;
- lead form: `/quotes/analysis-pdf/form/?<result query>` (never cached: carries a token);
- buyer page: `/quotes/p/<signed token>/` of a sent quote (a read: the view is recorded
  by the page's script on the buyer's first interaction, not by the GET).

Each scenario also reports the requests served per CPU-second of the server (gunicorn's
master and workers, user + system time from /proc): unlike requests per second it does not
depend on how many cores the machine has or how busy they are with the load generator, and
its ratio to `/ping`'s (how many pings one uncached result costs) is comparable between
machines. The last lines print that ratio and the p95 latencies beside `/ping`'s.
"""

from __future__ import annotations

import http.client
import importlib.util
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"
CLIENTS = int(os.environ.get("BENCH_LOAD_CLIENTS", "50"))
SECONDS = float(os.environ.get("BENCH_LOAD_SECONDS", "60"))
# The Procfile's web process: gunicorn's sync workers, WEB_CONCURRENCY (2) of them.
WORKERS = int(os.environ.get("BENCH_LOAD_WORKERS", "2"))
WORKER_CLASS = os.environ.get("BENCH_LOAD_WORKER_CLASS", "sync")
THREADS = int(os.environ.get("BENCH_LOAD_THREADS", "1"))
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` and its children (gunicorn's workers), in seconds."""
    total = 0.0
    for process in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # exited meanwhile
            continue
        total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
    return total


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(child) for child in task.read_text().split()]
    return found


def _calculator_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "calculator_bench", ROOT / "bench" / "calculator_bench.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cb = _calculator_bench()


@dataclass
class Result:
    label: str
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    cpu: float = 0.0  # the server's CPU-seconds while it ran

    @property
    def per_cpu_second(self) -> float:
        return len(self.latencies) / self.cpu if self.cpu else 0.0

    def p95_ms(self) -> float:
        return float(cb.percentile([x * 1000 for x in self.latencies], 95))

    def line(self) -> str:
        pct = cb.percentile
        n = len(self.latencies)
        if not n:
            return f"{self.label:<34} no successful request; errors {len(self.errors)}"
        ms = [x * 1000 for x in self.latencies]
        return (
            f"{self.label:<34} {n:>6} ok, errors {len(self.errors):>3}, "
            f"p50 {pct(ms, 50):7.1f} ms, p95 {pct(ms, 95):7.1f} ms, p99 {pct(ms, 99):7.1f} ms, "
            f"{n / self.elapsed:7.1f} req/s, {self.per_cpu_second:7.1f} req per CPU-s"
        )


def drive(port: int, label: str, path_of: Callable[[int], str], server: int) -> Result:
    """`CLIENTS` threads send GET requests for `SECONDS`; count every failure and the CPU
    time the server (process `server` and its workers) spent meanwhile."""
    result = Result(label)
    lock = threading.Lock()
    counter = iter(range(10**9))
    barrier = threading.Barrier(CLIENTS + 1)
    deadline = 0.0

    def client() -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=30)
        mine: list[float] = []
        problems: list[str] = []
        barrier.wait()
        while time.perf_counter() < deadline:
            with lock:
                ticket = next(counter)
            path = path_of(ticket)
            t0 = time.perf_counter()
            try:
                conn.request("GET", path, headers={"Accept-Language": "en"})
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                problems.append(f"{type(exc).__name__}: {exc}")
                continue
            if response.status != 200:
                problems.append(f"HTTP {response.status} for {path[:80]}")
                continue
            mine.append(time.perf_counter() - t0)
        conn.close()
        with lock:
            result.latencies += mine
            result.errors += problems

    threads = [threading.Thread(target=client, daemon=True) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    deadline = time.perf_counter() + SECONDS
    started = time.perf_counter()
    cpu_before = cpu_seconds(server)
    barrier.wait()
    for thread in threads:
        thread.join(SECONDS + 60)
    result.elapsed = time.perf_counter() - started
    result.cpu = cpu_seconds(server) - cpu_before
    return result


def ratio_lines(ping: Result, miss: Result) -> list[str]:
    """The uncached result page beside `/ping`: machine-independent ratios."""
    if not (ping.per_cpu_second and miss.per_cpu_second):
        return ["  ratio: not measured (no successful request)"]
    return [
        f"  uncached result page: {miss.per_cpu_second:.1f} per CPU-s, /ping "
        f"{ping.per_cpu_second:.1f} per CPU-s: one result costs "
        f"{ping.per_cpu_second / miss.per_cpu_second:.0f} pings",
        f"  p95 at {CLIENTS} clients: result page {miss.p95_ms():.0f} ms, /ping "
        f"{ping.p95_ms():.0f} ms ({miss.p95_ms() / ping.p95_ms():.1f}×)",
    ]


SETUP_SCRIPT = """
import uuid
from django.contrib.auth.models import Group, User
from quotes import services
from quotes.models import Team
from tco.inputs.presets import PRESETS, preset_data
from tco.inputs.canonical import canonical_query
from tco.inputs.forms import CalculatorForm
from tco.scenario.resolve import CatalogSnapshot
from tco.analysis.calculator import form_data
from django.http import QueryDict

user = User.objects.create_user("bench-sales")
user.groups.add(Group.objects.get_or_create(name="sales")[0])
team = Team.objects.get_or_create(name="Bench")[0]
team.members.add(user)
customer = services.customer_create(team=team, company="Bench BV", contact_name="B",
    email="b@buyer.example", country="NL", vat_number="", language="en")
quote = services.quote_create_from_calculator(customer=customer, owner=user,
    query="preset=serve-70b")
revision = quote.revisions.get()
services.quote_send(revision=revision, actor=user, idempotency_key=str(uuid.uuid4()))
print("TOKEN", services.buyer_link_token(revision=revision))
catalog = CatalogSnapshot.load()
for preset in PRESETS:
    form = CalculatorForm(form_data(QueryDict("preset=" + preset.slug)), catalog=catalog)
    if form.is_valid():
        print("QUERY", canonical_query(form))
"""


def main() -> int:
    from tests.real_services import RUNNING, start_postgres, start_redis

    tmp = Path(tempfile.mkdtemp(prefix="gputco-load-"))
    postgres = start_postgres()
    redis_service = start_redis()
    proc = None
    try:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL"}
        }
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings.local",
            DATABASE_URL=postgres.url,
            REDIS_URL=redis_service.url,
            SECRET_KEY=secrets.token_urlsafe(48),
            DEBUG="false",
            ALLOWED_HOSTS=HOST,
            EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
            LOG_LEVEL="WARNING",
            QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL="1000000",
        )
        setup = subprocess.run(  # migrate and load the catalog, then the sent quote
            [sys.executable, "manage.py", "shell", "-c", cb.PREPARE_DATABASE + SETUP_SCRIPT],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=True,
        )  # fmt: skip
        lines = setup.stdout.splitlines()
        token = next(line.split(" ", 1)[1] for line in lines if line.startswith("TOKEN "))
        queries = [line.split(" ", 1)[1] for line in lines if line.startswith("QUERY ")]
        port = cb.free_port()
        log = tmp / "gunicorn.log"
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application",
             "--workers", str(WORKERS), "--worker-class", WORKER_CLASS, "--threads", str(THREADS),
             "--bind", f"{HOST}:{port}", "--log-level", "warning", "--timeout", "120"],
            cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        cb.wait_until_serving(proc, port, log)

        base = queries[0]

        def miss(n: int) -> str:
            # A distinct valid input each time: another discount rate (0-50 %).
            return (
                "/calculator/?"
                + base
                + "&"
                + urlencode({"discount_rate_pct": f"{5 + (n % 40_000) / 1000:.3f}"})
            )

        for query in queries:  # warm the hits
            conn = http.client.HTTPConnection(HOST, port, timeout=60)
            conn.request("GET", "/calculator/?" + query)
            conn.getresponse().read()
            conn.close()
        print(
            f"server: gunicorn {WORKERS} {WORKER_CLASS} workers × {THREADS} threads, "
            f"PostgreSQL and Redis on loopback, {os.cpu_count()} CPUs; load: {CLIENTS} clients "
            f"for {SECONDS:.0f} s each"
        )
        ping = drive(port, "/ping", lambda n: "/ping", proc.pid)
        uncached = drive(port, "result page, cache miss", miss, proc.pid)
        results = [
            ping,
            uncached,
            drive(
                port,
                "result page, cache hit",
                lambda n: "/calculator/?" + queries[n % len(queries)],
                proc.pid,
            ),
            drive(
                port,
                "lead form",
                lambda n: "/quotes/analysis-pdf/form/?" + queries[n % len(queries)],
                proc.pid,
            ),
            drive(port, "buyer page", lambda n: f"/quotes/p/{token}/", proc.pid),
        ]
        for result in results:
            print(result.line())
            for error in sorted(set(result.errors))[:3]:
                print(f"    error: {error}")
        for line in ratio_lines(ping, uncached):
            print(line)
        total_errors = sum(len(r.errors) for r in results)
        print(f"  errors: {total_errors} (target 0)")
        return 0
    finally:
        if proc is not None:
            cb.stop(proc)
        RUNNING.stop()
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
