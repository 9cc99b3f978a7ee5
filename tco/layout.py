"""The calculator page's layout (templates/tco/calculator.html, extending base.html) around
its body, rendered once per language for anonymous visitors.

Rendering the Django layout cost ~0.9 ms of every uncached result page (context
processors, the static and URL tags, ~25 translated messages, the language list), and for
an anonymous visitor none of it depends on the request but the page's own path (the
language switcher's `next`) and the body. So the template is rendered once per language
and script prefix with two marks in their places, split at the body's mark, and a page is
the parts joined around its body with the escaped path in its place: the same bytes.

Signed-in users' pages are rendered in full: they carry a CSRF token (the logout form)
and links that depend on the user. The parts are dropped when a setting changes (tests
override the static files, languages or URLs).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.core.signals import setting_changed
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.html import escape
from django.utils.safestring import mark_safe

TEMPLATE = "tco/calculator.html"
# Neither mark contains a character that HTML escaping changes.
_PATH_MARK = "tco-layout-full-path-2b7c1e"
_BODY_MARK = "tco-layout-body-9d4f0a"

# (language, script prefix) → the layout's text split at the body, the path still marked.
_PARTS: dict[tuple[str, str], tuple[str, ...]] = {}


class _MarkedRequest(HttpRequest):
    """An anonymous visitor's request with nothing of its own (no session, messages, CSP
    nonce or CSRF token: a layout that used one would differ from a visitor's page, which
    the tests compare), its path a mark."""

    def __init__(self) -> None:
        super().__init__()
        self.user = AnonymousUser()

    def get_full_path(self, force_append_slash: bool = False) -> str:
        return _PATH_MARK


def _parts(language: str, prefix: str) -> tuple[str, ...]:
    key = (language, prefix)
    parts = _PARTS.get(key)
    if parts is None:
        text = render_to_string(TEMPLATE, {"body": mark_safe(_BODY_MARK)}, request=_MarkedRequest())
        parts = _PARTS[key] = tuple(text.split(_BODY_MARK))
    return parts


def calculator_page(request: HttpRequest, body: str) -> str:
    """The whole calculator page around ``body`` (the rendered, trusted Jinja2 body)."""
    if request.user.is_authenticated:
        return render_to_string(TEMPLATE, {"body": mark_safe(body)}, request=request)
    parts = _parts(translation.get_language() or "", get_script_prefix())
    path = escape(request.get_full_path())
    return body.join([part.replace(_PATH_MARK, path) for part in parts])


def _forget(**_kwargs: object) -> None:
    _PARTS.clear()


setting_changed.connect(_forget)
