"""The calculator's business rules: read the form, rank the catalog's servers, call the
front door (tco.analysis.analyse) for the chosen one, and place each problem beside the
form field it belongs to.

A result URL's query is read here (`analyse_query`, `analyse_result_query`,
`calculator_document`): quotes and leads start from one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from catalog.models import past_sale_life
from tco.analysis import (
    NO_COMPLIANT_OPTION,
    SCENARIO,
    Analysis,
    AnalysisError,
    Candidate,
    analyse,
)
from tco.engine import (
    EU_COUNTRIES,
    DeadlineInfeasible,
    DoesNotFit,
    EngineError,
    OwningPlan,
    SizingMemo,
    costs_of_owning,
    owning_plan,
)
from tco.inputs.canonical import canonical_query
from tco.inputs.field_paths import FORM_FIELD_FOR_PATH
from tco.inputs.forms import CalculatorForm
from tco.inputs.presets import DEFAULT_PRESET, EU_CLOUD, EU_TERMS, preset_data
from tco.presentation.wording_site import placed_elsewhere
from tco.scenario import ScenarioDocument
from tco.scenario.resolve import (
    BuiltScenario,
    CatalogSnapshot,
    ScenarioError,
    build_scenario,
    with_server,
)


def no_compliant_option_message() -> str:
    return _(
        "No option meets your terms: every option breaks at least one of them. Choose a site "
        "on your own premises, or relax a requirement."
    )


@dataclass
class CalculatorOutcome:
    analysis: Analysis | None = None
    problem: str | None = None
    field_errors: dict[str, str] = field(default_factory=dict)
    non_field_errors: list[str] = field(default_factory=list)


def form_data(query: QueryDict) -> QueryDict:
    """The form's fields: a preset's values, then every field the URL gives.

    A full form submission (it carries ``full``) is taken as it is, so that an
    unticked box stays unticked. A shared link such as
    ``?preset=lora-70b&params_billion=13`` applies the preset (or the default
    one), then its own parameters.
    """
    if query.get("full"):
        return query
    values = preset_data(query.get("preset", "")) or preset_data(DEFAULT_PRESET.slug) or {}
    data = QueryDict(mutable=True)
    for key, value in values.items():
        if isinstance(value, list):
            data.setlist(key, [str(v) for v in value])
        elif isinstance(value, bool):
            if value:
                data.setlist(key, ["on"])
        else:
            data.setlist(key, [str(value)])
    for key, given in query.lists():
        if key != "preset":
            data.setlist(key, list(given))
    if "providers" not in query and in_the_eu(data):
        providers = data.getlist("providers")
        if EU_CLOUD not in providers:
            data.setlist("providers", [*providers, EU_CLOUD])
    return data


def in_the_eu(data: QueryDict) -> bool:
    """A buyer whose terms ask for the EU, or whose site is in an EU country: their default
    comparison includes an EU cloud (EU_CLOUD), so the answer never lacks one."""
    if any(data.get(name) for name in EU_TERMS):
        return True
    site = CatalogSnapshot.current().sites.get(data.get("site") or "")
    return site is not None and site.country.upper() in EU_COUNTRIES


def analyse_query(query: QueryDict) -> tuple[CalculatorForm, CalculatorOutcome]:
    """Run the calculator on URL parameters (a result URL's query string).

    The form comes back bound, with any engine-detected problems attached to its fields,
    so callers (the calculator page, quotes started from a result) render or store both.
    """
    return analyse_bound_form(CalculatorForm(form_data(query), catalog=CatalogSnapshot.current()))


@dataclass(frozen=True)
class ResultAnalysis:
    """A result URL's analysis for other apps: the analysis, or the problem that prevents
    it; and the canonical query of its validated inputs ("" when they are not valid)."""

    analysis: Analysis | None
    problem: str | None
    canonical_query: str


def analyse_result_query(query: str) -> ResultAnalysis:
    """`analyse_query` on a result URL's query string, without the form: what quotes and
    leads start from. ``problem``: why the engine could not answer, if it says (None with
    inputs the form refuses)."""
    form, outcome = analyse_query(QueryDict(query))
    return ResultAnalysis(
        analysis=outcome.analysis,
        problem=outcome.problem,
        canonical_query=canonical_query(form) if form.is_valid() else "",
    )


def analyse_bound_form(form: CalculatorForm) -> tuple[CalculatorForm, CalculatorOutcome]:
    """`analyse_query` for a form already bound to the query (validated here if not yet)."""
    outcome = analyse_form(form) if form.is_valid() else CalculatorOutcome()
    for name, message in outcome.field_errors.items():
        form.add_error(name, message)
    for message in outcome.non_field_errors:
        form.add_error(None, message)
    return form, outcome


def analyse_form(form: CalculatorForm) -> CalculatorOutcome:
    """Evaluate a valid calculator form: the chosen server, or every catalog server on "auto".

    On "auto" each candidate is only sized and costed in closed form (no monthly tables,
    cloud comparison or tornado); the full evaluation runs once, for the cheapest.
    """
    chosen = form.cleaned_data["server"]
    keys = on_sale(form.catalog) if chosen == "auto" else [chosen]
    if not form.offering_keys():
        return CalculatorOutcome(
            field_errors={"providers": _("No cloud prices with the chosen providers and terms.")}
        )
    # One document for every candidate: only its "server" differs (form.server_reference),
    # so the form's document (its offerings sorted and filtered) is made once.
    try:
        document = form.to_document(keys[0])
    except ScenarioError as exc:
        return _field_problem(exc.field, exc.message)
    sizings: SizingMemo = {}  # this request's: servers of the same GPU board size alike
    ranking = _rank_servers(form, keys, document, sizings)
    if isinstance(ranking, CalculatorOutcome):
        return ranking
    candidates = [
        Candidate(form.catalog.servers[key], total, reason, meets)
        for key, total, reason, meets in ranking
    ]
    fitting = [c for c in candidates if c.onprem_total is not None]
    if not fitting:
        reasons = " ".join(dict.fromkeys(c.reason for c in candidates if c.reason))
        return CalculatorOutcome(
            problem=_("No server in the catalog can run this workload: ") + reasons
        )
    # The cheapest server that meets the latency targets (issue 29: fewer GPUs are never
    # bought by missing them); the cheapest of all when none does. The first of equals.
    best = min(fitting, key=lambda c: (not c.meets_latency_targets, c.onprem_total or 0.0))
    try:
        best_document = document.model_copy(
            update={"server": form.server_reference(best.server.key)}
        )
        analysis = analyse(best_document, catalog=form.catalog, sizings=sizings)
    except AnalysisError as exc:
        return _problem(exc)
    candidates.sort(key=lambda c: (c.onprem_total is None, c.onprem_total or 0.0))
    analysis.candidates = candidates
    return CalculatorOutcome(analysis=analysis)


def on_sale(catalog: CatalogSnapshot) -> list[str]:
    """The servers "the cheapest that fits" chooses from: those not past their sale life
    (catalog.models.past_sale_life), in catalog order; every server when none is on sale."""
    old = past_sale_life(catalog.servers.values())
    keys = [key for key in catalog.servers if key not in old]
    return keys or list(catalog.servers)


# A ranking: each candidate server's key with what owning it costs, or why it cannot do the
# work, and whether it meets the serving latency targets, in catalog order.
Ranking = tuple[tuple[str, float | None, str, bool], ...]


def _rank_servers(
    form: CalculatorForm, keys: list[str], document: ScenarioDocument, sizings: SizingMemo
) -> Ranking | CalculatorOutcome:
    """Each candidate server sized and costed in closed form (or why it cannot do the
    work); a CalculatorOutcome when the inputs are at fault. ``document``: the form's, for
    the first candidate."""
    # Ranking servers needs no cloud prices: one offering keeps the document valid.
    document = document.model_copy(update={"cloud_offerings": document.cloud_offerings[:1]})
    first: BuiltScenario | None = None
    ranked: list[tuple[str, OwningPlan | str]] = []
    for key in keys:
        try:
            if first is None:
                built = first = build_scenario(document, form.catalog, with_assumptions=False)
            else:  # only the server differs between candidates
                built = with_server(first, form.server_reference(key), form.catalog)
            ranked.append((key, owning_plan(built.scenario, sizings)))
        except ScenarioError as exc:
            return _field_problem(exc.field, exc.message)
        except (DoesNotFit, DeadlineInfeasible) as exc:
            ranked.append((key, str(exc)))
        except EngineError as exc:
            return CalculatorOutcome(problem=str(exc))
    # The fitting candidates are costed together (one vectorised pass).
    totals = iter(costs_of_owning([p for _k, p in ranked if isinstance(p, OwningPlan)]))
    return tuple(
        (key, None, plan, False)
        if isinstance(plan, str)
        else (key, next(totals), "", plan.meets_latency_targets)
        for key, plan in ranked
    )


def calculator_document(
    *, query: str, server_key: str, catalog: CatalogSnapshot | None = None
) -> ScenarioDocument | None:
    """The scenario document the calculator builds from a result URL's query string, for
    one server model of the catalog; None when the query's inputs are no longer valid (the
    calculator would show them with errors).

    What other apps use to analyse a calculator result again (a quote's deal, its
    workbook), without the calculator's form. ``catalog``: today's (in memory) when None.
    Raises AnalysisError (SCENARIO) when the catalog has no such server model, or when the
    inputs produce a document the schema refuses.
    """
    form = CalculatorForm(form_data(QueryDict(query)), catalog=catalog or CatalogSnapshot.current())
    if not form.is_valid():
        return None
    if server_key not in form.catalog.servers:
        raise AnalysisError(SCENARIO, "server", f"unknown server model {server_key!r}")
    try:
        return form.to_document(server_key)
    except ScenarioError as exc:
        raise AnalysisError(SCENARIO, exc.field, exc.message, errors=exc.errors) from exc


def _problem(exc: AnalysisError) -> CalculatorOutcome:
    """Why the chosen server has no analysis, where the form shows it: beside the field the
    document path maps to, as the buyer's terms that no option meets, or above the form."""
    if exc.code == SCENARIO:
        return _field_problem(exc.path or "", exc.message)
    if exc.path == "constraints":
        return _no_compliant_option(exc)
    return CalculatorOutcome(problem=str(exc))


