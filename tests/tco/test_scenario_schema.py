"""The scenario document's schema (tco/scenario): what it accepts, what it refuses and how
it says so, that it agrees with the engine, and that docs/scenario.md publishes it."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from pathlib import Path
from typing import Any, get_args

import annotated_types
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tco import engine
from tco.engine.units import SUPPORTED_CURRENCIES
from tco.scenario import ScenarioDocument, ScenarioError, parse_document, schema
from tco.scenario.publish import SCHEMA_BEGIN, json_schema, published_schema, schema_section

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs/examples").glob("*.json"))
BASE = json.loads((ROOT / "docs/examples/pretrain-7b-nl.json").read_text())
SERVE = json.loads((ROOT / "docs/examples/serve-customer-service.json").read_text())


def _refused(document: Any) -> str:
    with pytest.raises(ScenarioError) as caught:
        parse_document(document)
    return str(caught.value)


def _changed(change: Any, document: dict[str, Any] | None = None) -> dict[str, Any]:
    changed = copy.deepcopy(BASE if document is None else document)
    change(changed)
    return changed


# --- what it accepts --------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_is_a_valid_document(path: Path) -> None:
    document = parse_document(json.loads(path.read_text()))
    # Its JSON form reads back as the same document (what quotes store and read again).
    again = parse_document(json.loads(json.dumps(document.model_dump(mode="json"))))
    assert again == document
    sparse = document.model_dump(mode="json", exclude_unset=True)
    assert parse_document(sparse) == document


def test_a_catalog_key_is_the_object_with_only_that_key() -> None:
    by_key = parse_document(BASE)
    as_object = parse_document({**BASE, "server": {"key": BASE["server"]}})
    assert by_key == as_object and by_key.server.overrides() == {}


def test_whole_floats_are_whole_numbers_and_integers_numbers() -> None:
    document = parse_document(_changed(lambda d: d["finance"].update(horizon_months=36.0)))
    assert document.finance.horizon_months == 36 and isinstance(
        document.finance.horizon_months, int
    )
    assert isinstance(parse_document(BASE).workload.params_billion, float)


def test_an_override_left_null_is_the_catalogs_value() -> None:
    site = parse_document({**BASE, "site": {"key": "nl-colo-amsterdam", "pue": None}}).site
    assert site.overrides() == {}


def test_the_gpu_of_a_server_takes_three_forms() -> None:
    def gpu(value: Any) -> Any:
        return parse_document({**BASE, "server": {"key": "x", "gpu": value}}).server.gpu

    assert isinstance(gpu("a100-80gb"), schema.CatalogGpu)
    catalog = gpu({"key": "a100-80gb", "memory_gb": 40})
    assert isinstance(catalog, schema.CatalogGpu) and catalog.overrides() == {"memory_gb": 40}
    own = gpu(
        {
            "name": "X1",
            "memory_gb": 96,
            "memory_bandwidth_tbps": 4,
            "bf16_tflops": 800,
            "fp8_tflops": None,
            "fp4_tflops": None,
            "tdp_w": 700,
        }
    )
    assert isinstance(own, schema.OwnGpu) and own.to_engine("server.gpu").fp8_tflops is None


# --- what it refuses, and how it says so -------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(colour="red"), "colour: unknown field"),
        (lambda d: d["workload"].update(param_billion=7), "workload.param_billion: unknown field"),
        (lambda d: d.pop("site"), "site: is required"),
        (
            lambda d: d["workload"].update(params_billion="seven"),
            "workload.params_billion: expected a number, got 'seven'",
        ),
        (
            lambda d: d["workload"].update(params_billion=True),
            "workload.params_billion: expected a number, got True",
        ),
        (lambda d: d["workload"].update(params_billion=None), "workload.params_billion: may not"),
        (
            lambda d: d["workload"].update(params_billion=-7),
            "workload.params_billion: must be greater than 0, got -7",
        ),
        (
            lambda d: d["workload"].update(tokens_billion=10**400),
            "workload.tokens_billion: the number is too large",
        ),
        (
            lambda d: d["workload"].update(kind="pretraining"),
            "workload.kind: must be one of pretrain, full_finetune, lora, qlora, inference",
        ),
        (
            lambda d: d["finance"].update(horizon_months=36.5),
            "finance.horizon_months: expected a whole number, got 36.5",
        ),
        (
            lambda d: d["finance"].update(horizon_months=6),
            "finance.horizon_months: must be at least 12, got 6",
        ),
        (
            lambda d: d["finance"].update(support_pct_per_year=7.5),
            "finance.support_pct_per_year: 7.5 looks like a percentage; scenario files take "
            "fractions: write 0.075 for 7.5 %",
        ),
        (
            lambda d: d["finance"].update(lease={"annual_rate": 7, "term_months": 36}),
            "finance.lease.annual_rate: 7 looks like a percentage",
        ),
        (
            lambda d: d["finance"].update(reporting_currency="usd"),
            "finance.reporting_currency: must be one of USD, EUR, GBP",
        ),
        (lambda d: d.update(finance=None), "finance: may not be null"),
        (lambda d: d.update(finance=[]), "finance: expected an object, got []"),
        (lambda d: d.update(server=5), 'server: expected a catalog key or an object with a "key"'),
        (lambda d: d.update(server={"list_price": 5}), "server.key: is required"),
        (
            lambda d: d.update(server={"key": "x", "gpu": {"key": "l40s", "memory_gb": -1}}),
            "server.gpu.memory_gb: must be greater than 0, got -1",
        ),
        (
            lambda d: d.update(server={"key": "x", "gpu": {"name": "X", "memory_gb": 80}}),
            "server.gpu.memory_bandwidth_tbps: is required",
        ),
        (
            lambda d: d.update(site={"key": "nl-colo-amsterdam", "pue": 0.5}),
            "site.pue: must be at least 1, got 0.5",
        ),
        (
            lambda d: d.update(cloud_offerings=[]),
            "cloud_offerings: expected a list of one or more catalog keys",
        ),
        (
            lambda d: d.update(cloud_offerings=[{"key": "aws-p5-48xlarge-od", "term": "1y"}]),
            "cloud_offerings[0].term: must be one of on_demand, committed_1y, committed_3y",
        ),
        (lambda d: d.update(servers=True), "servers: expected a whole number, got True"),
        (lambda d: d.update(as_of="yesterday"), "as_of: expected a date in YYYY-MM-DD form"),
        (lambda d: d.update(as_of=20240101), "as_of: expected a date in YYYY-MM-DD form"),
        (
            lambda d: d.update(uncertainty={"electricity": [1, 2, 3]}),
            "uncertainty.electricity: expected 2 values, got 3",
        ),
        (
            lambda d: d.update(uncertainty={"electricity": [1, 20]}),
            "uncertainty.electricity[1]: must be at most 10, got 20",
        ),
        (
            lambda d: d.update(demand={"monthly_profile": [1, -2]}),
            "demand.monthly_profile[1]: must be at least 0, got -2",
        ),
        (
            lambda d: d.update(constraints={"eu_data_only": "yes"}),
            "constraints.eu_data_only: expected true or false, got 'yes'",
        ),
        (
            lambda d: d.update(constraints={"preferred_providers": "AWS"}),
            "constraints.preferred_providers: expected a list, got 'AWS'",
        ),
        (
            lambda d: d["finance"].update(fixed_monthly=[{"label": "", "amount": 1}]),
            "finance.fixed_monthly[0].label: may not be empty",
        ),
        (lambda d: d.update(name=5), "name: expected text, got 5"),
        (lambda d: d.update(name="x" * 201), "name: is longer than 200 characters"),
        (lambda d: d.update(name="a\r\nb"), "name: contains control characters"),
        (
            lambda d: d.update(cloud_offerings=[{"key": "aws-p5-48xlarge-od", "provider": "=1"}]),
            "cloud_offerings[0].provider: may not begin with =, +, - or @",
        ),
        (
            lambda d: d.update(
                cloud_offerings=[
                    {"key": "aws-p5-48xlarge-od", "price_per_hour": i + 1} for i in range(51)
                ]
            ),
            "cloud_offerings: at most 50 different offerings (a list had more)",
        ),
    ],
)
def test_a_bad_document_names_the_path(change: Any, message: str) -> None:
    assert _refused(_changed(change)).startswith(message)


@pytest.mark.parametrize("value", [[], "text", None, 3])
def test_a_document_is_a_json_object(value: Any) -> None:
    assert _refused(value) == "scenario: expected a JSON object"


def test_repeated_offerings_count_once() -> None:
    document = parse_document({**BASE, "cloud_offerings": BASE["cloud_offerings"] * 500})
    assert len(document.cloud_offerings) == 1500  # kept; the catalog reads each once


def test_nesting_far_deeper_than_a_scenario_is_refused() -> None:
    nested: Any = 1
    for _ in range(400):
        nested = [nested]
    message = _refused(_changed(lambda d: d["workload"].update(params_billion=nested)))
    assert message.endswith("nested too deeply to be a scenario")


def test_every_problem_is_listed_with_the_first_as_the_message() -> None:
    document = _changed(lambda d: d["workload"].update(params_billion="x", mfu=45, colour=1))
    with pytest.raises(ScenarioError) as caught:
        parse_document(document)
    paths = [path for path, _message in caught.value.errors]
    assert paths[0] == caught.value.field == "workload.params_billion"
    assert set(paths) == {"workload.params_billion", "workload.mfu", "workload.colour"}


def test_a_long_value_is_shown_cut_short() -> None:
    message = _refused(_changed(lambda d: d["workload"].update(params_billion="x" * 500)))
    assert len(message) < 120 and message.endswith("...")


# --- mutated documents: a ScenarioError or a document, nothing else ----------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a document: the path of each key and list item."""
    places = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            places += _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            places += _places(item, (*path, index))
    return places


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A documented example with one to three places replaced, removed or added to."""
    document = copy.deepcopy(draw(st.sampled_from([BASE, SERVE])))
    for _ in range(draw(st.integers(1, 3))):
        place = draw(st.sampled_from(_places(document)))
        if not place:
            continue
        parent = document
        for step in place[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "remove", "add"]))
        if action == "remove":
            del parent[place[-1]]
        elif action == "add" and isinstance(parent[place[-1]], dict):
            parent[place[-1]][draw(st.text(max_size=8))] = draw(JSON_VALUES)
        else:
            parent[place[-1]] = draw(JSON_VALUES)
    return document


@settings(max_examples=600, deadline=None, database=None)
@given(document=mutated())
def test_a_mutated_document_is_parsed_or_refused_with_its_path(document: Any) -> None:
    try:
        parsed = parse_document(document)
    except ScenarioError as exc:
        assert exc.field and exc.message and "\n" not in str(exc)
        assert str(exc) == f"{exc.field}: {exc.message}"
        assert exc.errors[0] == (exc.field, exc.message)
    else:
        assert isinstance(parsed, ScenarioDocument)


@pytest.mark.django_db
@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=mutated())
def test_a_mutated_document_builds_or_fails_with_a_scenario_error(
    seed_catalog: object, document: Any
) -> None:
    """Past the schema, the catalog and the engine's inputs refuse only with a
    ScenarioError too (never a TypeError, KeyError, … from a combination the schema let
    through)."""
    from tco.scenario.resolve import CatalogSnapshot, build_scenario

    try:
        build_scenario(document, CatalogSnapshot.current())
    except ScenarioError as exc:
        assert exc.field and exc.message and "\n" not in str(exc)


# --- it agrees with the engine -----------------------------------------------------------

# Each block with the engine dataclass it feeds and a valid set of engine arguments.
BLOCKS: list[tuple[type[BaseModel], Any, dict[str, Any]]] = [
    (
        schema.Workload,
        engine.Workload,
        {"kind": engine.WorkloadKind.PRETRAIN, "params_billion": 7.0, "tokens_billion": 100.0},
    ),
    (
        schema.ServingDemand,
        engine.ServingDemand,
        {"users": 10, "requests_per_user_per_day": 5.0, "output_tokens_per_request": 300.0},
    ),
    (
        schema.ModelShape,
        engine.ModelShape,
        {"layers": 32, "hidden_size": 4096, "attention_heads": 32, "kv_heads": 1},
    ),
    (schema.Finance, engine.FinanceInputs, {}),
    (schema.Demand, engine.Demand, {"pattern": engine.DemandPattern.RECURRING, "runs_per_year": 4}),
    (schema.Uncertainty, engine.UncertaintyRanges, {}),
    (schema.Constraints, engine.Constraints, {}),
    (schema.Lease, engine.LeaseTerms, {"annual_rate": 0.05, "term_months": 36}),
    (schema.LabeledAmount, engine.LabeledAmount, {"label": "Fee", "amount": 10.0}),
    (
        schema.OwnGpu,
        engine.GpuSpec,
        {
            "name": "G",
            "memory_gb": 80.0,
            "memory_bandwidth_tbps": 3.0,
            "bf16_tflops": 900.0,
            "fp8_tflops": None,
            "fp4_tflops": None,
            "tdp_w": 700.0,
        },
    ),
]
OVERRIDES: list[tuple[type[BaseModel], Any, dict[str, Any]]] = [
    (
        schema.Site,
        engine.SiteSpec,
        {
            "electricity_price_per_kwh": 0.2,
            "pue": 1.3,
            "colocation_per_kw_month": 150.0,
            "rack_power_limit_kw": 40.0,
        },
    ),
    (
        schema.CloudOffering,
        engine.CloudOfferingSpec,
        {
            "provider": "P",
            "instance_type": "I",
            "term": engine.CloudTerm.ON_DEMAND,
            "gpus_per_instance": 8,
            "price_per_hour": 30.0,
        },
    ),
    (
        schema.ApiOffering,
        engine.ApiOfferingSpec,
        {
            "provider": "P",
            "model": "M",
            "price_input_per_million": 0.5,
            "price_output_per_million": 0.8,
        },
    ),
    (schema.CatalogGpu, engine.GpuSpec, BLOCKS[-1][2]),
]


def _engine_default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


@pytest.mark.parametrize(
    ("model", "cls", "_base"), BLOCKS, ids=lambda v: getattr(v, "__name__", "")
)
def test_a_blocks_defaults_are_the_engines(model: type[BaseModel], cls: Any, _base: Any) -> None:
    """The schema publishes the engine's defaults (finance's catalog items aside: their
    defaults equal the engine's, and the catalog's replace them when the document is silent)."""
    engine_fields = {f.name: f for f in dataclasses.fields(cls)}
    for name, info in model.model_fields.items():
        assert name in engine_fields, f"{model.__name__}.{name} feeds no engine field"
        if info.is_required():
            continue
        default = info.get_default(call_default_factory=True)
        expected = _engine_default(engine_fields[name])
        if isinstance(expected, tuple):
            expected = list(expected)
        assert default == expected, f"{model.__name__}.{name}"


@pytest.mark.parametrize(
    ("model", "cls", "_base"), OVERRIDES, ids=lambda v: getattr(v, "__name__", "")
)
def test_every_override_is_a_field_of_the_engines_spec(
    model: type[BaseModel], cls: Any, _base: Any
) -> None:
    names = {f.name for f in dataclasses.fields(cls)}
    assert set(model.model_fields) - {"key"} <= names


def _bounds(metadata: list[Any], whole: bool) -> list[tuple[float, float]]:
    """The (value just outside, value at the bound) pairs of a field's range."""

    def step(value: float, direction: float) -> float:
        return value + direction if whole else math.nextafter(value, direction * math.inf)

    def number(value: object) -> float:
        assert isinstance(value, int | float)  # the schema's bounds are numbers
        return value

    pairs = []
    for bound in metadata:
        if isinstance(bound, annotated_types.Ge):
            pairs.append((step(number(bound.ge), -1), number(bound.ge)))
        elif isinstance(bound, annotated_types.Gt):
            pairs.append((number(bound.gt), step(number(bound.gt), 1)))
        elif isinstance(bound, annotated_types.Le):
            pairs.append((step(number(bound.le), 1), number(bound.le)))
        elif isinstance(bound, annotated_types.Lt):
            pairs.append((number(bound.lt), step(number(bound.lt), -1)))
    return pairs


