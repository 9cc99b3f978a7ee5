"""The web process settles its garbage collector once started (common/memory.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from common.memory import WEB_THRESHOLDS

ROOT = Path(__file__).resolve().parent.parent


def test_wsgi_start_freezes_startup_objects_and_widens_the_young_generation() -> None:
    probe = "import gc, config.wsgi; print(gc.get_freeze_count(), gc.get_threshold()[0])"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local"}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    frozen, young = int(out[0]), int(out[1])
    assert frozen > 50_000  # Django, numpy and the app's modules are out of the collector's way
    assert young == WEB_THRESHOLDS[0]
