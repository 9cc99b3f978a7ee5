"""A form renderer that writes Django's stock widget HTML in Python, without the template engine.

The calculator form has 27 widgets (selects with their options, checkbox lists); rendering
them through Django's widget templates (``django/forms/widgets/*.html``: one template, an
``attrs`` include and an include per option) cost about a fifth of an uncached result page.
:class:`FastWidgetRenderer` produces the same characters for the stock templates the form
uses and leaves every other template (form, field, error list) to Django's renderer.
``tests/tco/test_widget_render.py`` checks it against Django's templates, field by field,
for every preset, in both languages, with and without errors.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

from django.forms.renderers import DjangoTemplates
from django.http import HttpRequest
from django.utils.formats import localize
from django.utils.safestring import SafeData, SafeString, mark_safe

_W = "django/forms/widgets/"


def _text(value: Any) -> str:
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


def _attrs(attrs: Mapping[str, Any]) -> str:
    """django/forms/widgets/attrs.html."""
    parts = []
    for name, value in attrs.items():
        if value is False:
            continue
        parts.append(f" {_text(name)}" if value is True else f' {_text(name)}="{_s(value)}"')
    return "".join(parts)


# Each function returns what its template file renders to, trailing newline included
# (the files end with one, and an `{% include %}` keeps it); the renderer strips the result
# as Django's does.


def _input(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/input.html."""
    value = widget["value"]
    shown = f' value="{_s(value)}"' if value is not None else ""
    attrs = _attrs(widget["attrs"])
    return f'<input type="{_text(widget["type"])}" name="{_text(widget["name"])}"{shown}{attrs}>\n'


def _including_input(widget: Mapping[str, Any]) -> str:
    """text, number, hidden, checkbox…: one line that includes input.html."""
    return _input(widget) + "\n"


def _input_option(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/input_option.html."""
    if not widget.get("wrap_label"):
        return _input(widget) + "\n"
    element_id = widget["attrs"].get("id")
    label_for = f' for="{_text(element_id)}"' if element_id else ""
    return f"<label{label_for}>{_input(widget)} {_text(widget['label'])}</label>\n"


def _including_input_option(widget: Mapping[str, Any]) -> str:
    """checkbox_option.html, radio_option.html: one line that includes input_option.html."""
    return _input_option(widget) + "\n"


def _select_option(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/select_option.html."""
    return (
        f'<option value="{_s(widget["value"])}"{_attrs(widget["attrs"])}>'
        f"{_text(widget['label'])}</option>\n"
    )


_OPTIONS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    _W + "select_option.html": _select_option,
    _W + "checkbox_option.html": _including_input_option,
    _W + "radio_option.html": _including_input_option,
    _W + "input_option.html": _input_option,
}


def _option(option: Mapping[str, Any]) -> str:
    return _OPTIONS[option["template_name"]](option)


def _select(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/select.html."""
    out = [f'<select name="{_text(widget["name"])}"{_attrs(widget["attrs"])}>']
    for group_name, group_choices, _index in widget["optgroups"]:
        if group_name:
            out.append(f'\n  <optgroup label="{_text(group_name)}">')
        for option in group_choices:
            out.append("\n  " + _option(option))
        if group_name:
            out.append("\n  </optgroup>")
    out.append("\n</select>\n")
    return "".join(out)


def _multiple_input(widget: Mapping[str, Any]) -> str:
    """django/forms/widgets/multiple_input.html."""
    attrs = widget["attrs"]
    element_id = attrs.get("id")
    out = ["<div"]
    if element_id:
        out.append(f' id="{_text(element_id)}"')
    if attrs.get("class"):
        out.append(f' class="{_text(attrs["class"])}"')
    out.append(">")
    for group, options, _index in widget["optgroups"]:
        if group:
            out.append(f"\n  <div><label>{_text(group)}</label>")
        for option in options:
            out.append("<div>\n    " + _option(option) + "</div>")
        if group:
            out.append("\n  </div>")
    out.append("\n</div>\n")
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


def calculator_field(field: Any) -> SafeString:
    """A calculator form field with its label, help and error slot: the same characters as
    templates/tco/_field.html (the reference; tests compare the two), without the engine."""
    errors = field.errors
    classes = (
        "field" + (" has-error" if errors else "") + (" required" if field.field.required else "")
    )
    relevance = field.form.relevance(field.name)
    if field.widget_type == "checkbox":  # one box: its label follows it
        body = (
            f'\n  <span class="check">{field} <label for="{_text(field.id_for_label)}">'
            f"{_text(field.label)}</label></span>\n  "
        )
    elif getattr(field.field.widget, "input_type", None) == "checkbox":
        body = f"\n  <fieldset><legend>{_text(field.label)}</legend>{field}</fieldset>\n  "
    else:
        body = (
            f'\n  <label for="{_text(field.id_for_label)}">{_text(field.label)}</label>\n'
            f"  {field}\n  "
        )
    help_text = (
        f'<small class="help" id="{_text(field.auto_id)}_helptext">{_text(field.help_text)}</small>'
        if field.help_text
        else ""
    )
    messages = "".join(f"<span>{_text(error)}</span>" for error in errors)
    return mark_safe(
        f'<div class="{classes}" {relevance}>\n  {body}\n  {help_text}\n'
        f'  <div class="field-error" id="error-{_text(field.name)}" role="alert">{messages}</div>\n'
        "</div>\n"
    )


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
