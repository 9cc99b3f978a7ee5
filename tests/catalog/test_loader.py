"""The seed loader: the shipped files load, twice is a no-op, bad files import nothing."""

from __future__ import annotations

import shutil
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from catalog.loader import DATA_DIR, CatalogLoadError, load_catalog
from catalog.models import (
    ApiOffering,
    ChassisDefault,
    ChassisRules,
    CloudAvailability,
    CloudOffering,
    CloudRegion,
    Component,
    FxRate,
    Gpu,
    InfrastructureItem,
    ServerAvailability,
    ServerModel,
    ServerPart,
    Site,
)

pytestmark = pytest.mark.django_db

ALL_MODELS = (
    Gpu,
    ServerModel,
    ServerPart,
    CloudOffering,
    CloudRegion,
    Site,
    InfrastructureItem,
    FxRate,
    ApiOffering,
    ServerAvailability,
    CloudAvailability,
    Component,
    ChassisRules,
    ChassisDefault,
)


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in ALL_MODELS}


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A writable copy of the shipped data files, to break one at a time."""
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def edit_cell(path: Path, row: int, column: str, value: str) -> None:
    """Set one cell (spreadsheet numbering: header is row 1) of a simple CSV file."""
    import csv

    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    rows[row - 1][rows[0].index(column)] = value
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)


def test_seed_catalog_has_what_the_product_needs(seed_catalog: object) -> None:
    gpu_keys = set(Gpu.objects.values_list("key", flat=True))
    assert {"h100-sxm", "h200-sxm", "b200", "b300", "a100-80gb", "l40s"} <= gpu_keys
    skus = set(ServerModel.objects.values_list("sku", flat=True))
    assert {
        "SYS-821GE-TNHR",
        "AS-8125GS-TNHR",
        "SYS-822GS-NBRT",
        "SYS-822GS-NB3RT",
        "DGX H100",
        "DGX H200",
        "DGX B200",
        "DGX B300",
    } <= skus
    assert ServerModel.objects.filter(sku="SYS-821GE-TNHR").count() == 2  # H100 and H200
    instances = set(CloudOffering.objects.values_list("instance_type", flat=True))
    assert {
        "p5.48xlarge",
        "p5en.48xlarge",
        "p6-b300.48xlarge",
        "a3-highgpu-8g",
        "a3-megagpu-8g",
        "a3-ultragpu-8g",
        "ND96isr H100 v5",
        "ND96isr H200 v5",
    } <= instances
    a3_terms = set(
        CloudOffering.objects.filter(instance_type="a3-highgpu-8g").values_list("term", flat=True)
    )
    assert a3_terms == {"on_demand", "reserved_1y", "reserved_3y", "spot"}
    providers = set(CloudOffering.objects.values_list("provider", flat=True))
    assert {"Lambda", "CoreWeave", "RunPod"} <= providers
    # A data centre, the buyer's server room and a workstation at a desk (issue 29).
    assert set(Site.objects.values_list("kind", flat=True)) == {
        "colocation",
        "on_premises",
        "workstation",
    }
    assert set(Site.objects.values_list("country", flat=True)) >= {"NL", "US"}
    assert FxRate.objects.filter(base="EUR", quote="USD").exists()
    # The H100 figures are the datasheet's dense numbers.
    h100 = Gpu.objects.get(key="h100-sxm")
    assert (h100.memory_gb, h100.bf16_tflops, h100.fp8_tflops) == (
        Decimal(80),
        Decimal(989),
        Decimal(1979),
    )
    p5 = CloudOffering.objects.get(key="aws-p5-48xlarge-od")
    assert str(p5.price_per_hour) == "55.0400" and p5.currency == "USD"
    # Every row carries provenance.
    for model in ALL_MODELS:
        assert not model.objects.filter(source="").exists(), model.__name__


def test_rack_scale_and_liquid_cooled_systems(seed_catalog: object) -> None:
    """Issue 34: liquid-cooled HGX and NVL72 racks, each with its NVLink domain, typical and
    maximum power, cooling, facility needs in both languages and a dated, sourced price."""
    nvl = ServerModel.objects.get(key="nvidia-gb300-nvl72")
    assert (nvl.gpu_count, nvl.nvlink_domain_gpus, nvl.whole_rack) == (72, 72, True)
    assert (nvl.max_power_kw, nvl.typical_power_kw, nvl.cooling) == (
        Decimal(140),
        Decimal(132),
        "rack_liquid",
    )
    assert (
        nvl.list_price == 3_500_000 and nvl.price_is_estimate and "fetchlogic" in nvl.price_source
    )
    gb200 = ServerModel.objects.get(key="nvidia-gb200-nvl72")
    assert (gb200.max_power_kw, gb200.list_price) == (Decimal(132), Decimal(3_050_000))
    dlc = ServerModel.objects.filter(cooling="liquid", whole_rack=False)
    assert {s.gpu.key for s in dlc} == {"b200", "b300"}
    assert all(s.nvlink_domain_gpus == 8 and s.rack_units == 4 for s in dlc)
    for server in ServerModel.objects.exclude(cooling="air"):
        assert server.facility_needs and server.facility_needs_nl and server.as_of, server.key
        assert server.name_nl and server.price_source, server.key
    colo = Site.objects.get(key="nl-colo-liquid-amsterdam")
    assert (colo.cooling, colo.rack_power_limit_kw, colo.pue_liquid) == (
        "direct_liquid",
        Decimal(150),
        Decimal("1.15"),
    )
    units = dict(InfrastructureItem.objects.filter(category="facility").values_list("key", "unit"))
    assert units == {
        "cdu-in-row-250kw": "per_unit",
        "liquid-cooling-per-kw": "per_kw",
        "power-per-kw": "per_kw",
    }


def test_every_server_has_a_configuration_and_a_warranty(seed_catalog: object) -> None:
    """What a proposal prints per server line: CPU, memory, NVMe, NICs and power supplies
    (tests/quotes/test_vendor_proposal.py), and the manufacturer's warranty."""
    for server in ServerModel.objects.prefetch_related("parts"):
        roles = {part.role for part in server.parts.all()}
        assert {"cpu", "memory", "nvme", "nic", "psu"} <= roles, server.key
        assert all(part.description_nl for part in server.parts.all()), server.key
        assert server.warranty_years and server.service_level and server.warranty_source
    # Part numbers are the manufacturers' own, where the source gives one.
    numbers = set(ServerPart.objects.exclude(part_number="").values_list("part_number", flat=True))
    assert {"MCX75310AAS-NEAT", "MZQL23T8HCLS-00A07", "MEM-DR564MC-ER48"} <= numbers