def _no_compliant_option(exc: AnalysisError) -> CalculatorOutcome:
    """No option meets the buyer's terms; when the owned fleet left the buyer's site, why
    (often the reason owning breaks them), at the available-power field when the server
    room's assumed power sent it away: the form asks for the room's figure."""
    site = exc.site if exc.code == NO_COMPLIANT_OPTION else None
    if site is None:
        return CalculatorOutcome(non_field_errors=[no_compliant_option_message()])
    said = f"{placed_elsewhere({'code': site.code, 'params': site.params})} "
    said += no_compliant_option_message()
    if site.params.get("reason") == "server_room_power":
        return CalculatorOutcome(field_errors={"available_it_kw": said})
    return CalculatorOutcome(non_field_errors=[said])


def _field_problem(path: str, message: str) -> CalculatorOutcome:
    form_field = FORM_FIELD_FOR_PATH.get(path)
    if form_field:
        return CalculatorOutcome(field_errors={form_field: message})
    return CalculatorOutcome(non_field_errors=[message])


@dataclass(frozen=True)
class InputField:
    """How a comparison of saved scenarios shows one document path: the calculator
    field's label, its choices (code → label) and the factor from the document's value
    to the form's (a percentage is a fraction in the document: 100; years are months: 1/12)."""

    label: Any
    choices: dict[str, Any] = field(default_factory=dict)
    scale: float = 1.0

    def shown(self, value: Any) -> Any:
        """A document value as the form shows it: a choice's label, a number in the form's
        unit (rounded off the float noise of the conversion), anything else as it is."""
        if isinstance(value, str) and value in self.choices:
            return self.choices[value]
        if isinstance(value, int | float) and not isinstance(value, bool) and self.scale != 1:
            return round(value * self.scale, 9)
        return value


