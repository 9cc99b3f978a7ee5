"""The Jinja2 environment, for the templates rendered on every uncached result page.

Django's template engine cost ~6 ms for the calculator's results (about 800 values, each
resolved, filtered and escaped node by node); Jinja2 compiles a template to Python. The
template speaks the same messages (Django's gettext, so the .po serves both) and uses the
same filters: those of the Django template libraries, registered here from their
libraries so that there is one definition of each.
"""

from __future__ import annotations

import codecs
import datetime
import functools
import re
from collections.abc import Callable, MutableMapping
from types import CodeType
from typing import Any
from urllib.parse import quote_plus

import markupsafe
from django.http import QueryDict
from django.template.defaultfilters import date
from django.urls import get_resolver, get_script_prefix, get_urlconf, reverse
from django.utils.safestring import SafeString
from jinja2 import Environment, Template, nodes, pass_eval_context
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.nodes import EvalContext
from markupsafe import Markup, escape

from .bounded import Bounded
from .render_language import current_language, gettext, language_bound, markup_message, ngettext

# markupsafe's C escaping of a str (its Python fallback without the extension).
_escape_inner: Callable[[str], str] = markupsafe._escape_inner


def fast_escape(value: Any) -> Any:
    """markupsafe's ``escape`` for a template's output, the same text, without wrapping a
    plain string's escaped text in a new Markup (or copying a Markup into another).

    A compiled template calls ``escape`` only on what it writes out (``yield
    escape(...)``), and the render joins those into one string: whether a piece is a
    Markup makes no difference there, and a result page writes ~660 of them.
    """
    kind = type(value)
    if kind is str:
        return _escape_inner(value)
    if kind is Markup or kind is SafeString:  # already HTML (Django's: the form's fields)
        return value
    return escape(value)


class LanguageBoundTemplate(Template):
    """A template that reads the active language once per render
    (config/render_language.py), and writes its values through :func:`fast_escape`."""

    @classmethod
    def from_code(
        cls,
        environment: Environment,
        code: CodeType,
        globals: MutableMapping[str, Any],
        uptodate: Callable[[], bool] | None = None,
    ) -> Template:
        template = super().from_code(environment, code, globals, uptodate)
        # The module's functions (root, blocks, macros) read `escape` from its namespace.
        namespace = template.root_render_func.__globals__
        if namespace.get("escape") is escape:
            namespace["escape"] = fast_escape
        namespace["escape_str"] = _escape_inner  # QuickCodeGenerator's output of a str
        return template

    def render(self, *args: Any, **kwargs: Any) -> str:
        with language_bound():
            return super().render(*args, **kwargs)


# Jinja's newstyle gettext (jinja2.ext), without its three nested `Context.call`s for each
# message (`_` looks up `gettext`, which calls the translation function through the
# context): a result page has ~150 messages. A message without variables is kept per
# language as the Markup it gives (render_language.markup_message). They are given the
# evaluation context (all they read), not the template context: Jinja passes a call in a
# loop the loop's variables, and made a derived context for each such message.
# A translation whose only conversions are ``%(name)s`` (and ``%%``): what Jinja's trans
# blocks write. Other conversions (%(n)d, widths) take markupsafe's own path.
_NAMED_STRINGS_ONLY = re.compile(r"(?:[^%]+|%%|%\([^()]*\)s)*").fullmatch


@functools.lru_cache(maxsize=4_096)
def _named_strings_only(message: str) -> bool:
    return _NAMED_STRINGS_ONLY(message) is not None


def _markup_format(message: str, variables: dict[str, Any]) -> Markup:
    """``Markup(message) % variables``: the variables escaped into the trusted message.

    markupsafe wraps the mapping and each value it looks up in a helper object whose
    ``__str__`` escapes it (~27,000 instructions for a message with one variable); a
    message whose conversions are all ``%(name)s`` gets the same text from the values
    escaped first (``str(escape(value))`` either way; tests compare the two).
    """
    if _named_strings_only(message):
        return Markup(message % {name: fast_escape(value) for name, value in variables.items()})
    return Markup(message) % variables


