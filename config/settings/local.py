"""Local development: `make run`, SQLite, eager tasks, mail printed to the console."""

import os

os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")

from pathlib import Path

from .base import *  # noqa: F403
from .base import BASE_DIR
from .env import env_bool, env_list, env_str


def local_secret_key(path: Path) -> str:
    """The key kept in `path` (made on the first run, readable by its owner only): links
    signed by one `make run` instance stay valid across restarts, and no two instances
    share a key that anyone could read in the source (a fixed key let buyer and lead
    links of any instance reachable beyond localhost be forged)."""
    import secrets

    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        key = ""
    if len(key) < 50:
        key = secrets.token_urlsafe(48)
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(key + "\n")
    return key


SECRET_KEY = env_str("SECRET_KEY", "") or local_secret_key(
    Path(env_str("LOCAL_SECRET_KEY_FILE", str(BASE_DIR / ".local-secret-key")))
)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])

# Eager tasks (no Redis) run after the response, so sending shows its progress.
QUOTES_EAGER_TASKS_IN_BACKGROUND = env_bool("QUOTES_EAGER_TASKS_IN_BACKGROUND", True)
