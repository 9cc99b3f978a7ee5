"""One set of defaults: docs/methodology.md's table is the defaults module, and the code uses it."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from tco.engine import defaults
from tco.engine.compute import SCALING_ALPHA
from tco.engine.inputs import Interconnect, Workload, WorkloadKind

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _doc_table(name: str) -> str:
    text = (DOCS / name).read_text(encoding="utf-8")
    return text.split("<!-- defaults-table -->")[1].split("<!-- /defaults-table -->")[0].strip()


def test_methodology_table_is_the_defaults_module() -> None:
    assert _doc_table("methodology.md") == defaults.markdown_table()


def test_every_default_has_a_source_or_says_estimate_with_a_reason() -> None:
    for row in defaults.TABLE:
        assert row.source == defaults.ESTIMATE or re.fullmatch(
            r"\[S-[A-Z0-9-]+\](, \[S-[A-Z0-9-]+\])*", row.source
        ), row.name
        assert len(row.reason) > 20, row.name
        assert getattr(defaults, row.name) == row.value


def test_cited_sources_are_listed_in_sources_md() -> None:
    listed = set(re.findall(r"\*\*(S-[A-Z0-9-]+)\*\*", (DOCS / "sources.md").read_text()))
    cited: set[str] = set()
    for row in defaults.TABLE:
        cited |= set(re.findall(r"S-[A-Z0-9-]+", row.source + " " + row.reason))
    for doc in ("methodology.md", "calibration.md"):
        cited |= set(re.findall(r"\bS-[A-Z][A-Z0-9-]*", (DOCS / doc).read_text()))
    assert cited <= listed, cited - listed


def test_methodology_cites_no_file_outside_the_repository() -> None:
    text = (DOCS / "methodology.md").read_text(encoding="utf-8")
    assert "methods.md" not in text and "data-sources" not in text
    root = DOCS.parent
    for link in re.findall(r"\]\(([^)#:]+)\)", text):
        assert (DOCS / link).exists() or (root / link).exists(), link


def test_the_workload_and_sizing_use_the_constants() -> None:
    w = Workload(WorkloadKind.PRETRAIN, 7.0, tokens_billion=1.0)
    assert w.mfu == defaults.MFU and w.goodput == defaults.GOODPUT
    assert w.memory_headroom == defaults.MEMORY_HEADROOM
    assert w.framework_overhead_gb == defaults.FRAMEWORK_OVERHEAD_GB
    assert w.sequence_length == defaults.SEQUENCE_LENGTH
    assert w.global_batch_tokens == defaults.GLOBAL_BATCH_TOKENS
    assert w.lora_adapter_fraction == defaults.LORA_ADAPTER_FRACTION
    assert SCALING_ALPHA[Interconnect.INFINIBAND] == defaults.SCALING_ALPHA_INFINIBAND
    assert SCALING_ALPHA[Interconnect.ETHERNET] == defaults.SCALING_ALPHA_ETHERNET


def test_the_catalog_items_carry_the_same_cost_defaults() -> None:
    with (DOCS.parent / "catalog" / "data" / "items.csv").open(newline="") as handle:
        prices = {row["key"]: float(row["price"]) for row in csv.DictReader(handle)}
    assert prices["installation-per-server"] == defaults.INSTALLATION_PER_SERVER_USD
    assert prices["support-10pct"] / 100 == defaults.SUPPORT_PCT_PER_YEAR
    # The site build-out's unit costs (tco/engine/site.py) are the facility items'.
    assert prices["cdu-in-row-250kw"] == defaults.CDU_PRICE_USD
    assert prices["liquid-cooling-per-kw"] == defaults.LIQUID_COOLING_PER_KW_USD
    assert prices["power-per-kw"] == defaults.POWER_PER_KW_USD
