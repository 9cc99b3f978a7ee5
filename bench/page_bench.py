"""What a result page costs: server time per uncached result, the browser's first paint
and an edit.

Targets: server CPU per uncached result ≤ 20 ms median on this machine (issue 30); the
verdict and the first chart painted ≤ 0.5 s after navigation start in headless Chromium on
a cold browser cache, and an edit (one input typed) to the new verdict painted ≤ 250 ms,
uncached on the server ("one simple house").

Server time is the CPU a gunicorn worker spends on each uncached result (every request a
distinct URL, so the page cache never answers), sent one at a time to the app served as in
production (below): gunicorn's server hooks (``SERVED_CPU_HOOKS``) read the worker's CPU
clock before the WSGI call and after the response is written, so the figure holds WSGI, the
middleware, the view and writing the page. That is the target's figure. For information the
view alone is also timed in one process, called directly back to back (CPU and wall
time): its caches stay warm there, which a server's do not between requests (on this
machine a pause of a few milliseconds between in-process calls adds 2–5 ms to the next
one), so it reads low.

The browser figures come from Playwright and Debian's Chromium against the app served as
in production: the production settings, static files collected into the temporary
directory (hashed names, gzip and Brotli copies, served by WhiteNoise) and gunicorn with 2
workers, each worker warmed up by one page first (its first request imports the engine); a
new browser context per load (nothing cached in the browser) and distinct inputs per load
(nothing cached on the server either). The first paint: from navigation start until the
browser painted the verdict's headline and the first chart, each read from the browser's
Element Timing (``elementtiming="verdict"`` on the headline, ``"first-chart"`` on the
server-drawn chart's title); a page whose first chart only Plotly draws counts the
``first-chart-plotly`` mark calculator.js sets when ``Plotly.newPlot`` resolves (that
mark is also printed: when the first chart becomes interactive). The edit: on the loaded
page a new target throughput is typed into its field and the field left (Tab); from the
``change`` event until the new verdict's headline, with a different text, is painted
(Element Timing), and until the first frame in which every chart of the new result is
drawn.

Like the other benchmarks it prints figures beside their targets, exits 0 when a target
is missed, non-zero only when it could not run, and leaves nothing behind.
It also counts the instructions per uncached result under valgrind's callgrind (the
bench's URLs; no target): unlike seconds on this
machine, whose speed drifts by up to 2x within minutes, the count is the same from run to
run, so it shows what a change of the code did.

Options: ``BENCH_PAGE_REQUESTS`` (uncached results, default 40), ``BENCH_PAGE_LOADS``
(browser loads and edits, default 5), ``BENCH_PAGE_INSTRUCTION_REQUESTS`` (URLs counted under
callgrind per set, default 10; 0 skips the count), ``BENCH_PAGE_DEBUG`` (set: print each
load's navigation and resource timings and each edit's htmx steps), ``BENCH_PAGE_STATIC_IGNORE``
(space-separated ``collectstatic --ignore`` patterns, default none: every static file is
collected and compressed as in a deploy, a minute on this machine; a short run can leave out
what the page never loads, e.g. ``admin ninja *.map``).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calculator_bench import (
    HOST,
    ROOT,
    WORKERS,
    BenchError,
    free_port,
    gunicorn_command,
    prepare_database,
    run_manage,
    server_env,
    stop,
    uncached_path,
    verdict,
    wait_until_serving,
)

REQUESTS = int(os.environ.get("BENCH_PAGE_REQUESTS", "40"))
LOADS = int(os.environ.get("BENCH_PAGE_LOADS", "5"))
INSTRUCTION_REQUESTS = int(os.environ.get("BENCH_PAGE_INSTRUCTION_REQUESTS", "10"))
STATIC_IGNORE = os.environ.get("BENCH_PAGE_STATIC_IGNORE", "").split()
TARGET_SERVER_MS = 20.0
TARGET_FIRST_PAINT_S = 0.5
TARGET_EDIT_MS = 250.0
CHROMIUM = "/usr/bin/chromium"

# The start of both child scripts below: Django set up as in a web worker (config/wsgi.py
# settles the collector after start-up) and `get`, which calls the calculator view on a
# path and checks that a result came back.
VIEW_CALLER = """
import json, os, statistics, subprocess, sys, time
import django
django.setup()
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django.utils import translation
from tco.web.views import calculator
from common.memory import settle_after_startup
settle_after_startup()
factory = RequestFactory()
def get(path):
    request = factory.get(path)
    request.user = AnonymousUser()
    request.htmx = False
    with translation.override("en"):
        response = calculator(request)
    assert response.status_code == 200 and b'id="verdict"' in response.content, path