def test_loading_twice_changes_nothing(seed_catalog: object) -> None:
    before = row_counts()
    snapshot = list(CloudOffering.objects.values())
    summary = load_catalog()
    assert summary.changed == 0
    assert sum(summary.unchanged.values()) == sum(before.values())
    assert row_counts() == before
    assert list(CloudOffering.objects.values()) == snapshot


def test_changed_price_is_updated_in_place(seed_catalog: object, data_dir: Path) -> None:
    edit_cell(data_dir / "cloud_offerings.csv", 2, "price_per_hour", "50.00")
    summary = load_catalog(data_dir=data_dir)
    assert summary.updated["cloud"] == 1 and summary.changed == 1
    assert str(CloudOffering.objects.get(key="aws-p5-48xlarge-od").price_per_hour) == "50.0000"


def test_dry_run_writes_nothing(db: None) -> None:
    summary = load_catalog(dry_run=True)
    assert summary.created["gpus"] == 8
    assert sum(row_counts().values()) == 0


@pytest.mark.parametrize(
    ("filename", "row", "column", "value", "reason"),
    [
        ("cloud_offerings.csv", 3, "price_per_hour", "-1", "is negative"),
        ("cloud_offerings.csv", 4, "price_per_hour", "cheap", "is not a number"),
        ("cloud_offerings.csv", 2, "gpu", "h900", "unknown GPU 'h900'"),
        ("servers.csv", 3, "gpu", "", "is empty"),
        ("servers.csv", 2, "as_of", "2025-13-01", "is not a date in YYYY-MM-DD form"),
        ("sites.csv", 2, "kind", "basement", "is not one of colocation, on_premises"),
        ("gpus.csv", 2, "tdp_w", "0", "must be greater than zero"),
        ("fx_rates.csv", 2, "base", "GBP", "is not one of USD, EUR"),
    ],
)
def test_bad_cell_names_file_row_and_column_and_imports_nothing(
    db: None, data_dir: Path, filename: str, row: int, column: str, value: str, reason: str
) -> None:
    edit_cell(data_dir / filename, row, column, value)
    with pytest.raises(CatalogLoadError) as caught:
        load_catalog(data_dir=data_dir)
    messages = [str(error) for error in caught.value.errors]
    assert any(
        m.startswith(f"{filename}, row {row}, column {column!r}:") and reason in m for m in messages
    ), messages
    assert sum(row_counts().values()) == 0


