"""Saved scenarios: a calculator result kept for a customer, compared side by side, priced
again with today's catalog, and started as a quote whose options are the scenarios.

A saved scenario stores the scenario document (the inputs, with the server the calculator
chose), the figures it showed (the report's JSON form and the owned option's cumulative
cost by month) and the day the catalog priced it: never a URL, so it reads the same
whatever the calculator's form becomes. Docs: docs/quotes.md, "Saved scenarios".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tco.report import Report

from ..models import Customer, Quote, SavedScenario, Team
from .errors import QuoteError
from .options import MAX_OPTIONS

# How many scenarios one comparison (and one quote's options) holds.
MAX_COMPARED = MAX_OPTIONS


def scenario_summary(analysis: Any) -> dict[str, Any]:
    """What a saved scenario freezes of its analysis: the report's JSON form, the server
    model it sized, and the owned option's cumulative cost by month (the series of the
    calculator's cumulative-cost chart, to the cent)."""
    server = analysis.built.server_model
    owning = analysis.chart_series.cumulative.owning
    return {
        "report": analysis.report.to_json(),
        "server": {"key": server.key, "name": server.name},
        "owning_cumulative": [round(float(value), 2) for value in owning],
    }


@transaction.atomic
def scenario_save(
    *, customer: Customer, owner: User, query: str, name: str, note: str = ""
) -> SavedScenario:
    """Save a calculator result (its URL's query string) to `customer`: the document the
    calculator evaluated for the server it chose, and its figures. QuoteError when the
    inputs have no analysis or the customer is not of the owner's teams."""
    from tco.analysis import AnalysisError
    from tco.analysis.calculator import calculator_document

    from .analysis import calculator_analysis

    ensure_own_customer(customer, owner)
    name = " ".join(name.split())[:120]
    if not name:
        raise QuoteError(_("Give the scenario a name, e.g. “16 × B300, 3 years”."))
    analysis, canonical = calculator_analysis(query=query)
    try:
        server_key = analysis.built.server_model.key
        document = calculator_document(query=canonical, server_key=server_key)
    except AnalysisError as exc:
        raise QuoteError(str(exc)) from exc
    if document is None:  # not once the calculator answered: its inputs were valid
        raise QuoteError(
            _("The calculator inputs are not valid; open the calculator and try again.")
        )
    return SavedScenario.objects.create(
        customer=customer,
        owner=owner,
        name=name,
        note=note.strip(),
        document=document.model_dump(mode="json", exclude_unset=True),
        summary=scenario_summary(analysis),
        catalog_date=timezone.localdate(),
    )


def ensure_own_customer(customer: Customer, user: User) -> None:
    """QuoteError unless `user` is staff or in the customer's team."""
    mine = Team.objects.filter(pk=customer.team_id, members=user).exists()
    if not (mine or user.is_staff):
        raise QuoteError(_("You can only quote for customers of your own team."))


# --- figures --------------------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioFigures:
    """A scenario's figures as the comparison and the re-price show them. ``verdict``: the
    engine's action (buy, rent, hybrid, …); ``headline`` its sentence in the active
    language; ``owning``: the cost over the horizon of the owning the verdict compares (kept, or
    run once and resold; bridge included);
    ``rental``/``rental_total``: the rented option the verdict compares with;
    ``break_even_month``: the month owning overtakes renting (None: not within the
    horizon)."""

    currency: str
    horizon_months: int
    verdict: str
    verdict_label: str
    headline: str
    servers: int
    server: str
    owning: float | None
    rental: str
    rental_total: float | None
    break_even_month: float | None


def scenario_figures(summary: Mapping[str, Any]) -> ScenarioFigures:
    """A saved summary's figures, the verdict worded in the active language."""
    from tco.presentation.wording import cloud_label, verdict_headline
    from tco.presentation.wording_verdict import verdict_action_label

    report = Report.from_json(summary["report"])
    reference = report.reference
    return ScenarioFigures(
        currency=report.currency,
        horizon_months=report.horizon_months,
        verdict=report.verdict.action,
        verdict_label=verdict_action_label(report.verdict.action),
        headline=str(verdict_headline(report.verdict, report.currency)),
        servers=report.sizing.servers_required,
        server=str((summary.get("server") or {}).get("name", "")),
        # The owning the verdict and the chart compare (a one-run fleet resold, or kept).
        owning=report.owned.total_cost if report.owned else None,
        rental=cloud_label(report.verdict.reference_cloud or ""),
        rental_total=reference.total_cost if reference else None,
        break_even_month=report.break_even_month,
    )


# --- comparison -----------------------------------------------------------------------


@dataclass(frozen=True)
class InputRow:
    """One input of the compared scenarios: its label and each scenario's value ("" when
    the document does not set it); ``differs`` when they are not all the same."""

    path: str
    label: str
    values: tuple[str, ...]
    differs: bool


