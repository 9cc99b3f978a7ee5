"""The Excel model recalculated by LibreOffice gives the engine's figures (within 0.01 %).

LibreOffice Calc (headless) opens the workbook, recalculates every formula and saves it
again; openpyxl reads the computed values back. Then an input is changed in the workbook
and the same input in the engine's cost model, and the two are compared again.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from tco.engine import evaluate
from tco.engine.options import compare_options
from tco.engine.ownership import buy_run_resell
from tco.presentation.wording import break_even_cell, cloud_label
from tco.report import Option, build_report

ROOT = Path(__file__).resolve().parents[2]
SOFFICE = shutil.which("soffice") or "/usr/bin/soffice"
# Recalculate OOXML files on load, always (LibreOffice's default is to trust cached values).
RECALC_ALWAYS = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry">\n'
    + "".join(
        f'<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="{mode}" '
        'oor:op="fuse"><value>0</value></prop></item>\n'
        for mode in ("OOXMLRecalcMode", "ODFRecalcMode")
    )
    + "</oor:items>\n"
)
TOLERANCE = 1e-4  # 0.01 %


def recalculate(xlsx: bytes) -> Any:
    """The workbook after LibreOffice recalculated it, as openpyxl values."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        profile = work / "profile"
        (profile / "user").mkdir(parents=True)
        (profile / "user" / "registrymodifications.xcu").write_text(RECALC_ALWAYS)
        source = work / "in" / "model.xlsx"
        source.parent.mkdir()
        source.write_bytes(xlsx)
        out = work / "out"
        subprocess.run(
            [
                SOFFICE,
                f"-env:UserInstallation=file://{profile}",
                "--headless",
                "--norestore",
                "--convert-to",
                "xlsx:Calc MS Excel 2007 XML",
                "--outdir",
                str(out),
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        return load_workbook(io.BytesIO((out / "model.xlsx").read_bytes()), data_only=True)


def close(actual: Any, expected: float | None, what: str) -> None:
    if expected is None:
        assert actual in (None, ""), f"{what}: workbook {actual!r}, engine none"
        return
    assert isinstance(actual, int | float), f"{what}: workbook {actual!r}, engine {expected}"
    scale = max(abs(expected), 1e-9)
    assert abs(actual - expected) / scale <= TOLERANCE, f"{what}: {actual} vs {expected}"


def summary_rows(book: Any) -> dict[str, tuple[Any, ...]]:
    sheet = book["Summary"]
    rows: dict[str, tuple[Any, ...]] = {}
    for row in sheet.iter_rows(min_row=6, max_col=6, values_only=True):
        if not row[0]:
            break
        rows[row[0]] = row
    return rows


def check_against(book: Any, onprem: Any, clouds: Any, resell: Any = None) -> int:
    rows = summary_rows(book)
    own = rows["Own (buy and keep)"]
    close(own[1], onprem.total_cost, "on-prem total")
    close(own[2], onprem.npv, "on-prem NPV")
    checked = 2
    if resell is not None:
        row = rows.pop("Buy, run and resell")
        close(row[1], resell.total_cost, "buy-run-resell total")
        close(row[2], resell.npv, "buy-run-resell NPV")
        checked += 2
    assert len(rows) == 1 + len(clouds)
    for option in clouds:
        row = rows[cloud_label(option.name)]  # the row names the offering for people
        close(row[1], option.total_cost, f"{option.name} total")
        close(row[2], option.npv, f"{option.name} NPV")
        close(row[3], option.payback_month, f"{option.name} payback month")
        close(row[4], option.break_even_month, f"{option.name} break-even month")
        u = option.break_even_utilization
        if u is not None and 0 < u < 1:
            close(row[5], u, f"{option.name} break-even utilization")
        else:
            # The page's word, not a utilization of 2,604 % (issue 31): "always" or "none".
            page = break_even_cell(
                # Only the fields the cell reads: a rented option's break-even.
                Option.model_construct(
                    **{
                        "kind": "cloud",
                        "break_even_runs_per_year": None,
                        "break_even_utilization": u,
                        "owning_wins_above": option.owning_wins_above,
                    }
                )
            )
            assert row[5] == page, (option.name, row[5], page, u)
            WORDS_CHECKED.append(page)
        checked += 5
    return checked


WORDS_CHECKED: list[str] = []


def set_input(xlsx: bytes, name: str, value: float) -> bytes:
    book = load_workbook(io.BytesIO(xlsx))
    defined = book.defined_names[name]
    ((sheet, cell),) = defined.destinations
    book[sheet][cell.replace("$", "")] = value
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


SCENARIOS = [
    # One server for four runs a year it cannot manage: renting is billed for all four (the
    # fleet sized to the work is the last case's).
    ("pretrain-7b-nl.json", {"servers": 1}),
    (
        # One-off run: a 1-year commitment bought whole, spot (interruption overhead), a
        # capacity block (minimum billed hours) and an A100 offering: other GPUs, so the
        # work and fleet ratios are not 1.
        "lora-70b-once.json",
        {
            "cloud_offerings": [
                "coreweave-h100-8x-od",
                "coreweave-h100-8x-spot",
                "gcp-a3-highgpu-8g-1y",
                "aws-p6-b300-48xlarge-cb",
                "lambda-a100-8x-od",
            ],
            "demand": {"tolerates_interruptions": True},
        },
    ),
    ("serve-70b-overrides.json", {"finance": {"lease": {"annual_rate": 0.07, "term_months": 72}}}),
    # Ten years on a 4-year service life: the fleet is bought again in months 48 and 96.
    ("pretrain-7b-nl.json", {"finance": {"horizon_months": 120, "service_life_months": 48}}),
]


@pytest.mark.parametrize(
    ("example", "changes"), SCENARIOS, ids=[f"{s[0]}-{i}" for i, s in enumerate(SCENARIOS)]
)
def test_workbook_recalculated_by_libreoffice_matches_engine(
    seed_catalog: object, example: str, changes: dict[str, Any]
) -> None:
    from tco.presentation.workbook import build_workbook, provenance_for, workbook_inputs
    from tco.scenario.resolve import build_scenario

    document = json.loads((ROOT / "docs" / "examples" / example).read_text())
    for key, value in changes.items():
        document[key] = {**document.get(key, {}), **value} if isinstance(value, dict) else value
    built = build_scenario(document)
    result = evaluate(built.scenario)
    xlsx = build_workbook(
        build_report(result), workbook_inputs(result), provenance_for(built, result)
    )

    book = recalculate(xlsx)
    WORDS_CHECKED.clear()
    assert check_against(book, result.onprem, result.cloud_options, result.resell) >= 2 + 5
    if example.startswith("lora"):  # the 1-year commitment: no utilization within 0-100 %
        assert WORDS_CHECKED
    if "service_life_months" in changes.get("finance", {}):  # the refreshes were compared
        hardware = result.onprem.cashflow["hardware"]
        assert hardware[48] > 0 and hardware[96] > 0 and hardware[47] == 0
    if example.startswith("lora"):
        assert result.resell is not None  # the one-off case checks buy-run-resell too
    if changes.get("servers") == 1:  # the runs exceed the fleet: the rental scaled up
        assert float(result.cost_model.rented_work_scale) > 1
    inputs = {row[6]: row for row in book["Inputs"].iter_rows(min_row=2, values_only=True)}
    assert inputs["server_price"][3] and inputs["server_price"][4] is not None  # source, date

    # The same change in the workbook and in the engine's cost model.
    model = result.cost_model
    changed = model.replace(
        electricity_price_per_kwh=float(model.electricity_price_per_kwh) * 1.7,
        discount_rate=0.11,
    )
    edited = set_input(xlsx, "electricity_price_per_kwh", float(changed.electricity_price_per_kwh))
    edited = set_input(edited, "discount_rate", 0.11)
    onprem, clouds = compare_options(changed)
    assert onprem.total_cost != result.onprem.total_cost
    resell = (
        buy_run_resell(changed, result.demand.run_hours, result.scenario.finance.resale_by_year)
        if result.resell is not None and result.demand.run_hours is not None
        else None
    )
    check_against(recalculate(edited), onprem, clouds, resell)


def test_workbook_has_names_formats_frozen_headers_and_a_chart(seed_catalog: object) -> None:
    from tco.presentation.workbook import build_workbook, provenance_for, workbook_inputs
    from tco.scenario.resolve import build_scenario

    document = json.loads((ROOT / "docs" / "examples" / "pretrain-7b-nl.json").read_text())
    built = build_scenario(document)
    result = evaluate(built.scenario)
    data = build_workbook(
        build_report(result), workbook_inputs(result), provenance_for(built, result)
    )
    book = load_workbook(io.BytesIO(data))
    assert {"Summary", "Inputs", "Model", "Cash flow"} <= set(book.sheetnames)
    for name in ("servers", "electricity_price_per_kwh", "onprem_npv", "cloud1_total"):
        assert name in book.defined_names
    assert book["Cash flow"].freeze_panes == "B3"
    with zipfile.ZipFile(io.BytesIO(data)) as package:  # the Summary's chart
        assert any(name.startswith("xl/charts/chart") for name in package.namelist())
    npv = book["Summary"]["C6"].value
    assert npv.startswith("=") and "NPV(month_rate," in npv
    assert book["Cash flow"]["E4"].value.startswith("=IF(")  # energy of month 1 is a formula
    assert book["Summary"]["B6"].number_format == "#,##0.00"


def test_text_from_outside_is_never_a_formula(seed_catalog: object) -> None:
    from catalog.models import CloudOffering
    from tco.presentation.workbook import build_workbook, provenance_for, workbook_inputs
    from tco.scenario.resolve import build_scenario

    attack = '=HYPERLINK("http://evil.example","x")'
    CloudOffering.objects.filter(key="aws-p5-48xlarge-od").update(source=attack)
    document = json.loads((ROOT / "docs" / "examples" / "pretrain-7b-nl.json").read_text())
    built = build_scenario(document)
    result = evaluate(built.scenario)
    xlsx = build_workbook(
        build_report(result), workbook_inputs(result), provenance_for(built, result), title=attack
    )
    book = load_workbook(io.BytesIO(xlsx))
    assert book["Summary"]["A1"].value == attack and book["Summary"]["A1"].data_type == "s"
    sources = [c for row in book["Inputs"].iter_rows() for c in row if c.value == attack]
    assert sources and all(c.data_type == "s" for c in sources)


# Words a Dutch reader writes as the English does.
SAME_IN_DUTCH = {
    "0/1",
    "FTE",
    "Hardware",
    "Horizon",
    "Input",
    "Lease",
    "Model",
    "PUE",
    "Software",
    "Support",
    "factor",
    "instances",
    "kW",
    "servers",
    "EUR",
    "EUR/kWh",
    "USD",
    "USD/kWh",
}


def test_the_dutch_workbook_is_dutch(seed_catalog: object) -> None:
    """Issue 31 item 5: sheet names, labels, units, headers and the verdict in the reader's
    language (the workbook was English-only, whatever the page's language)."""
    from django.http import QueryDict
    from django.utils import translation

    from tco.analysis.calculator import analyse_query
    from tco.presentation.workbook import build_workbook, provenance_for, workbook_inputs

    _form, outcome = analyse_query(QueryDict("preset=lora-70b"))
    assert outcome.analysis is not None
    built, result = outcome.analysis.built, outcome.analysis.result
    books = {}
    for language in ("en", "nl"):
        with translation.override(language):
            books[language] = load_workbook(
                io.BytesIO(
                    build_workbook(
                        build_report(result), workbook_inputs(result), provenance_for(built, result)
                    )
                )
            )
    en, nl = books["en"], books["nl"]
    assert en.sheetnames == ["Summary", "Inputs", "Model", "Cash flow"]
    assert nl.sheetnames == ["Samenvatting", "Invoer", "Model", "Kasstroom"]
    untranslated = []
    for en_sheet, nl_sheet, cells in (
        (
            "Inputs",
            "Invoer",
            [(r, c) for r in range(1, en["Inputs"].max_row + 1) for c in (1, 3, 6)],
        ),
        ("Model", "Model", [(r, c) for r in range(1, en["Model"].max_row + 1) for c in (1, 3)]),
        (
            "Cash flow",
            "Kasstroom",
            [(1, 1)] + [(2, c) for c in range(1, en["Cash flow"].max_column + 1)],
        ),
        (
            "Summary",
            "Samenvatting",
            [(1, 1), (2, 1), (2, 2), (3, 1), *((5, c) for c in range(1, 7)), (6, 1)],
        ),
    ):
        for r, c in cells:
            english = en[en_sheet].cell(row=r, column=c).value
            dutch = nl[nl_sheet].cell(row=r, column=c).value
            if (
                isinstance(english, str)
                and english
                and english not in SAME_IN_DUTCH
                and dutch == english
            ):
                untranslated.append((en_sheet, r, c, english))
    assert not untranslated, untranslated
    assert nl["Samenvatting"]["B2"].value.startswith(("Huur", "Koop", "Kopen"))
    # The break-even words are the page's: a formula's text in Dutch.
    formulas = " ".join(
        str(cell.value)
        for row in nl["Samenvatting"].iter_rows(min_row=7, max_col=6)
        for cell in row
    )
    assert '"geen"' in formulas or '"altijd"' in formulas


def test_workbook_lead_time_cell_moves_buyings_total(seed_catalog: object) -> None:
    """Needed in 30 days, the H100 server ships in 44 weeks (catalog): buying's total in
    the workbook carries the bridge, as the engine's ranking does; a lead time of 0 typed
    into the workbook leaves only installation (7 days), nothing late, the bare total."""
    from tco.engine.scenario import OWN_NAME
    from tco.presentation.workbook import build_workbook, provenance_for, workbook_inputs
    from tco.scenario.resolve import build_scenario

    document = json.loads((ROOT / "docs" / "examples" / "pretrain-7b-nl.json").read_text())
    document["capacity"] = {"as_of": "2026-12-03", "needed_in_days": 30}
    built = build_scenario(document)
    result = evaluate(built.scenario)
    assert result.capacity is not None
    timing = result.capacity.timing(OWN_NAME)
    assert timing is not None and timing.bridge is not None
    ranked = next(o for o in result.verdict.options if o.name == OWN_NAME)
    xlsx = build_workbook(
        build_report(result), workbook_inputs(result), provenance_for(built, result)
    )

    own = summary_rows(recalculate(xlsx))["Own (buy and keep)"]
    close(own[1], ranked.total_cost, "on-prem total with the bridge")
    close(own[2], ranked.npv, "on-prem NPV with the bridge")
    assert ranked.total_cost == pytest.approx(result.onprem.total_cost + timing.bridge.cost)

    in_stock = summary_rows(recalculate(set_input(xlsx, "lead_time_weeks", 0)))
    close(in_stock["Own (buy and keep)"][1], result.onprem.total_cost, "on-prem total, no lead")


def test_workbook_bridge_on_a_reserved_term_pays_it_whole(seed_catalog: object) -> None:
    """With on demand taken to hold 8 GPUs, the H100 fleet's bridge (servers ready on day
    44 × 7 + 7 = 315, needed on day 30: 285 days) is booked on GCP's 1-year term, which it
    uses 285 of 365 days (more than half) and pays whole: 8,760 h per instance. The
    workbook's bridge cells agree with the engine; a lead time of 30 weeks typed in
    (ready on day 217, 187 days held) still pays the 365 days."""
    from tco.engine.scenario import OWN_NAME
    from tco.presentation.workbook import build_workbook, provenance_for, workbook_inputs
    from tco.scenario.resolve import build_scenario

    document = json.loads((ROOT / "docs" / "examples" / "pretrain-7b-nl.json").read_text())
    document["cloud_offerings"] = ["coreweave-h100-8x-od", "gcp-a3-highgpu-8g-1y"]
    document["capacity"] = {"as_of": "2026-12-03", "needed_in_days": 30, "on_demand_bridge_gpus": 8}
    built = build_scenario(document)
    result = evaluate(built.scenario)
    assert result.capacity is not None
    timing = result.capacity.timing(OWN_NAME)
    assert timing is not None and timing.bridge is not None
    assert (timing.bridge.code, timing.bridge.days, timing.bridge.hours) == ("reserved", 285, 8760)
    ranked = next(o for o in result.verdict.options if o.name == OWN_NAME)
    xlsx = build_workbook(
        build_report(result), workbook_inputs(result), provenance_for(built, result)
    )

    own = summary_rows(recalculate(xlsx))["Own (buy and keep)"]
    close(own[1], ranked.total_cost, "on-prem total with the 1-year bridge")
    shorter = summary_rows(recalculate(set_input(xlsx, "lead_time_weeks", 30)))
    close(shorter["Own (buy and keep)"][1], ranked.total_cost, "the term is paid whole")


# The buyer's 30-day deadline with B200 servers in 10 weeks: 17 × 8 B200 on demand bridge
# 47 days (ready on day 77: 10 × 7 + 7), 136 GPUs (above the 64 taken to be free on demand).
BRIDGED = (
    "preset=pretrain-70b&server=smc-822gs-nbrt-b200&site=onprem-server-room&site_cooling=air"
    "&rack_power_limit=20&needed_in_days=30&if_late=bridge&lead_time_weeks=10"
)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("On-demand capacity of 136 GPUs is not guaranteed", "cannot take", "€884,741")),
        ("nl", ("On-demandcapaciteit van 136 GPU's is niet gegarandeerd", "niet aan", "€ 884.741")),
    ],
)
def test_the_summary_sheet_carries_the_verdicts_site_bridge_and_risk(
    client: Any, seed_catalog: object, language: str, words: tuple[str, str, str]
) -> None:
    # The page's verdict says where the servers go, the bridge and its risk; the workbook
    # carries the same sentences (17 × 1,128 h × €46.14 an instance-hour = €884,741).
    client.get(f"/language/?language={language}&next=/")
    sheet = load_workbook(
        io.BytesIO(client.get(f"/calculator/workbook.xlsx?{BRIDGED}").content)
    ).worksheets[0]
    notes = str(sheet["B4"].value)
    risk, site, cost = words
    assert risk in notes and site in notes
    assert "17 × Lambda 8x B200" in notes and cost in notes.replace("\u00a0", " ")
