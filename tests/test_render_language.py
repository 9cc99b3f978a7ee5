"""config/render_language.py: one language lookup per Jinja2 render, the same words."""

from __future__ import annotations

import pytest
from django.template import engines
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import Environment, Template
from jinja2.compiler import CodeGenerator
from jinja2.ext import _gettext_alias
from markupsafe import Markup, escape

from config.jinja import environment, fast_escape
from config.render_language import current_language, gettext, language_bound, ngettext

MESSAGES = ["Calculator", "Month", "Break-even", "not a message in the catalogue"]


@pytest.mark.parametrize("language", ["en", "nl"])
def test_bound_words_equal_djangos(language: str) -> None:
    with translation.override(language):
        expected = [translation.gettext(m) for m in MESSAGES]
        plural = [translation.ngettext("%(n)s day", "%(n)s days", n) for n in (1, 2)]
        with language_bound():
            assert current_language() == language
            assert [gettext(m) for m in MESSAGES] == expected
            assert [ngettext("%(n)s day", "%(n)s days", n) for n in (1, 2)] == plural
            assert gettext("") == ""  # not the catalogue's header
    if language == "nl":
        assert expected[1] == "Maand"  # the check compares translated words


def test_outside_a_render_and_after_it_django_decides() -> None:
    with translation.override("nl"):
        with language_bound():
            assert current_language() == "nl"
        with translation.override("en"):
            assert current_language() == "en"  # the binding ended with its block
            assert gettext("Calculator") == "Calculator"
    with translation.override(None):  # translations off: Django's word, the default code
        assert current_language() == "en"
        assert gettext("Calculator") == "Calculator"


def test_a_jinja_render_holds_the_language_it_started_in() -> None:
    # A variable: Jinja2 would format a literal once, when it compiles the template.
    template = engines["jinja2"].from_string("{{ _('Month') }} {{ amount|number(1) }}")
    with translation.override("nl"):
        dutch = template.render({"amount": 1234.5})
    with translation.override("en"):
        english = template.render({"amount": 1234.5})
    assert english == "Month 1,234.5"
    assert dutch == "Maand 1.234,5"


def test_dates_are_written_in_the_language_of_the_render() -> None:
    import datetime

    template = engines["jinja2"].from_string("{{ day|date('SHORT_DATE_FORMAT') }} {{ day|date }}")
    day = datetime.date(2026, 1, 15)
    with translation.override("nl"):
        dutch = template.render({"day": day})
        assert template.render({"day": day}) == dutch  # the kept text, the same
    with translation.override("en"):
        english = template.render({"day": day})
    assert dutch.startswith("15 jan. 2026") and english.startswith("15 Jan 2026")
    assert dutch != english


def test_a_dict_key_is_read_before_an_attribute_and_methods_still_work() -> None:
    template = engines["jinja2"].from_string(
        "{{ d.total }} {{ d.missing }}|{% for k, v in e.items() %}{{ k }}={{ v }}{% endfor %}"
    )
    assert template.render({"d": {"total": 3}, "e": {"a": 1}}) == "3 |a=1"


def stock_environment() -> Environment:
    """The project's environment with Jinja's own gettext callables, escaping and code."""
    env = environment(autoescape=True)  # as Django's Jinja2 backend makes it
    env.template_class = Template
    env.code_generator_class = CodeGenerator
    env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.globals["_"] = _gettext_alias
    return env


OUR_MESSAGES = (
    "{{ _('Results') }}|{{ _('Results') }}|{{ gettext('Month') }}|{{ _('not in the catalogue') }}"
    "|{{ _('%(h)s months', h=value) }}|{% trans h=value %}{{ h }} months{% endtrans %}"
    "|{% trans n=count, count=count %}{{ n }} GPU{% pluralize count %}{{ n }} GPUs{% endtrans %}"
    "|{% trans %}100%% of {{ value }}{% endtrans %}|{{ _('50%% off') }}|{{ value }}|{{ safe }}"
    "|{{ number }}|{{ nothing }}|{{ value|upper }}|{{ value ~ '&' }}"
    # In a loop (the messages get the loop's variables) and with autoescaping off.
    "|{% for i in range(count) %}{% trans m=i %}{{ m }} months{% endtrans %}"
    "{% trans n=i, count=i %}{{ n }} GPU{% pluralize count %}{{ n }} GPUs{% endtrans %}"
    "{{ _('Results') }}{{ _('%(h)s months', h=value) }}{% endfor %}"
    "|{% autoescape false %}{{ _('%(h)s months', h=value) }}"
    "{% trans n=count, count=count %}{{ n }} GPU{% pluralize count %}{{ n }} GPUs{% endtrans %}"
    "{% endautoescape %}"
    # Other conversions than %(name)s, a value that is not a string, attributes and keys.
    "|{{ _('%(n)d of %(v)s', n=count, v=value) }}|{{ _('%(v)r', v=value) }}"
    "|{% trans n=number %}{{ n }} and {{ n }}{% endtrans %}|{{ _('%(v)s', v=safe) }}"
    "|{{ d.a }}|{{ d.b.c }}|{{ d.missing }}|{{ d.items }}|{{ obj.real }}|{{ obj.nothing }}"
    "|{{ d.b.c ~ d.a }}|{{ lazy }}|{{ _('%(v)s', v=lazy) }}|{% for k in d %}{{ d[k] }}{% endfor %}"
    "|{{ d.a if d.a else d.b }}|{{ [d.a, obj.real]|join(',') }}"
    # An object's attribute, its item where it has no such attribute, a property that
    # raises AttributeError (then the item), a method.
    "|{{ items.real }}|{{ items.other }}|{{ items.broken }}|{{ items.real.upper() }}"
)


