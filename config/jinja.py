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
from django.utils import translation
from jinja2 import Environment


def environment(**options: Any) -> Environment:
    from catalog.templatetags.formatting import register as formatting
    from quotes.templatetags.quotes_tags import register as quotes_tags
    from tco.templatetags.wording import register as wording

    env = Environment(extensions=["jinja2.ext.i18n"], **options)
    # newstyle: variables are escaped into the (trusted) translation, as blocktranslate does.
    env.install_gettext_callables(  # type: ignore[attr-defined]
        translation.gettext, translation.ngettext, newstyle=True
    )
    for library in (formatting, wording, quotes_tags):
        env.filters.update(library.filters)
    env.filters["date"] = date
    env.globals["url"] = reverse
    return env
