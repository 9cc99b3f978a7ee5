"""`make bench`: run every benchmark of the product and print its figures beside its target.

Each benchmark is a script in this folder; they are run one after another in fresh
processes so that one's warm caches do not flatter another.
"""

from __future__ import annotations

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
]


def main() -> int:
    ran = 0
    failed = 0
    for name in BENCHMARKS:
        script = HERE / name
        if not script.exists():
            continue
        print(f"== {name}", flush=True)
        result = subprocess.run([sys.executable, str(script)], cwd=HERE.parent)
        ran += 1
        failed += result.returncode != 0
    if ran == 0:
        print("no benchmarks yet")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