class _Items:
    """An object with an attribute, items, and a property that fails."""

    real = "<real>"

    def __getitem__(self, key: str) -> str:
        return f"[{key}]"

    @property
    def broken(self) -> str:
        raise AttributeError("broken")


@pytest.mark.parametrize("language", ["en", "nl"])
@settings(max_examples=60, deadline=None)
@given(value=st.text(max_size=12), count=st.integers(0, 3))
def test_quick_messages_and_escaping_write_what_jinjas_own_do(
    language: str, value: str, count: int
) -> None:
    ours = engines["jinja2"].env.from_string(OUR_MESSAGES)
    stock = stock_environment().from_string(OUR_MESSAGES)
    context = {
        "value": value,
        "count": count,
        "safe": Markup("<b>&</b>"),
        "number": 1.5,
        "d": {"a": value, "b": {"c": count}, "items": "<key>"},
        "obj": 2.5,
        "lazy": gettext_lazy("Month"),
        "items": _Items(),
    }
    with translation.override(language):
        for _twice in range(2):  # the second render reads the kept words
            assert ours.render(context) == stock.render(context)


@given(
    value=st.one_of(
        st.text(),
        st.text().map(Markup),
        st.integers(),
        st.floats(allow_nan=False),
        st.none(),
        st.text().map(SafeString),
    )
)
def test_fast_escape_writes_what_markupsafe_does(value: object) -> None:
    assert str(fast_escape(value)) == str(escape(value))


@settings(max_examples=200, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(
            st.sampled_from(["kind", "providers", "a b", "ü", "x&y"]) | st.text(max_size=6),
            st.text(max_size=10) | st.sampled_from(["Google Cloud", "70", "0.5", "a+b=c"]),
        ),
        max_size=8,
    )
)
def test_query_string_writes_what_querydicts_urlencode_does(
    pairs: list[tuple[str, str]],
) -> None:
    from django.http import QueryDict

    from config.jinja import query_string

    query = QueryDict(mutable=True)
    for key, value in pairs:
        query.appendlist(key, value)
    assert query_string(query) == query.urlencode()
    raw = QueryDict(query.urlencode())  # as a request parses it
    assert query_string(raw) == raw.urlencode()


def test_url_gives_reverses_path_and_follows_the_script_prefix() -> None:
    from django.urls import clear_script_prefix, reverse, set_script_prefix

    from config.jinja import url

    for name in ("tco:calculator", "tco:workbook", "quotes:lead_form"):
        assert url(name) == reverse(name)
    set_script_prefix("/sub/")
    try:
        assert url("tco:calculator") == reverse("tco:calculator") == "/sub/calculator/"
    finally:
        clear_script_prefix()
    assert url("tco:calculator") == "/calculator/"


@given(
    message=st.sampled_from(
        ["%(a)s", "%(a)s and %(b)s", "100%% %(a)s", "%(a)d", "%(a)r", "%(a)5s", "%(a)s %%s", "x"]
    ),
    value=st.one_of(
        st.text(),
        st.text().map(Markup),
        st.text().map(SafeString),
        st.integers(),
        st.floats(allow_nan=False),
        st.none(),
    ),
)
def test_a_formatted_message_escapes_as_markupsafe_does(message: str, value: object) -> None:
    from config.jinja import _markup_format

    variables = {"a": value, "b": "<&>"}
    try:
        expected = Markup(message) % variables
    except (TypeError, ValueError):
        with pytest.raises((TypeError, ValueError)):
            _markup_format(message, variables)
        return
    formatted = _markup_format(message, variables)
    assert type(formatted) is Markup and formatted == expected
