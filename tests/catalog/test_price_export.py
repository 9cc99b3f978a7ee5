"""Export: the import's own format, per kind or everything, as CSV or XLSX."""

from __future__ import annotations

import io
import zipfile

import openpyxl
import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from catalog.models import CloudOffering, FxRate, PriceImport
from catalog.schema import PRICE_SPECS_BY_KIND
from tests.catalog.price_files import catalog_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client: Client, django_user_model: type[User]) -> Client:
    client.force_login(django_user_model.objects.create_user("sam", is_staff=True))
    return client


def test_csv_export_has_the_spec_columns_and_plain_values(
    staff_client: Client, seed_catalog: object
) -> None:
    response = staff_client.get("/catalog/export/", {"kind": "cloud", "format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="prices-cloud-')
    lines = response.content.decode("utf-8-sig").splitlines()
    assert lines[0] == ",".join(PRICE_SPECS_BY_KIND["cloud"].column_names)
    assert len(lines) == 1 + CloudOffering.objects.count()
    p5 = next(line for line in lines if line.startswith("aws-p5-48xlarge-od,"))
    assert ",55.04,USD," in p5 and ",2025-07-01,false,US,US," in p5
    assert ",63.296," in next(line for line in lines if line.startswith("aws-p5en-48xlarge-od,"))


def test_xlsx_export_of_everything_has_one_sheet_per_kind(
    staff_client: Client, seed_catalog: object
) -> None:
    response = staff_client.get("/catalog/export/", {"kind": "all", "format": "xlsx"})
    assert response["Content-Disposition"].endswith('.xlsx"')
    workbook = openpyxl.load_workbook(io.BytesIO(response.content))
    assert workbook.sheetnames == [
        *("cloud", "servers", "items", "fx", "api", "stock", "cloud_lead"),
        *("components", "chassis", "defaults", "price_book"),
    ]
    fx = list(workbook["fx"].values)
    assert list(fx[0]) == PRICE_SPECS_BY_KIND["fx"].column_names
    assert len(fx) == 1 + FxRate.objects.count()
    cloud = list(workbook["cloud"].values)
    p5 = next(row for row in cloud if row[0] == "aws-p5-48xlarge-od")
    assert p5[7] == 55.04 and p5[5] == 8  # prices and counts are numbers in the sheet


def test_csv_export_of_everything_is_a_zip_of_seed_named_files(
    staff_client: Client, seed_catalog: object
) -> None:
    response = staff_client.get("/catalog/export/", {"kind": "all", "format": "csv"})
    assert response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert names == [
        "cloud_offerings.csv",
        "servers.csv",
        "items.csv",
        "fx_rates.csv",
        "api_offerings.csv",
        "server_availability.csv",
        "cloud_availability.csv",
        "components.csv",
        "chassis_rules.csv",
        "chassis_defaults.csv",
        "price_book.csv",  # the tiers' price books (no seed file: imported by staff)
    ]


def test_bad_export_parameters_are_a_bad_request(
    staff_client: Client, seed_catalog: object
) -> None:
    assert staff_client.get("/catalog/export/", {"kind": "gpus"}).status_code == 400
    assert staff_client.get("/catalog/export/", {"format": "pdf"}).status_code == 400


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_round_trip_through_the_pages_changes_nothing(
    staff_client: Client, seed_catalog: object, file_format: str
) -> None:
    exported = staff_client.get("/catalog/export/", {"kind": "servers", "format": file_format})
    before = catalog_state()
    staff_client.post(
        "/catalog/import/",
        {"kind": "servers", "file": SimpleUploadedFile(f"s.{file_format}", exported.content)},
    )
    price_import = PriceImport.objects.get()
    assert price_import.summary["counts"]["changed"] == 0
    assert price_import.summary["counts"]["new"] == 0
    staff_client.post(f"/catalog/import/{price_import.pk}/apply/")
    after = catalog_state()
    after.pop("PriceImport"), before.pop("PriceImport")
    assert after == before
