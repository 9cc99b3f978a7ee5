"""Local mode (SQLite) with more than one writer: no "database is locked".

Runs in a subprocess with the local settings on a fresh SQLite file: eight threads take
quote numbers at the same time, each after a read in the same transaction. With SQLite's
default deferred transactions the second writer fails at once ("database is locked")
when its read lock cannot be upgraded; with immediate transactions and a busy timeout
the writers queue and every number is unique.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TEST_ONLY_VARIABLES = {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "EMAIL_BACKEND"}

SCRIPT = """
import threading
import django
django.setup()
from django.core.management import call_command
from django.db import connection
call_command("migrate", verbosity=0)
from django.db import transaction
from quotes.models import QuoteCounter
from quotes.services import next_quote_number

numbers, errors = [], []
start = threading.Barrier(8)

def worker():
    from django.db import connection as own
    start.wait()
    try:
        for _ in range(10):
            # Read, then write, in one transaction: the shape of every request that
            # checks something before it inserts (lead requests, quote creation).
            with transaction.atomic():
                QuoteCounter.objects.filter(year=2031).exists()
                numbers.append(next_quote_number(year=2031))
    except Exception as exc:
        errors.append(repr(exc))
    finally:
        own.close()

threads = [threading.Thread(target=worker) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print("ERRORS", len(errors), errors[:1])
print("NUMBERS", len(numbers), len(set(numbers)))
"""


def test_concurrent_writers_on_sqlite_wait_for_each_other(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in TEST_ONLY_VARIABLES}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DATABASE_URL=f"sqlite:///{tmp_path / 'local.sqlite3'}",
    )
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ERRORS 0 []" in result.stdout, result.stdout
    assert "NUMBERS 80 80" in result.stdout, result.stdout


BUSY_SCRIPT = """
import sqlite3, sys, time
import django
django.setup()
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
call_command("migrate", verbosity=0)
User.objects.create_user("anna", password="pw")
holder = sqlite3.connect(settings.DATABASES["default"]["NAME"], isolation_level=None)
holder.execute("BEGIN IMMEDIATE")  # another process holding the write lock
started = time.monotonic()
response = Client(raise_request_exception=False).post(
    "/accounts/login/", {"username": "anna", "password": "pw"}
)
print("STATUS", response.status_code, response.get("Retry-After"), response["Content-Type"])
print("WAITED", round(time.monotonic() - started, 1))
print("BODY", response.content.decode()[:200])
holder.execute("ROLLBACK")
"""


def test_a_write_lock_held_past_the_busy_timeout_is_a_503_with_retry_after(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in TEST_ONLY_VARIABLES}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DATABASE_URL=f"sqlite:///{tmp_path / 'local.sqlite3'}",
        SQLITE_BUSY_TIMEOUT_SECONDS="1",
        ALLOWED_HOSTS="testserver",
        LOCAL_SECRET_KEY_FILE=str(tmp_path / "key"),
        DEBUG="false",
        LOG_LEVEL="CRITICAL",
    )
    result = subprocess.run(
        [sys.executable, "-c", BUSY_SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "STATUS 503 5 text/plain" in result.stdout, result.stdout
    assert "The database is busy" in result.stdout
