"""`make bench`: run every benchmark of the product and print its figures beside its target.

Each benchmark is a script in this folder; they are run one after another in fresh
processes so that one's warm caches do not flatter another. At the end every line that
states a figure against its target is printed again, together (issue 10's "Fast" targets:
uncached p95 and throughput ratio from calculator_bench.py; issue 30's server time per miss
and "one simple house"'s verdict and first chart in the first paint and edit to verdict,
from page_bench.py; issue 15's first
proposal after a worker start, 100 quotes, imports on PostgreSQL + Redis and a fresh
runserver's first page from quotes_bench, import_bench and startup_bench).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = [
    "engine_bench.py",
    "calculator_bench.py",
    "page_bench.py",
    "page_cache_bench.py",
    "import_bench.py",
    "quotes_bench.py",
    "load_bench.py",
    "startup_bench.py",
]


# Lines that state a figure against its target ("[target ≤ 20 ms: PASS]", "(target 0)", …).
TARGET_LINE = re.compile(r"target", re.IGNORECASE)


def run(script: Path) -> tuple[int, list[str]]:
    """Run one benchmark, echoing its output; return its exit code and its target lines."""
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=HERE.parent,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdout is not None
    targets = []
    for line in proc.stdout:
        print(line, end="", flush=True)
        if TARGET_LINE.search(line):
            targets.append(line.rstrip())
    return proc.wait(), targets


def main() -> int:
    ran = 0
    failed = 0
    summary: list[str] = []
    for name in BENCHMARKS:
        script = HERE / name
        if not script.exists():
            continue
        print(f"== {name}", flush=True)
        code, targets = run(script)
        ran += 1
        failed += code != 0
        summary += [f"{name}: {line.strip()}" for line in targets]
    if ran == 0:
        print("no benchmarks yet")
    elif summary:
        print("== figures against their targets")
        for line in summary:
            print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
