"""Time and memory of a 10,000-row cloud price list: preview, and import on PostgreSQL + Redis.

Targets:

- issue 9: checking and previewing an import of 10,000 cloud price rows takes under 5 s and
  under 300 MB of peak memory;
- issue 15: importing it (check, compare, write with price history, in one transaction)
  takes ≤ 2.5 s when its rows are new and ≤ 3.0 s when every row changes its price, with
  PostgreSQL and the Redis cache the app runs with in production, in ≤ 300 MB.

Self-contained: it starts its own PostgreSQL and Redis (tests/real_services.py) on free
loopback ports, migrates, loads the seed catalog and removes everything afterwards. The
first file is the seed offerings (unchanged, one with a new price) plus new rows up to 10,000
referring to the seed GPUs; the second file gives all 10,000 rows a new price, dated a day
later. Preview (`catalog.services.preview_price_file`: read with pandas, check every cell,
compare with the catalog) runs three times; the median is reported. Each import is timed
once (it can only be applied once). Memory: the growth of the process's peak resident set
(ru_maxrss) over the preview and the imports, and the tracemalloc peak (Python heap,
including pandas/numpy buffers) of a separate preview; the larger is compared with 300 MB.

It is a report, not a test: it exits 0 when a target is missed and non-zero only when the
benchmark could not run. Options (environment): ``BENCH_IMPORT_ROWS`` (rows of each file,
default 10000, more than the seed catalog's cloud rows; the targets are for 10,000).
"""

from __future__ import annotations

import csv
import io
import os
import resource
import statistics
import sys
import time
import tracemalloc
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROWS = int(os.environ.get("BENCH_IMPORT_ROWS", "10000"))
RUNS = 3
TARGET_PREVIEW_S = 5.0
TARGET_NEW_S = 2.5
TARGET_CHANGED_S = 3.0
TARGET_MB = 300.0


def build_files() -> tuple[bytes, bytes, int]:
    """The file of new rows, the same rows each with a new price a day later, and how many
    of the rows are the seed catalog's (already loaded)."""
    from catalog.services import export_price_list

    exported = export_price_list(kind="cloud", file_format="csv").content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(exported)))
    header, seed = rows[0], rows[1:]
    price, as_of = header.index("price_per_hour"), header.index("as_of")
    seed[0][price] = "50.00"  # one changed price among the seed rows
    gpus = sorted({row[header.index("gpu")] for row in seed})
    template = dict(zip(header, seed[0], strict=True))
    new = []
    for index in range(ROWS - len(seed)):
        row = dict(template)
        row.update(
            key=f"bench-{index:05d}",
            provider="Bench Cloud",
            instance_type=f"bench.{index:05d}",
            region=f"region-{index % 7}",
            gpu=gpus[index % len(gpus)],
            price_per_hour=f"{10 + (index % 900) / 10:.2f}",
            source="benchmark row",
        )
        new.append([row[name] for name in header])
    first = seed + new
    later = max(date.fromisoformat(row[as_of]) for row in first) + timedelta(days=1)
    changed = [[*row[:price], f"{float(row[price]) * 0.9:.2f}", *row[price + 1 :]] for row in first]
    for changed_row in changed:
        changed_row[as_of] = later.isoformat()
    return _csv([header, *first]), _csv([header, *changed]), len(seed)


def _csv(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    from tests.real_services import RUNNING, start_postgres, start_redis

    try:
        postgres, redis = start_postgres(), start_redis()
        os.environ.update(
            DJANGO_SETTINGS_MODULE="config.settings.local",
            DATABASE_URL=postgres.url,
            REDIS_URL=redis.url,
            DEBUG="false",  # DEBUG would keep every SQL query in memory
            LOG_LEVEL="WARNING",
        )
        import django

        django.setup()
        from django.core.management import call_command

        from catalog.models import CloudOffering
        from catalog.services import import_price_file, preview_price_file

        call_command("migrate", verbosity=0)
        call_command("load_catalog", verbosity=0, stdout=io.StringIO())
        first, changed, seeded = build_files()

        def preview() -> object:
            result = preview_price_file(kind="cloud", filename="bench.csv", data=first)
            if not result.ok or len(result.new) != ROWS - seeded or len(result.changed) != 1:
                raise RuntimeError(f"unexpected preview: {result.counts()} {result.errors[:3]}")
            return result

        preview()  # warm-up: imports, query compilation
        rss_before = rss_mb()
        timings = []
        for _ in range(RUNS):
            start = time.perf_counter()
            preview()
            timings.append(time.perf_counter() - start)

        def apply(data: bytes, expect_changed: int) -> float:
            start = time.perf_counter()
            result = import_price_file(kind="cloud", filename="bench.csv", data=data, source="b")
            seconds = time.perf_counter() - start
            if len(result.changed) != expect_changed:
                raise RuntimeError(f"unexpected import: {result.counts()} {result.errors[:3]}")
            return seconds

        new_seconds = apply(first, 1)
        changed_seconds = apply(changed, ROWS)
        if CloudOffering.objects.count() != ROWS:
            raise RuntimeError("the import did not write every row")
        rss_growth = rss_mb() - rss_before

        tracemalloc.start()
        preview_price_file(kind="cloud", filename="bench.csv", data=changed)
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        heap_mb = peak / 1024 / 1024
    except Exception as exc:  # the benchmark could not run
        print(f"import bench failed: {exc!r}", file=sys.stderr)
        return 1
    finally:
        RUNNING.stop()

    median = statistics.median(timings)
    memory = max(heap_mb, rss_growth)
    print(
        f"file: {ROWS:,} cloud price rows, {len(first) / 1024 / 1024:.2f} MB CSV "
        "(PostgreSQL, Redis cache)"
    )
    print(
        f"validate + preview: median {median:.2f} s of {RUNS} "
        f"(min {min(timings):.2f}, max {max(timings):.2f})   "
        f"[target < {TARGET_PREVIEW_S:.0f} s: {verdict(median < TARGET_PREVIEW_S)}]"
    )
    print(
        f"import, {ROWS - seeded:,} new rows (+{seeded} seed, one changed): {new_seconds:.2f} s   "
        f"[target ≤ {TARGET_NEW_S:.1f} s: {verdict(new_seconds <= TARGET_NEW_S)}]"
    )
    print(
        f"import, {ROWS:,} changed prices: {changed_seconds:.2f} s   "
        f"[target ≤ {TARGET_CHANGED_S:.1f} s: {verdict(changed_seconds <= TARGET_CHANGED_S)}]"
    )
    print(
        f"peak memory: {memory:.0f} MB (ru_maxrss growth over preview and imports "
        f"{rss_growth:.0f} MB, tracemalloc peak of a preview {heap_mb:.0f} MB)   "
        f"[target ≤ {TARGET_MB:.0f} MB: {verdict(memory <= TARGET_MB)}]"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
