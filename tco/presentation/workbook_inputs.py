"""The workbook's *Inputs* sheet (tco/presentation/workbook.py) and the typed inputs it
writes: the engine's cost model at full precision, the one-off run a fleet is bought for
and resold after, and the inputs of buying's time to capacity."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _
from openpyxl.worksheet.worksheet import Worksheet

from tco.engine.costmodel import CloudCostParams, CostModel
from tco.engine.units import HOURS_PER_MONTH
from tco.presentation.wording import cloud_label
from tco.presentation.workbook_cells import (
    BOLD,
    INPUT_FILL,
    MONEY,
    NUMBER,
    PERCENT,
    RESALE,
    SCENARIO,
    Names,
    Provenance,
    header,
    text,
    tr,
    unit,
    widths,
)

if TYPE_CHECKING:
    from tco.engine import ScenarioResult

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
    (
        "rented_work_scale",
        "Work demanded per unit of work the owned fleet does (above 1: runs exceed the fleet)",
        "factor",
        NUMBER,
    ),
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

# An input the workbook writes beside the cost model's: (name, label, value, unit, format).
Input = tuple[str, str, float, str, str]


@dataclass(frozen=True)
class WorkbookInputs:
    """What the workbook's formulas start from, at the engine's full precision (the report
    rounds its figures; the workbook must reproduce the engine's to the cent)."""

    model: CostModel  # the flattened cost inputs (tco/engine/costmodel.py)
    run_hours: float | None = None  # a one-off run bought, run and resold; else None
    resale_curve: tuple[float, ...] = ()  # resale value by age, with run_hours
    time_to_capacity: tuple[Input, ...] = field(default=())  # buying's, when planned

    @property
    def clouds(self) -> tuple[CloudCostParams, ...]:
        return self.model.clouds

    @property
    def horizon(self) -> int:
        return round(float(self.model.horizon_months))


def workbook_inputs(result: ScenarioResult) -> WorkbookInputs:
    """The workbook's inputs of an engine result."""
    run_hours = result.demand.run_hours
    resell = result.resell is not None and bool(run_hours)
    return WorkbookInputs(
        model=result.cost_model,
        run_hours=run_hours if resell else None,
        resale_curve=tuple(float(v) for v in result.scenario.finance.resale_by_year)
        if resell
        else (),
        time_to_capacity=tuple(time_inputs(result)),
    )


@dataclass
class InputRows:
    """The Inputs sheet's rows, written one after the other, each input a defined name."""

    sheet: Worksheet
    names: Names
    provenance: dict[str, Provenance]
    currency: str
    row: int = 2

    def add(
        self,
        name: str,
        label: str,
        value: float,
        unit_name: str,
        fmt: str,
        default: Provenance = SCENARIO,
    ) -> None:
        sheet, row = self.sheet, self.row
        where = self.provenance.get(name, default)
        text(sheet.cell(row=row, column=1), label)  # may start with a cloud option's name
        # (translated by the caller)
        cell = sheet.cell(row=row, column=2, value=value)
        cell.number_format = fmt
        cell.fill = INPUT_FILL
        sheet.cell(row=row, column=3, value=unit(unit_name, self.currency))
        text(sheet.cell(row=row, column=4), str(where.source))
        as_of = sheet.cell(row=row, column=5, value=where.as_of)
        as_of.number_format = "yyyy-mm-dd"
        sheet.cell(row=row, column=6, value=_("estimate") if where.is_estimate else "")
        sheet.cell(row=row, column=7, value=name)
        self.names.add(name, sheet, f"B{row}")
        self.row += 1

    def heading(self, title: str) -> None:
        """A bold line above a group of inputs, after an empty one."""
        self.row += 1
        text(self.sheet.cell(row=self.row, column=1), title).font = BOLD
        self.row += 1


def write_inputs(rows: InputRows, inputs: WorkbookInputs) -> None:
    """The Inputs sheet: the cost model's inputs, the resale curve of a one-off run, each
    cloud option's and the time to capacity's, each with its unit, source and date."""
    titles = ("Input", "Value", "Unit", "Source", "As of", "Estimate", "Name")
    header(rows.sheet, 1, [tr(t) for t in titles])
    model = inputs.model
    for name, label, unit_name, fmt in MODEL_INPUTS:
        rows.add(name, tr(label), float(getattr(model, name)), unit_name, fmt)
    rows.add("hours_per_month", tr("Hours in a month (8,760 / 12)"), HOURS_PER_MONTH, "h", "0")
    if inputs.run_hours is not None:
        write_resale(rows, inputs.run_hours, inputs.resale_curve)
    for k, cloud in enumerate(inputs.clouds, start=1):
        rows.heading(_("Cloud option %(k)s: %(name)s") % {"k": k, "name": cloud_label(cloud.name)})
        for name, label, unit_name, fmt in CLOUD_INPUTS:
            value = float(getattr(cloud, name))
            rows.add(
                f"cloud{k}_{name}", f"{cloud_label(cloud.name)}: {tr(label)}", value, unit_name, fmt
            )
    if inputs.time_to_capacity:
        rows.heading(_("Time to capacity (buy and keep)"))
        for name, label, value, unit_name, fmt in inputs.time_to_capacity:
            rows.add(name, tr(label), value, unit_name, fmt)
    rows.sheet.freeze_panes = "B2"
    widths(rows.sheet, (58, 16, 26, 60, 12, 10, 30))


def write_resale(rows: InputRows, run_hours: float, curve: tuple[float, ...]) -> None:
    """Buy, run and resell: the run's length and the resale value by age (a named range)."""
    rows.heading(_("Buy, run and resell"))
    rows.add("run_hours", tr("Length of the one-off run"), run_hours, "h", NUMBER)
    curve_start = rows.row
    for year, value in enumerate(curve):
        rows.add(
            f"resale_year_{year}",
            _("Resale value at %(years)s years of age") % {"years": year},
            value,
            "fraction of hardware value",
            PERCENT,
            default=RESALE,
        )
    rows.names.add_range("resale_curve", rows.sheet, f"B{curve_start}", f"B{rows.row - 1}")


def time_inputs(result: ScenarioResult) -> list[Input]:
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
