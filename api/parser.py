"""The API's JSON body parser, bounded: a body nested deeper than MAX_JSON_DEPTH is refused.

A scenario document is at most four levels deep (document → workload → serving demand →
a value); free-form fields (`workload`, `finance`, overrides) are dicts, so without a bound
a body of a few kilobytes nested a thousand levels deep reached code that recurses over
it (pydantic's serialiser gave up with an error: a 500). The size of a body is bounded
by Django's DATA_UPLOAD_MAX_MEMORY_SIZE (413 as problem details, api/api.py).
"""

from __future__ import annotations

import json
from typing import Any, cast

from django.http import HttpRequest
from ninja.parser import Parser
from ninja.types import DictStrAny

MAX_JSON_DEPTH = 20


class BodyRefused(ValueError):
    """A body that is JSON but not one we take; the message says why (a 400)."""


def json_depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed JSON value (a scalar is 0), without
    recursion.

    >>> json_depth(1), json_depth([]), json_depth({"a": [1, {"b": 2}]})
    (0, 1, 3)
    """
    if not isinstance(value, dict | list):
        return 0
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


class BoundedJsonParser(Parser):
    def parse_body(self, request: HttpRequest) -> DictStrAny:
        try:
            data = json.loads(request.body)
        except RecursionError as exc:  # deeper than the decoder's own limit
            raise BodyRefused(_too_deep()) from exc
        if json_depth(data) > MAX_JSON_DEPTH:
            raise BodyRefused(_too_deep())
        return cast(DictStrAny, data)


def _too_deep() -> str:
    return f"The JSON body is nested more than {MAX_JSON_DEPTH} levels deep."
