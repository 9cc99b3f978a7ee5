"""The Jinja2 environment of the calculator's form and results (templates/jinja2/).

Jinja2 compiles a template to Python, where Django's template engine resolves, filters and
escapes ~800 values node by node (several milliseconds a result page). The templates speak
Django's messages (its gettext, so one .po serves both engines) and use the filters of the
Django template libraries, registered here from those libraries so that each has one
definition.
"""

from __future__ import annotations

from typing import Any

from django.template.defaultfilters import date
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from jinja2 import Environment


def environment(**options: Any) -> Environment:
    from catalog.templatetags.formatting import register as formatting
    from quotes.templatetags.quotes_tags import register as quotes_tags
    from tco.templatetags.wording import register as wording

    # Django's Jinja2 backend passes autoescape=True.
    env = Environment(extensions=["jinja2.ext.i18n"], **options)
    # newstyle: variables are escaped into the (trusted) translation, as blocktranslate does.
    # The i18n extension adds this method to the environment at run time: Jinja's types
    # do not declare it.
    env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
    for library in (formatting, wording, quotes_tags):
        env.filters.update(library.filters)
    env.filters["date"] = date
    env.globals["url"] = reverse
    return env