@pass_eval_context
def _newstyle_gettext(__eval_ctx: EvalContext, __string: str, **variables: Any) -> str:
    if __eval_ctx.autoescape:
        if not variables:
            return markup_message(__string)
        return _markup_format(gettext(__string), variables)
    return gettext(__string) % variables


@pass_eval_context
def _newstyle_ngettext(
    __eval_ctx: EvalContext, __singular: str, __plural: str, __num: int, **variables: Any
) -> str:
    variables.setdefault("num", __num)
    rv = ngettext(__singular, __plural, __num)
    if __eval_ctx.autoescape:
        return _markup_format(rv, variables)
    return rv % variables


# The names the templates call their messages by (installed below; never bound by them).
MESSAGE_NAMES = frozenset({"_", "gettext", "ngettext"})
MESSAGE_CALLABLES = frozenset({_newstyle_gettext, _newstyle_ngettext})


class QuickCodeGenerator(CodeGenerator):
    """Jinja's compiler, writing three of a result page's commonest steps in line.

    - ``obj.name`` on a plain dict reads its key ``name`` in line (DictKeysFirst's rule),
      on anything else its attribute by ``getattr``, and calls ``environment.getattr``
      only when neither is there (an item, or undefined): a page reads ~650 attributes
      (~240 of objects: the candidates, the assumptions, the server), each a method call
      of ~1,500 instructions before.
    - A message (``_``, ``gettext``, ``ngettext``, which a trans block calls too) is
      called directly with the evaluation context when the name holds one of ours
      (MESSAGE_CALLABLES), and through ``Context.call`` otherwise: that call's checks of
      what to pass cost ~9,000 instructions, for ~70 messages a page.
    - A plain str written out is escaped by markupsafe's C function in line; anything
      else goes to ``escape`` (fast_escape) as before (~550 values a page).
    Each is the same value as Jinja's own code; async and sandboxed environments get
    Jinja's own code throughout.
    """

    def _plain(self) -> bool:
        return not self.environment.is_async and not self.environment.sandboxed

    @optimizeconst
    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:
        if not self._plain():
            super().visit_Getattr(node, frame)
            return
        # `_d` is assigned after the object's expression (itself perhaps a Getattr that
        # uses `_d`) is evaluated in full, and read right after: nesting is safe.
        # Any other object's attribute is read by `getattr` in line too (Jinja's first
        # try), and only a miss goes to environment.getattr (the item, or undefined):
        # `_v` likewise is assigned and read in one step.
        attr = repr(node.attr)
        self.write(f"(_d[{attr}] if type(_d := ")
        self.visit(node.node, frame)
        self.write(
            f") is dict and {attr} in _d else _v if (_v := getattr(_d, {attr}, missing))"
            f" is not missing else environment.getattr(_d, {attr}))"
        )

    @optimizeconst
    def visit_Call(self, node: nodes.Call, frame: Frame, forward_caller: bool = False) -> None:
        callee = node.node
        if (
            not self._plain()
            or forward_caller
            or not isinstance(callee, nodes.Name)
            or callee.name not in MESSAGE_NAMES
            or node.dyn_args is not None
            or node.dyn_kwargs is not None
        ):
            super().visit_Call(node, frame, forward_caller=forward_caller)
            return
        self.write("(")
        self.visit(callee, frame)
        self.write("(context.eval_ctx")
        self.signature(node, frame)
        self.write(") if ")
        self.visit(callee, frame)
        self.write(" in environment.message_callables else ")
        super().visit_Call(node, frame)
        self.write(")")

    def _escapes_in_line(self, frame: Frame, finalize: CodeGenerator._FinalizeInfo) -> bool:
        autoescaped = frame.eval_ctx.autoescape and not frame.eval_ctx.volatile
        return self._plain() and autoescaped and finalize.src is None

    def _output_child_pre(
        self, node: nodes.Expr, frame: Frame, finalize: CodeGenerator._FinalizeInfo
    ) -> None:
        if self._escapes_in_line(frame, finalize):
            self.write("(escape_str(_e) if type(_e := ")
        else:
            super()._output_child_pre(node, frame, finalize)

    def _output_child_post(
        self, node: nodes.Expr, frame: Frame, finalize: CodeGenerator._FinalizeInfo
    ) -> None:
        if self._escapes_in_line(frame, finalize):
            self.write(") is str else escape(_e))")
        else:
            super()._output_child_post(node, frame, finalize)


