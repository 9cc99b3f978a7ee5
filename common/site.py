"""This site's full web addresses, for what leaves it: emails link back with them."""

from django.conf import settings


def site_url(path: str) -> str:
    """The full web address of `path` on this site (settings.SITE_URL in front of it)."""
    return settings.SITE_URL.rstrip("/") + path
