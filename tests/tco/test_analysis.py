"""The front door (tco.analysis.analyse): one document in, the analysis out, or one error type
that names the field at fault, whoever found the problem (schema, catalog, engine, floats)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tco.analysis import OVERFLOW, SCENARIO, AnalysisError, analyse, parse

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "pretrain-7b-nl.json"

pytestmark = pytest.mark.django_db


def example(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(EXAMPLE.read_text())
    document.update(changes)
    return document


def refusal(document: dict[str, Any], **options: Any) -> AnalysisError:
    with pytest.raises(AnalysisError) as caught:
        analyse(document, **options)
    return caught.value


def test_a_document_is_analysed_and_reported(seed_catalog: object) -> None:
    analysis = analyse(example())
    # The report is built from this very result: the same first option's total.
    assert analysis.report.options[0].total_cost == pytest.approx(analysis.result.onprem.total_cost)
    assert analysis.built.server_model.key == example()["server"]


def test_the_schema_names_the_field(seed_catalog: object) -> None:
    document = example()
    document["workload"]["params_billion"] = "seven"
    error = refusal(document)
    assert (error.code, error.path) == (SCENARIO, "workload.params_billion")
    assert str(error) == "workload.params_billion: expected a number, got 'seven'"
    assert error.errors == [("workload.params_billion", "expected a number, got 'seven'")]
    with pytest.raises(AnalysisError) as parsed:
        parse(document)
    assert parsed.value.path == "workload.params_billion"


def test_the_catalog_names_the_field(seed_catalog: object) -> None:
    error = refusal(example(server="smc-999"))
    assert (error.code, error.path) == (SCENARIO, "server")
    assert error.message == "unknown server model 'smc-999'"


def test_the_engine_refusal_keeps_its_code(seed_catalog: object) -> None:
    # 1.9 T parameters on 90 T tokens in half a day: no fleet within the engine's limits.
    document = example()
    document["workload"].update(params_billion=1900, tokens_billion=90000, deadline_days=0.5)
    error = refusal(document)
    assert error.code in ("deadline_infeasible", "does_not_fit")
    assert error.path is None and str(error) == error.message != ""


def test_an_overflowing_total_is_null_or_refused_naming_the_output(seed_catalog: object) -> None:
    # A server at 1e308 a piece: the fleet's purchase (1e308 × servers) is beyond a float,
    # and the total (purchase less resale: inf - inf) is no number.
    document = example(server={"key": example()["server"], "list_price": 1e308})
    analysis = analyse(document)
    assert not math.isfinite(analysis.result.onprem.total_cost)  # inf - inf: NaN
    owned = analysis.result.onprem.name
    shown = [o for o in analysis.report.to_json()["options"] if o["name"] == owned]
    assert [o["total_cost"] for o in shown] == [None]  # the report shows it as null
    error = refusal(document, finite=True)
    assert (error.code, error.path) == (OVERFLOW, "options[0].total_cost")
    assert error.message == "the result is too large to compute; check the size of the inputs"


def test_the_error_examples_in_the_module_hold() -> None:
    # tco/analysis/__init__.py is outside the doctest paths (pyproject.toml): its examples run here.
    import doctest

    import tco.analysis

    outcome = doctest.testmod(tco.analysis)
    assert outcome.attempted >= 3 and outcome.failed == 0
