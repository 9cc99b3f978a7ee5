"""How soon a fresh process is useful: `runserver`'s first page, and `django.setup()`.

Issue 15 target: a fresh `runserver` (as `make run` starts it, with the autoreloader)
serves its first page ≤ 2 s after it was started. Timed from starting the process to the
first complete "200 OK" for `/`, three times (median); the database (SQLite, migrated and
seeded, as after `make run`) is prepared beforehand and not timed. `django.setup()` in a
fresh interpreter is printed beside it (median of three), for information: it is what
every web and worker process pays before anything else.

Bytecode: the figures depend on whether the libraries' .pyc files exist (`make` compiles
them at install); the line says how many of the venv's modules have bytecode.

Like the other benchmarks it prints figures beside their targets, exits 0 when a target
is missed, non-zero only when it could not run, and leaves nothing behind.
"""

from __future__ import annotations

import http.client
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calculator_bench import HOST, PREPARE_DATABASE, ROOT, BenchError, free_port, stop, verdict

RUNS = 3
TARGET_FIRST_PAGE_S = 2.0
SETUP_PROBE = (
    "import time; t = time.perf_counter(); import django; django.setup(); "
    "print(time.perf_counter() - t)"
)


def local_env(tmp: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DATABASE_URL=f"sqlite:///{tmp / 'bench.sqlite3'}",
        LOG_LEVEL="WARNING",
    )
    return env


def first_page_seconds(env: dict[str, str], log: Path) -> float:
    """Start `manage.py runserver` and time it until `/` answers 200."""
    port = free_port()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"{HOST}:{port}"],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise BenchError(f"runserver exited:\n{log.read_text(errors='replace')[-2000:]}")
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=10)
                conn.request("GET", "/")
                response = conn.getresponse()
                response.read()
                conn.close()
                if response.status == 200:
                    return time.perf_counter() - started
                raise BenchError(f"/ answered {response.status}")
            except (ConnectionRefusedError, ConnectionResetError, http.client.RemoteDisconnected):
                time.sleep(0.02)
        raise BenchError("runserver did not serve / within 60 s")
    finally:
        stop(proc)


def setup_seconds(env: dict[str, str]) -> float:
    result = subprocess.run(
        [sys.executable, "-c", SETUP_PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return float(result.stdout.strip())


def bytecode_share() -> str:
    """How many of the venv's modules have bytecode (in place or under PYTHONPYCACHEPREFIX)."""
    site = Path(sysconfig.get_paths()["purelib"])
    sources = list(site.rglob("*.py"))
    prefix = sys.pycache_prefix
    compiled = 0
    for source in sources:
        tag = f"{source.stem}.{sys.implementation.cache_tag}.pyc"
        in_place = source.parent / "__pycache__" / tag
        elsewhere = Path(prefix + str(source.parent)) / tag if prefix else None
        compiled += in_place.exists() or bool(elsewhere and elsewhere.exists())
    return f"{compiled:,} of {len(sources):,}"


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="gputco-startup-bench-"))
    try:
        env = local_env(tmp)
        subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", PREPARE_DATABASE],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
        log = tmp / "runserver.log"
        pages = [first_page_seconds(env, log) for _ in range(RUNS)]
        setups = [setup_seconds(env) for _ in range(RUNS)]
    except (BenchError, subprocess.SubprocessError) as exc:
        print(f"benchmark could not run: {exc}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    first_page = statistics.median(pages)
    print(f"bytecode: {bytecode_share()} library modules of the venv have it")
    print(
        f"fresh runserver to its first page: median {first_page:.2f} s of {RUNS} "
        f"({', '.join(f'{s:.2f}' for s in pages)})   "
        f"[target ≤ {TARGET_FIRST_PAGE_S:.1f} s: {verdict(first_page <= TARGET_FIRST_PAGE_S)}]"
    )
    print(f"django.setup() in a fresh interpreter: median {statistics.median(setups):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
