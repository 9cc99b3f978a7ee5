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
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from openpyxl import Workbook
from openpyxl.chart import LineChart, Reference
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.worksheet import Worksheet

from tco.engine import ScenarioResult
from tco.engine.costmodel import CloudCostParams, CostModel
from tco.engine.units import HOURS_PER_MONTH
from tco.presentation.wording import cloud_label, verdict_headline
from tco.presentation.wording_verdict import verdict_notes
from tco.report import build_report

MIN_ROWS_MONTHS = 120  # cash-flow rows written at least (months 0..N)
MONEY = "#,##0.00"
NUMBER = "#,##0.0000"
PERCENT = "0.00%"
HEADER_FILL = PatternFill("solid", fgColor="DDE4EE")
INPUT_FILL = PatternFill("solid", fgColor="FFF4CC")
BOLD = Font(bold=True)


@dataclass(frozen=True)
class Provenance:
    """Where an input came from (a catalog row's source in the reader's language)."""

    source: str | Promise
    as_of: date | None = None
    is_estimate: bool = False


ENGINE = Provenance(gettext_lazy("Engine: sizing and demand for this scenario"))
SCENARIO = Provenance(gettext_lazy("Scenario input (or its default)"))
RESALE = Provenance(gettext_lazy("Scenario input: resale value by age (finance.resale_by_year)"))

# CostModel field → (label, unit; "{cur}" is the reporting currency, number format).
MODEL_INPUTS: tuple[tuple[str, str, str, str], ...] = (
    ("servers", "Servers owned", "servers", "0"),
    ("gpus_per_server", "GPUs per server", "GPUs", "0"),
    ("server_price", "Server price", "{cur}", MONEY),
    ("idle_power_kw", "Server power, idle", "kW", NUMBER),
    ("max_power_kw", "Server power, maximum", "kW", NUMBER),
    ("pue", "PUE", "", NUMBER),
    ("electricity_price_per_kwh", "Electricity price", "{cur}/kWh", NUMBER),
    ("colocation_per_kw_month", "Colocation per kW-month", "{cur}/kW/month", MONEY),
    ("colocation_on_facility_kw", "Colocation billed on facility kW (1) or IT kW (0)", "0/1", "0"),
    ("utilization", "Utilization of the owned fleet", "fraction", "0.000000"),
    ("horizon_months", "Horizon", "months", "0"),
    ("active_months", "Months the work runs in (one-off run; larger = all)", "months", "0.00"),
    ("whole_terms", "Commitments bought whole for the active months (1) or not (0)", "0/1", "0"),
    ("discount_rate", "Discount rate (effective, per year)", "fraction", PERCENT),
    ("networking_per_server", "Networking per server", "{cur}", MONEY),
    ("storage_total", "Storage, total", "{cur}", MONEY),
    ("installation_per_server", "Installation per server", "{cur}", MONEY),
    ("spares_pct", "Spares", "fraction of hardware", PERCENT),
    ("one_off_cost", "Other one-off costs (month 0)", "{cur}", MONEY),
    ("support_pct_per_year", "Support", "fraction of hardware per year", PERCENT),
    ("insurance_pct_per_year", "Insurance", "fraction of hardware per year", PERCENT),
    ("staff_fte", "Staff", "FTE", NUMBER),
    ("staff_annual_cost", "Staff cost per FTE-year", "{cur}", MONEY),
    ("software_per_gpu_year", "Software per GPU-year", "{cur}", MONEY),
    ("fixed_monthly", "Other fees every month", "{cur}/month", MONEY),
    ("residual_pct", "Residual value at the horizon", "fraction of hardware", PERCENT),
    ("service_life_months", "Service life: the fleet is bought again at this age", "months", "0"),
    ("leased", "Leased (1) or bought cash (0)", "0/1", "0"),
    ("lease_annual_rate", "Lease rate (nominal, per year)", "fraction", PERCENT),
    ("lease_term_months", "Lease term", "months", "0"),
    ("cloud_price_scale", "Cloud price scale", "factor", NUMBER),
)

CLOUD_INPUTS: tuple[tuple[str, str, str, str], ...] = (
    ("price_per_instance_hour", "price per instance-hour", "{cur}/h", NUMBER),
    ("gpus_per_instance", "GPUs per instance", "GPUs", "0"),
    ("committed", "committed (1) or billed by use (0)", "0/1", "0"),
    ("term_months", "commitment term", "months", "0"),
    ("usage_multiplier", "billed hours per used hour (spot overhead, rounding)", "factor", NUMBER),
    ("uplift_pct", "storage and egress on top of compute", "fraction", PERCENT),
    ("work_ratio", "GPU-hours per owned GPU-hour of the same work", "factor", NUMBER),
    ("fleet_ratio", "GPUs per owned GPU for the same work", "factor", NUMBER),
    ("always_on", "a service's instances run every hour (1) or only when working (0)", "0/1", "0"),
)


