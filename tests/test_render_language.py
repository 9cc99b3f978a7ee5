"""config/render_language.py: one language lookup per Jinja2 render, the same words."""

from __future__ import annotations

import pytest
from django.template import engines
from django.utils import translation

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
