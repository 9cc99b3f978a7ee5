"""Issue 31 item 5: a catalog text with a Dutch version is shown in Dutch on a Dutch page
and in a Dutch proposal's analysis.

Before: the assumptions listed "Hardware support contract (standard next-business-day)"
and "Rack-and-stack installation and burn-in per server" in English on Dutch pages and
PDFs, although the catalog holds their Dutch names. The check reads every catalog text
that has a Dutch version (items, sites, servers, server parts) from the database and
fails when its English shows where the reader is Dutch.

The same holds for the catalog's source texts (issue 31, buyer trust): before, the
assumptions, the catalog page and the PDFs read "Estimate: NL non-household electricity …"
or "NVIDIA H100 Tensor Core GPU datasheet" in English on Dutch pages. Every source a
reader sees has a Dutch version (`source_nl`, `price_source_nl`, `jurisdiction_source_nl`);
the checks below fail when the English one (or its public short form) shows where the
reader is Dutch.
"""

from __future__ import annotations

import html as htmlmod
import re

import pytest
from django.http import QueryDict
from django.test import Client
from django.utils import translation

from catalog.audience import source_name
from catalog.models import (
    ApiOffering,
    CloudAvailability,
    CloudOffering,
    CloudRegion,
    FxRate,
    Gpu,
    InfrastructureItem,
    ServerAvailability,
    ServerModel,
    ServerPart,
    Site,
)
from tco.inputs.presets import PRESETS
from tests.quotes.conftest import lead_analysis_text

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


# Every catalog source text and its Dutch version (model, English field, Dutch field).
SOURCE_FIELDS = (
    *(
        (model, "source", "source_nl")
        for model in (
            Gpu,
            ServerModel,
            ServerPart,
            CloudOffering,
            CloudRegion,
            ApiOffering,
            Site,
            InfrastructureItem,
            FxRate,
            ServerAvailability,
            CloudAvailability,
        )
    ),
    (ServerModel, "price_source", "price_source_nl"),
    (CloudOffering, "jurisdiction_source", "jurisdiction_source_nl"),
)
# The tables whose sources a reader sees (pages, assumptions, PDFs, workbook): each of
# their rows must have a Dutch source.
SHOWN_SOURCES = (
    (Gpu, "source", "source_nl"),
    (ServerModel, "source", "source_nl"),
    (ServerModel, "price_source", "price_source_nl"),
    (CloudOffering, "source", "source_nl"),
    (CloudOffering, "jurisdiction_source", "jurisdiction_source_nl"),
    (ApiOffering, "source", "source_nl"),
    (Site, "source", "source_nl"),
    (InfrastructureItem, "source", "source_nl"),
    (FxRate, "source", "source_nl"),
)


# The seed's Amsterdam colocation site: its source as the English calculator shows it.
NL_SITE_SOURCE = (
    "Estimate: NL non-household electricity €0.15–0.20/kWh incl. network costs; PUE of new "
    "large sites ~1.3 (Uptime Institute); colocation price and grid intensity estimated"
)


def english_sources_with_a_dutch_version() -> set[str]:
    """The English source texts that have a Dutch version, and their public short forms
    (the publication's name: catalog.audience.source_name) where those differ."""
    texts: set[str] = set()
    for model, english, dutch in SOURCE_FIELDS:
        for en, nl in model.objects.values_list(english, dutch):
            if not nl or nl == en:
                continue
            texts.add(en)
            name = source_name(en)
            if name and name != source_name(nl) and name not in nl:
                texts.add(name)
    return texts


def assumption_sources(page: str) -> list[str]:
    table = page.split('class="assumptions"')[1].split("</table>")[0]
    return [
        htmlmod.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
        for cell in re.findall(r'<td class="source">(.*?)</td>', table, re.S)
    ]


def page_text(page: str) -> str:
    """A page's text and attributes (a title carries a source too), entities decoded."""
    return htmlmod.unescape(page)


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
    from tco.analysis.calculator import analyse_query

    english = english_with_a_dutch_version()
    _form, outcome = analyse_query(QueryDict("preset=pretrain-70b"))
    snapshot = tco_snapshot(analysis=outcome.analysis, query="preset=pretrain-70b", language="nl")
    labels = [a["label"] for a in snapshot["assumptions"]]
    assert labels and not shown_in_english(labels, english), shown_in_english(labels, english)
    assert any("Hardware-supportcontract" in label for label in labels)


def test_every_source_a_reader_sees_has_a_dutch_version(seed_catalog: object) -> None:
    missing = [
        f"{model.__name__}.{english}: {en}"
        for model, english, dutch in SHOWN_SOURCES
        for en, nl in model.objects.values_list(english, dutch)
        if en and not nl
    ]
    assert not missing, missing


@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
def test_the_dutch_calculator_shows_catalog_sources_in_dutch(
    client: Client, seed_catalog: object, preset: str
) -> None:
    english = english_sources_with_a_dutch_version()
    assert NL_SITE_SOURCE in english
    client.cookies["django_language"] = "nl"
    page = client.get("/calculator/", {"preset": preset}).content.decode()
    sources = assumption_sources(page)
    assert sources and not shown_in_english(sources, english), shown_in_english(sources, english)
    # The same page in English keeps the English sources (the check can see them).
    client.cookies["django_language"] = "en"
    page = client.get("/calculator/", {"preset": preset}).content.decode()
    assert shown_in_english(assumption_sources(page), english)