def flat_inputs(document: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A scenario document as path → value: nested blocks by dotted path
    (``workload.params_billion``); lists stay whole."""
    flat: dict[str, Any] = {}
    for key, value in document.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flat_inputs(value, f"{path}."))
        else:
            flat[path] = value
    return flat


def _text(value: Any) -> str:
    """A value as the comparison prints it: a list of plain values joined by commas (a
    list of blocks by their keys), a whole float without its ".0", yes or no."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_text(v.get("key", v) if isinstance(v, Mapping) else v) for v in value)
    if isinstance(value, Mapping):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# The document's name is the workload's kind in the words of the day it was saved: the
# kind itself is compared.
NOT_COMPARED = frozenset({"name"})


def input_rows(documents: Sequence[Mapping[str, Any]]) -> list[InputRow]:
    """Every input of the documents, in the first one's order then the others' new ones,
    each labelled and shown as the calculator's form shows it (its label, its choice's
    label, a percentage as a percentage; the document path and value otherwise) and
    flagged when the scenarios differ in it; an input set twice by one field, once."""
    from tco.analysis.calculator import InputField, input_fields

    fields = input_fields()
    flats = [flat_inputs(document) for document in documents]
    paths = [p for p in dict.fromkeys(p for flat in flats for p in flat) if p not in NOT_COMPARED]
    rows: dict[tuple[str, tuple[str, ...]], InputRow] = {}
    for path in paths:
        shown = fields.get(path) or InputField(path)
        values = tuple(_text(shown.shown(flat.get(path))) for flat in flats)
        row = InputRow(path, str(shown.label), values, differs=len(set(values)) > 1)
        # One form field may set two paths (the utilization sets the finance's and the
        # demand's): the same label with the same values is listed once.
        rows.setdefault((row.label, values), row)
    return list(rows.values())


def charted_scenarios(scenarios: Sequence[SavedScenario]) -> list[SavedScenario]:
    """The scenarios one chart can draw: those priced in the first one's currency (one
    axis holds one currency; the others are compared in the table only)."""
    currency = scenario_figures(scenarios[0].summary).currency
    return [s for s in scenarios if scenario_figures(s.summary).currency == currency]


# --- re-price -------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """One figure of a re-priced scenario: saved → today's. ``kind`` says how to show
    it: "money", "month", "count" or "text"."""

    key: str
    kind: str
    old: Any
    new: Any

    @property
    def values(self) -> tuple[Any, Any]:
        """(saved, today's): the two columns of the re-price table."""
        return (self.old, self.new)

    @property
    def moved(self) -> bool:
        if self.kind == "money" and self.old is not None and self.new is not None:
            return round(float(self.old), 2) != round(float(self.new), 2)
        return bool(self.old != self.new)


@dataclass(frozen=True)
class Repriced:
    """A saved scenario evaluated again with today's catalog: its saved and today's figures
    and each compared figure's move."""

    saved: ScenarioFigures
    today: ScenarioFigures
    moves: tuple[Move, ...]

    @property
    def moved(self) -> bool:
        return any(move.moved for move in self.moves)


def scenario_reprice(scenario: SavedScenario) -> Repriced:
    """`scenario`'s document through the analysis' front door (tco.analysis.analyse) with
    today's catalog, against what it showed when saved: the verdict, the cost of owning,
    the rental it is compared with and its total, the break-even month and the servers.
    QuoteError when the document has no analysis today (e.g. its server left the
    catalog)."""
    from tco.analysis import AnalysisError, analyse

    try:
        analysis = analyse(scenario.document)
    except AnalysisError as exc:
        raise QuoteError(str(exc)) from exc
    saved = scenario_figures(scenario.summary)
    today = scenario_figures(scenario_summary(analysis))
    moves = (
        Move("verdict", "text", saved.headline, today.headline),
        Move("owning", "money", saved.owning, today.owning),
        Move("rental", "text", saved.rental, today.rental),
        Move("rental_total", "money", saved.rental_total, today.rental_total),
        Move("break_even_month", "month", saved.break_even_month, today.break_even_month),
        Move("servers", "count", saved.servers, today.servers),
    )
    return Repriced(saved, today, moves)


# --- a quote from scenarios -----------------------------------------------------------


def quote_from_scenarios(*, scenarios: Sequence[SavedScenario], owner: User) -> Quote:
    """A draft for the scenarios' customer whose options A, B, … are the scenarios, in the
    order given, each named by its scenario (services.quote_create_from_scenarios)."""
    from .revisions import quote_create_from_scenarios

    if not 1 <= len(scenarios) <= MAX_COMPARED:
        raise QuoteError(_("Choose one to four scenarios."))
    customers = {s.customer_id for s in scenarios}
    if len(customers) != 1:
        raise QuoteError(_("Choose scenarios of one customer."))
    return quote_create_from_scenarios(
        customer=scenarios[0].customer,
        owner=owner,
        scenarios=[(s.name, s.document) for s in scenarios],
    )
