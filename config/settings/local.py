"""Local development: `make run`, SQLite, eager tasks, mail printed to the console."""

import os

os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")

from .base import *  # noqa: F403
from .env import env_bool, env_list, env_str

# A fixed key is acceptable only here: local data is throwaway.
SECRET_KEY = env_str("SECRET_KEY", "") or "local-development-only-not-secret"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])

# Eager tasks (no Redis) run after the response, so sending shows its progress.
QUOTES_EAGER_TASKS_IN_BACKGROUND = env_bool("QUOTES_EAGER_TASKS_IN_BACKGROUND", True)
