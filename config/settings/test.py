"""Test settings. The test suite starts PostgreSQL and Redis itself and exports their URLs."""

import os

from .base import *  # noqa: F403
from .env import env_str

SECRET_KEY = env_str("SECRET_KEY", "") or "test-only-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = True
# Mail stays in memory (django.core.mail.outbox) unless the environment names a mail
# server: Celery workers started by the tests set EMAIL_HOST/EMAIL_PORT to a loopback
# aiosmtpd server and keep the SMTP mailer from base.
if not (os.environ.get("EMAIL_BACKEND") or os.environ.get("EMAIL_HOST")):
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}

# Workers started by the tests set a short visibility timeout so that a task whose worker
# was killed is redelivered within seconds (and sweep for such tasks every second).
if os.environ.get("CELERY_VISIBILITY_TIMEOUT"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,  # noqa: F405
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
        # A worker SIGKILLed while it held the restore lock (every worker, render and
        # email, takes it each second here) would block redelivery for the default 300 s.
        "unacked_mutex_expire": 5,
    }

# Tests post the lead form right after fetching it; the fill-time check has its own test.
QUOTES_LEAD_MIN_FILL_SECONDS = 0
