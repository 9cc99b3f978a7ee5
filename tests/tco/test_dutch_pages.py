"""Dutch pages speak Dutch: no sentence of the English catalogue leaks into them."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tco.presets import PRESETS

pytestmark = pytest.mark.django_db

PO = Path(settings.BASE_DIR) / "locale" / "nl" / "LC_MESSAGES" / "django.po"


def english_fragments() -> set[str]:
    """Literal pieces (≥ 18 characters) of every English message that has a Dutch translation."""
    text = PO.read_text(encoding="utf-8")
    fragments: set[str] = set()
    for block in text.split("\n\n"):
        msgid = "".join(re.findall(r'^(?:msgid|")\s*"?(.*?)"$', block.split("msgstr")[0], re.M))
        msgstr = (
            "".join(re.findall(r'"(.*)"', block.split("msgstr", 1)[-1]))
            if "msgstr" in block
            else ""
        )
        if not msgid or not msgstr or msgid == msgstr or "#~" in block:
            continue
        for piece in re.split(r"%\(\w+\)[sd]|\{\w+\}|%[sd]", msgid):
            piece = piece.replace('\\"', '"').strip(" .,:;()")
            if len(piece) >= 18:
                fragments.add(piece)
    return fragments


def visible_text(page: str) -> str:
    page = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    # Source citations quote their source as published (catalog data, not interface text).
    page = re.sub(r'<table class="assumptions">.*?</table>', " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.fixture
def dutch(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
    return client


def test_the_fragments_cover_the_verdict_and_plan_sentences() -> None:
    fragments = english_fragments()
    assert "cheaper than owning" in " ".join(fragments)
    assert any("pipeline stages across servers" in f for f in fragments)


@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
def test_every_preset_is_dutch_throughout(dutch: Client, seed_catalog: object, preset: str) -> None:
    page = visible_text(dutch.get("/calculator/", {"preset": preset}).content.decode())
    assert "Kopen" in page or "Huur" in page
    leaked = sorted(f for f in english_fragments() if f in page)
    assert not leaked, leaked
    for english in ("Buy and keep", "cheaper than owning", "runs a year", "The plan "):
        assert english not in page, english


@pytest.mark.parametrize(
    "params",
    [
        {"preset": "lora-70b", "params_billion": "lots"},
        {"preset": "serve-70b", "demand_pattern": "one_off"},
        {"preset": "pretrain-7b", "tokens_billion": "1000000", "deadline_days": "0.5"},
        {"preset": "finetune-8b", "demand_pattern": "recurring", "runs_per_year": ""},
    ],
)
def test_error_cases_are_dutch(dutch: Client, seed_catalog: object, params: dict[str, str]) -> None:
    page = visible_text(dutch.get("/calculator/", params).content.decode())
    leaked = sorted(f for f in english_fragments() if f in page)
    assert not leaked, leaked
