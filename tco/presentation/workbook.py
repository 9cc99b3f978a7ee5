"""The TCO model as an Excel workbook whose figures are live formulas.

The workbook holds the flattened cost inputs of one engine result (its ``CostModel``:
the fleet, prices in the reporting currency, the demand as utilization and active
months, and one block per cloud option) on an *Inputs* sheet, each with its unit,
source and date. Every other figure is a formula over those inputs, written to
reproduce tco/engine/costmodel.py, onprem.py, cloud.py and finance.py exactly:

* *Model*: the per-month amounts (energy, colocation, support, staff, …, lease
  payment, cloud instances, billed hours, commitments) and the break-even lines;
* *Cash flow*: months 0..N for on-prem and each cloud option, with cumulative
  sums (rows beyond the horizon are zero, so a shorter or longer horizon, up to
  the rows written, also works);
* *Summary*: totals, NPV (month 0 plus Excel's ``NPV()`` over months 1..N, since
  ``NPV()`` discounts its first value by one period), payback month, fractional
  break-even month, break-even utilization ("always" or "none" where no utilization
  within 0-100 % is one, as the page says), a chart, and the verdict's headline as the
  page words it when the file was made.

Sheet names, labels, units and headers are in the active language (English or Dutch,
through the .po like every other message); the defined names (column *Name*) and the
formulas stay the same in both. Change an input and every figure follows. The sizing
(how many servers, the derived utilization) is not re-derived in the workbook: it is an
input.

The workbook reads the typed report (tco.report: the verdict's headline and notes) and the
typed inputs of tco/presentation/workbook_inputs.py (the cost model at the engine's full
precision); each sheet has its module: workbook_inputs.py, workbook_model.py,
workbook_cashflow.py and workbook_summary.py (their shared cells: workbook_cells.py).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, cast

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from tco.presentation.workbook_cashflow import write_cash_flow
from tco.presentation.workbook_cells import ENGINE, Names, Provenance
from tco.presentation.workbook_inputs import (
    InputRows,
    WorkbookInputs,
    workbook_inputs,
    write_inputs,
)
from tco.presentation.workbook_model import write_model
from tco.presentation.workbook_summary import write_summary
from tco.report import Report

if TYPE_CHECKING:
    from tco.analysis import Analysis
    from tco.engine import ScenarioResult

__all__ = [
    "Provenance",
    "WorkbookInputs",
    "analysis_workbook",
    "build_workbook",
    "provenance_for",
    "workbook",
    "workbook_inputs",
]


def build_workbook(
    report: Report,
    inputs: WorkbookInputs,
    provenance: dict[str, Provenance] | None = None,
    *,
    title: str | None = None,
) -> bytes:
    """The workbook of one evaluation (``workbook``), as .xlsx bytes."""
    out = io.BytesIO()
    workbook(report, inputs, provenance, title=title).save(out)
    return out.getvalue()


def workbook(
    report: Report,
    inputs: WorkbookInputs,
    provenance: dict[str, Provenance] | None = None,
    *,
    title: str | None = None,
) -> Workbook:
    """The workbook of one evaluation (its report and workbook inputs), in the active
    language.

    ``provenance`` maps an input name (a CostModel field, or ``cloud<k>_<field>`` for the
    k-th cloud option, from 1) to where it came from; others are marked as scenario
    inputs.
    """
    cur = report.currency
    wb = Workbook()
    # A new workbook's one sheet, a worksheet (the stubs' type allows a chartsheet too).
    summary = cast(Worksheet, wb.active)
    assert summary is not None
    summary.title = _("Summary")
    inputs_sheet = wb.create_sheet(_("Inputs"))
    calc = wb.create_sheet(_("Model"))
    flow_sheet = wb.create_sheet(_("Cash flow"))
    names = Names(wb)
    rows = InputRows(inputs_sheet, names, provenance or {}, cur)
    write_inputs(rows, inputs)
    write_model(calc, names, cur, inputs)
    flow = write_cash_flow(flow_sheet, inputs, cur)
    write_summary(
        summary, report, inputs, flow, names, title=title, inputs_sheet=inputs_sheet.title
    )
    return wb


def analysis_workbook(
    analysis: Analysis, *, internal: bool = True, title: str | None = None
) -> bytes:
    """The workbook of an analysis (tco.analysis), its inputs' sources as ``internal``
    readers see them (provenance_for)."""
    result = analysis.result
    return build_workbook(
        analysis.report,
        workbook_inputs(result),
        provenance_for(analysis.built, result, internal=internal),
        title=title,
    )


def provenance_for(
    built: Any, result: ScenarioResult, *, internal: bool = True
) -> dict[str, Provenance]:
    """Sources and dates of a built scenario's catalog inputs (tco.scenario.resolve.BuiltScenario).

    Overridden values keep the catalog row's source here; the scenario's own
    assumptions list (shown on the page) marks them "Your input". Without `internal`
    (a visitor's download) our own list prices — the server's and the items' — read
    "Our price list", without date or estimate mark (catalog/audience.py).
    """
    from catalog.audience import OWN_PRICE_SOURCE, source_name
    from catalog.models import InfrastructureItem
    from tco.scenario.resolve import DEFAULT_ITEMS

    own = None if internal else Provenance(str(OWN_PRICE_SOURCE))

    found: dict[str, Provenance] = {}
    server = built.server_model
    site = built.site
    # The specifications' provenance, apart from the price's: a visitor reads it as the
    # catalog page and the API show it (the source's name, catalog/audience.py), and the
    # own price as "Our price list", neither with a date or estimate flag.
    row = (
        Provenance(server.display_source(), server.as_of, server.is_estimate)
        if internal
        else Provenance(source_name(server.display_source()))
    )
    price = Provenance(
        _("%(source)s (converted to the reporting currency)")
        % {"source": server.display_price_source()},
        server.price_as_of,
        server.price_is_estimate,
    )
    found.update(
        gpus_per_server=row, idle_power_kw=row, max_power_kw=row, server_price=own or price
    )
    if site is not None:
        at_site = Provenance(site.display_source(), site.as_of, site.is_estimate)
        for name in (
            "pue",
            "electricity_price_per_kwh",
            "colocation_per_kw_month",
            "colocation_on_facility_kw",
        ):
            found[name] = at_site
    for name in ("servers", "utilization", "rented_work_scale", "active_months", "whole_terms"):
        found[name] = ENGINE
    items = {i.key: i for i in InfrastructureItem.objects.filter(key__in=DEFAULT_ITEMS.values())}
    for field, key in DEFAULT_ITEMS.items():
        item = items.get(key)
        if item is not None:
            found[field] = own or Provenance(
                f"{item.display_name()}: {item.display_source()}", item.as_of, item.is_estimate
            )
    by_name = {
        spec.name: offer
        for spec, offer in zip(built.scenario.cloud_offerings, built.offerings, strict=True)
    }
    for k, cloud in enumerate(result.cost_model.clouds, start=1):
        offer = by_name.get(cloud.name)
        if offer is None:
            continue
        where = Provenance(offer.display_source(), offer.as_of, offer.is_estimate)
        for field in ("price_per_instance_hour", "gpus_per_instance", "committed", "term_months"):
            found[f"cloud{k}_{field}"] = where
        for field in ("usage_multiplier", "work_ratio", "fleet_ratio", "always_on"):
            found[f"cloud{k}_{field}"] = ENGINE
    return found
