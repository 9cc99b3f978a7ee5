"""The active language, looked up once per template render instead of once per word.

Django keeps the active translation in an `asgiref.local.Local`, and every lookup of it
(`get_language`, `gettext`) takes a lock and a context switch of its storage: about a
microsecond. A result page formats ~200 numbers and translates ~150 messages, each asking
for the language; that was ~0.7 ms of an uncached page. While a Jinja2 template renders
(config/jinja.py) the language and its translation are held in a context variable, which
costs a dictionary lookup to read, and the number filters and the template's messages read
them from there. Outside a render both fall back to Django's own lookups.

A template must not switch language mid-render (none does; Django's `{% language %}` tag
does not exist in Jinja2).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import trans_real
from markupsafe import Markup

from .bounded import Bounded

# (language code, its translation object, the words it gave, the same as markup for an
# autoescaped template) while a template renders.
_BOUND: ContextVar[tuple[str, Any, Bounded[str, str], Bounded[str, Markup]] | None] = ContextVar(
    "render_language", default=None
)
# Each translation object's words so far: a page asks for the same ~150 messages every
# time, and a lookup through Django's catalogues (a chain of dictionaries, English falling
# through to its fallback) costs several dictionary reads. Weak keys: Django replaces its
# translation objects when the language settings change (tests do).
_WORDS: weakref.WeakKeyDictionary[Any, tuple[Bounded[str, str], Bounded[str, Markup]]] = (
    weakref.WeakKeyDictionary()
)
WORDS_KEPT = 5_000  # per language; a template's messages are a few hundred


def current_language() -> str:
    """The active language code ("en" when translations are off)."""
    bound = _BOUND.get()
    if bound is not None:
        return bound[0]
    return translation.get_language() or "en"


def gettext(message: str) -> str:
    """Django's `gettext`, for a template's own (plain, one-line) messages."""
    bound = _BOUND.get()
    if bound is None or not message:
        return translation.gettext(message)
    words = bound[2]
    word = words.get(message)
    if word is None:
        word = str(bound[1].gettext(message))
        words.keep(message, word)  # bounded: a message built at run time is not kept
    return word


def markup_message(message: str) -> Markup:
    """What Jinja's newstyle ``_(message)`` gives without variables in an autoescaped
    template (the translation, trusted, as a format string: ``%%`` → ``%``); kept per
    language like the words."""
    bound = _BOUND.get()
    if bound is None:
        return Markup(translation.gettext(message)) % {}
    marked = bound[3]
    text = marked.get(message)
    if text is None:
        text = marked.keep(message, Markup(gettext(message)) % {})
    return text


def ngettext(singular: str, plural: str, number: int) -> str:
    bound = _BOUND.get()
    if bound is None:
        return translation.ngettext(singular, plural, number)
    return str(bound[1].ngettext(singular, plural, number))


@contextmanager
def language_bound() -> Iterator[None]:
    """Hold the active language and its translation for the duration of a render."""
    # The object Django's gettext uses: the active translation, else the default
    # language's (trans_real.gettext).
    active = getattr(trans_real._active, "value", None) or trans_real.translation(
        settings.LANGUAGE_CODE
    )
    words = _WORDS.get(active)
    if words is None:
        words = _WORDS[active] = (Bounded(WORDS_KEPT), Bounded(WORDS_KEPT))
    token = _BOUND.set((translation.get_language() or "en", active, *words))
    try:
        yield
    finally:
        _BOUND.reset(token)
