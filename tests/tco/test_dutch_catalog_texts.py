"""Issue 31 item 5: a catalog text with a Dutch version is shown in Dutch on a Dutch page
and in a Dutch proposal's analysis.

Before: the assumptions listed "Hardware support contract (standard next-business-day)"
and "Rack-and-stack installation and burn-in per server" in English on Dutch pages and
PDFs, although the catalog holds their Dutch names. The check reads every catalog text
that has a Dutch version (items, sites, servers, server parts) from the database and
fails when its English shows where the reader is Dutch.
"""

from __future__ import annotations

import html as htmlmod
import re

import pytest
from django.http import QueryDict
from django.test import Client

from catalog.models import InfrastructureItem, ServerModel, ServerPart, Site
from tco.web.presets import PRESETS

pytestmark = pytest.mark.django_db


def english_with_a_dutch_version() -> set[str]:
    texts: set[str] = set()
    for model, english, dutch in (
        (InfrastructureItem, "name", "name_nl"),
        (Site, "name", "name_nl"),
        (ServerModel, "name", "name_nl"),
        (ServerPart, "description", "description_nl"),
    ):
        for en, nl in model.objects.values_list(english, dutch):
            if nl and nl != en:
                texts.add(en)
    return texts


def assumption_labels(page: str) -> list[str]:
    table = page.split('class="assumptions"')[1].split("</table>")[0]
    return [
        htmlmod.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
        for cell in re.findall(r'<th scope="row">(.*?)</th>', table, re.S)
    ]


def shown_in_english(labels: list[str], english: set[str]) -> list[str]:
    return [label for label in labels if any(text in label for text in english)]


@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
def test_the_dutch_calculator_shows_catalog_texts_in_dutch(
    client: Client, seed_catalog: object, preset: str
) -> None:
    english = english_with_a_dutch_version()
    assert "Hardware support contract (standard next-business-day)" in english
    client.cookies["django_language"] = "nl"
    page = client.get("/calculator/", {"preset": preset}).content.decode()
    labels = assumption_labels(page)
    assert labels and not shown_in_english(labels, english), shown_in_english(labels, english)
    # The same page in English keeps the English names (the check can see them).
    client.cookies["django_language"] = "en"
    page = client.get("/calculator/", {"preset": preset}).content.decode()
    assert shown_in_english(assumption_labels(page), english)


def test_a_dutch_proposal_analysis_shows_catalog_texts_in_dutch(seed_catalog: object) -> None:
    from quotes.services.analysis import tco_snapshot
    from tco.services import analyse_query

    english = english_with_a_dutch_version()
    _form, outcome = analyse_query(QueryDict("preset=pretrain-70b"))
    snapshot = tco_snapshot(analysis=outcome.analysis, query="preset=pretrain-70b", language="nl")
    labels = [a["label"] for a in snapshot["assumptions"]]
    assert labels and not shown_in_english(labels, english), shown_in_english(labels, english)
    assert any("Hardware-supportcontract" in label for label in labels)
