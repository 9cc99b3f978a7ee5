"""A form renderer that writes Django's stock widget HTML in Python, without the template engine.

The calculator form has 27 widgets (selects with their options, checkbox lists); rendering
them through Django's widget templates (``django/forms/widgets/*.html``: one template, an
``attrs`` include and an include per option) cost about a fifth of an uncached result page.
:class:`FastWidgetRenderer` produces the same characters for the stock templates the form
uses and leaves every other template (form, field, error list) to Django's renderer.
``tests/tco/test_widget_render.py`` checks it against Django's templates, field by field,
for every preset, in both languages, with and without errors. tco/field_html.py builds
the calculator's field blocks from the same pieces.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from django.forms.renderers import DjangoTemplates
from django.http import HttpRequest
from django.utils.formats import localize
from django.utils.safestring import SafeData, SafeString, mark_safe

_W = "django/forms/widgets/"


def text_html(value: Any) -> str:
    """``{{ value }}``: localized, then escaped unless already safe.

    Django's ``conditional_escape`` and ``escape`` in their plain form: their lazy-string
    wrappers cost more than the escaping of the form's ~1,000 values a page."""
    if isinstance(value, SafeData):
        return str(value)
    if not isinstance(value, str):
        value = localize(value)
        if isinstance(value, SafeData):
            return str(value)
    return html.escape(str(value))


def _s(value: Any) -> str:
    """``{{ value|stringformat:'s' }}``: ``"%s" % value``, always escaped."""
    return html.escape(str(value))


def attrs_html(attrs: Mapping[str, Any]) -> str:
    """django/forms/widgets/attrs.html."""
    parts = []
    for name, value in attrs.items():
        if value is False:
            continue
        name = text_html(name)
        parts.append(f" {name}" if value is True else f' {name}="{_s(value)}"')
    return "".join(parts)


# Each function returns what its template file renders to, trailing newline included
# (the files end with one, and an `{% include %}` keeps it); the renderer strips the result
# as Django's does.


def input_head(input_type: str, name: str) -> str:
    """The start of input.html's tag, up to its value."""
    return f'<input type="{text_html(input_type)}" name="{text_html(name)}"'


def input_value(value: Any) -> str:
    """input.html's value attribute (none for a value of None)."""
    return f' value="{_s(value)}"' if value is not None else ""


def _input(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/input.html."""
    head = input_head(widget["type"], widget["name"])
    return f"{head}{input_value(widget['value'])}{attrs_html(widget['attrs'])}>\n"


def _including_input(widget: Mapping[str, Any]) -> str:
    """text, number, hidden, checkbox…: one line that includes input.html."""
    return _input(widget) + "\n"


def _input_option(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/input_option.html."""
    if not widget.get("wrap_label"):
        return _input(widget) + "\n"
    element_id = widget["attrs"].get("id")
    label_for = f' for="{text_html(element_id)}"' if element_id else ""
    return f"<label{label_for}>{_input(widget)} {text_html(widget['label'])}</label>\n"


def _including_input_option(widget: Mapping[str, Any]) -> str:
    """checkbox_option.html, radio_option.html: one line that includes input_option.html."""
    return _input_option(widget) + "\n"


def _select_option(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/select_option.html."""
    return (
        f'<option value="{_s(widget["value"])}"{attrs_html(widget["attrs"])}>'
        f"{text_html(widget['label'])}</option>\n"
    )


_OPTIONS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    _W + "select_option.html": _select_option,
    _W + "checkbox_option.html": _including_input_option,
    _W + "radio_option.html": _including_input_option,
    _W + "input_option.html": _input_option,
}


def option_html(option: Mapping[str, Any]) -> str:
    return _OPTIONS[option["template_name"]](option)


class ChoiceFrame(NamedTuple):
    """A choice widget's template around its options: the start, each option's wrapping,
    the end (optgroups apart)."""

    head: str
    before_option: str
    after_option: str
    tail: str


def _select_frame(widget: Mapping[str, Any]) -> ChoiceFrame:
    """django/forms/widgets/select.html."""
    head = f'<select name="{text_html(widget["name"])}"{attrs_html(widget["attrs"])}>'
    return ChoiceFrame(head, "\n  ", "", "\n</select>\n")


def _multiple_input_frame(widget: Mapping[str, Any]) -> ChoiceFrame:
    """django/forms/widgets/multiple_input.html."""
    attrs = widget["attrs"]
    element_id = attrs.get("id")
    head = "<div"
    if element_id:
        head += f' id="{text_html(element_id)}"'
    if attrs.get("class"):
        head += f' class="{text_html(attrs["class"])}"'
    return ChoiceFrame(head + ">", "<div>\n    ", "</div>", "\n</div>\n")


def _select(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/select.html."""
    frame = _select_frame(widget)
    out = [frame.head]
    for group_name, group_choices, _index in widget["optgroups"]:
        if group_name:
            out.append(f'\n  <optgroup label="{text_html(group_name)}">')
        for option in group_choices:
            out.append(frame.before_option + option_html(option) + frame.after_option)
        if group_name:
            out.append("\n  </optgroup>")
    out.append(frame.tail)
    return "".join(out)


def _multiple_input(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/multiple_input.html."""
    frame = _multiple_input_frame(widget)
    out = [frame.head]
    for group, options, _index in widget["optgroups"]:
        if group:
            out.append(f"\n  <div><label>{text_html(group)}</label>")
        for option in options:
            out.append(frame.before_option + option_html(option) + frame.after_option)
        if group:
            out.append("\n  </div>")
    out.append(frame.tail)
    return "".join(out)


def _including_multiple_input(widget: Mapping[str, Any]) -> str:
    """checkbox_select.html, radio.html: one line that includes multiple_input.html."""
    return _multiple_input(widget) + "\n"


_WIDGETS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    _W + "input.html": _input,
    **{
        _W + name: _including_input
        for name in ("text.html", "number.html", "hidden.html", "checkbox.html", "email.html")
    },
    _W + "select.html": _select,
    _W + "multiple_input.html": _multiple_input,
    _W + "checkbox_select.html": _including_multiple_input,
    _W + "radio.html": _including_multiple_input,
}


# The choice widgets' frames by template (the same for the "including" variants: their
# extra trailing newline is stripped like any other).
CHOICE_FRAMES: dict[str, Callable[[Mapping[str, Any]], ChoiceFrame]] = {
    _W + "select.html": _select_frame,
    _W + "multiple_input.html": _multiple_input_frame,
    _W + "checkbox_select.html": _multiple_input_frame,
    _W + "radio.html": _multiple_input_frame,
}


class FastWidgetRenderer(DjangoTemplates):
    """Django's template renderer, with the stock widget templates written in Python."""

    def render(
        self, template_name: str, context: dict[str, Any], request: HttpRequest | None = None
    ) -> SafeString:
        write = _WIDGETS.get(template_name)
        widget = context.get("widget")
        if write is None or not isinstance(widget, Mapping):
            return mark_safe(super().render(template_name, context, request))
        return mark_safe(write(widget).strip())
