"""Settings shared by every environment. Secrets and endpoints come only from the environment."""

from pathlib import Path
from typing import Any

import dj_database_url
import django
import django_stubs_ext
from celery.schedules import crontab
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _
from kombu import Queue

from .env import env_bool, env_days, env_int, env_list, env_str, redis_url_with_db

# Django's generic classes (ModelAdmin, TabularInline) take their model as a type argument.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SECRET_KEY = env_str("SECRET_KEY", "")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "ninja",
    "catalog",
    "tco",
    "quotes",
    "api",
    "accounts",
]

MIDDLEWARE = [
    # Outermost: a request past its time budget answers 503 (config/middleware.py).
    "config.middleware.RequestTimeBudgetMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before anything reads the request: NUL and control characters never reach a view.
    "config.middleware.RejectControlCharactersMiddleware",
    # HTML compressed (~57 KB → ~9 KB a result page); Django's GZip pads against BREACH.
    "django.middleware.gzip.GZipMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "config.middleware.PermissionsPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "api.ratelimit.RateLimitMiddleware",
    # SQLite busy past its timeout (local mode): 503 with Retry-After, not a 500.
    "config.middleware.DatabaseBusyMiddleware",
]
# Seconds a request may run before it is stopped with a 503 (config/middleware.py; 0: no
# budget); below gunicorn's default worker timeout of 30 s.
REQUEST_TIME_BUDGET_SECONDS = env_int("REQUEST_TIME_BUDGET_SECONDS", 25)
# The same net for `manage.py import_prices` / `import_stock` (common/time_budget.py):
# a file slow to parse stops with an error after this many seconds (0: no budget).
IMPORT_TIME_BUDGET_SECONDS = env_int("IMPORT_TIME_BUDGET_SECONDS", 25)

# Content-Security-Policy (Django's built-in middleware). Scripts come only from our own
# static files or carry the per-response nonce (`{{ csp_nonce }}`); no inline handlers.
# Pages that use the nonce are never put in the shared page cache (tco/web/page_cache.py).
# Styles allow 'unsafe-inline' because Plotly and htmx insert <style> elements and style
# attributes at run time; style cannot run code.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:", "blob:"],
    "font-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
# Browser features no page of ours uses (config.middleware.PermissionsPolicyMiddleware).
PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), "
    "microphone=(), payment=(), usb=(), interest-cohort=()"
)

ROOT_URLCONF = "config.urls"
# Our date formats (config/formats/<lang>/formats.py) over Django's locale defaults.
FORMAT_MODULE_PATH = ["config.formats"]
WSGI_APPLICATION = "config.wsgi.application"

