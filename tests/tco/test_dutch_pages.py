"""Dutch pages speak Dutch: no sentence of the English catalogue leaks into them.

Two checks: every message extracted from the source (as `makemessages` would) has a Dutch
translation, and rendering the pages in Dutch looks up no message the Dutch catalogue
lacks (every preset, a set of error cases, the control-character refusal, the staff import
pages).
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.template import engines
from django.template.backends.jinja2 import Jinja2
from django.test import Client, override_settings
from django.utils.translation.trans_real import (
    DjangoTranslation,
    TranslationCatalog,
    translation,
)
from jinja2.ext import extract_from_ast

from tco.inputs.presets import PRESETS

pytestmark = pytest.mark.django_db

PO = Path(settings.BASE_DIR) / "locale" / "nl" / "LC_MESSAGES" / "django.po"


def english_fragments() -> set[str]:
    """Literal pieces (≥ 18 characters) of every English message that has a Dutch translation."""
    text = PO.read_text(encoding="utf-8")
    fragments: set[str] = set()
    for block in text.split("\n\n"):
        msgid = "".join(re.findall(r'^(?:msgid|")\s*"?(.*?)"$', block.split("msgstr")[0], re.M))
        msgstr = (
            "".join(re.findall(r'"(.*)"', block.split("msgstr", 1)[-1]))
            if "msgstr" in block
            else ""
        )
        if not msgid or not msgstr or msgid == msgstr or "#~" in block:
            continue
        for piece in re.split(r"%\(\w+\)[sd]|\{\w+\}|%[sd]", msgid):
            piece = piece.replace('\\"', '"').strip(" .,:;()")
            if len(piece) >= 18:
                fragments.add(piece)
    return fragments


def visible_text(page: str) -> str:
    page = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    # Source citations quote their source as published (catalog data, not interface text).
    page = re.sub(r'<table class="assumptions">.*?</table>', " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.fixture
def dutch(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
    return client


def _catalog(language: DjangoTranslation) -> TranslationCatalog:
    """A loaded language's messages: the test reads what gettext would find."""
    # django-stubs do not declare DjangoTranslation's catalogue (a gettext attribute).
    return language._catalog  # type: ignore[attr-defined, no-any-return]


