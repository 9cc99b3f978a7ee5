"""The calculator's form fields as HTML blocks: label, widget, help and error slot.

`calculator_field` writes the same characters as templates/tco/_field.html (the reference;
tests compare the two for every field of every preset, in both languages). Most of a
field's block never changes between requests: its label and help in a language, its
widget's attributes, its options and their labels. Those parts are built once per
language and field state and kept with the catalog snapshot the form was made from (the
server and site choices come from the catalog, so a new catalog starts afresh); a request
then only writes its own values: an input's value, the options it selected. That took the
form's 56 fields from ~2.5 ms a page to a fraction of it.

A field with errors is written in full each time (its widget then carries error
attributes; error pages are few), as is any widget this module does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.forms import BoundField
from django.forms.widgets import CheckboxInput, ChoiceWidget, Input, Widget
from django.utils import formats
from django.utils.safestring import SafeString, mark_safe

from config.render_language import current_language

from .widget_render import (
    CHOICE_FRAMES,
    attrs_html,
    input_head,
    input_value,
    option_html,
    text_html,
)

_WIDGET = "\x00"  # where the widget goes in a block built once (never in a label or help)


def _block(field: BoundField, widget_html: str, errors: list[Any]) -> str:
    """templates/tco/_field.html around the widget's HTML."""
    classes = (
        "field" + (" has-error" if errors else "") + (" required" if field.field.required else "")
    )
    relevance = field.form.relevance(field.name)  # type: ignore[attr-defined]
    label = text_html(field.label)
    if field.widget_type == "checkbox":  # one box: its label follows it
        body = (
            f'\n  <span class="check">{widget_html} <label for="{text_html(field.id_for_label)}">'
            f"{label}</label></span>\n  "
        )
    elif getattr(field.field.widget, "input_type", None) == "checkbox":
        body = f"\n  <fieldset><legend>{label}</legend>{widget_html}</fieldset>\n  "
    else:
        label_for = text_html(field.id_for_label)
        body = f'\n  <label for="{label_for}">{label}</label>\n  {widget_html}\n  '
    help_text = (
        f'<small class="help" id="{text_html(field.auto_id)}_helptext">'
        f"{text_html(field.help_text)}</small>"
        if field.help_text
        else ""
    )
    messages = "".join(f"<span>{text_html(error)}</span>" for error in errors)
    return (
        f'<div class="{classes}" {relevance}>\n  {body}\n  {help_text}\n'
        f'  <div class="field-error" id="error-{text_html(field.name)}" role="alert">'
        f"{messages}</div>\n"
        "</div>\n"
    )


@dataclass(frozen=True, slots=True)
class _Parts:
    """A field block without its values: ``before`` + widget + ``after``.

    Inputs: ``head`` + the value attribute + ``attrs`` (+ `` checked`` for a ticked box)
    + ``>``. Choice widgets: ``head`` + each option, plain or selected + ``tail``.
    """

    before: str
    after: str
    head: str
    attrs: str = ""
    options: tuple[tuple[str, str, str], ...] = ()  # (value as compared, plain, selected)
    tail: str = ""
    checkbox: bool = False
    multiple: bool = False


def _widget_attrs(field: BoundField) -> dict[str, Any]:
    """The attributes `BoundField.as_widget` gives the widget (no errors: none of theirs)."""
    widget = field.field.widget
    attrs = field.build_widget_attrs({}, widget)
    if field.auto_id and "id" not in widget.attrs:
        attrs.setdefault("id", field.auto_id)
    return attrs