def test_the_dutch_calculator_shows_jurisdiction_sources_in_dutch(
    client: Client, seed_catalog: object
) -> None:
    """With a sovereignty constraint the assumptions list whose law each provider is under."""
    english = english_sources_with_a_dutch_version()
    client.cookies["django_language"] = "nl"
    query = {"preset": "pretrain-70b", "eu_jurisdiction_only": "on"}
    page = client.get("/calculator/", query).content.decode()
    sources = assumption_sources(page)
    dutch = ("onderdeel van", "gevestigd", "is Frans", "Fins bedrijf")
    assert any(word in source for source in sources for word in dutch), sources
    assert not shown_in_english(sources, english), shown_in_english(sources, english)


@pytest.mark.parametrize("internal", [False, True])
def test_the_dutch_catalog_page_shows_sources_in_dutch(
    client: Client, seed_catalog: object, internal: bool
) -> None:
    from django.contrib.auth.models import Group, User

    if internal:  # staff and sales read every source with its remarks, in Dutch too
        user = User.objects.create_user("sanne", "sanne@distributor.example", "pw")
        user.groups.add(Group.objects.get_or_create(name="sales")[0])
        client.force_login(user)
    english = english_sources_with_a_dutch_version()
    client.cookies["django_language"] = "nl"
    text = page_text(client.get("/catalog/").content.decode())
    found = sorted(t for t in english if t in text)
    assert not found, found
    assert "Datasheet NVIDIA H100 Tensor Core GPU" in text
    assert "Onze prijslijst" in text or internal  # own list prices, as before
    # The English page shows the English sources.
    client.cookies["django_language"] = "en"
    assert "NVIDIA H100 Tensor Core GPU datasheet" in client.get("/catalog/").content.decode()


def test_a_dutch_price_history_shows_its_source_in_dutch(
    client: Client, seed_catalog: object
) -> None:
    client.cookies["django_language"] = "nl"
    page = page_text(client.get("/catalog/prices/cloud/aws-p5-48xlarge-od/").content.decode())
    assert "Prijslijst van AWS via openbare prijscatalogi" in page
    assert "AWS price list via public price catalogs" not in page


def test_a_dutch_proposal_analysis_shows_catalog_sources_in_dutch(seed_catalog: object) -> None:
    from quotes import pdf
    from quotes.services.analysis import tco_snapshot
    from tco.analysis.calculator import analyse_query

    english = english_sources_with_a_dutch_version()
    _form, outcome = analyse_query(QueryDict("preset=pretrain-70b"))
    snapshot = tco_snapshot(analysis=outcome.analysis, query="preset=pretrain-70b", language="nl")
    sources = [a["source"] for a in snapshot["assumptions"]]
    assert sources and not shown_in_english(sources, english), shown_in_english(sources, english)
    # What the proposal prints (the publication's name, market research for estimates).
    with translation.override("nl"):
        printed = [a["source"] for a in pdf._tco_context(snapshot)["assumptions"]]
    assert not shown_in_english(printed, english), shown_in_english(printed, english)
    dutch_names = {source_name(nl) for nl in Gpu.objects.values_list("source_nl", flat=True)}
    assert "Onze prijslijst" in printed and dutch_names & set(printed), printed


def test_a_dutch_lead_pdf_shows_catalog_sources_in_dutch(seed_catalog: object) -> None:
    english = english_sources_with_a_dutch_version()
    _snapshot, text = lead_analysis_text("preset=pretrain-70b", "nl", "Startup BV")
    found = sorted(t for t in english if t in text)
    assert not found, found
    dutch_names = {source_name(nl) for nl in Gpu.objects.values_list("source_nl", flat=True)}
    assert any(name in text for name in dutch_names)


@pytest.mark.parametrize("internal", [False, True])
def test_a_dutch_workbook_lists_its_sources_in_dutch(
    client: Client, seed_catalog: object, internal: bool
) -> None:
    import io

    from django.contrib.auth.models import Group, User
    from openpyxl import load_workbook

    if internal:  # the sales view: every source as it is, with its remark, in Dutch
        user = User.objects.create_user("sanne", "sanne@distributor.example", "pw")
        user.groups.add(Group.objects.get_or_create(name="sales")[0])
        client.force_login(user)
    english = english_sources_with_a_dutch_version()
    client.cookies["django_language"] = "nl"
    query = {"preset": "pretrain-7b", "server": "nvidia-dgx-h100"}
    content = client.get("/calculator/workbook.xlsx", query).content
    sheet = load_workbook(io.BytesIO(content)).worksheets[1]  # Invoer (the inputs)
    sources = {
        str(row[6]): str(row[3] or "") for row in sheet.iter_rows(min_row=2, values_only=True)
    }
    assert not shown_in_english(list(sources.values()), english)
    assert sources["servers"] == "Rekenmodel: dimensionering en vraag voor dit scenario"
    assert sources["electricity_price_per_kwh"].startswith("Schatting: elektriciteit voor")
    if internal:
        assert sources["server_price"].startswith("Schatting: een DGX H100 werd in 2023")
        assert sources["server_price"].endswith("(omgerekend naar de rapportagevaluta)")
    else:
        assert sources["server_price"] == "Onze prijslijst"