@pytest.fixture
def untranslated(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every message looked up in Dutch that the Dutch catalogue (ours and Django's) lacks.

    A message missing from the .po, or there with an empty or fuzzy translation (neither
    is compiled), is shown in English: the lookup falls through to the English text.
    Looking up text that is Dutch already is no miss (Django's {% get_available_languages %}
    translates the language names of settings.LANGUAGES a second time).
    """
    missing: list[str] = []
    gettext, ngettext = DjangoTranslation.gettext, DjangoTranslation.ngettext
    dutch_texts = {text for _key, text in _catalog(translation("nl")).items()}

    def recording_gettext(self: DjangoTranslation, message: str) -> str:
        if self.language() == "nl" and message not in _catalog(self) and message not in dutch_texts:
            missing.append(message.replace("\x04", " | "))  # msgctxt | msgid
        return gettext(self, message)

    def recording_ngettext(self: DjangoTranslation, singular: str, plural: str, n: int) -> str:
        if self.language() == "nl":
            try:
                _catalog(self).plural(singular, n)
            except KeyError:
                missing.append(singular)
        return ngettext(self, singular, plural, n)

    monkeypatch.setattr(DjangoTranslation, "gettext", recording_gettext)
    monkeypatch.setattr(DjangoTranslation, "ngettext", recording_ngettext)
    yield missing


def assert_po_translates(pot: Path) -> None:
    """msgcmp: every message of the catalogue ``pot`` has a Dutch translation in the .po
    (none lacking, untranslated or fuzzy)."""
    result = subprocess.run(
        ["msgcmp", "--no-fuzzy-matching", str(PO), str(pot)],
        capture_output=True,
        text=True,
        check=False,
    )
    problems = [line for line in result.stderr.splitlines() if "warning:" not in line]
    assert result.returncode == 0, "\n".join(problems)


# Trees that hold no interface text of ours (makemessages would read tests and the venv).
NOT_SOURCE = (".*", "static*", "media", "locale", "tests", "docs", "__pycache__", "*.sqlite3")


def test_every_message_in_the_source_has_a_dutch_translation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The English catalogue extracted from a copy of the source, compared with the .po.

    A copy, so that makemessages cannot touch locale/ (it is appended to by hand: see the
    .po's merge driver in .gitattributes). msgcmp reports each extracted message that the
    .po lacks or has untranslated or fuzzy.
    """
    source = tmp_path / "source"
    shutil.copytree(settings.BASE_DIR, source, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    (source / "locale").mkdir()
    monkeypatch.chdir(source)
    with override_settings(LOCALE_PATHS=[]):
        call_command("makemessages", locale=["nl"], keep_pot=True, verbosity=0)
    pot = source / "locale" / "django.pot"
    assert pot.read_text(encoding="utf-8").count("\nmsgid ") > 500  # the extraction did run
    assert_po_translates(pot)


def _po_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def test_every_message_of_the_jinja_templates_has_a_dutch_translation(tmp_path: Path) -> None:
    """makemessages reads Django templates only: the messages of templates/jinja2 are
    extracted with Jinja's own extractor into a catalogue that msgcmp compares with the .po."""
    jinja = engines["jinja2"]
    assert isinstance(jinja, Jinja2)
    env = jinja.env
    entries: dict[str, str] = {}
    for path in sorted((Path(settings.BASE_DIR) / "templates" / "jinja2").rglob("*.jinja")):
        # What the i18n extension's env.extract_translations does, through the public API.
        found = extract_from_ast(env.parse(path.read_text("utf-8")))
        for _line, _function, message in found:
            # A message with variables comes as a tuple: (msgid, None…) or, plural,
            # (singular, plural, None…).
            strings = [message] if isinstance(message, str) else [m for m in message or () if m]
            if len(strings) == 1:
                entries[strings[0]] = f'msgid {_po_string(strings[0])}\nmsgstr ""\n'
            else:
                singular, plural = strings
                entries[singular] = (
                    f"msgid {_po_string(singular)}\nmsgid_plural {_po_string(plural)}\n"
                    'msgstr[0] ""\nmsgstr[1] ""\n'
                )
    assert len(entries) > 50  # the results template was read
    pot = tmp_path / "jinja.pot"
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    pot.write_text("\n".join([header, *entries.values()]), encoding="utf-8")
    assert_po_translates(pot)


def test_the_fragments_cover_the_verdict_and_plan_sentences() -> None:
    fragments = english_fragments()
    assert "cheaper than owning" in " ".join(fragments)
    assert any("pipeline stages across servers" in f for f in fragments)


@pytest.mark.parametrize("preset", [p.slug for p in PRESETS])
def test_every_preset_is_dutch_throughout(
    dutch: Client, seed_catalog: object, untranslated: list[str], preset: str
) -> None:
    page = visible_text(dutch.get("/calculator/", {"preset": preset}).content.decode())
    assert not untranslated, untranslated
    assert "Kopen" in page or "Huur" in page
    leaked = sorted(f for f in english_fragments() if f in page)
    assert not leaked, leaked
    for english in ("Buy and keep", "cheaper than owning", "runs a year", "The plan "):
        assert english not in page, english


def test_an_idle_rack_and_the_smaller_server_are_dutch(
    dutch: Client, seed_catalog: object, untranslated: list[str]
) -> None:
    """An 8B model served from a GB300 NVL72 (issue 40): the warning and the verdict's
    smaller server, in Dutch."""
    query = {"preset": "customer-service", "params_billion": "8", "server": "nvidia-gb300-nvl72"}
    page = visible_text(dutch.get("/calculator/", query).content.decode())
    assert not untranslated, untranslated
    assert "zelfs op het drukste moment" in page and "een kleiner systeem doet dit werk" in page
    leaked = sorted(f for f in english_fragments() if f in page)
    assert not leaked, leaked
    for english in ("stand idle", "a smaller system", "to own", "GPUs)"):
        assert english not in page, english


@pytest.mark.parametrize(
    "params",
    [
        {"preset": "lora-70b", "params_billion": "lots"},
        {"preset": "serve-70b", "demand_pattern": "one_off"},
        {"preset": "pretrain-7b", "tokens_billion": "1000000", "deadline_days": "0.5"},
        {"preset": "finetune-8b", "demand_pattern": "recurring", "runs_per_year": ""},
    ],
)
def test_error_cases_are_dutch(
    dutch: Client, seed_catalog: object, untranslated: list[str], params: dict[str, str]
) -> None:
    page = visible_text(dutch.get("/calculator/", params).content.decode())
    assert not untranslated, untranslated
    leaked = sorted(f for f in english_fragments() if f in page)
    assert not leaked, leaked


@pytest.mark.parametrize(
    ("request_args", "dutch_message"),
    [
        (("get", "/catalog/prices/cloud/aws%00/"), "het adres bevat"),
        (("get", "/calculator/?gpu%00=h100"), "de queryparameter “gpu\\x00” bevat"),
        (("post", "/quotes/analysis-pdf/", {"name": "Ann\x00"}), "het formulierveld “name” bevat"),
        (
            # Django's parser drops control characters from the name itself, not the field's.
            ("post", "/catalog/import/", {"file\x01": SimpleUploadedFile("p.csv", b"key\n")}),
            "de naam van het geüploade bestand bevat",
        ),
    ],
    ids=["address", "query", "form-field", "file-name"],
)
def test_control_character_refusals_are_dutch(
    dutch: Client, untranslated: list[str], request_args: tuple[Any, ...], dutch_message: str
) -> None:
    method, *args = request_args
    response = getattr(dutch, method)(*args)
    assert response.status_code == 400
    assert f"Het verzoek is geweigerd: {dutch_message} een stuurteken." in response.content.decode()
    assert not untranslated, untranslated


def test_the_import_pages_are_dutch(
    admin_client: Client, seed_catalog: object, untranslated: list[str]
) -> None:
    """The list, a refused file and a preview, both with the decimal-comma note.

    The interface text only: the loader's notes and row-error details are English text
    that is not in the catalogue (catalog/loader.py), so they are not checked here.
    """
    from tests.catalog.price_files import exported_rows
    from tests.catalog.test_export_safety import _semicolon_file as semicolon_file

    admin_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
    rows = exported_rows("cloud")
    price = rows[0].index("price_per_hour")
    for row in rows[1:]:
        row[price] = row[price].replace(".", ",")
    good = semicolon_file(rows)
    rows[2][price] = "1.234,5"
    bad = semicolon_file(rows)

    pages = [admin_client.get("/catalog/import/")]
    for data in (bad, good):
        upload = SimpleUploadedFile("nl.csv", data, content_type="text/csv")
        pages.append(
            admin_client.post("/catalog/import/", {"kind": "cloud", "file": upload}, follow=True)
        )
    assert [page.status_code for page in pages] == [200, 400, 200]  # the bad file refused
    assert "Prijslijst" in pages[0].content.decode() or "prijslijst" in pages[0].content.decode()
    for page in pages[1:]:
        assert "Let op:" in visible_text(page.content.decode())
    assert not untranslated, untranslated


@pytest.mark.parametrize(("language", "pue"), [("en", "1.58"), ("nl", "1,58")])
def test_the_sites_figures_in_empty_fields_are_written_as_the_reader_writes_them(
    client: Client, seed_catalog: object, language: str, pue: str
) -> None:
    """Issue 43: the Dutch page showed the on-premises server room's PUE as "1.58" in the
    empty PUE field. The seed catalog's "On-premises server room (NL)" has PUE 1.58 and
    €0.18 a kWh: "1,58" and "0,18" on a Dutch page."""
    page = client.get(
        "/calculator/?preset=pretrain-7b&site=onprem-server-room", HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    field = re.search(r'<input[^>]*name="pue"[^>]*>', page)
    assert field and f'placeholder="{pue}"' in field.group(0)
    price = re.search(r'<input[^>]*name="electricity_price"[^>]*>', page)
    assert price and f'placeholder="0{pue[1]}18"' in price.group(0)