"""

# gunicorn's server hooks (the config file given with --config): each worker appends the
# CPU it spent on each calculator request, from before the WSGI call until the response is
# written, with the request's query, to a file of its own in BENCH_SERVED_CPU_DIR. The
# hook runs after the client has the page, so the bench waits for each request's own line
# (by its query) rather than counting lines: a warm-up request's line may come late.
SERVED_CPU_HOOKS = """
import os, time
OUT = os.environ["BENCH_SERVED_CPU_DIR"]
def pre_request(worker, req):
    worker.bench_cpu_start = time.process_time()
def post_request(worker, req, environ, resp):
    if req.path == "/calculator/":
        spent = (time.process_time() - worker.bench_cpu_start) * 1000
        with open(os.path.join(OUT, f"{os.getpid()}.txt"), "a") as out:
            out.write(f"{spent:.3f} {req.query}\\n")
"""

# Runs under valgrind's callgrind with the benchmark's database: counts the instructions
# of the view on distinct uncached URLs, zeroing the counters after the warm-up and dumping
# them after each set (callgrind_control), so start-up and imports are not counted.
INSTRUCTION_COUNTER = (
    VIEW_CALLER
    + """
import tco.scenario.resolve
# The catalog in memory is read again after a minute of wall time; under valgrind a set
# takes minutes, so the re-read would land in a set or not depending on the machine's
# speed. One read for the count.
tco.scenario.resolve.CATALOG_MEMORY_SECONDS = 1e9
warm, sets = json.loads(sys.argv[1])
def control(*args):
    subprocess.run(["callgrind_control", *args, str(os.getpid())], check=True,
                   capture_output=True)
for path in warm:
    get(path)
for name, paths in sets:
    control("-z")
    for path in paths:
        get(path)
    control("-d", name)
"""
)

# Runs in a child process with the benchmark's database: times the view itself.
SERVER_TIMER = (
    VIEW_CALLER
    + """
paths = json.loads(sys.argv[1])
get(paths[0])  # imports, templates, first catalog read
cpu, wall = [], []
for path in paths[1:]:
    c, w = time.process_time(), time.perf_counter()
    get(path)
    cpu.append((time.process_time() - c) * 1000)
    wall.append((time.perf_counter() - w) * 1000)
print(json.dumps({"cpu": cpu, "wall": wall}))
"""
)


def server_times(env: dict[str, str]) -> dict[str, list[float]]:
    paths = [uncached_path(ticket) for ticket in range(REQUESTS + 1)]
    result = subprocess.run(
        [sys.executable, "-c", SERVER_TIMER, json.dumps(paths)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise BenchError(f"server timing failed:\n{result.stderr[-3000:]}")
    times: dict[str, list[float]] = json.loads(result.stdout.strip().splitlines()[-1])
    return times


def instructions_per_miss(env: dict[str, str], tmp: Path) -> dict[str, float] | None:
    """Millions of instructions per uncached result (valgrind's callgrind) over the bench's
    URLs. Deterministic for the same code and inputs,
    whatever else the machine does, so two versions of the code compare exactly; None
    when valgrind is not installed."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        return None
    count = INSTRUCTION_REQUESTS
    warm = [uncached_path(10_000 + t) for t in range(3)]
    sets = [("bench URLs", [uncached_path(20_000 + t) for t in range(count)])]
    out = tmp / "callgrind"
    out.mkdir()
    result = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}/cg.%p",
            sys.executable,
            "-c",
            INSTRUCTION_COUNTER,
            json.dumps([warm, sets]),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if result.returncode != 0:
        raise BenchError(f"instruction count failed:\n{result.stderr[-3000:]}")
    dumps = sorted(out.glob("cg.*.*"), key=lambda path: int(path.suffix[1:]))
    if len(dumps) != len(sets):
        raise BenchError(f"instruction count: {len(dumps)} dumps for {len(sets)} sets")
    figures: dict[str, float] = {}
    for (name, paths), dump in zip(sets, dumps, strict=True):
        totals = [
            int(line.split()[1])
            for line in dump.read_text().splitlines()
            if line.startswith(("summary:", "totals:"))
        ]
        figures[name] = max(totals) / len(paths) / 1e6
    return figures


