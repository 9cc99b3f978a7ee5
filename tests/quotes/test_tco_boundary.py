"""quotes' business rules reach the calculator through its front door (tco.analysis), the
typed report and its wording (docs/api.md, "The report"): no form, no engine internals; a
calculator result URL's query is read by the front door's tco.analysis.calculator
(tests/test_architecture.py)."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parents[2] / "quotes" / "services"
ALLOWED = {
    "tco.analysis",
    "tco.report",
    "tco.presentation.wording",
    "tco.presentation.wording_idle",
    "tco.presentation.wording_site",
    "tco.presentation.wording_verdict",
    "tco.analysis.calculator",
}


def tco_imports(path: Path) -> list[tuple[int, str]]:
    """Every module of tco that a file imports (at module level or inside a function)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        names = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level == 0
            else [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        found += [(node.lineno, n) for n in names if n == "tco" or n.startswith("tco.")]
    return found


def test_quotes_services_use_only_the_front_door_and_the_report() -> None:
    files = sorted(SERVICES.glob("*.py"))
    assert len(files) > 10  # the package is where this test looks
    wrong = [
        f"{path.name}:{line} imports {module}"
        for path in files
        for line, module in tco_imports(path)
        if module not in ALLOWED
    ]
    assert wrong == []


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f():\n    from tco.inputs.forms import CalculatorForm\n    import tco.engine\n"
    )
    assert tco_imports(sample) == [(2, "tco.inputs.forms"), (3, "tco.engine")]


def test_quotes_services_build_no_calculator_form() -> None:
    for path in sorted(SERVICES.glob("*.py")):
        text = path.read_text()
        assert "CalculatorForm" not in text and "analyse_query(" not in text, path.name
