"""The Jinja2 environment of the calculator's form and results (templates/jinja2/).

Jinja2 compiles a template to Python, where Django's template engine resolves, filters and
escapes ~800 values node by node (several milliseconds a result page). The templates speak
Django's messages (its gettext, so one .po serves both engines) and use the filters of the
Django template libraries, registered here from those libraries so that each has one
definition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from django.template.defaultfilters import date
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from jinja2 import Environment


class GettextEnvironment(Protocol):
    """What the i18n extension (jinja2.ext.i18n) adds to an environment at run time; Jinja's
    types do not declare it."""

    def install_gettext_callables(
        self,
        gettext: Callable[[str], str],
        ngettext: Callable[[str, str, int], str],
        newstyle: bool | None = None,
    ) -> None: ...


def environment(**options: Any) -> Environment:
    from catalog.templatetags.formatting import register as formatting
    from quotes.templatetags.quotes_tags import register as quotes_tags
    from tco.templatetags.wording import register as wording

    # Django's Jinja2 backend passes autoescape=True.
    env = Environment(extensions=["jinja2.ext.i18n"], **options)
    # newstyle: variables are escaped into the (trusted) translation, as blocktranslate does.
    i18n = cast(GettextEnvironment, env)  # the extension above added the method
    i18n.install_gettext_callables(gettext, ngettext, newstyle=True)
    for library in (formatting, wording, quotes_tags):
        env.filters.update(library.filters)
    env.filters["date"] = date
    env.globals["url"] = reverse
    return env