class DictKeysFirst(Environment):
    """Jinja2 with ``d.name`` on a plain dict read as the key ``name`` first.

    Jinja tries an attribute first and the item after it; the results template reads the
    engine's summary, plain dicts, in ~600 places a page, and each raised and caught an
    AttributeError before finding the key (~0.35 ms a page). A key that shares its name
    with a dict method (``items``, ``get``…) would now win over the method: the summary
    has none, and templates call those methods on dicts without such keys only.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


@functools.lru_cache(maxsize=512)
def _date_in(language: str, value: datetime.date, arg: str | None) -> str:
    return str(date(value, arg))


def cached_date(value: Any, arg: str | None = None) -> str:
    """Django's `date` filter; a date's text kept per language and format (a result lists
    ~20 prices, most of them of a few dates, and Django formats each afresh)."""
    if type(value) is datetime.date:  # not a datetime: its text depends on the time zone
        return _date_in(current_language(), value, arg)
    return str(date(value, arg))


# A link's path by (view name, language, script prefix, URL resolver): the same answer as
# `reverse` (which walks the resolver's namespaces and patterns, ~10 µs; a result page has
# five links). Clearing Django's URL caches (a changed ROOT_URLCONF) makes a new resolver,
# so nothing stale is found; bounded, as views are few.
_PATHS: Bounded[tuple[str, str, str, Any], str] = Bounded(1_000)


def url(viewname: Any, *args: Any, **kwargs: Any) -> str:
    """Django's `reverse` for a template's links; a link without arguments is kept."""
    if args or kwargs or not isinstance(viewname, str):
        found: str = reverse(viewname, *args, **kwargs)
        return found
    key = (viewname, current_language(), get_script_prefix(), get_resolver(get_urlconf()))
    path = _PATHS.get(key)
    if path is None:
        path = _PATHS.keep(key, reverse(viewname))
    return path


# What urllib's `quote_plus` writes unchanged (its always-safe characters; nothing else is
# safe for it by default).
_UNQUOTED = re.compile(r"[A-Za-z0-9_.~-]*").fullmatch


def query_string(query: QueryDict) -> str:
    """``query.urlencode()``, the same text: Django passes each key and value through
    urllib's `urlencode` (~80 µs for a result page's ~25 parameters), where most are
    letters and digits that come out as they are."""
    if codecs.lookup(query.encoding).name != "utf-8":
        encoded: str = query.urlencode()
        return encoded
    pairs = []
    for key, values in query.lists():
        name = key if _UNQUOTED(key) else quote_plus(key)
        for value in values:
            text = str(value)
            pairs.append(f"{name}={text if _UNQUOTED(text) else quote_plus(text)}")
    return "&".join(pairs)


def environment(**options: Any) -> Environment:
    from catalog.templatetags.formatting import register as formatting
    from quotes.templatetags.quotes_tags import register as quotes_tags
    from tco.templatetags.wording import register as wording

    env = DictKeysFirst(extensions=["jinja2.ext.i18n"], **options)
    env.template_class = LanguageBoundTemplate
    env.code_generator_class = QuickCodeGenerator
    env.message_callables = MESSAGE_CALLABLES  # type: ignore[attr-defined]
    # newstyle: variables are escaped into the (trusted) translation, as blocktranslate does.
    # Django's gettext, read from the language the render holds.
    env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
    # The same, quicker (above); templates never bind `gettext` or `_` themselves.
    env.globals.update(gettext=_newstyle_gettext, ngettext=_newstyle_ngettext, _=_newstyle_gettext)
    for library in (formatting, wording, quotes_tags):
        env.filters.update(library.filters)
    env.filters["date"] = cached_date
    env.filters["query_string"] = query_string
    env.globals["url"] = url
    return env
