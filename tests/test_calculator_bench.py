"""bench/calculator_bench.py: its statistics, its bounded load generator, and one short run."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "calculator_bench.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("calculator_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a server that does not close

    def do_GET(self) -> None:
        status, body = {
            "/ok": (200, b"ok"),
            "/page": (200, b"<h2>Recommendation</h2>"),
            "/missing": (404, b"nope"),
        }.get(self.path, (500, b"?"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


def test_percentile_interpolates_between_ranks(bench: ModuleType) -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert bench.percentile(values, 50) == pytest.approx(50.5)
    assert bench.percentile(values, 95) == pytest.approx(95.05)
    assert bench.percentile([3.0], 95) == 3.0
    assert bench.percentile([4.0, 1.0, 2.0, 3.0], 100) == 4.0
    with pytest.raises(ValueError):
        bench.percentile([], 50)


def test_measurement_figures(bench: ModuleType) -> None:
    m = bench.Measurement("x", (0.010, 0.020, 0.030, 0.040), elapsed_s=0.5)
    assert m.count == 4
    assert m.median_ms == pytest.approx(25.0)
    assert m.p95_ms == pytest.approx(38.5)
    assert m.throughput == pytest.approx(8.0)


def test_rounds_pool_their_requests_over_their_summed_time(bench: ModuleType) -> None:
    first = bench.Measurement("a", (0.010, 0.030), elapsed_s=0.5)
    second = bench.Measurement("b", (0.020,), elapsed_s=1.0)
    both = bench.pooled([first, second], "both")
    assert both.label == "both" and both.count == 3
    assert both.median_ms == pytest.approx(20.0)
    assert both.throughput == pytest.approx(3 / 1.5)


def test_cpu_share_per_request_and_ceiling(bench: ModuleType) -> None:
    share = bench.CpuShare(workers_s=3.0, load_generator_s=1.0, requests=200)
    assert share.per_request_ms() == pytest.approx((15.0, 5.0))
    # 20 ms of CPU a request on 2 cores: 100 requests a second at most.
    assert share.ceiling(2) == pytest.approx(100.0)
    assert bench.CpuShare(0.0, 0.0, 0).ceiling(2) == 0.0


def test_cpu_of_a_server_s_workers_is_counted(bench: ModuleType) -> None:
    # A parent with one child that burns 0.5 s of CPU and then sleeps: gunicorn's master
    # with a busy worker.
    burn = (
        "import time\n"
        "end = time.process_time() + 0.5\n"
        "while time.process_time() < end: pass\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}])",
        ],
        start_new_session=True,
    )
    try:
        workers: list[int] = []
        for _ in range(250):
            workers = bench.children(parent.pid)
            if workers:
                break
            time.sleep(0.02)
        assert len(workers) == 1

        def work() -> Any:  # a bench.Measurement (the module is loaded by path)
            time.sleep(1.5)
            return bench.Measurement("x", (0.1,), 1.5)

        measurement, share = bench.cpu_while(parent.pid, work)
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()
    assert measurement.count == 1 and share.requests == 1
    # Some of the child's 0.5 s may have run before the count began; none after it ended.
    assert 0.05 <= share.workers_s <= 0.6
    assert share.load_generator_s < 0.2  # this process only slept


def test_load_stops_at_the_request_bound(bench: ModuleType, server_port: int) -> None:
    m = bench.run_load(
        server_port,
        "/ok",
        bench.check_ok_text(b"ok"),
        clients=4,
        max_requests=37,
        time_limit_s=30,
    )
    assert m.count == 37
    assert all(latency > 0 for latency in m.latencies_s)


def test_load_stops_at_the_time_bound(bench: ModuleType, server_port: int) -> None:
    m = bench.run_load(
        server_port,
        "/ok",
        bench.check_ok_text(b"ok"),
        clients=2,
        max_requests=10**9,
        time_limit_s=0.3,
    )
    assert 0 < m.count < 10**9
    assert m.elapsed_s < 5


def test_load_checks_the_page(bench: ModuleType, server_port: int) -> None:
    page = bench.check_page(b"Recommendation")
    assert (
        bench.run_load(server_port, "/page", page, clients=2, max_requests=5, time_limit_s=5).count
        == 5
    )
    with pytest.raises(bench.BenchError, match="not in the"):
        bench.run_load(server_port, "/ok", page, clients=2, max_requests=5, time_limit_s=5)
    with pytest.raises(bench.BenchError, match="HTTP 404"):
        bench.run_load(
            server_port,
            "/missing",
            bench.check_ok_text(b"ok"),
            clients=2,
            max_requests=5,
            time_limit_s=5,
        )


def test_load_refuses_other_hosts(bench: ModuleType) -> None:
    with pytest.raises(bench.BenchError, match="loopback"):
        bench.run_load(
            80,
            "/",
            bench.check_ok_text(b"ok"),
            clients=1,
            max_requests=1,
            time_limit_s=1,
            host="example.com",
        )


@pytest.mark.slow
def test_short_run_reports_both_and_leaves_nothing_behind(tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path), BENCH_CALC_REQUESTS="20", BENCH_CALC_SECONDS="5")
    result = subprocess.run(
        [sys.executable, str(SCRIPT)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert re.search(r"calculator result page \(pretrain-7b\): +median", out)
    assert re.search(r"calculator, every request computed \(cache miss\): +median", out)
    assert "[target uncached p95 ≤ 100 ms: " in out
    assert "trivial view (/ping):" in out
    assert re.search(
        r"CPU per uncached request under this load: workers \d+\.\d ms, load generator "
        r"\d+\.\d ms; \d+ cores serve at most \d+ req/s",
        out,
    )
    assert "uncached throughput ratio:" in out and "[target ≥ 10 %: " in out
    assert len(re.findall(r"  round \d: /ping \d+ req/s; uncached \d+ req/s", out)) == 3
    assert "settings: config.settings.local with DEBUG=false" in out
    assert list(tmp_path.iterdir()) == []
