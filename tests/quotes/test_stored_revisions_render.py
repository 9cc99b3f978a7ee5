"""Revisions sent before the deal model (options, the bill of materials, the owning total
with its bridge, the frozen clauses) still render as they were sent: their snapshots, frozen
by the code of 5 Dec 2026 (c3728dd) for a 70B pre-training quote on B200 servers in English
and Dutch (their chart figures left out: rendered without charts), print the same text today
(issue "one deal model": stored revisions open, render
and re-send identically)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from pypdf import PdfReader

from quotes import pdf

STORED = json.loads((Path(__file__).parent / "data" / "revisions_sent_2026_12_05.json").read_text())


@pytest.mark.parametrize("language", ["en", "nl"])
def test_a_revision_sent_before_renders_the_same_text(language: str) -> None:
    stored = STORED[language]
    document = pdf.render_revision(stored["snapshot"], language=language, with_charts=False)
    pages = PdfReader(io.BytesIO(document.pdf)).pages
    text = "\n".join(page.extract_text() for page in pages)
    assert document.pages == stored["pages"]
    assert text == stored["text"]
