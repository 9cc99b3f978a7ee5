"""Typed readers for settings that come from the environment (and nowhere else)."""

import os
from urllib.parse import urlsplit, urlunsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None:
        raise ImproperlyConfigured(f"Set the {name} environment variable.")
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw.strip().lower() in _TRUE:
        return True
    if raw.strip().lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}.")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}.") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_days(name: str, default: dict[str, int]) -> dict[str, int]:
    """ "memory:14,server:30" → {"memory": 14, "server": 30} (days per category)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    days = {}
    for pair in (item.strip() for item in raw.split(",") if item.strip()):
        key, _sep, value = pair.partition(":")
        if not key.strip() or not value.strip().isdigit() or int(value) < 1:
            raise ImproperlyConfigured(f"{name} takes category:days pairs, not {pair!r}.")
        days[key.strip()] = int(value)
    return days


def redis_url_with_db(url: str, db: int) -> str:
    """`url` pointing at Redis database `db` (redis://host:6379/0 → redis://host:6379/1)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))
