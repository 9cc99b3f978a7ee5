"""The calculator page's layout, rendered once per language for anonymous visitors
(tco/layout.py), equals the layout template rendered for each request."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.template.loader import render_to_string
from django.test import RequestFactory, override_settings
from django.urls import get_script_prefix, set_script_prefix
from django.utils import translation
from django.utils.safestring import mark_safe
from hypothesis import given, settings
from hypothesis import strategies as st

from tco import layout

factory = RequestFactory()
BODY = '<p id="body">Body &amp; <b>text</b> with a % and {{ braces }}</p>'


def reference(request: object, body: str) -> str:
    return render_to_string(layout.TEMPLATE, {"body": mark_safe(body)}, request=request)


def anonymous(path: str) -> object:
    request = factory.get(path)
    request.user = AnonymousUser()
    return request


@pytest.fixture
def script_prefix() -> Iterator[None]:
    before = get_script_prefix()
    yield
    set_script_prefix(before)


@pytest.mark.parametrize("language", ["en", "nl"])
@settings(max_examples=40, deadline=None)
@given(
    query=st.text(alphabet=st.sampled_from(list("ab=&%'\"<>?#é ;+/0")), max_size=30),
    body=st.text(max_size=40),
)
def test_layout_equals_the_template_per_language(language: str, query: str, body: str) -> None:
    path = "/calculator/?" + query
    with translation.override(language):
        request = anonymous(path)
        assert layout.calculator_page(request, body) == reference(request, body)


@pytest.mark.parametrize("language", ["en", "nl"])
def test_layout_of_a_real_page(language: str) -> None:
    with translation.override(language):
        request = anonymous("/calculator/?preset=llm-pretrain&x='\"<&>")
        page = layout.calculator_page(request, BODY)
        assert page == reference(request, BODY)
        assert f'<html lang="{language}">' in page
        assert 'value="/calculator/?preset=llm-pretrain&amp;x=&#x27;%22%3C&amp;%3E"' in page


def test_layout_follows_the_script_prefix(script_prefix: None) -> None:
    set_script_prefix("/tco/")
    request = anonymous("/calculator/")
    page = layout.calculator_page(request, BODY)
    assert page == reference(request, BODY)
    assert 'href="/tco/calculator/"' in page


def test_layout_follows_changed_settings() -> None:
    request = anonymous("/calculator/")
    before = layout.calculator_page(request, BODY)
    with override_settings(STATIC_URL="/assets/"):
        changed = layout.calculator_page(request, BODY)
        assert changed == reference(request, BODY)
        assert "/assets/css/app.css" in changed
    assert layout.calculator_page(request, BODY) == before


@pytest.mark.django_db
def test_signed_in_users_get_their_own_layout() -> None:
    request = factory.get("/calculator/")
    request.user = User.objects.create_user("someone", password="x")
    page = layout.calculator_page(request, BODY)
    assert 'name="csrfmiddlewaretoken"' in page  # the logout form
    assert page.count(BODY) == 1
