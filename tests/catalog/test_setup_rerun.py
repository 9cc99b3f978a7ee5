"""Re-running `make setup` (and so `make run`) after a price import is safe.

The seed files are older than a price staff imported since; `load_catalog` used to refuse
("as_of … is before the date of the current price") and `make run` never started. Now the
newer catalog row is kept, the older seed row skipped with a one-line note.
"""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path

from django.utils import timezone

ROOT = Path(__file__).resolve().parent.parent.parent
TEST_ONLY_VARIABLES = {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "EMAIL_BACKEND"}
P5 = "aws-p5-48xlarge-od"


def setup_steps() -> list[list[str]]:
    """The `manage.py` commands of the Makefile's `setup` target, as it runs them."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^setup:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe, "no setup target in the Makefile"
    steps = [
        line.strip().replace("$(PY)", sys.executable).split()
        for line in recipe.group(1).splitlines()
        if "manage.py" in line
    ]
    assert any("load_catalog" in step for step in steps)
    return steps


def test_setup_runs_again_after_a_price_import(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in TEST_ONLY_VARIABLES}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )

    def run(*command: str) -> str:
        result = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, " ".join(command) + "\n" + result.stdout + result.stderr
        return result.stdout

    for step in setup_steps():
        run(*step)

    # A staff price import, dated today: newer than the seed's price.
    seed = (ROOT / "catalog" / "data" / "cloud_offerings.csv").read_text()
    rows = list(csv.reader(io.StringIO(seed)))
    header = rows[0]
    row = next(r for r in rows if r[0] == P5)
    row[header.index("price_per_hour")] = "49.5"
    row[header.index("as_of")] = timezone.localdate().isoformat()
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    price_file = tmp_path / "cloud.csv"
    price_file.write_text(buffer.getvalue())
    run(sys.executable, "manage.py", "import_prices", str(price_file), "--kind", "cloud")

    outputs = [run(*step) for step in setup_steps()]  # the second `make setup`
    load_output = outputs[-1]
    note = [line for line in load_output.splitlines() if "newer price" in line]
    assert note == [
        "cloud: kept 1 newer price(s) from imports, skipped the older seed row(s): " + P5
    ], load_output

    price = run(
        sys.executable,
        "manage.py",
        "shell",
        "-c",
        f"from catalog.models import CloudOffering as C; "
        f"print(C.objects.get(key='{P5}').price_per_hour)",
    )
    assert price.strip().splitlines()[-1].rstrip("0") == "49.5"