# The form's unit per conversion of tco.inputs.field_paths: the inverse of each.
FORM_SCALE = {"percent": 100.0, "whole_months": 1 / 12}


def input_fields() -> dict[str, InputField]:
    """The scenario document's paths (docs/scenario.md) as the calculator's form shows
    them: its field's label (read in the active language), choices and unit; the form's
    own rules (the workload, the server, the site) by their fields, and the document's
    other names by their own label: what a comparison of saved scenarios calls each
    input."""
    from tco.inputs.field_paths import FIELD_PATHS

    fields = CalculatorForm.base_fields

    def of(name: str, scale: float = 1.0) -> InputField:
        choices = getattr(fields[name], "choices", None) or []
        return InputField(fields[name].label, {str(k): v for k, v in choices}, scale)

    found = {
        entry.path: of(entry.field, FORM_SCALE.get(entry.convert.__name__, 1.0))
        for entry in FIELD_PATHS
        if entry.field in fields
    }
    # What the form chooses from lists or writes by its own rule.
    own = {
        "workload.kind": "kind",
        "workload.precision": "precision",
        "workload.optimizer": "optimizer",
        "workload.interconnect": "interconnect",
        "workload.sharding": "sharding",
        "site.key": "site",
        "server": "server",
        "server.key": "server",
        "finance.reporting_currency": "currency",
        "capacity.needed_in_days": "needed_in_days",
        "capacity.site_readiness_weeks": "site_readiness_weeks",
        "capacity.if_late": "if_late",
        "capacity.cost_of_delay_per_week": "cost_of_delay_per_week",
    }
    found.update({path: of(name) for path, name in own.items() if name in fields})
    found.update(
        {
            "cloud_offerings": InputField(_("Cloud offerings compared")),
            "finance.horizon_months": InputField(_("Horizon (months)")),
            "site.described": InputField(_("Site described")),
        }
    )
    return found
