"""Time and memory to validate and preview a 10,000-row cloud price list.

Issue target: checking and previewing an import of 10,000 cloud price rows takes under
5 s and under 300 MB of peak memory.

Self-contained: a temporary SQLite database is migrated and loaded with the seed catalog;
the file is the 31 seed offerings (unchanged, one with a new price) plus 9,969 new rows
referring to the seed GPUs. Validate + preview (`catalog.services.preview_price_file`:
read with pandas, check every cell, compare with the catalog) runs three times; the
median is reported. Memory is measured on a separate run: the tracemalloc peak (Python
heap, including pandas/numpy buffers, which report to tracemalloc) and the growth of the
process's peak resident set (ru_maxrss); the target applies to the larger of the two.
Applying the file once is timed too, for information. Everything is removed afterwards.

It is a report, not a test: it exits 0 when a target is missed and non-zero only when the
benchmark could not run.
"""

from __future__ import annotations

import csv
import io
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROWS = 10_000
RUNS = 3
TARGET_SECONDS = 5.0
TARGET_MB = 300.0


def build_file() -> bytes:
    from catalog.services import export_price_list

    exported = export_price_list(kind="cloud", file_format="csv").content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(exported)))
    header, seed = rows[0], rows[1:]
    price = header.index("price_per_hour")
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
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(seed + new)
    return buffer.getvalue().encode("utf-8")


def rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="gputco-import-bench-"))
    try:
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
        os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
        os.environ["DEBUG"] = "false"  # DEBUG would keep every SQL query in memory
        os.environ.pop("REDIS_URL", None)
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from django.core.management import call_command

        from catalog.services import import_price_file, preview_price_file

        call_command("migrate", verbosity=0)
        call_command("load_catalog", verbosity=0, stdout=io.StringIO())
        data = build_file()

        def preview() -> object:
            result = preview_price_file(kind="cloud", filename="bench.csv", data=data)
            if not result.ok or len(result.new) != ROWS - 31 or len(result.changed) != 1:
                raise RuntimeError(f"unexpected preview: {result.counts()} {result.errors[:3]}")
            return result

        preview()  # warm-up: imports, query compilation
        timings = []
        for _ in range(RUNS):
            start = time.perf_counter()
            preview()
            timings.append(time.perf_counter() - start)

        rss_before = rss_mb()
        tracemalloc.start()
        preview()
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        heap_mb = peak / 1024 / 1024
        rss_growth = rss_mb() - rss_before

        start = time.perf_counter()
        import_price_file(kind="cloud", filename="bench.csv", data=data, source="bench")
        apply_seconds = time.perf_counter() - start
    except Exception as exc:  # the benchmark could not run
        print(f"import bench failed: {exc!r}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    median = statistics.median(timings)
    memory = max(heap_mb, rss_growth)
    print(f"file: {ROWS:,} cloud price rows, {len(data) / 1024 / 1024:.2f} MB CSV (SQLite)")
    print(
        f"validate + preview: median {median:.2f} s of {RUNS} "
        f"(min {min(timings):.2f}, max {max(timings):.2f})   "
        f"[target < {TARGET_SECONDS:.0f} s: {verdict(median < TARGET_SECONDS)}]"
    )
    print(
        f"peak memory: {memory:.0f} MB (tracemalloc peak {heap_mb:.0f} MB, "
        f"ru_maxrss growth {rss_growth:.0f} MB)   "
        f"[target < {TARGET_MB:.0f} MB: {verdict(memory < TARGET_MB)}]"
    )
    print(f"apply (one transaction, with history; no target): {apply_seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