# Django's Jinja2 widget templates (django/forms/jinja2/django/forms/widgets/…).
DJANGO_FORMS_JINJA2 = Path(django.__file__).parent / "forms" / "jinja2"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
                "quotes.context_processors.company",
            ],
        },
    },
    {
        # templates/jinja2/ (the calculator's form and results: see config/jinja.py), and
        # Django's own Jinja2 widget templates, which the calculator form renders with
        # (the five it uses most come first from templates/jinja2/django/forms/widgets/,
        # the same templates with their includes written in).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2", DJANGO_FORMS_JINJA2],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "config.jinja.environment"},
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Local mode with more than one user (or a worker thread): writers take the lock at
    # BEGIN (no "database is locked" when a read transaction upgrades to a write), wait up
    # to 20 s for each other, and readers do not block the writer (write-ahead log).
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": env_int("SQLITE_BUSY_TIMEOUT_SECONDS", 20),
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Language and locale: English and Dutch; numbers follow the active language.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("nl", _("Dutch"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Amsterdam"
USE_I18N = True
USE_TZ = True
USE_THOUSAND_SEPARATOR = True

STATIC_URL = "static/"
# collectstatic's target; the environment may move it (the benchmarks collect into a
# temporary directory so that they leave nothing behind).
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# The page's plotly.js is static/vendor/plotly (its README); the PDF's charts are SVG drawn on
# the server. The plotly package's own files (its full bundle, sample datasets: 9.6 MB) are
# not served, so a deploy's collectstatic does not copy and compress them.
STATICFILES_DIRS = [BASE_DIR / "static"]

LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365

REDIS_URL = env_str("REDIS_URL", "")

# Shared cache (rendered public pages, catalog generation): Redis when configured,
# otherwise per process (the one-process local run).
# The cache gets its own Redis database (REDIS_CACHE_DB, default 1) so that clearing it can
# never drop Celery's queued tasks, which live in REDIS_URL's database.
# Rendered calculator pages have a cache of their own ("pages", tco/web/page_cache.py): its own
# Redis database (REDIS_PAGE_CACHE_DB, default 2) or, better in production, its own Redis
# server (REDIS_PAGE_CACHE_URL). On a server of its own the app sets that Redis's maxmemory
# and eviction policy (allkeys-lru); on the broker's it never does: the memory policy of a
# Redis that holds Celery's queues and the rate-limit counters is its operator's (an LRU
# policy there could evict the counters).
REDIS_PAGE_CACHE_URL = env_str("REDIS_PAGE_CACHE_URL", "") or (
    redis_url_with_db(REDIS_URL, env_int("REDIS_PAGE_CACHE_DB", 2)) if REDIS_URL else ""
)
PAGE_CACHE_MAXMEMORY = env_str("PAGE_CACHE_MAXMEMORY", "256mb")
PAGE_CACHE_MAXMEMORY_POLICY = env_str("PAGE_CACHE_MAXMEMORY_POLICY", "allkeys-lru")
# Redis away: the caches answer as empty ones (config/cache.py) and try again after this
# many seconds; each call waits at most the socket timeouts.
CACHE_RETRY_SECONDS = env_int("CACHE_RETRY_SECONDS", 5)
_REDIS_CACHE = {
    "BACKEND": "config.cache.ResilientRedisCache",
    "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
}
CACHES: dict[str, dict[str, Any]] = {
    "default": (
        {**_REDIS_CACHE, "LOCATION": redis_url_with_db(REDIS_URL, env_int("REDIS_CACHE_DB", 1))}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    ),
    "pages": (
        {**_REDIS_CACHE, "LOCATION": REDIS_PAGE_CACHE_URL}
        if REDIS_PAGE_CACHE_URL
        else {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "pages",
            "OPTIONS": {"MAX_ENTRIES": 2000},  # per process, oldest culled first
        }
    ),
}
# Seconds an anonymous calculator result page is served from the cache (0: never).
CALCULATOR_PAGE_CACHE_SECONDS = env_int("CALCULATOR_PAGE_CACHE_SECONDS", 600)

# JSON API rate limits (api/ratelimit.py): requests per window, per token and per
# anonymous client address; a window of 0 turns the limits off.
API_RATE_LIMIT_WINDOW = env_int("API_RATE_LIMIT_WINDOW", 60)
API_RATE_LIMIT_TOKEN = env_int("API_RATE_LIMIT_TOKEN", 120)
API_RATE_LIMIT_ANONYMOUS = env_int("API_RATE_LIMIT_ANONYMOUS", 30)

# Background work: Celery on Redis. Without REDIS_URL the tasks run eagerly in-process
# so that the one-command local run works with no broker.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 5 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 4 * 60
CELERY_TIMEZONE = TIME_ZONE
# Two queues, so that an email never waits behind PDF renders (docs/quotes.md, Procfile):
# "render" (proposal PDFs, WeasyPrint: CPU-heavy) and "email" (sending,
# light); other tasks (periodic) go to the default queue, consumed with email.
RENDER_QUEUE = "render"
EMAIL_QUEUE = "email"
CELERY_TASK_DEFAULT_QUEUE = "celery"
# Declared, so that a worker started without -Q consumes all three.
CELERY_TASK_QUEUES = [
    Queue(name, routing_key=name) for name in (RENDER_QUEUE, EMAIL_QUEUE, CELERY_TASK_DEFAULT_QUEUE)
]
CELERY_TASK_ROUTES = {
    "quotes.tasks.render_proposal": {"queue": RENDER_QUEUE},
    "quotes.tasks.send_email": {"queue": EMAIL_QUEUE},
}
# Within a queue, tasks are taken by priority (Redis: 0 first; quotes/services/delivery.py
# gives what a person waits for 0 and sweeps and notices 9). A worker given several queues
# (-Q email,celery) empties them in that order.
_QUEUE_ORDER = {"queue_order_strategy": "priority", "priority_steps": [0, 3, 6, 9]}
# A rendering pool process starts its Chromium before it reports itself up
# (quotes/tasks.py: warm_pdf_renderer); Celery's default of 4 s would kill it meanwhile.
CELERY_WORKER_PROC_ALIVE_TIMEOUT = env_int("CELERY_WORKER_PROC_ALIVE_TIMEOUT", 120)
# With acks_late, Redis redelivers an unacknowledged task (a worker killed mid-task) after
# this many seconds; it must exceed the longest task (the time limit above), or a task still
# running would be delivered a second time. A pool process that dies is rejected and
# requeued at once (reject_on_worker_lost); a whole worker killed is found sooner by the
# render's lease (QUOTES_RENDER_LEASE_SECONDS, quotes/services/jobs.py).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600),
    **_QUEUE_ORDER,
}
# Periodic work run by `celery beat` (Procfile). Task names are strings so that settings
# import no application code.
CELERY_BEAT_SCHEDULE = {
    "notify-stale-prices": {
        "task": "catalog.tasks.notify_stale_prices",
        "schedule": crontab(hour=7, minute=0),
    },
    "expire-quotes": {"task": "quotes.tasks.expire_quotes", "schedule": crontab(hour=0, minute=5)},
    # After the expiry run, in working hours: the reminders before a quote expires.
    "remind-quotes": {"task": "quotes.tasks.remind_quotes", "schedule": crontab(hour=8, minute=0)},
    # After the morning's rates are in: owners are told of rates that moved past a
    # quote's currency clause (quotes/services/fx.py).
    "watch-rates": {"task": "quotes.tasks.watch_rates", "schedule": crontab(hour=8, minute=15)},
    "requeue-stuck-outbox": {
        "task": "quotes.tasks.requeue_stuck_outbox",
        "schedule": float(env_int("QUOTES_REQUEUE_EVERY_SECONDS", 60)),
    },
    # Renders whose worker died and tasks the broker refused, within seconds
    # (quotes/services/jobs.py). A sweep not taken within its period is dropped: the next
    # one does the same work, so sweeps never pile up while the workers are away.
    "recover-jobs": {
        "task": "quotes.tasks.recover_jobs",
        "schedule": float(env_int("QUOTES_RECOVER_EVERY_SECONDS", 2)),
        "options": {"expires": float(env_int("QUOTES_RECOVER_EVERY_SECONDS", 2))},
    },
}

# Email: one "default" mailer (Django 6.1 MAILERS), SMTP unless EMAIL_BACKEND says otherwise.
MAILERS: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": env_str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend"),
        "OPTIONS": {},
    }
}
if MAILERS["default"]["BACKEND"].endswith("smtp.EmailBackend"):
    MAILERS["default"]["OPTIONS"] = {
        "host": env_str("EMAIL_HOST", "localhost"),
        "port": env_int("EMAIL_PORT", 25),
        "username": env_str("EMAIL_HOST_USER", ""),
        "password": env_str("EMAIL_HOST_PASSWORD", ""),
        "use_tls": env_bool("EMAIL_USE_TLS", False),
        "timeout": env_int("EMAIL_TIMEOUT", 20),
    }
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "proposals@localhost")