def production_env(env: dict[str, str], tmp: Path) -> dict[str, str]:
    """The production settings (manifest storage, compressed static files) over plain HTTP
    on loopback, with static files collected into the temporary directory."""
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "STATIC_ROOT": str(tmp / "static"),
        "SECURE_SSL_REDIRECT": "false",
    }


def served_server_times(port: int, cpu_dir: Path) -> list[float]:
    """Milliseconds of worker CPU per uncached result, `REQUESTS` distinct URLs sent one at
    a time to the gunicorn started with SERVED_CPU_HOOKS (the warm-up's are dropped)."""
    times = []
    for ticket in range(REQUESTS):
        path = uncached_path(40_000 + ticket)
        conn = http.client.HTTPConnection(HOST, port, timeout=120)
        try:
            conn.request("GET", path, headers={"Accept-Language": "en"})
            response = conn.getresponse()
            body = response.read()
        finally:
            conn.close()
        if response.status != 200 or b'id="verdict"' not in body:
            raise BenchError(f"served result: HTTP {response.status}, {len(body)} bytes")
        # Wait for this request's line before sending the next, so the worker has finished
        # with it (its hook runs after the page is sent) and requests never overlap.
        times.append(served_cpu_line(cpu_dir, path.partition("?")[2]))
    return times


def served_cpu_line(cpu_dir: Path, query: str, timeout_s: float = 30.0) -> float:
    """The CPU milliseconds SERVED_CPU_HOOKS recorded for the request with `query`."""
    deadline = time.monotonic() + timeout_s
    while True:
        lines = [line for path in cpu_dir.glob("*.txt") for line in path.read_text().splitlines()]
        pairs = [line.partition(" ") for line in lines]
        found = [float(spent) for spent, _, recorded in pairs if recorded == query]
        if len(found) > 1:
            raise BenchError(f"served result: {len(found)} CPU times for one request")
        if found:
            return found[0]
        if time.monotonic() > deadline:
            raise BenchError(f"served result: no CPU time recorded in {timeout_s:.0f} s")
        time.sleep(0.005)


