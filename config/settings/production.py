"""Production: secrets and hosts must be given; HTTPS everywhere; compressed static files."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .env import env_bool, env_int, env_list, env_str

SECRET_KEY = env_str("SECRET_KEY")
if len(SECRET_KEY) < 50:
    raise ImproperlyConfigured("SECRET_KEY must be set to a random string of 50+ characters.")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [])
DEBUG = False

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Mail leaves over TLS unless the environment says otherwise (STARTTLS; EMAIL_USE_SSL for
# implicit TLS on port 465).
if MAILERS["default"]["BACKEND"].endswith("smtp.EmailBackend"):  # noqa: F405
    _use_ssl = env_bool("EMAIL_USE_SSL", False)
    MAILERS["default"]["OPTIONS"]["use_ssl"] = _use_ssl  # noqa: F405
    MAILERS["default"]["OPTIONS"]["use_tls"] = env_bool("EMAIL_USE_TLS", not _use_ssl)  # noqa: F405

# Production runs behind one TLS-terminating proxy (see SECURE_PROXY_SSL_HEADER): the
# client address is the last X-Forwarded-For entry it appended (common/client_ip.py).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 1)
