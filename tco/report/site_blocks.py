"""The site fit blocks of the report: whether the buyer's site takes the owned fleet
(tco/engine/site.py), where the fleet moves when it does not, and the EU duties."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from tco.engine.costmodel import onprem_monthly
from tco.report import models as rm
from tco.report.rounding import figure
from tco.report.sizing_blocks import notes

if TYPE_CHECKING:
    from tco.engine import ScenarioResult
    from tco.engine.site import BuildOutLine, SiteFit

Convert = Callable[[float, str, str], float]


def site_fit(fit: SiteFit, currency: str, convert: Convert) -> rm.SiteFit:
    """One site fit: status, build-out cost (reporting currency) and weeks, reasons."""
    return rm.SiteFit(
        status=fit.status,
        site=fit.site,
        build_out_cost=figure(convert(fit.build_out_cost, fit.currency, currency), 2),
        build_out_weeks=figure(fit.build_out_weeks, 1),
        build_out_lines=[_line(line, fit.currency, currency, convert) for line in fit.lines],
        reasons=[rm.Note(code=n.code, params=dict(n.params)) for n in fit.reasons],
        racks=fit.racks.racks_required,
        kw_per_rack=figure(fit.rack_kw, 3),
        it_kw=figure(fit.racks.it_kw, 3),
        pue=figure(fit.pue, 3),
        cooling=fit.cooling,
        site_cooling=fit.site_cooling,
        site_rack_power_limit_kw=fit.rack_power_limit_kw,
        described=fit.described,
    )


def _line(line: BuildOutLine, source: str, currency: str, convert: Convert) -> rm.BuildOutLine:
    return rm.BuildOutLine(
        item=line.item,
        quantity=figure(line.quantity, 3),
        unit_price=figure(convert(line.unit_price, source, currency), 2),
        cost=figure(convert(line.cost, source, currency), 2),
        weeks=figure(line.weeks, 1),
    )


def own_site_fit(result: ScenarioResult) -> rm.SiteFit | None:
    """The buyer's own site's fit, with ``placed_at`` (the liquid-ready colocation's fit
    and its colocation cost over the horizon) when the fleet moves there; None without a
    site fit. Every owned option carries it too (tco/report/option_rows.py)."""
    fit, own = result.site_fit, result.own_site_fit
    if fit is None or own is None:
        return None
    convert = result.scenario.finance.fx.convert
    block = site_fit(own, result.currency, convert)
    if fit is own:
        return block
    placed = site_fit(fit, result.currency, convert)
    colocation = figure(_colocation_cost(result), 2)
    placed = placed.model_copy(update={"colocation_cost": colocation})
    return block.model_copy(update={"placed_at": placed})


def _colocation_cost(result: ScenarioResult) -> float:
    """The colocation's cost over the horizon: its mean monthly cost × the months."""
    monthly = float(np.mean(onprem_monthly(result.cost_model).colocation))
    return monthly * result.scenario.finance.horizon_months


def site_duties(result: ScenarioResult) -> list[rm.Note]:
    """The EU duties the fleet's IT power brings at its site (empty without a site fit)."""
    if result.site_fit is None or result.own_site_fit is None:
        return []
    return notes(result.site_duties)