def _text(cell: Any, text: str) -> Any:
    """Write text that came from outside (a scenario's name, a catalog source) as a string
    cell: openpyxl would store "=..." as a live formula."""
    cell.value = text
    cell.data_type = "s"
    return cell


def _tr(text: str) -> str:
    """A workbook label in the reader's language. The workbook's labels are English in the
    tables of this module; their Dutch is in the .po like every other message
    ("Option 2: …" is translated as its prefix and its label)."""
    option = _OPTION_LABEL.match(text)
    if option:
        return _("Option %(k)s: %(label)s") % {"k": option[1], "label": _(option[2])}
    return _(text) if text else text


_OPTION_LABEL = re.compile(r"^Option (\d+): (.+)$")


def _unit(unit: str, cur: str) -> str:
    """A unit in the reader's language, the currency put in."""
    return _tr(unit).replace("{cur}", cur)


def _formula_text(text: str) -> str:
    """Text inside a formula's double quotes."""
    return text.replace('"', '""')


def _float(value: Any) -> float:
    return float(value)  # CostModel fields are plain floats on the single-scenario path


class _Names:
    """Defined names pointing at single cells."""

    def __init__(self, workbook: Workbook) -> None:
        self.workbook = workbook

    def add(self, name: str, sheet: Worksheet, cell: str) -> None:
        column = "".join(c for c in cell if c.isalpha())
        row = cell[len(column) :]
        ref = f"{quote_sheetname(sheet.title)}!${column}${row}"
        self.workbook.defined_names[name] = DefinedName(name, attr_text=ref)

    def add_range(self, name: str, sheet: Worksheet, first: str, last: str) -> None:
        """A name for a column range (e.g. the resale curve)."""

        def absolute(cell: str) -> str:
            column = "".join(c for c in cell if c.isalpha())
            return f"${column}${cell[len(column) :]}"

        ref = f"{quote_sheetname(sheet.title)}!{absolute(first)}:{absolute(last)}"
        self.workbook.defined_names[name] = DefinedName(name, attr_text=ref)


def _header(ws: Worksheet, row: int, titles: Sequence[str]) -> None:  # titles: translated
    for col, title in enumerate(titles, start=1):
        cell = _text(ws.cell(row=row, column=col), title)  # cloud option names among them
        cell.font = BOLD
        cell.fill = HEADER_FILL
        cell.alignment = Alignment(wrap_text=True, vertical="top")