def warm_up_workers(port: int) -> None:
    """One uncached page per gunicorn worker, sent at once so that each worker takes one
    (a sync worker serves one request at a time): a worker's first request imports the
    engine and reads the catalog, which a browser load should not wait for."""

    def fetch(ticket: int) -> None:
        url = f"http://{HOST}:{port}{uncached_path(90_000 + ticket)}"
        with urllib.request.urlopen(url, timeout=120) as response:
            response.read()

    threads = [threading.Thread(target=fetch, args=(t,)) for t in range(2 * WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)


# Paint times read in the page: the browser's Element Timing entries (the verdict's
# headline and the first chart carry `elementtiming`) and the marks calculator.js sets.
# `first-chart` is the server-drawn chart's paint; a page whose first chart Plotly draws
# (no server-drawn chart) falls back to the mark set when Plotly has drawn it.
PAINTS = """() => new Promise(resolve => {
  const found = {};
  const observer = new PerformanceObserver(list => {
    list.getEntries().forEach(e => { found[e.identifier] = found[e.identifier] || e.renderTime; });
  });
  observer.observe({type: 'element', buffered: true});
  const mark = name => {
    const m = performance.getEntriesByName(name);
    return m.length ? m[0].startTime : null;
  };
  const poll = () => {
    const plotly = mark('first-chart-plotly') ?? mark('first-chart');
    if (found.verdict && plotly) {
      observer.disconnect();
      resolve({verdict: found.verdict, chart: found['first-chart'] ?? plotly, plotly: plotly});
    } else setTimeout(poll, 20);
  };
  poll();
})"""

NAVIGATION = """() => {
  const n = performance.getEntriesByType('navigation')[0];
  const r = {};
  ['requestStart', 'responseStart', 'responseEnd', 'domInteractive', 'domContentLoadedEventEnd']
    .forEach(k => r[k] = Math.round(n[k]));
  performance.getEntriesByType('paint').forEach(p => r[p.name] = Math.round(p.startTime));
  performance.getEntriesByType('resource').forEach(e => {
    r[e.name.split('/').pop().slice(0, 12)] = [Math.round(e.startTime), Math.round(e.responseEnd)];
  });
  return r;
}"""

ALL_DRAWN = (
    "() => document.querySelectorAll('[data-drawn=true]').length"
    " === document.querySelectorAll('[data-chart]').length"
)

# Before an edit: from the `change` event on (the moment the browser has the new value),
# the paint of a new verdict headline whose text differs (Element Timing reports each new
# element once), and the first frame in which a new result's charts are all drawn.
WATCH_EDIT = """() => {
  const edit = window.__edit = {};
  const results = document.getElementById('results');
  const before = document.querySelector('.verdict-headline').innerText;
  document.addEventListener('change', () => {
    if (edit.start !== undefined) return;
    edit.start = performance.now();
    const frame = () => {
      const now = document.getElementById('results');
      const charts = now.querySelectorAll('[data-chart]');
      if (now !== results && charts.length &&
          now.querySelectorAll('[data-drawn=true]').length === charts.length) {
        edit.charts = performance.now() - edit.start;
      } else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }, {capture: true});
  edit.steps = [];
  ['beforeRequest', 'afterRequest', 'beforeSwap', 'afterSwap', 'afterSettle'].forEach(n => {
    const step = () => edit.steps.push([n, Math.round(performance.now() - edit.start)]);
    document.addEventListener('htmx:' + n, step, {once: true});
  });
  new PerformanceObserver(list => {
    list.getEntries().forEach(e => {
      const headline = document.querySelector('.verdict-headline');
      if (e.identifier === 'verdict' && edit.start !== undefined && e.renderTime > edit.start &&
          edit.verdict === undefined && headline && headline.innerText !== before) {
        edit.verdict = e.renderTime - edit.start;
      }
    });
  }).observe({type: 'element'});
}"""
# The edit: a new target throughput typed into its field and the field left (Tab), which
# sends the form as a visitor's edit does; the page's distinct discount rate makes the new
# result uncached too.
EDIT_FIELD, EDIT_VALUE = "#id_target_tokens_per_second", "9000"


def browser_times(port: int) -> dict[str, list[float]]:
    """Seconds from navigation start to the verdict's and the first chart's paint (and to
    Plotly's drawing of the first chart), and from an edit to the new verdict's paint and to
    every chart drawn, one page load and one edit per new browser context."""
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {
        "verdict": [],
        "chart": [],
        "plotly": [],
        "edit_verdict": [],
        "edit_charts": [],
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            for load in range(LOADS):
                context = browser.new_context(viewport={"width": 1366, "height": 900})
                page = context.new_page()
                page.set_default_timeout(30_000)
                # Distinct inputs each load: the server computes the page (a cache miss).
                page.goto(
                    f"http://{HOST}:{port}/calculator/?preset=serve-70b"
                    f"&discount_rate_pct={7 + load / 1000:.3f}"
                )
                paints = page.evaluate(PAINTS)
                if os.environ.get("BENCH_PAGE_DEBUG"):
                    print(paints, page.evaluate(NAVIGATION), flush=True)
                for name in ("verdict", "chart", "plotly"):
                    times[name].append(paints[name] / 1000)
                page.wait_for_function(ALL_DRAWN)
                page.evaluate(WATCH_EDIT)
                page.fill(EDIT_FIELD, EDIT_VALUE)
                page.press(EDIT_FIELD, "Tab")
                page.wait_for_function(
                    "() => window.__edit.verdict !== undefined"
                    " && window.__edit.charts !== undefined"
                )
                edit = page.evaluate("window.__edit")
                if os.environ.get("BENCH_PAGE_DEBUG"):
                    print(edit, flush=True)
                times["edit_verdict"].append(edit["verdict"] / 1000)
                times["edit_charts"].append(edit["charts"] / 1000)
                context.close()
        finally:
            browser.close()
    return times


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="gputco-pagebench-"))
    proc: subprocess.Popen[bytes] | None = None
    log_file = None
    try:
        env = server_env(tmp)
        prepare_database(env)
        times = server_times(env)
        cpu, wall = statistics.median(times["cpu"]), statistics.median(times["wall"])
        print(
            f"the view alone, in-process, back to back ({len(times['cpu'])} distinct URLs): "
            f"median {cpu:.1f} ms CPU, {wall:.1f} ms wall (no target; warm caches)",
            flush=True,
        )
        if INSTRUCTION_REQUESTS > 0:
            instructions = instructions_per_miss(env, tmp)
            if instructions is None:
                print("instructions per uncached result: not counted (valgrind not installed)")
            else:
                print(
                    f"instructions per uncached result ({INSTRUCTION_REQUESTS} distinct URLs, "
                    "callgrind; deterministic, for comparing two versions of the code): "
                    + ", ".join(f"{name} {m:.1f} M" for name, m in instructions.items())
                    + " (no target)",
                    flush=True,
                )
        production = production_env(env, tmp)
        cpu_dir = tmp / "served-cpu"
        cpu_dir.mkdir()
        hooks = tmp / "gunicorn_hooks.py"
        hooks.write_text(SERVED_CPU_HOOKS)
        production["BENCH_SERVED_CPU_DIR"] = str(cpu_dir)
        ignore = [arg for pattern in STATIC_IGNORE for arg in ("--ignore", pattern)]
        run_manage(["collectstatic", "--noinput", "-v0", *ignore], production)
        port = free_port()
        log = tmp / "gunicorn.log"
        log_file = log.open("wb")
        proc = subprocess.Popen(
            [*gunicorn_command(port), "--config", str(hooks)],
            cwd=ROOT,
            env=production,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_until_serving(proc, port, log)
        warm_up_workers(port)
        served = served_server_times(port, cpu_dir)
        median_served = statistics.median(served)
        ok = median_served <= TARGET_SERVER_MS
        print(
            f"server time per uncached result, served ({len(served)} distinct URLs one at a "
            "time; a gunicorn worker's CPU per request: WSGI, middleware, view, response; "
            f"production settings): median {median_served:.1f} ms CPU   "
            f"[target ≤ {TARGET_SERVER_MS:.0f} ms: {verdict(ok)}]",
            flush=True,
        )
        loads = browser_times(port)
        n = len(loads["verdict"])
        first_paint = [max(v, c) for v, c in zip(loads["verdict"], loads["chart"], strict=True)]
        print(
            f"time to the verdict and the first chart, cold browser cache, uncached page "
            f"({n} loads): median verdict {statistics.median(loads['verdict']):.2f} s, "
            f"first chart {statistics.median(loads['chart']):.2f} s, "
            f"both {statistics.median(first_paint):.2f} s, worst {max(first_paint):.2f} s   "
            f"[target ≤ {TARGET_FIRST_PAINT_S} s: "
            f"{verdict(statistics.median(first_paint) <= TARGET_FIRST_PAINT_S)}]"
        )
        print(
            f"first chart drawn by Plotly (interactive), same loads: median "
            f"{statistics.median(loads['plotly']):.2f} s (no target)"
        )
        edit_verdict = statistics.median(loads["edit_verdict"]) * 1000
        print(
            f"an edit (one input typed, uncached result) to the new verdict painted "
            f"({n} edits): median {edit_verdict:.0f} ms, "
            f"worst {max(loads['edit_verdict']) * 1000:.0f} ms   "
            f"[target ≤ {TARGET_EDIT_MS:.0f} ms: {verdict(edit_verdict <= TARGET_EDIT_MS)}]"
        )
        print(
            f"the same edits to every chart drawn: median "
            f"{statistics.median(loads['edit_charts']) * 1000:.0f} ms, "
            f"worst {max(loads['edit_charts']) * 1000:.0f} ms (no target)",
            flush=True,
        )
        return 0
    except BenchError as exc:
        print(f"page benchmark could not run: {exc}")
        return 1
    finally:
        if proc is not None:
            stop(proc)
        if log_file is not None:
            log_file.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
