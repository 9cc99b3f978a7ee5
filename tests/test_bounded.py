"""config.bounded: the answers pages keep between requests stop growing at their limit."""

from __future__ import annotations

import pytest

from config.bounded import Bounded


def test_keeps_answers_until_the_limit_then_only_gives_them() -> None:
    kept: Bounded[str, int] = Bounded(2)
    assert kept.keep("a", 1) == 1 and kept.keep("b", 2) == 2
    assert kept.full()
    assert kept.keep("c", 3) == 3  # still answered …
    assert "c" not in kept and dict(kept) == {"a": 1, "b": 2}  # … but not kept
    assert kept.keep("a", 10) == 10 and kept["a"] == 1  # full: nothing replaced either


def test_room_is_counted_by_entries() -> None:
    kept: Bounded[int, int] = Bounded(3)
    assert not kept.full()
    for key in range(10):
        kept.keep(key, key)
    assert len(kept) == 3 and kept.full()


def test_request_input_cannot_grow_the_kept_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    # A cloud option's label is kept per name; names a request could make up stop at the
    # limit, and every one of them still gets its label.
    from tco import wording

    kept: Bounded[tuple[str, str], str] = Bounded(5)
    monkeypatch.setattr(wording, "_CLOUD_LABELS", kept)
    labels = [wording.cloud_label(f"Made-up cloud {n} (committed_3y)") for n in range(55)]
    assert len(kept) == 5
    assert labels[-1] == "Made-up cloud 54, 3-year commitment"


@pytest.mark.parametrize(
    "module, name",
    [
        ("tco.wording", "_CLOUD_LABELS"),
        ("config.jinja", "_PATHS"),
        ("tco.form_fields", "_HAS_WORDS"),
        ("tco.charts", "_MONTH_LISTS"),
    ],
)
def test_every_kept_answer_is_bounded(module: str, name: str) -> None:
    import importlib

    assert isinstance(getattr(importlib.import_module(module), name), Bounded)
