"""One date style: "15 Jan 2026" in English, "15 jan. 2026" in Dutch (config/formats).

Dutch months are abbreviated with a full stop, except "mei", which is not shortened.
Django's "N" gives that month abbreviation; its Dutch catalogue leaves the stop out, ours
puts it back (see config/formats/nl/formats.py).
"""

from __future__ import annotations

from datetime import date, datetime

import pytest
from django.conf import settings
from django.test import Client
from django.utils import formats, translation

from catalog.models import FxRate

# Month: English, Dutch abbreviation.
MONTHS = {
    1: ("Jan", "jan."),
    2: ("Feb", "feb."),
    3: ("Mar", "mrt."),
    4: ("Apr", "apr."),
    5: ("May", "mei"),
    6: ("Jun", "jun."),
    7: ("Jul", "jul."),
    8: ("Aug", "aug."),
    9: ("Sep", "sep."),
    10: ("Oct", "okt."),
    11: ("Nov", "nov."),
    12: ("Dec", "dec."),
}


@pytest.mark.parametrize(("language", "column"), [("en", 0), ("nl", 1)])
def test_every_month_in_each_language(language: str, column: int) -> None:
    with translation.override(language):
        for month, names in MONTHS.items():
            day = date(2026, month, 15)
            for style in ("DATE_FORMAT", "SHORT_DATE_FORMAT"):
                assert formats.date_format(day, style) == f"15 {names[column]} 2026"
        moment = datetime(2026, 1, 5, 17, 46)
        for style in ("DATETIME_FORMAT", "SHORT_DATETIME_FORMAT"):
            assert formats.date_format(moment, style) == f"5 {MONTHS[1][column]} 2026, 17:46"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "USD on 15 Mar 2026"),
        ("nl", "USD op 15 mrt. 2026"),
    ],
)
def test_a_page_shows_the_date_in_its_language(
    client: Client, seed_catalog: object, language: str, sentence: str
) -> None:
    latest = FxRate.objects.order_by("-as_of").first()
    assert latest is not None
    FxRate.objects.filter(pk=latest.pk).update(as_of=date(2026, 3, 15))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    page = client.get("/catalog/").content.decode().replace("\u00a0", " ")
    assert sentence in page