# Product rules
PRICE_STALE_AFTER_DAYS = env_int("PRICE_STALE_AFTER_DAYS", 180)

# Sign-in (sales engineers); quote pages need the "sales" group or staff.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "quotes:list"
LOGOUT_REDIRECT_URL = "home"
# Sign-in throttling, one for every door (common/throttle.py, accounts/doors.py: the
# site's sign-in, /admin/login/, password reset, API token creation): after this many
# wrong passwords for one account, or from one network (IPv4 /24, IPv6 /64), sign-ins are
# refused (429) for LOGIN_LOCK_SECONDS, twice as long after each further failure, at most
# LOGIN_LOCK_MAX_SECONDS. The account's owner gets an email with a one-time unlock link,
# valid ACCOUNT_UNLOCK_LINK_HOURS. (The *_PER_CLIENT names are the former ones.)
LOGIN_FAILURES_PER_ACCOUNT = env_int("LOGIN_FAILURES_PER_ACCOUNT", 5)
LOGIN_FAILURES_PER_NETWORK = env_int(
    "LOGIN_FAILURES_PER_NETWORK", env_int("LOGIN_FAILURES_PER_CLIENT", 20)
)
LOGIN_LOCK_SECONDS = env_int("LOGIN_LOCK_SECONDS", 30)
LOGIN_LOCK_MAX_SECONDS = env_int("LOGIN_LOCK_MAX_SECONDS", 3600)
ACCOUNT_UNLOCK_LINK_HOURS = env_int("ACCOUNT_UNLOCK_LINK_HOURS", 24)
# Password-reset emails per hour, per address and per network.
PASSWORD_RESETS_PER_HOUR = env_int("PASSWORD_RESETS_PER_HOUR", 3)
PASSWORD_RESETS_PER_HOUR_PER_NETWORK = env_int(
    "PASSWORD_RESETS_PER_HOUR_PER_NETWORK", env_int("PASSWORD_RESETS_PER_HOUR_PER_CLIENT", 10)
)

