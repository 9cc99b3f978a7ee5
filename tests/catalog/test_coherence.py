"""Comparable servers are priced coherently: no DGX below the HGX servers it competes with."""

from __future__ import annotations

import csv
import shutil
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from catalog.coherence import catalog_price_inversions
from catalog.loader import DATA_DIR
from catalog.models import ServerModel

pytestmark = pytest.mark.django_db


def test_the_seed_catalog_lists_no_dgx_below_an_hgx_of_the_same_gpus(seed_catalog: object) -> None:
    assert catalog_price_inversions() == []


def test_a_dgx_priced_below_its_hgx_is_flagged_by_the_catalog_check(
    seed_catalog: object, tmp_path: Path
) -> None:
    ServerModel.objects.filter(key="nvidia-dgx-h100").update(list_price=Decimal("199000"))
    found = [str(i) for i in catalog_price_inversions()]
    assert found and all(i.startswith("NVIDIA DGX H100 ($199,000) is listed below") for i in found)

    # The seed files with the DGX H100 at $199,000: load_catalog loads them and says so.
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    servers = data / "servers.csv"
    rows = list(csv.DictReader(servers.open(newline="")))
    for row in rows:
        if row["key"] == "nvidia-dgx-h100":
            row["list_price"], row["as_of"] = "199000", "2026-12-02"
    with servers.open("w", newline="") as out_file:
        writer = csv.DictWriter(out_file, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    out = StringIO()
    call_command("load_catalog", data_dir=data, stdout=out)
    assert "Price check: NVIDIA DGX H100 ($199,000) is listed below Supermicro" in out.getvalue()
