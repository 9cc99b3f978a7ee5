"""NUL and other control characters are refused (400) before they reach a view or the database.

On PostgreSQL a NUL in a text parameter raises `DataError` (a 500): these requests used to
fail that way on the price history pages, the buyer links and the lead form.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from catalog.models import PriceImport

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url",
    [
        "/catalog/prices/cloud/aws%00/",
        "/catalog/prices/servers/x%00y/",
        "/catalog/prices/items/%01/",
        "/catalog/prices/fx/EUR%7F/",
        "/quotes/p/abc%00def/",
        "/quotes/analysis-pdf/abc%00/",
        "/calculator/?preset=pretrain-7b%00",
        "/calculator/?gpu%00=h100",
        "/catalog/?q=%1b[31m",
        "/quotes/analysis-pdf/form/?params_billion=7%00",
        "/language/?language=nl&next=/%00",
    ],
)
def test_control_characters_in_paths_and_queries_are_refused(
    client: Client, seed_catalog: object, url: str
) -> None:
    response = client.get(url)
    assert response.status_code == 400, url
    assert b"control character" in response.content


def test_nul_in_a_form_field_is_refused(client: Client, seed_catalog: object) -> None:
    response = client.post(
        "/quotes/analysis-pdf/",
        {
            "name": "Ann\x00",
            "company": "Acme",
            "email": "ann@example.com",
            "consent": "on",
            "idempotency_key": "0b0e3c5e-6f57-4a07-9a4f-0d0c1b7f9b11",
        },
    )
    assert response.status_code == 400
    assert "form field “name”" in response.content.decode()


def test_nul_in_an_uploaded_file_name_never_reaches_the_database(admin_client: Client) -> None:
    """Django's multipart parser already cuts the name at the NUL; either way no 500."""
    upload = SimpleUploadedFile("prices\x00.csv", b"key,price\n", content_type="text/csv")
    response = admin_client.post("/catalog/import/", {"kind": "cloud", "file": upload})
    assert response.status_code in (200, 400)
    names = PriceImport.objects.values_list("filename", flat=True)
    assert all("\x00" not in name for name in names)


def test_text_areas_keep_line_breaks_and_tabs(client: Client, seed_catalog: object) -> None:
    """Whitespace controls are allowed in form values (terms, addresses)."""
    response = client.post(
        "/quotes/analysis-pdf/",
        {"name": "Ann\tB", "company": "Acme\r\nBV", "email": "not-an-email"},
    )
    assert response.status_code == 400  # invalid form, not refused input
    assert b"control character" not in response.content


def test_plain_requests_pass(client: Client, seed_catalog: object) -> None:
    assert client.get("/catalog/prices/cloud/does-not-exist/").status_code == 404
    assert client.get("/catalog/").status_code == 200


def test_the_api_gets_problem_details(client: Client, db: None) -> None:
    response = client.get("/api/v1/catalog/gpus", {"key": "h100\x00"})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["status"] == 400 and "control character" in response.json()["detail"]
