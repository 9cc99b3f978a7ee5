"""The Jinja2 environment, for the one template rendered on every uncached result page.

Django's template engine cost ~6 ms for the calculator's results (about 800 values, each
resolved, filtered and escaped node by node); Jinja2 compiles a template to Python. The
template speaks the same messages (Django's gettext, so the .po serves both) and uses the
same filters: those of the Django template libraries, registered here from their
libraries so that there is one definition of each.
"""

from __future__ import annotations

from typing import Any

from django.template.defaultfilters import date
from django.urls import reverse
from jinja2 import Environment, Template

from .render_language import gettext, language_bound, ngettext


class LanguageBoundTemplate(Template):
    """A template that reads the active language once per render
    (config/render_language.py)."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        with language_bound():
            return super().render(*args, **kwargs)


def environment(**options: Any) -> Environment:
    from catalog.templatetags.formatting import register as formatting
    from quotes.templatetags.quotes_tags import register as quotes_tags
    from tco.templatetags.wording import register as wording

    env = Environment(extensions=["jinja2.ext.i18n"], **options)
    env.template_class = LanguageBoundTemplate
    # newstyle: variables are escaped into the (trusted) translation, as blocktranslate does.
    # Django's gettext, read from the language the render holds.
    env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
    for library in (formatting, wording, quotes_tags):
        env.filters.update(library.filters)
    env.filters["date"] = date
    env.globals["url"] = reverse
    return env