# Quotes (docs/quotes.md)
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")  # absolute links in emails
QUOTE_VALIDITY_DAYS = env_int("QUOTE_VALIDITY_DAYS", 30)
# Shorter validity for volatile components, by catalog category ("memory:14,server:30"):
# a line's categories are its kind (server, networking, storage, installation, support,
# facility) and, for a server, the roles of its parts (memory, cpu, nvme, nic, psu, boot);
# a revision is valid for the fewest days over its lines (quotes/services/validity.py).
QUOTES_VALIDITY_DAYS_BY_CATEGORY = env_days("QUOTES_VALIDITY_DAYS_BY_CATEGORY", {})
# This many days before a sent quote expires its owner (and, if the team says so, the
# buyer) is reminded, once per revision (quotes/services/followup.py).
QUOTES_REMINDER_DAYS = env_int("QUOTES_REMINDER_DAYS", 7)
# The margin floor (%) a new sales team starts with; below it, sending needs a sales
# manager's approval (Team.margin_floor_pct, docs/quotes.md).
QUOTES_DEFAULT_MARGIN_FLOOR_PCT = env_int("QUOTES_DEFAULT_MARGIN_FLOOR_PCT", 10)
# The payment schedule a new sales team starts with: "event:percent" pairs that add up to
# 100 (events: order, shipment, delivery, installation, acceptance; quotes/billing.py).
QUOTES_DEFAULT_PAYMENT_SCHEDULE = env_str("QUOTES_DEFAULT_PAYMENT_SCHEDULE", "order:30,delivery:70")
# The currency clause of a proposal priced from another currency's list prices: the prices
# may follow the exchange rate when it moves more than this (%) before the order is placed.
QUOTES_FX_CLAUSE_THRESHOLD_PCT = env_int("QUOTES_FX_CLAUSE_THRESHOLD_PCT", 3)
# "Email me this as PDF" (docs/security.md): per hour, per recipient address and per client
# address; per network (IPv4 /24, IPv6 /64), past its share with a solved challenge, up to
# its limit; for everyone together, past which only networks with no request through this
# hour get one (with a solved challenge). The form must have been open this many seconds
# (bots post at once).
QUOTES_LEAD_REQUESTS_PER_HOUR = env_int("QUOTES_LEAD_REQUESTS_PER_HOUR", 5)
QUOTES_LEAD_NETWORK_SHARE_PER_HOUR = env_int("QUOTES_LEAD_NETWORK_SHARE_PER_HOUR", 10)
QUOTES_LEAD_REQUESTS_PER_HOUR_PER_NETWORK = env_int("QUOTES_LEAD_REQUESTS_PER_HOUR_PER_NETWORK", 30)
QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL = env_int("QUOTES_LEAD_REQUESTS_PER_HOUR_GLOBAL", 200)
# The public forms' proof of work (common/challenge.py): a browser needs 2^bits hashes
# on average to solve it (16: about 65,000, under a second).
PUBLIC_FORM_CHALLENGE_BITS = env_int("PUBLIC_FORM_CHALLENGE_BITS", 16)
QUOTES_LEAD_MIN_FILL_SECONDS = env_int("QUOTES_LEAD_MIN_FILL_SECONDS", 3)
# The sales team (by name) that gets calculator leads; empty: round the teams.
QUOTES_LEADS_TEAM = env_str("QUOTES_LEADS_TEAM", "")
# Ask the EU's VIES service whether a customer's VAT ID is registered (needs the network);
# off: format and check digit only (quotes/vat.py).
QUOTES_VIES_LOOKUP = env_bool("QUOTES_VIES_LOOKUP", False)
QUOTES_VIES_TIMEOUT_SECONDS = env_int("QUOTES_VIES_TIMEOUT_SECONDS", 10)
# With eager Celery (no Redis: `make run`), run the tasks a request enqueues in a thread
# after the response instead of inside it, so "Send to buyer" returns at once.
QUOTES_EAGER_TASKS_IN_BACKGROUND = env_bool("QUOTES_EAGER_TASKS_IN_BACKGROUND", False)
# Reverse proxies in front of the app that append to X-Forwarded-For (common/client_ip.py):
# 0 = clients connect directly and REMOTE_ADDR is the client.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
QUOTES_EMAIL_MAX_RETRIES = env_int("QUOTES_EMAIL_MAX_RETRIES", 8)
QUOTES_RETRY_BASE_SECONDS = float(env_str("QUOTES_RETRY_BASE_SECONDS", "5"))
QUOTES_REQUEUE_AFTER_SECONDS = env_int("QUOTES_REQUEUE_AFTER_SECONDS", 120)
QUOTES_SENDING_LEASE_SECONDS = env_int("QUOTES_SENDING_LEASE_SECONDS", 600)
# A render's process writes a heartbeat this often; a render whose heartbeat is older than
# the lease lost its worker and is queued again (quotes/services/jobs.py).
QUOTES_RENDER_HEARTBEAT_SECONDS = float(env_str("QUOTES_RENDER_HEARTBEAT_SECONDS", "2"))
QUOTES_RENDER_LEASE_SECONDS = float(env_str("QUOTES_RENDER_LEASE_SECONDS", "8"))
# A task the broker refused: the refusing process tries again this often (seconds), for
# at most this many tasks at a time (the periodic sweep queues any others).
QUOTES_ENQUEUE_RETRY_SECONDS = float(env_str("QUOTES_ENQUEUE_RETRY_SECONDS", "1"))
QUOTES_ENQUEUE_RETRY_MAX = env_int("QUOTES_ENQUEUE_RETRY_MAX", 10_000)
# An email whose retries ran out (an SMTP outage longer than the ~21 min budget) is tried
# again this long after it failed, for up to QUOTES_FAILED_GIVE_UP_AFTER_SECONDS after it was
# created; "Send again" works at any time.
QUOTES_FAILED_RETRY_AFTER_SECONDS = env_int("QUOTES_FAILED_RETRY_AFTER_SECONDS", 3600)
QUOTES_FAILED_GIVE_UP_AFTER_SECONDS = env_int("QUOTES_FAILED_GIVE_UP_AFTER_SECONDS", 3 * 86400)
# A rendering worker's pool processes render a small document when they boot (fonts loaded,
# templates compiled; quotes/tasks.py).
QUOTES_WARM_START = env_bool("QUOTES_WARM_START", True)
# Price files larger than this are refused before they are read (bytes; default 5 MB),
# and files with more data rows than this are refused after reading that many.
PRICE_IMPORT_MAX_BYTES = env_int("PRICE_IMPORT_MAX_BYTES", 5 * 1024 * 1024)
PRICE_IMPORT_MAX_ROWS = env_int("PRICE_IMPORT_MAX_ROWS", 50_000)
# An XLSX workbook is a zip: refused before it is opened when its parts unpack to more than
# this (bytes; default 64 MB) or to more than 100 times the file (catalog/loader.py).
PRICE_IMPORT_MAX_UNCOMPRESSED_BYTES = env_int(
    "PRICE_IMPORT_MAX_UNCOMPRESSED_BYTES", 64 * 1024 * 1024
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # The handler has the level too: records that propagate from a more talkative logger
    # (django.request's warnings) are held to LOG_LEVEL as well.
    "handlers": {
        "console": {"class": "logging.StreamHandler", "level": env_str("LOG_LEVEL", "INFO")}
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # PDF rendering libraries log every step at INFO; keep their warnings only.
    "loggers": {
        name: {"level": "WARNING"}
        for name in (
            "weasyprint",
            "weasyprint.progress",
            "fontTools",
        )
    },
}