@pytest.mark.dates
def test_future_date_is_refused(db: None, data_dir: Path) -> None:
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    edit_cell(data_dir / "cloud_offerings.csv", 5, "as_of", tomorrow)
    with pytest.raises(
        CatalogLoadError, match=r"cloud_offerings.csv, row 5, column 'as_of': .* future"
    ):
        load_catalog(data_dir=data_dir)
    assert CloudOffering.objects.count() == 0


def test_missing_and_extra_columns_are_named(db: None, data_dir: Path) -> None:
    path = data_dir / "sites.csv"
    text = path.read_text(encoding="utf-8").replace("pue,", "power_usage,", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogLoadError) as caught:
        load_catalog(data_dir=data_dir)
    messages = [str(error) for error in caught.value.errors]
    assert "sites.csv, row 1, column 'pue': column is missing" in messages
    assert "sites.csv, row 1, column 'power_usage': column is not expected" in messages
    assert sum(row_counts().values()) == 0


def test_duplicate_sku_is_refused(db: None, data_dir: Path) -> None:
    path = data_dir / "servers.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    duplicate = lines[1].replace("smc-821ge-tnhr-h100", "smc-821ge-tnhr-h100-copy", 1)
    path.write_text("\n".join([*lines, duplicate]) + "\n", encoding="utf-8")
    with pytest.raises(CatalogLoadError) as caught:
        load_catalog(data_dir=data_dir)
    assert [str(e) for e in caught.value.errors] == [
        f"servers.csv, row {len(lines) + 1}, column 'sku, gpu': "
        "duplicate of row 2 (SYS-821GE-TNHR, h100-sxm)"
    ]
    assert ServerModel.objects.count() == 0


def test_file_that_is_not_utf8_is_refused(db: None, data_dir: Path) -> None:
    path = data_dir / "items.csv"
    path.write_bytes(path.read_bytes().replace("–".encode(), "–".encode("cp1252")))
    with pytest.raises(CatalogLoadError, match=r"items\.csv, row 7: the file is not UTF-8 text"):
        load_catalog(data_dir=data_dir)
    assert sum(row_counts().values()) == 0


def test_command_reports_errors_and_exits_non_zero(db: None, data_dir: Path) -> None:
    edit_cell(data_dir / "gpus.csv", 3, "memory_gb", "-80")
    with pytest.raises(CommandError, match="1 problem"):
        call_command("load_catalog", "--data-dir", str(data_dir))
    assert Gpu.objects.count() == 0


def test_command_loads_and_reports(db: None, capsys: pytest.CaptureFixture[str]) -> None:
    call_command("load_catalog")
    out = capsys.readouterr().out
    assert "gpus: 8 new, 0 changed, 0 unchanged" in out
    assert Gpu.objects.count() == 8