def build_workbook(
    result: ScenarioResult,
    provenance: dict[str, Provenance] | None = None,
    *,
    title: str | None = None,
) -> bytes:
    """The workbook of one engine result, as .xlsx bytes.

    ``provenance`` maps an input name (a CostModel field, or ``cloud<k>_<field>`` for the
    k-th cloud option, from 1) to where it came from; others are marked as scenario
    inputs.
    """
    provenance = provenance or {}
    model: CostModel = result.cost_model
    clouds: tuple[CloudCostParams, ...] = model.clouds
    cur = result.currency
    horizon = round(_float(model.horizon_months))
    months = max(MIN_ROWS_MONTHS, horizon)

    wb = Workbook()
    # A new workbook's one sheet, a worksheet (the stubs' type allows a chartsheet too).
    summary = cast(Worksheet, wb.active)
    assert summary is not None
    summary.title = _("Summary")
    inputs = wb.create_sheet(_("Inputs"))
    calc = wb.create_sheet(_("Model"))
    flow = wb.create_sheet(_("Cash flow"))
    names = _Names(wb)

    # --- Inputs ------------------------------------------------------------------------
    _header(
        inputs,
        1,
        [_tr(t) for t in ("Input", "Value", "Unit", "Source", "As of", "Estimate", "Name")],
    )
    row = 2

    def add_input(name: str, label: str, value: float, unit: str, fmt: str) -> None:
        nonlocal row
        where = provenance.get(name, SCENARIO)
        _text(inputs.cell(row=row, column=1), label)  # may start with a cloud option's name
        # (translated by the caller)
        cell = inputs.cell(row=row, column=2, value=value)
        cell.number_format = fmt
        cell.fill = INPUT_FILL
        inputs.cell(row=row, column=3, value=_unit(unit, cur))
        _text(inputs.cell(row=row, column=4), str(where.source))
        as_of = inputs.cell(row=row, column=5, value=where.as_of)
        as_of.number_format = "yyyy-mm-dd"
        inputs.cell(row=row, column=6, value=_("estimate") if where.is_estimate else "")
        inputs.cell(row=row, column=7, value=name)
        names.add(name, inputs, f"B{row}")
        row += 1

    for field, label, unit, fmt in MODEL_INPUTS:
        add_input(field, _tr(label), _float(getattr(model, field)), unit, fmt)
    add_input("hours_per_month", _tr("Hours in a month (8,760 / 12)"), HOURS_PER_MONTH, "h", "0")
    resell = result.resell is not None and bool(result.demand.run_hours)
    if resell:
        row += 1
        inputs.cell(row=row, column=1, value=_("Buy, run and resell")).font = BOLD
        row += 1
        add_input(
            "run_hours",
            _tr("Length of the one-off run"),
            result.demand.run_hours or 0.0,
            "h",
            NUMBER,
        )
        curve = result.scenario.finance.resale_by_year
        curve_start = row
        for year, value in enumerate(curve):
            provenance.setdefault(f"resale_year_{year}", RESALE)
            add_input(
                f"resale_year_{year}",
                _("Resale value at %(years)s years of age") % {"years": year},
                float(value),
                "fraction of hardware value",
                PERCENT,
            )
        names.add_range("resale_curve", inputs, f"B{curve_start}", f"B{row - 1}")
    for k, cloud in enumerate(clouds, start=1):
        row += 1
        cloud_title = _("Cloud option %(k)s: %(name)s") % {"k": k, "name": cloud_label(cloud.name)}
        _text(inputs.cell(row=row, column=1), cloud_title).font = BOLD
        row += 1
        for field, label, unit, fmt in CLOUD_INPUTS:
            value = _float(getattr(cloud, field))
            add_input(
                f"cloud{k}_{field}", f"{cloud_label(cloud.name)}: {_tr(label)}", value, unit, fmt
            )
    timed = _time_inputs(result)
    if timed:
        row += 1
        inputs.cell(row=row, column=1, value=_("Time to capacity (buy and keep)")).font = BOLD
        row += 1
        for name, label, value, unit, fmt in timed:
            add_input(name, _tr(label), value, unit, fmt)
    inputs.freeze_panes = "B2"
    for col_letter, width in zip("ABCDEFG", (58, 16, 26, 60, 12, 10, 30), strict=True):
        inputs.column_dimensions[col_letter].width = width

    # --- Model: per-month amounts as formulas --------------------------------------------
    _header(calc, 1, [_tr(t) for t in ("Quantity", "Value", "Unit", "Formula", "Name")])
    crow = 2

    def derived(name: str, label: str, formula: str, unit: str = "{cur}", fmt: str = MONEY) -> None:
        nonlocal crow
        calc.cell(row=crow, column=1, value=_tr(label))
        cell = calc.cell(row=crow, column=2, value=f"={formula}")
        cell.number_format = fmt
        calc.cell(row=crow, column=3, value=_unit(unit, cur))
        calc.cell(row=crow, column=4, value=formula)
        calc.cell(row=crow, column=5, value=name)
        names.add(name, calc, f"B{crow}")
        crow += 1

    def annuity(rate: str, n: str) -> str:
        return f"IF({rate}>1E-12,(1-(1+{rate})^(-({n})))/{rate},{n})"

    derived("month_rate", "Discount rate per month", "(1+discount_rate)^(1/12)-1", "", "0.000000%")
    derived(
        "hardware_value",
        "Hardware value: servers × (price + network) × (1 + spares) + storage",
        "servers*(server_price+networking_per_server)*(1+spares_pct)+storage_total",
    )
    derived(
        "upfront",
        "Upfront: hardware + installation + one-off costs",
        "hardware_value+servers*installation_per_server+one_off_cost",
    )
    derived(
        "energy",
        "Energy a month, average: servers × (idle + (max − idle) × u) × PUE × hours × price",
        "servers*(idle_power_kw+(max_power_kw-idle_power_kw)*utilization)*pue"
        "*hours_per_month*electricity_price_per_kwh",
        "{cur}/month",
    )
    derived(
        "energy_idle",
        "Energy a month at idle (every month)",
        "servers*idle_power_kw*pue*hours_per_month*electricity_price_per_kwh",
        "{cur}/month",
    )
    derived(
        "active",
        "Months the work runs in (capped at the horizon, at least 1)",
        "MAX(MIN(active_months,horizon_months),1)",
        "months",
        "0.00",
    )
    derived("active_rows", "Active months in the table", "ROUND(active,0)", "months", "0")
    derived(
        "energy_active",
        "Energy above idle in each active month",
        "(energy-energy_idle)*horizon_months/active",
        "{cur}/month",
    )
    derived(
        "colocation",
        "Colocation: servers × max kW × (1 + facility × (PUE − 1)) × price",
        "servers*max_power_kw*(1+colocation_on_facility_kw*(pue-1))*colocation_per_kw_month",
        "{cur}/month",
    )
    derived("support", "Support: hardware × %/year ÷ 12", "hardware_value*support_pct_per_year/12")
    derived(
        "insurance",
        "Insurance: hardware × %/year ÷ 12",
        "hardware_value*insurance_pct_per_year/12",
    )
    derived("staff", "Staff: FTE × annual cost ÷ 12", "staff_fte*staff_annual_cost/12")
    derived(
        "software",
        "Software: GPUs × per GPU-year ÷ 12",
        "servers*gpus_per_server*software_per_gpu_year/12",
    )
    # tco.engine.costmodel.refresh_plan: bought again in months L, 2L, … before the horizon.
    derived(
        "refreshes",
        "Refreshes within the horizon: ⌈H ÷ L⌉ − 1",
        "MAX(-INT(-(horizon_months/service_life_months-1E-9))-1,0)",
        "purchases",
        "0",
    )
    derived(
        "refresh_purchase",
        "Each refresh buys the fleet again: hardware + installation",
        "hardware_value+servers*installation_per_server",
    )
    derived(
        "refresh_resale",
        "Each refresh sells the old fleet at the residual value",
        "hardware_value*residual_pct",
    )
    derived(
        "residual",
        "Residual value (back in the last month; after a refresh the book value of the last fleet)",
        "hardware_value*IF(refreshes>0,residual_pct+(1-residual_pct)*(1-(horizon_months"
        "-refreshes*service_life_months)/service_life_months),residual_pct)",
    )
    derived(
        "opex_steady",
        "Monthly costs other than the work's extra energy",
        "energy_idle+colocation+support+staff+software+insurance+fixed_monthly",
        "{cur}/month",
    )
    if resell:
        # tco.engine.ownership.buy_run_resell: own the fleet for the run's whole months only,
        # busy for the run, then sell it at the curve's value (linear between years).
        derived(
            "resell_months",
            "Resell: months owned (the run, rounded up)",
            "MAX(1,-INT(-(run_hours/hours_per_month-1E-9)))",
            "months",
            "0",
        )
        derived("resell_years", "Resell: age at sale", "resell_months/12", "years", "0.00")
        derived(
            "resell_index",
            "Resell: whole years of age (on the curve)",
            "MIN(INT(resell_years),COUNT(resale_curve)-1)",
            "years",
            "0",
        )
        derived(
            "resell_fraction",
            "Resell: share of the hardware value got back",
            "IF(resell_index>=COUNT(resale_curve)-1,INDEX(resale_curve,COUNT(resale_curve)),"
            "INDEX(resale_curve,resell_index+1)+(resell_years-resell_index)"
            "*(INDEX(resale_curve,resell_index+2)-INDEX(resale_curve,resell_index+1)))",
            "fraction",
            PERCENT,
        )
        derived(
            "resell_utilization",
            "Resell: utilization while owned",
            "MIN(1,run_hours/(resell_months*hours_per_month))",
            "fraction",
            PERCENT,
        )
        derived(
            "resell_opex",
            "Resell: monthly costs while owned",
            "servers*(idle_power_kw+(max_power_kw-idle_power_kw)*resell_utilization)*pue"
            "*hours_per_month*electricity_price_per_kwh"
            "+colocation+support+staff+software+insurance+fixed_monthly",
            "{cur}/month",
        )
        derived("resell_value", "Resell: sale price", "hardware_value*resell_fraction")
        derived(
            "resell_total",
            "Resell: total (bought cash)",
            'IF(resell_months>=horizon_months,"",upfront+resell_opex*resell_months-resell_value)',
        )
        derived(
            "resell_npv",
            "Resell: NPV",
            f'IF(resell_months>=horizon_months,"",upfront+resell_opex*'
            f"{annuity('month_rate', 'resell_months')}"
            f"-resell_value*(1+month_rate)^(-resell_months))",
        )
    derived("lease_rate_month", "Lease rate per month (nominal ÷ 12)", "lease_annual_rate/12", "")
    derived("lease_term", "Lease term in the table", "ROUND(lease_term_months,0)", "months", "0")
    derived(
        "lease_payment",
        "Lease payment a month: upfront ÷ annuity factor",
        f"upfront/{annuity('lease_rate_month', 'lease_term_months')}",
        "{cur}/month",
    )
    derived("lease_paid", "Lease payments within the horizon", "MIN(lease_term,horizon_months)")
    derived(
        "lease_payoff",
        "Lease balance paid off at the horizon",
        f"IF(lease_paid>=lease_term,0,lease_payment*"
        f"{annuity('lease_rate_month', 'lease_term-lease_paid')})",
    )
    derived(
        "onprem_fixed_total",
        "On-prem total at 0 % utilization (break-even line A)",
        "IF(leased>=0.5,lease_payment*lease_paid+lease_payoff,upfront)"
        "+opex_steady*horizon_months+refreshes*(refresh_purchase-refresh_resale)-residual",
    )
    derived(
        "onprem_slope_total",
        "On-prem total per unit of utilization (line B)",
        "servers*(max_power_kw-idle_power_kw)*pue*hours_per_month*electricity_price_per_kwh"
        "*horizon_months",
    )
    for k, _cloud in enumerate(clouds, start=1):
        c = f"cloud{k}_"
        derived(
            f"{c}price",
            f"Option {k}: price per instance-hour × scale",
            f"{c}price_per_instance_hour*cloud_price_scale",
            "{cur}/h",
            NUMBER,
        )
        derived(
            f"{c}instances",
            f"Option {k}: instances (rounded up)",
            f"-INT(-(servers*gpus_per_server*{c}fleet_ratio/{c}gpus_per_instance-1E-9))",
            "instances",
            "0",
        )
        derived(
            f"{c}hours_at_full",
            f"Option {k}: instance-hours used at 100 % utilization over the horizon",
            f"servers*gpus_per_server*{c}work_ratio/{c}gpus_per_instance*hours_per_month"
            f"*horizon_months*{c}usage_multiplier",
            "h",
            NUMBER,
        )
        derived(
            f"{c}usage_total",
            f"Option {k}: billed by use over the horizon",
            f"(1-{c}committed)*{c}hours_at_full*({c}always_on+(1-{c}always_on)*utilization)"
            f"*{c}price",
        )
        derived(
            f"{c}committed_monthly",
            f"Option {k}: commitment a month",
            f"{c}committed*{c}instances*hours_per_month*{c}price",
            "{cur}/month",
        )
        derived(
            f"{c}committed_months",
            f"Option {k}: months of commitment bought",
            f"{c}committed*(whole_terms*MAX({c}term_months,1)*-INT(-(active/MAX({c}term_months,1)"
            f"-1E-9))+(1-whole_terms)*horizon_months)",
            "months",
            "0.00",
        )
        derived(
            f"{c}paid",
            f"Option {k}: commitment months within the horizon",
            f"MIN(ROUND({c}committed_months,0),horizon_months)",
            "months",
            "0",
        )
        derived(
            f"{c}fixed_total",
            f"Option {k}: total at 0 % utilization (break-even line C)",
            f"({c}committed_monthly*{c}committed_months+(1-{c}committed)*{c}always_on"
            f"*{c}hours_at_full*{c}price)*(1+{c}uplift_pct)",
        )
        derived(
            f"{c}slope_total",
            f"Option {k}: total per unit of utilization (line D)",
            f"(1-{c}committed)*(1-{c}always_on)*{c}hours_at_full*{c}price*(1+{c}uplift_pct)",
        )
        derived(
            f"{c}break_even_u",
            f"Option {k}: break-even utilization (A − C) ÷ (D − B)",
            f'IF({c}slope_total-onprem_slope_total=0,"",(onprem_fixed_total-{c}fixed_total)'
            f"/({c}slope_total-onprem_slope_total))",
            "fraction",
            PERCENT,
        )
    if timed:
        # tco.engine.capacity.plan_capacity, for buying and keeping the fleet.
        derived(
            "ready_days",
            "Ready: max(stock covers the fleet ? 0 : lead time × 7, site readiness × 7) + "
            "installation",
            "MAX(IF(units_in_stock>=servers,0,lead_time_weeks*7),site_readiness_weeks*7)"
            "+install_days",
            "days",
            "0.0",
        )
        derived("late_days", "Late: ready − needed", "MAX(0,ready_days-needed_in_days)", "days")
        derived(
            "bridge_gap_days",
            "Bridged days: ready − max(needed, bridge cloud ready)",
            "bridging*MAX(0,ready_days-MAX(needed_in_days,bridge_ready_days))",
            "days",
            "0.0",
        )
        derived(
            "bridge_hours",
            "Bridge hours per instance: every hour held (a one-off run at most its length), "
            "at least the minimum days",
            "IF(bridge_gap_days>0,MAX(IF(bridge_max_hours>0,MIN(bridge_gap_days*24,"
            "bridge_max_hours),bridge_gap_days*24),bridge_minimum_days*24),0)",
            "h",
            NUMBER,
        )
        derived(
            "bridge_cost",
            "Bridge: instances × hours × price per instance-hour",
            "bridge_instances*bridge_hours*bridge_price_per_instance_hour",
        )
        derived(
            "delay_cost",
            "Cost of delay: weeks late (not bridged) × cost per week",
            "(1-ruled_out)*IF(bridging>0,MIN(late_days,MAX(0,bridge_ready_days-needed_in_days)),"
            "late_days)/7*cost_of_delay_per_week",
        )
        derived("time_cost", "Time to capacity: bridge + delay (month 0)", "bridge_cost+delay_cost")
    calc.freeze_panes = "B2"
    for col_letter, width in zip("ABCDE", (70, 18, 16, 90, 26), strict=True):
        calc.column_dimensions[col_letter].width = width

    # --- Cash flow ----------------------------------------------------------------------
    on_cols = [
        (
            "Hardware",
            "IF(AND({m}=0,leased<0.5),upfront,0)+IF(AND({m}>0,{m}<=refreshes*service_life_months,"
            "MOD({m},service_life_months)=0),refresh_purchase,0)",
        ),
        (
            "Lease",
            "IF(AND(leased>=0.5,{m}>=1,{m}<=lease_paid),lease_payment,0)"
            "+IF(AND(leased>=0.5,{m}=horizon_months),lease_payoff,0)",
        ),
        (
            "Energy",
            "IF(AND({m}>=1,{m}<=horizon_months),energy_idle+IF({m}<=active_rows,energy_active,0),0)",
        ),
        ("Colocation", "IF(AND({m}>=1,{m}<=horizon_months),colocation,0)"),
        ("Support", "IF(AND({m}>=1,{m}<=horizon_months),support,0)"),
        ("Staff", "IF(AND({m}>=1,{m}<=horizon_months),staff,0)"),
        ("Software", "IF(AND({m}>=1,{m}<=horizon_months),software,0)"),
        ("Insurance", "IF(AND({m}>=1,{m}<=horizon_months),insurance,0)"),
        ("Fixed fees", "IF(AND({m}>=1,{m}<=horizon_months),fixed_monthly,0)"),
        (
            "Residual",
            "IF({m}=horizon_months,-residual,0)-IF(AND({m}>0,{m}<=refreshes*service_life_months,"
            "MOD({m},service_life_months)=0),refresh_resale,0)",
        ),
    ]
    if timed:
        on_cols.append(("Time to capacity", "IF({m}=0,time_cost,0)"))
    first = 3  # month 0 is on row 3
    last = first + months
    on_prem = _("On-prem: %(column)s")
    titles = [_("Month")] + [on_prem % {"column": _tr(t)} for t, _f in on_cols]
    titles += [on_prem % {"column": _tr(t)} for t in ("total", "cumulative")]
    on_total_col = len(on_cols) + 2
    on_cum_col = on_total_col + 1
    cloud_cols: list[dict[str, int]] = []
    col = on_cum_col + 1
    for cloud in clouds:
        cloud_cols.append(
            {"compute": col, "uplift": col + 1, "total": col + 2, "cum": col + 3, "gap": col + 4}
        )
        titles += [
            f"{cloud_label(cloud.name)}: {_tr(t)}"
            for t in (
                "compute",
                "storage and egress",
                "total",
                "cumulative",
                "cumulative cloud − on-prem",
                "on-prem paid back (month)",
            )
        ]
        col += 6
    flow.cell(
        row=1,
        column=1,
        value=_("Monthly cash flows in %(currency)s; month 0 is the purchase") % {"currency": cur},
    )
    flow.cell(row=1, column=1).font = BOLD
    _header(flow, 2, titles)
    letter = get_column_letter
    for m in range(months + 1):
        r = first + m
        flow.cell(row=r, column=1, value=m)
        month_ref = f"$A{r}"
        for j, (_title, formula) in enumerate(on_cols, start=2):
            flow.cell(row=r, column=j, value="=" + formula.replace("{m}", month_ref))
        flow.cell(row=r, column=on_total_col, value=f"=SUM(B{r}:{letter(on_total_col - 1)}{r})")
        previous = f"+{letter(on_cum_col)}{r - 1}" if m else ""
        flow.cell(row=r, column=on_cum_col, value=f"={letter(on_total_col)}{r}{previous}")
        for k, cols in enumerate(cloud_cols, start=1):
            c = f"cloud{k}_"
            compute = (
                f"=IF(AND({month_ref}>=1,{month_ref}<=horizon_months),"
                f"IF({month_ref}<=active_rows,{c}usage_total/active,0)"
                f"+IF({month_ref}<={c}paid,{c}committed_monthly,0)"
                f"+IF({month_ref}=horizon_months,{c}committed_monthly"
                f"*MAX({c}committed_months-{c}paid,0),0),0)"
            )
            flow.cell(row=r, column=cols["compute"], value=compute)
            flow.cell(
                row=r, column=cols["uplift"], value=f"={letter(cols['compute'])}{r}*{c}uplift_pct"
            )
            flow.cell(
                row=r,
                column=cols["total"],
                value=f"={letter(cols['compute'])}{r}+{letter(cols['uplift'])}{r}",
            )
            prev = f"+{letter(cols['cum'])}{r - 1}" if m else ""
            flow.cell(row=r, column=cols["cum"], value=f"={letter(cols['total'])}{r}{prev}")
            flow.cell(
                row=r,
                column=cols["gap"],
                value=f"={letter(cols['cum'])}{r}-{letter(on_cum_col)}{r}",
            )
            flow.cell(
                row=r,
                column=cols["gap"] + 1,
                value=f"=IF(AND({month_ref}>=1,{month_ref}<=horizon_months,"
                f'{letter(cols["gap"])}{r}>=0),{month_ref},"")',
            )
        for j in range(2, col):
            flow.cell(row=r, column=j).number_format = MONEY
        for cols in cloud_cols:
            flow.cell(row=r, column=cols["gap"] + 1).number_format = "0"
    flow.freeze_panes = "B3"
    flow.column_dimensions["A"].width = 8
    for j in range(2, col):
        flow.column_dimensions[letter(j)].width = 16

    def column_range(column: int, start: int, end: int) -> str:
        return f"{quote_sheetname(flow.title)}!${letter(column)}${start}:${letter(column)}${end}"

    # --- Summary ----------------------------------------------------------------------
    _text(summary["A1"], title or _("GPU TCO model"))
    summary["A1"].font = Font(bold=True, size=14)
    summary["A2"] = _("Verdict (from the engine when this file was made):")
    # The page's headline, in the reader's language (tco.presentation.wording).
    report = build_report(result)
    _text(summary["B2"], verdict_headline(report.verdict, cur))
    # The site's decision, the bridge and its risk, an idle fleet: as the page says them.
    notes = verdict_notes(report)
    if notes:
        summary["A4"] = _("Read with the verdict:")
        _text(summary["B4"], " ".join(notes))
    summary["A3"] = _(
        "Every figure below is a formula over the %(sheet)s sheet: change an input and it follows."
    ) % {"sheet": inputs.title}
    _header(
        summary,
        5,
        [
            _("Option"),
            _("Total (%(currency)s)") % {"currency": cur},
            _("NPV (%(currency)s)") % {"currency": cur},
            _("Payback month"),
            _("Break-even month"),
            _("Break-even utilization"),
        ],
    )
    month0, month1 = first, first + 1
    summary["A6"] = _("Own (buy and keep)")
    summary["B6"] = f"=SUM({column_range(on_total_col, first, last)})"
    summary["C6"] = (
        f"={column_range(on_total_col, month0, month0).split(':')[0]}"
        f"+NPV(month_rate,{column_range(on_total_col, month1, last)})"
    )
    names.add("onprem_total", summary, "B6")
    names.add("onprem_npv", summary, "C6")
    for k, (cloud, cols) in enumerate(zip(clouds, cloud_cols, strict=True), start=1):
        r = 6 + k
        flags = column_range(cols["gap"] + 1, first, last)
        gaps = column_range(cols["gap"], first, last)
        _text(summary.cell(row=r, column=1), cloud_label(cloud.name))
        summary.cell(row=r, column=2, value=f"=SUM({column_range(cols['total'], first, last)})")
        summary.cell(
            row=r,
            column=3,
            value=f"={column_range(cols['total'], month0, month0).split(':')[0]}"
            f"+NPV(month_rate,{column_range(cols['total'], month1, last)})",
        )
        summary.cell(row=r, column=4, value=f'=IF(COUNT({flags})=0,"",MIN({flags}))')
        # Fractional: linear between month ends, as tco.engine.finance.break_even_month.
        before = f"INDEX({gaps},D{r})"  # the gap of month D−1 (row D of a range from month 0)
        after = f"INDEX({gaps},D{r}+1)"
        summary.cell(
            row=r,
            column=5,
            value=f'=IF(D{r}="","",IF(OR({before}>=0,{after}={before}),D{r},'
            f"D{r}-1+(-{before})/({after}-{before})))",
        )
        # As the page words it (tco.presentation.wording.break_even_cell): a utilization within
        # 0-100 %, else "always" when owning wins at every utilization, "none" when it never
        # does (a commitment's (A − C) ÷ (D − B) is no utilization: 2,604 %).
        u, own_slope, rent_slope = (
            f"cloud{k}_break_even_u",
            "onprem_slope_total",
            f"cloud{k}_slope_total",
        )
        summary.cell(
            row=r,
            column=6,
            value=f"=IF(ISNUMBER({u}),IF(AND({u}>0,{u}<1),{u},"
            f"IF(OR(AND({own_slope}>{rent_slope},{u}>=1),AND({own_slope}<{rent_slope},{u}<=0)),"
            f'"{_formula_text(_("always"))}","{_formula_text(_("none"))}")),'
            f'"{_formula_text(_("none"))}")',
        )
        names.add(f"cloud{k}_total", summary, f"B{r}")
        names.add(f"cloud{k}_npv", summary, f"C{r}")
        names.add(f"cloud{k}_payback_month", summary, f"D{r}")
        names.add(f"cloud{k}_break_even_month", summary, f"E{r}")
    end = 6 + len(clouds)
    if resell:
        end += 1
        summary.cell(row=end, column=1, value=_("Buy, run and resell"))
        summary.cell(row=end, column=2, value="=resell_total")
        summary.cell(row=end, column=3, value="=resell_npv")
    for r in range(6, end + 1):
        for column, fmt in ((2, MONEY), (3, MONEY), (4, "0"), (5, "0.00"), (6, PERCENT)):
            summary.cell(row=r, column=column).number_format = fmt
    summary.cell(row=end + 2, column=1, value=_("Cheapest option (nominal total):")).font = BOLD
    summary.cell(
        row=end + 2, column=2, value=f"=INDEX(A6:A{end},MATCH(MIN(B6:B{end}),B6:B{end},0))"
    )
    summary.freeze_panes = "A6"
    for col_letter, width in zip("ABCDEF", (48, 20, 20, 16, 18, 22), strict=True):
        summary.column_dimensions[col_letter].width = width

    chart = LineChart()
    chart.title = _("Cumulative cost (%(currency)s)") % {"currency": cur}
    chart.x_axis.title = _("Month")
    chart.y_axis.title = cur
    chart.height, chart.width = 9, 20
    chart_end = first + horizon
    for column in [on_cum_col, *(cols["cum"] for cols in cloud_cols)]:
        data = Reference(flow, min_col=column, min_row=2, max_row=chart_end)
        chart.add_data(data, titles_from_data=True)
    chart.set_categories(Reference(flow, min_col=1, min_row=first, max_row=chart_end))
    summary.add_chart(chart, f"A{end + 5}")

    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def _time_inputs(result: ScenarioResult) -> list[tuple[str, str, float, str, str]]:
    """The inputs of buying's time to capacity (lead time, stock, need date, the bridge's
    cloud and price); none without the scenario's capacity block."""
    from tco.engine.capacity import LatePolicy
    from tco.engine.scenario import OWN_NAME

    plan = result.capacity
    timing = plan.timing(OWN_NAME) if plan is not None else None
    if plan is None or timing is None:
        return []
    i = plan.inputs
    server = result.scenario.server
    bridge = plan.bridge_cloud
    bridging = i.if_late is LatePolicy.BRIDGE and bridge is not None
    instances = timing.bridge.instances if timing.bridge else (bridge.instances if bridge else 0)
    return [
        (
            "lead_time_weeks",
            "Server lead time when the stock is short",
            server.lead_time_weeks,
            "weeks",
            "0.0",
        ),
        ("units_in_stock", "Servers in stock", float(server.units_in_stock or 0), "servers", "0"),
        ("install_days", "Installation and burn-in", i.install_days, "days", "0.0"),
        ("site_readiness_weeks", "Site readiness", i.site_readiness_weeks, "weeks", "0.0"),
        (
            "needed_in_days",
            "Capacity needed within",
            i.needed_day if i.needed_in_days is not None else 1e6,
            "days",
            "0.0",
        ),
        ("bridging", "Bridge a late fleet (1) or not (0)", 1.0 if bridging else 0.0, "", "0"),
        (
            "ruled_out",
            "A late fleet is ruled out (1) or not (0)",
            1.0 if i.if_late is LatePolicy.RULE_OUT else 0.0,
            "",
            "0",
        ),
        (
            "bridge_ready_days",
            _("Bridge cloud ready (%(cloud)s)") % {"cloud": bridge.name if bridge else "–"},
            bridge.ready_in_days if bridge else 0.0,
            "days",
            "0.0",
        ),
        ("bridge_instances", "Bridge instances", float(instances), "instances", "0"),
        (
            "bridge_price_per_instance_hour",
            "Bridge price per instance-hour",
            bridge.price_per_instance_hour if bridge else 0.0,
            "{cur}/h",
            NUMBER,
        ),
        (
            "bridge_minimum_days",
            "Bridge: days paid however short (a capacity block's minimum, a term whole)",
            bridge.minimum_days if bridge else 0.0,
            "days",
            "0.0",
        ),
        (
            "bridge_max_hours",
            "Bridge: at most the one-off run (0: no limit)",
            plan.run_hours or 0.0,
            "h",
            NUMBER,
        ),
        (
            "cost_of_delay_per_week",
            "Cost of delay per week",
            i.cost_of_delay_per_week,
            "{cur}/week",
            MONEY,
        ),
    ]


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
    for name in ("servers", "utilization", "active_months", "whole_terms"):
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
