"""Settings come from the environment; production passes Django's deployment checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Set by the test run itself; a deployment would not have them.
TEST_ONLY_VARIABLES = {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "EMAIL_BACKEND"}


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in TEST_ONLY_VARIABLES}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_check_deploy_without_warnings() -> None:
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="a-real-secret-" + "x7Q!p" * 12,
        ALLOWED_HOSTS="tco.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_refuse_to_start_without_a_secret() -> None:
    result = run_manage(
        "check",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="",
        ALLOWED_HOSTS="tco.example.com",
    )
    assert result.returncode != 0


def test_local_settings_default_to_sqlite_and_eager_tasks() -> None:
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER)"
    )
    env = {k: v for k, v in os.environ.items() if k not in TEST_ONLY_VARIABLES}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings.local"},
    )
    assert result.stdout.split() == ["django.db.backends.sqlite3", "True"], result.stderr


def test_the_procfile_runs_a_worker_for_every_queue_tasks_are_routed_to() -> None:
    """The Procfile, the tests' and bench's workers (WORKER_QUEUES) and the task routes
    agree: every queue a task can land on has a consumer."""
    import re

    from django.conf import settings

    from tests.real_services import WORKER_QUEUES

    procfile = (ROOT / "Procfile").read_text()
    consumed = re.findall(r"celery -A config worker -Q (\S+)", procfile)
    assert sorted(consumed) == sorted(WORKER_QUEUES.values())
    queues = {name for spec in consumed for name in spec.split(",")}
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    assert routed | {settings.CELERY_TASK_DEFAULT_QUEUE} == queues
    assert {queue.name for queue in settings.CELERY_TASK_QUEUES} == queues


def test_local_settings_make_and_keep_a_secret_key_of_their_own(tmp_path: Path) -> None:
    """`make run` without SECRET_KEY: a random key kept in a file only its owner can read,
    the same on the next start; never a fixed key from the source (issue 32)."""
    code = "import django; django.setup(); from django.conf import settings; "
    code += "print(settings.SECRET_KEY)"
    env = {k: v for k, v in os.environ.items() if k not in TEST_ONLY_VARIABLES | {"SECRET_KEY"}}

    def key(path: Path) -> str:
        result = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={
                **env,
                "DJANGO_SETTINGS_MODULE": "config.settings.local",
                "LOCAL_SECRET_KEY_FILE": str(path),
            },
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        return result.stdout.strip()

    first = key(tmp_path / "key")
    assert len(first) >= 50 and first != "local-development-only-not-secret"
    assert (tmp_path / "key").stat().st_mode & 0o777 == 0o600
    assert key(tmp_path / "key") == first  # kept across restarts
    assert key(tmp_path / "other") != first  # another checkout, another key
