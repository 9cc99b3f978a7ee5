"""What a person reads holds no raw keys, codes or plural placeholders.

Issue 43 item 4: the workbook named offerings "AWS p5.48xlarge (on_demand)", line texts read
"switch ports in 2 tier(s)" / "in 2 laag/lagen". The scan reads every preset's calculator
page in both languages (Django's test client, no browser) and the workbook summary
sheet of a training and a serving preset, and looks for `snake_case` keys and "(s)" /
"laag/lagen" style placeholders.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.conf import settings
from django.http import QueryDict
from django.test import Client
from django.utils import translation
from openpyxl import load_workbook

from quotes.services.revisions import sized_networking_description
from tco.analysis.calculator import analyse_query
from tco.inputs.presets import PRESETS
from tco.presentation.workbook import analysis_workbook
from tco.report.models import OwningExtras

from .test_dutch_pages import visible_text

# A key as code writes it: lower-case words joined by underscores ("on_demand", "committed_3y").
RAW_KEY = re.compile(r"(?<![\w/.@-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.@-])")
# A plural left to the reader: "tier(s)", "server(s)", "laag/lagen", "server/servers".
PLACEHOLDER = re.compile(r"\w\((?:s|en|e)\)|\b(\w+)/\1(?:en|s|n)\b|laag/lagen")


def problems(text: str) -> list[str]:
    return RAW_KEY.findall(text) + [m.group(0) for m in PLACEHOLDER.finditer(text)]


def test_the_scan_finds_what_the_audit_saw() -> None:
    """The patterns catch the audit's examples and leave ordinary prose alone."""
    assert problems("AWS p5.48xlarge (on_demand)") == ["on_demand"]
    assert problems("switch ports in 2 tier(s)") == ["r(s)"]
    assert problems("switchpoorten in 2 laag/lagen") == ["laag/lagen"]
    assert problems("AWS p5.48xlarge, on demand; 3-year commitment; kW/rack") == []


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "nl"])
def test_no_raw_keys_on_any_presets_calculator_page(
    client: Client, seed_catalog: object, language: str
) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    found = {}
    for preset in PRESETS:
        page = client.get(f"/calculator/?preset={preset.slug}")
        assert page.status_code == 200
        words = problems(visible_text(page.content.decode()))
        if words:
            found[preset.slug] = sorted(set(words))
    assert not found, found


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "nl"])
def test_no_raw_keys_in_the_workbook_summary(seed_catalog: object, language: str) -> None:
    """Two presets (training and serving, with on-demand and committed cloud terms): a
    workbook takes about a second to build, and every preset's names come from one place."""
    found = {}
    for slug in ("pretrain-70b", "serve-70b"):
        _form, outcome = analyse_query(QueryDict(f"preset={slug}"))
        assert outcome.analysis is not None
        with translation.override(language):
            book = load_workbook(io.BytesIO(analysis_workbook(outcome.analysis)))
        summary = book.worksheets[0]
        texts = [
            cell.value
            for row in summary.iter_rows()
            for cell in row
            if isinstance(cell.value, str) and not cell.value.startswith("=")
        ]
        words = problems(" | ".join(texts))
        if words:
            found[slug] = sorted(set(words))
    assert not found, found


@pytest.mark.parametrize(
    ("language", "tiers", "expected"),
    [
        ("en", 1, "switch ports in 1 tier, with"),
        ("en", 2, "switch ports in 2 tiers, with"),
        ("nl", 1, "switchpoorten in 1 laag, met"),
        ("nl", 2, "switchpoorten in 2 lagen, met"),
    ],
)
def test_the_fabric_line_counts_its_tiers(language: str, tiers: int, expected: str) -> None:
    """A quote's networking line: one tier, two tiers, never "tier(s)" or "laag/lagen"."""
    extras = OwningExtras(
        site="data_centre",
        networking="fabric",
        fabric_tiers=tiers,
        fabric_ports=64,
        networking_per_server=0.0,
        networking_given=False,
        installation_per_server=0.0,
        installation_given=False,
        staff_fte=0.0,
        staff_given=False,
        staff_cost_per_year=None,
    )
    with translation.override(language):
        text = sized_networking_description(extras)
    assert expected in text
    assert problems(text) == []


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            "Owning is cheaper in 83\u00a0% of 10,000 plausible futures; in 8 of 10 it ranges "
            "from €42,494 dearer to €632,442 cheaper.",
        ),
        (
            "nl",
            "Kopen is goedkoper in 83\u00a0% van 10.000 plausibele toekomsten; in 8 van de 10 "
            "is kopen tussen €\u00a042.494 duurder en €\u00a0632.442 goedkoper.",
        ),
    ],
)
def test_a_negative_saving_is_worded_as_a_cost(language: str, expected: str) -> None:
    """Issue 43: "the saving lies between −€ 42.494 and € 632.442" read as a saving of a
    negative amount. The 10th percentile of owning's saving is −42,494: owning costs
    €42,494 more in that future; the 90th, +632,442: €632,442 less."""
    from tco.presentation.wording import confidence_sentence
    from tco.report import Report
    from tco.report.models import Confidence

    # Only the fields the sentence reads.
    fields: dict[str, Any] = {"favours": "own", "probability": 0.83, "draws": 10_000}
    fields |= {"saving_p10": -42_494.0, "saving_p90": 632_442.0}
    confidence = Confidence.model_construct(**fields)
    only: dict[str, Any] = {"confidence": confidence, "currency": "EUR"}
    report = Report.model_construct(**only)
    with translation.override(language):
        assert confidence_sentence(report).replace("\u202f", "\u00a0") == expected


@pytest.mark.django_db
def test_the_terms_help_reads_as_a_sentence(client: Client, seed_catalog: object) -> None:
    """Issue 43: the "Your terms" help read "Requirements no price overrides: …"."""
    text = visible_text(client.get("/calculator/").content.decode())
    assert "Requirements no price overrides" not in text
    assert "Requirements that count above price: an option that does not meet one" in text
