"""Memory of the calculator page cache after 20,000 distinct result URLs.

Issue target: memory stays bounded (at the `maxmemory` the app sets) however many distinct
URLs are requested; spellings of the same inputs share one entry.

Self-contained: a temporary SQLite database with the seed catalog, its own redis-server on
a free loopback port, the page cache pointed at database 2 of it with PAGE_CACHE_MAXMEMORY
(default 32mb, `BENCH_PAGE_CACHE_MAXMEMORY`) and allkeys-lru. One real result page is
rendered through the calculator view; then 20,000 distinct canonical URLs
(`BENCH_PAGE_CACHE_URLS`) go through the same cache decorator with a view that returns that
real page (marked per URL), because rendering 20,000 pages would take half an hour and
measure the engine, not the cache. Finally 300 spellings of one input go through the real
view. Prints the figures; removes everything it created.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
URLS = int(os.environ.get("BENCH_PAGE_CACHE_URLS", "20000"))
MAXMEMORY = os.environ.get("BENCH_PAGE_CACHE_MAXMEMORY", "32mb")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="gputco-pagecache-"))
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(workdir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        os.environ.update(
            DJANGO_SETTINGS_MODULE="config.settings.local",
            DEBUG="false",
            DATABASE_URL=f"sqlite:///{workdir / 'db.sqlite3'}",
            # The page cache's own Redis server (no broker): the app sets its maxmemory
            # only on such a server, never on the broker's.
            REDIS_URL="",
            REDIS_PAGE_CACHE_URL=f"redis://127.0.0.1:{port}/2",
            PAGE_CACHE_MAXMEMORY=MAXMEMORY,
            PAGE_CACHE_MAXMEMORY_POLICY="allkeys-lru",
            LOG_LEVEL="WARNING",
            ALLOWED_HOSTS="testserver,127.0.0.1",
        )
        sys.path.insert(0, str(ROOT))
        os.chdir(ROOT)
        return run(port)
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


def run(port: int) -> int:
    import django

    django.setup()
    from urllib.parse import urlencode

    import redis
    from django.contrib.auth.models import AnonymousUser
    from django.core.management import call_command
    from django.http import HttpRequest, HttpResponse
    from django.test import Client, RequestFactory

    from tco.inputs.presets import preset_data
    from tco.web import page_cache

    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    pages = redis.Redis(port=port, db=2)
    client = Client()
    values = preset_data("finetune-8b") or {}
    first = client.get("/calculator/?" + urlencode(values, doseq=True))
    assert first.status_code == 200 and first["X-Page-Cache"] == "miss", first.status_code
    body = first.content
    (key,) = pages.keys("*calc-page:*")
    entry = int(pages.memory_usage(key) or 0)

    spellings = 300
    started = time.perf_counter()
    for n in range(spellings):
        variant = {**values, "params_billion": f"{values['params_billion']}.{'0' * (n % 5 + 1)}"}
        variant["utm"] = str(n)
        response = client.get("/calculator/?" + urlencode(variant, doseq=True))
        assert response["X-Page-Cache"] == "hit", response.get("X-Page-Cache")
    spelling_ms = (time.perf_counter() - started) / spellings * 1000
    spelling_keys = len(pages.keys("*calc-page:*"))

    def view(request: HttpRequest) -> HttpResponse:
        marker = f"<!-- {request.META['QUERY_STRING']} -->".encode()
        return HttpResponse(body.replace(b"</body>", marker + b"</body>"))

    cached = page_cache.cache_anonymous_page(lambda r: r.META["QUERY_STRING"])(view)
    factory = RequestFactory()

    started = time.perf_counter()
    peak = 0
    for n in range(URLS):
        request = factory.get(f"/calculator/?discount_rate_pct={8 + n / 100_000:.5f}")
        request.user = AnonymousUser()
        cached(request)
        if n % 1000 == 999:
            peak = max(peak, int(pages.info("memory")["used_memory"]))
    elapsed = time.perf_counter() - started
    memory = pages.info("memory")
    stats = pages.info("stats")
    kept = len(pages.keys("*calc-page:*"))
    maxmemory = pages.config_get("maxmemory")["maxmemory"]
    assert maxmemory is not None
    limit = int(maxmemory)
    mb = 1024 * 1024
    print(
        f"page cache entry (real result page): {len(body) / 1024:.1f} KB of HTML, "
        f"{entry / 1024:.1f} KB in Redis (compressed)"
    )
    print(
        f"page cache, {spellings} spellings of one input through the real view: "
        f"{spelling_keys} entr{'y' if spelling_keys == 1 else 'ies'}, "
        f"{spelling_ms:.1f} ms a request"
    )
    print(
        f"page cache, {URLS:,} distinct URLs: used_memory {int(memory['used_memory']) / mb:.1f} MB"
        f" (peak sampled {peak / mb:.1f} MB; maxmemory {limit / mb:.0f} MB, "
        f"{pages.config_get('maxmemory-policy')['maxmemory-policy']}), {kept:,} pages kept, "
        f"{int(stats['evicted_keys']):,} evicted, {URLS / elapsed:,.0f} stores/s"
    )
    bounded = int(memory["used_memory"]) <= limit * 1.05 and peak <= limit * 1.05
    print(f"  bounded: {'yes' if bounded else 'NO'} (target: at most maxmemory)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
