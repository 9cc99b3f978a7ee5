"""Same figures everywhere: every preset's report, API answer, CLI table and workbook, on the
seed catalog and a fixed day, equal what is stored in tests/data/same_figures/<preset>.json.

A refactor must leave these files as they are. When a change moves a figure on purpose (an
issue that changes a price, a formula or a wording), regenerate them and say why in the
commit message:

    GPUTCO_REGENERATE_FIGURES=1 .venv/bin/python -m pytest -q tests/tco/test_same_figures.py

then read the diff of tests/data/same_figures/ before committing it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.http import QueryDict
from django.test import Client
from openpyxl import load_workbook

from tco.analysis.calculator import analyse_query, calculator_document
from tco.inputs.presets import PRESETS

DATA = Path(__file__).resolve().parents[1] / "data" / "same_figures"
REGENERATE = "GPUTCO_REGENERATE_FIGURES"

pytestmark = pytest.mark.django_db


# The monthly sheet: a row of formulas a month for every option (about 1 MB as JSON a preset);
# stored as the digest of its cells, the other sheets cell by cell.
DIGESTED_SHEETS = ("Cash flow",)


def workbook_values(content: bytes) -> dict[str, Any]:
    """Every sheet's cells as stored (a formula as its text), dates as ISO text."""
    book = load_workbook(io.BytesIO(content))
    found: dict[str, Any] = {}
    for sheet in book.worksheets:
        rows = [
            [v.isoformat() if isinstance(v, date | datetime) else v for v in row]
            for row in sheet.iter_rows(values_only=True)
        ]
        text = json.dumps(rows, sort_keys=True, allow_nan=False)
        found[sheet.title] = (
            {"rows": len(rows), "sha256": hashlib.sha256(text.encode()).hexdigest()}
            if sheet.title in DIGESTED_SHEETS
            else rows
        )
    return found


def figures(slug: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What a preset shows: the calculator's report (its JSON form), and for the document of
    the server it chose, the API's estimate and workbook and the CLI's table."""
    _form, outcome = analyse_query(QueryDict(f"preset={slug}"))
    assert outcome.analysis is not None, outcome.problem
    key = outcome.analysis.built.server_model.key
    document = calculator_document(query=f"preset={slug}", server_key=key)
    assert document is not None
    body = document.model_dump(mode="json", exclude_unset=True)
    client = Client()
    answer = client.post("/api/v1/estimate", json.dumps(body), content_type="application/json")
    book = client.post(
        "/api/v1/estimate/workbook", json.dumps(body), content_type="application/json"
    )
    assert (answer.status_code, book.status_code) == (200, 200)
    path = tmp_path / f"{slug}.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    call_command("tco", "estimate", "--input", str(path), "--format", "table")
    return {
        "server": key,
        "report": outcome.analysis.report.to_json(),
        "api": answer.json(),
        "cli_table": capsys.readouterr().out.splitlines(),
        "workbook": workbook_values(book.content),
    }


@pytest.mark.parametrize("slug", [p.slug for p in PRESETS])
def test_every_preset_shows_the_stored_figures(
    seed_catalog: object,
    frozen_today: date,
    slug: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = json.loads(json.dumps(figures(slug, tmp_path, capsys), sort_keys=True))
    stored = DATA / f"{slug}.json"
    if os.environ.get(REGENERATE):
        DATA.mkdir(parents=True, exist_ok=True)
        stored.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(stored.read_text(encoding="utf-8"))
    for part in expected:
        assert found[part] == expected[part], (
            f"{slug}: the {part} differs from {stored.name}. A refactor keeps every figure; "
            f"if this change moves it on purpose, run {REGENERATE}=1 on this test, read the "
            "diff of tests/data/same_figures/ and give the reason in the commit message."
        )
    assert set(found) == set(expected)
