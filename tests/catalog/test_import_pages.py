"""The staff import pages: upload → preview → apply or discard; never an error page."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.models import CloudOffering, ImportStatus, PriceChange, PriceImport
from tests.catalog.price_files import catalog_state, csv_bytes, exported_rows, set_cell

pytestmark = pytest.mark.django_db

P5 = "aws-p5-48xlarge-od"


@pytest.fixture
def staff(django_user_model: type[User]) -> Any:
    return django_user_model.objects.create_user("sam", "sam@example.com", "pw", is_staff=True)


@pytest.fixture
def staff_client(client: Client, staff: Any) -> Client:
    client.force_login(staff)
    return client


def upload(client: Client, data: bytes, name: str = "cloud.csv", kind: str = "cloud") -> Any:
    return client.post("/catalog/import/", {"kind": kind, "file": SimpleUploadedFile(name, data)})


def changed_p5(price: str = "49.536", as_of: str | None = None) -> bytes:
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", price)
    if as_of:
        set_cell(rows, P5, "as_of", as_of)
    return csv_bytes(rows)


def text(response: Any) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/catalog/import/"),
        ("get", "/catalog/export/?kind=cloud&format=csv"),
        ("get", "/catalog/import/1/"),
        ("post", "/catalog/import/1/apply/"),
        ("post", "/catalog/import/1/discard/"),
    ],
)
def test_anonymous_and_non_staff_users_are_sent_to_log_in(
    client: Client, django_user_model: type[User], seed_catalog: object, method: str, url: str
) -> None:
    response = getattr(client, method)(url)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    client.force_login(django_user_model.objects.create_user("cy", is_staff=False))
    response = getattr(client, method)(url)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_non_staff_cannot_apply_an_import(
    client: Client, staff_client: Client, django_user_model: type[User], seed_catalog: object
) -> None:
    response = upload(staff_client, changed_p5())
    pk = PriceImport.objects.get().pk
    other = Client()
    other.force_login(django_user_model.objects.create_user("cy", is_staff=False))
    before = catalog_state()
    other.post(f"/catalog/import/{pk}/apply/")
    assert catalog_state() == before and response.status_code == 302


def test_upload_preview_apply_and_a_second_apply_does_nothing(
    staff_client: Client, staff: Any, seed_catalog: object
) -> None:
    page = staff_client.get("/catalog/import/")
    assert page.status_code == 200
    html = text(page)
    assert 'enctype="multipart/form-data"' in html and '<label for="id_file">' in html
    response = upload(staff_client, changed_p5())
    price_import = PriceImport.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/catalog/import/{price_import.pk}/"
    assert price_import.status == ImportStatus.PENDING and price_import.uploaded_by == staff
    assert CloudOffering.objects.get(key=P5).price_per_hour == Decimal("55.04")

    preview = text(staff_client.get(response["Location"]))
    assert "55.04 → 49.536 USD" in preview and "-10.0" in preview
    others = CloudOffering.objects.count() - 1
    assert f"0 new, 1 changed, {others} unchanged." in preview
    assert 'id="apply-import"' in preview and "csrfmiddlewaretoken" in preview

    applied = staff_client.post(f"/catalog/import/{price_import.pk}/apply/", follow=True)
    assert f"Import applied: 0 new, 1 changed, {others} unchanged." in text(applied)
    assert CloudOffering.objects.get(key=P5).price_per_hour == Decimal("49.536")
    change = PriceChange.objects.filter(kind="cloud", key=P5).latest("changed_at")
    assert change.changed_by == staff and change.old_value == Decimal("55.04")
    assert change.source == f"price import #{price_import.pk}: cloud.csv"
    price_import.refresh_from_db()
    assert price_import.status == ImportStatus.APPLIED and price_import.decided_at
    assert "55.04 → 49.536 USD" in text(applied)  # the stored summary

    before = catalog_state()
    again = staff_client.post(f"/catalog/import/{price_import.pk}/apply/", follow=True)
    assert "This import was already applied; nothing was changed." in text(again)
    assert catalog_state() == before


@pytest.mark.dates
def test_apply_checks_the_file_again_against_the_catalog_as_it_is_now(
    staff_client: Client, seed_catalog: object
) -> None:
    upload(staff_client, changed_p5("49.536"))
    first = PriceImport.objects.get()
    today = timezone.localdate().isoformat()
    upload(staff_client, changed_p5("45", as_of=today))
    second = PriceImport.objects.exclude(pk=first.pk).get()
    staff_client.post(f"/catalog/import/{second.pk}/apply/")
    assert CloudOffering.objects.get(key=P5).price_per_hour == Decimal("45")
    before = catalog_state()
    # The first file's change is dated before the price now in the catalog.
    response = staff_client.post(f"/catalog/import/{first.pk}/apply/")
    html = text(response)
    assert response.status_code == 200 and 'role="alert"' in html
    assert "is before the date of the current price" in html
    assert catalog_state() == before
    first.refresh_from_db()
    assert first.status == ImportStatus.PENDING


def test_discard_leaves_the_catalog_alone(staff_client: Client, seed_catalog: object) -> None:
    upload(staff_client, changed_p5())
    price_import = PriceImport.objects.get()
    before = catalog_state()
    response = staff_client.post(f"/catalog/import/{price_import.pk}/discard/", follow=True)
    assert "Import discarded; nothing was changed." in text(response)
    staff_client.post(f"/catalog/import/{price_import.pk}/apply/")
    price_import.refresh_from_db()
    assert price_import.status == ImportStatus.DISCARDED
    after = catalog_state()
    assert after.pop("PriceImport") != before.pop("PriceImport")
    assert after == before


def test_invalid_upload_shows_every_error_and_writes_nothing(
    staff_client: Client, seed_catalog: object
) -> None:
    rows = exported_rows("cloud")
    set_cell(rows, P5, "price_per_hour", "-5")
    set_cell(rows, "aws-p5en-48xlarge-od", "gpu", "h900")
    before = catalog_state()
    response = upload(staff_client, csv_bytes(rows))
    html = text(response)
    assert response.status_code == 400
    assert 'role="alert"' in html and "2 problems: nothing was imported" in html
    assert "Row 2, column “price_per_hour”: -5 is negative" in html
    assert "column “gpu”: unknown GPU &#x27;h900&#x27;" in html
    assert catalog_state() == before


@override_settings(PRICE_IMPORT_MAX_BYTES=2000)
def test_oversized_and_wrong_type_uploads_are_refused(
    staff_client: Client, seed_catalog: object
) -> None:
    before = catalog_state()
    html = text(upload(staff_client, changed_p5()))
    assert "price files may be at most 2,000 bytes" in html
    html = text(upload(staff_client, b"a,b\n", name="prices.txt"))
    assert "only .csv and .xlsx files can be imported" in html
    html = text(upload(staff_client, b"not a workbook", name="prices.xlsx"))
    assert "the file is not an Excel workbook (.xlsx)" in html
    assert catalog_state() == before


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.one_of(
        st.binary(max_size=400),
        st.lists(st.lists(st.text(max_size=10), max_size=14), max_size=5).map(
            lambda rows: "\n".join(",".join(r) for r in rows).encode("utf-8", "surrogatepass")
        ),
        st.sampled_from([b"PK\x03\x04", b"\xef\xbb\xbf", b"key\n\x00", b'"unclosed\n']),
    ),
    name=st.sampled_from(["p.csv", "p.xlsx", "p.CSV", "p", "p.xls"]),
    kind=st.sampled_from(["cloud", "servers", "items", "fx", "gpus", ""]),
)
def test_no_uploaded_bytes_cause_an_error_page(
    staff_client: Client, seed_catalog: object, data: bytes, name: str, kind: str
) -> None:
    before = catalog_state()
    response = staff_client.post(
        "/catalog/import/", {"kind": kind, "file": SimpleUploadedFile(name, data)}
    )
    assert response.status_code in (200, 302, 400)
    if response.status_code == 302:  # a valid file is only kept as a pending import
        staff_client.get(response["Location"])
    after = catalog_state()
    after.pop("PriceImport"), before.pop("PriceImport")
    assert after == before
