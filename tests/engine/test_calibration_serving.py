"""docs/calibration.md, serving: published measurements reproduced by the engine (issue 29).

The tables are generated from the engine (tco/engine/calibration.py); the document must
show what the engine computes now, every row inside ±30 %, with the coverage the issue
asks for: H100, H200 and B200, dense and mixture-of-experts models, short and long
prompts, and a concurrency sweep whose time per output token rises with load.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tco.engine import calibration as cal

DOC = Path(__file__).resolve().parents[2] / "docs" / "calibration.md"
ROWS = cal.reproduced()


def test_the_document_shows_what_the_engine_computes() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert cal.replace_in(text, cal.markdown_tables(ROWS)) == text, (
        "docs/calibration.md is stale: rewrite its serving tables with "
        "tco.engine.calibration.replace_in(text, markdown_tables())"
    )


@pytest.mark.parametrize(
    "row",
    ROWS,
    ids=lambda r: (
        f"{r.measurement.model.name} {r.measurement.gpu} "
        f"{r.measurement.input_tokens}/{r.measurement.output_tokens} {r.measurement.concurrency}"
    ),
)
def test_every_measurement_within_its_tolerance(row: cal.Reproduced) -> None:
    for name, error in row.errors().items():
        assert abs(error) <= cal.TOLERANCE, (name, error)


def test_the_rows_cover_what_the_issue_asks_for() -> None:
    measurements = [r.measurement for r in ROWS]
    assert len(cal.MAX_LOAD) >= 8
    assert {m.gpu for m in measurements} == {"H100", "H200", "B200"}
    assert any(m.model.is_moe for m in measurements)
    assert any(not m.model.is_moe for m in measurements)
    assert any(m.input_tokens <= 1000 for m in measurements)
    assert any(m.input_tokens >= 5000 for m in measurements)
    for m in measurements:
        assert re.fullmatch(r"S-[A-Z0-9-]+", m.source) and m.date


def test_the_sweep_rises_with_load_as_published() -> None:
    sweep = [r for r in ROWS if r.measurement in cal.SWEEP]
    assert len(sweep) >= 3
    sweep.sort(key=lambda r: r.measurement.concurrency or 0)
    published = [itl for r in sweep if (itl := r.measurement.time_per_output_token_ms) is not None]
    assert len(published) == len(sweep)
    engine = [r.time_per_output_token_ms for r in sweep]
    assert published == sorted(published) and engine == sorted(engine)
    assert engine[-1] > 3 * engine[0]  # "rise severalfold" (issue 29)
    throughput = [r.tokens_per_second for r in sweep]
    assert throughput == sorted(throughput)


def test_the_old_linear_model_would_fail_the_issues_example() -> None:
    # Issue 29: 70 B at FP8 on one 8 × H100 server gave 6,074 tokens/s at 32 sequences and
    # 48,589 at 256, growing linearly; the published full-load figure (TensorRT-LLM, TP 2,
    # 1,000/1,000: 4,205 per copy, four copies) lies between, and so does the engine's.
    row = next(
        r
        for r in ROWS
        if r.measurement.model is cal.LLAMA_70B
        and r.measurement.gpu == "H100"
        and r.measurement.input_tokens == 1000
        and r.measurement.concurrency is None
    )
    per_server = 4 * row.tokens_per_second
    assert 6_074 < per_server < 48_589
    assert per_server == pytest.approx(4 * 4205, rel=cal.TOLERANCE)