def _parts(field: BoundField) -> _Parts | None:
    """The field's parts, or None for a widget written in full each time."""
    widget = field.field.widget
    before, after = _block(field, _WIDGET, []).split(_WIDGET)
    if isinstance(widget, Input) and type(widget).template_name.endswith(
        ("/text.html", "/number.html", "/hidden.html", "/email.html", "/checkbox.html")
    ):
        attrs = widget.build_attrs(widget.attrs, _widget_attrs(field))
        return _Parts(
            before,
            after,
            input_head(widget.input_type, field.html_name),
            attrs_html(attrs),
            checkbox=isinstance(widget, CheckboxInput),
        )
    frame = CHOICE_FRAMES.get(widget.template_name)
    if not isinstance(widget, ChoiceWidget) or frame is None:
        return None
    # No value: every option unselected; each also gets its selected form below.
    context = widget.get_context(field.html_name, [], _widget_attrs(field))["widget"]
    head, before_option, after_option, tail = frame(context)
    options = []
    for group_name, group, _index in context["optgroups"]:
        if group_name:  # optgroups: written in full
            return None
        for option in group:
            chosen = {**option, "selected": True, "attrs": {**option["attrs"]}}
            chosen["attrs"].update(widget.checked_attribute)
            plain, selected = (
                before_option + option_html(shown) + after_option for shown in (option, chosen)
            )
            options.append((str(option["value"]), plain, selected))
    return _Parts(
        before,
        after,
        head,
        options=tuple(options),
        tail=tail.rstrip(),  # the renderer strips the widget's HTML
        multiple=widget.allow_multiple_selected,
    )


def _parts_of(field: BoundField) -> _Parts | None:
    form = field.form
    relevance = form.relevance(field.name)  # type: ignore[attr-defined]  # hidden or not
    memo: dict[Any, Any] | None = getattr(getattr(form, "catalog", None), "derived", None)
    if memo is None:
        return _parts(field)
    language = current_language()  # held for the render: no lookup through Django's locals
    if field.field is form.base_fields.get(field.name):
        # A field the form shares with every other (tco/form_fields.py) never changes: the
        # field itself stands for its state.
        key: tuple[Any, ...] = ("calculator_field", language, field.field, relevance)
    else:
        widget = field.field.widget
        key = (
            "calculator_field",
            language,
            field.name,
            field.field.required,
            tuple(widget.attrs.items()),
            relevance,
        )
    parts: _Parts | None = memo.get(key, _UNKNOWN)
    if parts is _UNKNOWN:
        parts = memo[key] = _parts(field)
    return parts


_UNKNOWN: Any = object()


def _widget_html(field: BoundField, parts: _Parts) -> str | None:
    """The widget with this request's values, or None to write it in full."""
    widget = field.field.widget
    value = field.value()
    if parts.options:
        chosen = widget.format_value(value)
        out = [parts.head]
        if parts.multiple:
            out += [
                selected if compared in chosen else plain
                for compared, plain, selected in parts.options
            ]
        else:  # a single select selects its first match only, as Django's
            picked = False
            for compared, plain, selected in parts.options:
                if not picked and compared in chosen:
                    picked = True
                    out.append(selected)
                else:
                    out.append(plain)
        out.append(parts.tail)
        return "".join(out)
    if type(value) is str and type(widget).format_value is Widget.format_value:
        # Widget.format_value, without the import it makes on every call (Django 6).
        shown = (
            None if value == "" else formats.localize_input(value) if widget.is_localized else value
        )
    else:
        shown = widget.format_value(value)
    if parts.checkbox:
        if shown is not None:  # a box with a value attribute: rare, written in full
            return None
        ticked = " checked" if widget.check_test(value) else ""
        return f"{parts.head}{parts.attrs}{ticked}>"
    return f"{parts.head}{input_value(shown)}{parts.attrs}>"


def calculator_field(field: BoundField) -> SafeString:
    """The field's block: label, widget with its value, help text and error slot."""
    errors: Mapping[str, Any] = field.form.errors
    if field.name not in errors and not field.field.show_hidden_initial:
        parts = _parts_of(field)
        widget_html = _widget_html(field, parts) if parts is not None else None
        if parts is not None and widget_html is not None:
            # A plain str: SafeString directly, not through mark_safe's lazy check.
            return SafeString(parts.before + widget_html + parts.after)
    return mark_safe(_block(field, str(field), field.errors))
