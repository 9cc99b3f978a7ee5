"""A dict of answers kept for reuse that stops growing at a limit.

Pages keep small answers between requests (a cloud option's label, a link's path, a
translated message) because working them out again costs more than looking them up. Their
keys come from the catalog, the templates and the languages, so in practice they are few;
the limit makes sure that a key built from what a request sent can never grow a worker's
memory without bound. At the limit new answers are still given, just not kept.
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Bounded(dict[K, V]):
    """A dict that keeps at most `limit` entries: `keep` adds one while there is room."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def full(self) -> bool:
        return len(self) >= self.limit

    def keep(self, key: K, value: V) -> V:
        """Keep `value` under `key` if there is room; return it either way."""
        if len(self) < self.limit:
            self[key] = value
        return value