# Fields whose engine check depends on other fields, so that a value alone cannot be tried.
CROSS_FIELD = {"kv_heads", "experts", "experts_per_token", "active_params_billion", "idle_power_kw"}


@pytest.mark.parametrize(
    ("model", "cls", "base"), BLOCKS + OVERRIDES, ids=lambda v: getattr(v, "__name__", "")
)
def test_a_fields_range_is_the_engines(model: type[BaseModel], cls: Any, base: Any) -> None:
    """At each bound of the schema the engine accepts the value; just past it the engine
    refuses it too, so the schema refuses nothing the engine takes, and the other way round."""
    whole = {f.name for f in dataclasses.fields(cls) if f.type in ("int", "int | None")}
    tried = 0
    for name, info in model.model_fields.items():
        if name in CROSS_FIELD:
            continue
        for outside, at in _bounds(info.metadata, name in whole):
            cls(**{**base, name: at})
            with pytest.raises(engine.InvalidInput):
                cls(**{**base, name: outside})
            tried += 1
    assert tried or model is schema.Constraints


def test_the_currencies_are_the_engines() -> None:
    assert set(get_args(schema.Currency)) == set(SUPPORTED_CURRENCIES)


# --- published --------------------------------------------------------------------------


def test_docs_publish_the_models_json_schema() -> None:
    doc = (ROOT / "docs/scenario.md").read_text(encoding="utf-8")
    section = published_schema(doc)
    assert section is not None, f"docs/scenario.md has no section starting {SCHEMA_BEGIN}"
    published = json.loads(section.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert published == json_schema(), "run: python -m tco.scenario docs/scenario.md"
    assert section == schema_section()


def test_the_json_schema_lists_every_documented_block() -> None:
    properties = json_schema()["properties"]
    assert list(properties) == [
        "name",
        "as_of",
        "workload",
        "server",
        "site",
        "cloud_offerings",
        "api_offerings",
        "servers",
        "finance",
        "demand",
        "uncertainty",
        "constraints",
        "capacity",
    ]
    assert json_schema()["required"] == ["workload", "server", "site", "cloud_offerings"]


@pytest.mark.django_db
@pytest.mark.parametrize("extra", ["", "&server=auto&discount_pct=5&pue=1.2&staff_fte=2"])
def test_every_presets_document_is_read_by_the_schema(seed_catalog: object, extra: str) -> None:
    """The calculator's documents are the schema's: each preset's reads back as itself."""
    from django.http import QueryDict

    from tco.analysis.calculator import form_data
    from tco.inputs.forms import CalculatorForm
    from tco.inputs.presets import PRESETS
    from tco.scenario.resolve import CatalogSnapshot

    catalog = CatalogSnapshot.load()
    for preset in PRESETS:
        form = CalculatorForm(form_data(QueryDict(f"preset={preset.slug}{extra}")), catalog=catalog)
        assert form.is_valid(), (preset.slug, form.errors)
        for key in catalog.servers:
            document = form.to_document(key)
            assert isinstance(document, ScenarioDocument)
            as_json = json.loads(json.dumps(document.model_dump(mode="json", exclude_unset=True)))
            assert parse_document(as_json) == document, (preset.slug, key)
