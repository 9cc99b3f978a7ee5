"""Django's start-up stays light: the heavy libraries load where they are used.

pandas (price files), openpyxl (Excel files), WeasyPrint (proposal PDFs) and Plotly (only its
schema, in the tests) cost about 3 s to import without bytecode; a web or worker process that
starts must not pay for them before its first page or task (issue 15). Checked in a fresh
interpreter, since this test process has long imported them all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ["pandas", "openpyxl", "weasyprint", "plotly", "pypdf"]
# numpy and the engine (~150 ms) load with the first calculation, not with the URLs.
ENGINE = ["numpy", "tco.engine"]


def heavy_imported(
    settings_module: str, then: str = "", heavy: list[str] | None = None
) -> set[str]:
    """The heavy libraries a fresh `import django; django.setup()` (then `then`) imported."""
    names = HEAVY if heavy is None else heavy
    probe = (
        f"import json, sys\nimport django\ndjango.setup()\n{then}\n"
        f"print(json.dumps([name for name in {names!r} if name in sys.modules]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": settings_module},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("settings_module", ["config.settings.local", "config.settings.test"])
def test_django_setup_imports_none_of_the_heavy_libraries(settings_module: str) -> None:
    assert heavy_imported(settings_module) == set()


def test_loading_every_url_imports_none_of_the_heavy_libraries() -> None:
    """What a web process does before its first page: the URLs import every view."""
    assert heavy_imported("config.settings.local", "import config.urls") == set()


def test_loading_every_url_imports_neither_numpy_nor_the_engine() -> None:
    assert heavy_imported("config.settings.local", "import config.urls", ENGINE) == set()


def test_the_probe_sees_the_engine_import() -> None:
    """The check above can fail: the calculator's form brings numpy and the engine."""
    assert set(ENGINE) <= heavy_imported("config.settings.test", "import tco.inputs.forms", ENGINE)


def test_the_probe_sees_a_heavy_import() -> None:
    """The check above can fail: importing the PDF module brings WeasyPrint."""
    assert "weasyprint" in heavy_imported("config.settings.test", "import quotes.pdf")
