"""The workbook's *Model* sheet (tco/presentation/workbook.py): the per-month amounts and
the break-even lines as formulas over the Inputs sheet's names, each written to reproduce
tco/engine/costmodel.py, onprem.py, cloud.py, ownership.py and capacity.py."""

from __future__ import annotations

from dataclasses import dataclass

from openpyxl.worksheet.worksheet import Worksheet

from tco.presentation.workbook_cells import (
    MONEY,
    NUMBER,
    PERCENT,
    Names,
    header,
    tr,
    unit,
    widths,
)
from tco.presentation.workbook_inputs import WorkbookInputs


@dataclass
class Derived:
    """The Model sheet's rows, written one after the other, each amount a defined name."""

    sheet: Worksheet
    names: Names
    currency: str
    row: int = 2

    def __call__(
        self, name: str, label: str, formula: str, unit_name: str = "{cur}", fmt: str = MONEY
    ) -> None:
        sheet, row = self.sheet, self.row
        sheet.cell(row=row, column=1, value=tr(label))
        cell = sheet.cell(row=row, column=2, value=f"={formula}")
        cell.number_format = fmt
        sheet.cell(row=row, column=3, value=unit(unit_name, self.currency))
        sheet.cell(row=row, column=4, value=formula)
        sheet.cell(row=row, column=5, value=name)
        self.names.add(name, sheet, f"B{row}")
        self.row += 1


def annuity(rate: str, n: str) -> str:
    return f"IF({rate}>1E-12,(1-(1+{rate})^(-({n})))/{rate},{n})"


def write_model(sheet: Worksheet, names: Names, currency: str, inputs: WorkbookInputs) -> None:
    """The Model sheet: the owned fleet's amounts, buy-run-resell's for a one-off run, the
    lease and break-even lines, each cloud option's, and the time to capacity's."""
    header(sheet, 1, [tr(t) for t in ("Quantity", "Value", "Unit", "Formula", "Name")])
    derived = Derived(sheet, names, currency)
    owned_amounts(derived)
    refresh_amounts(derived)
    if inputs.run_hours is not None:
        resell_amounts(derived)
    lease_amounts(derived)
    for k in range(1, len(inputs.clouds) + 1):
        cloud_amounts(derived, k)
    if inputs.time_to_capacity:
        time_amounts(derived)
    sheet.freeze_panes = "B2"
    widths(sheet, (70, 18, 16, 90, 26))


def owned_amounts(derived: Derived) -> None:
    """The owned fleet: its value, upfront, energy and monthly costs."""
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


def refresh_amounts(derived: Derived) -> None:
    """Refreshes within the horizon, the residual value and the steady monthly costs."""
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


def resell_amounts(derived: Derived) -> None:
    """Buy, run and resell: own the fleet for the one-off run, then sell it."""
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


def lease_amounts(derived: Derived) -> None:
    """The lease's payments and payoff, and the owned fleet's break-even lines."""
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


def cloud_amounts(derived: Derived, k: int) -> None:
    """The k-th cloud option (from 1): its price, instances, billed hours, commitments and
    break-even lines."""
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
        f"(1-{c}committed)*{c}hours_at_full"
        f"*({c}always_on+(1-{c}always_on)*utilization*rented_work_scale)*{c}price",
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
        f"(1-{c}committed)*(1-{c}always_on)*{c}hours_at_full*rented_work_scale*{c}price"
        f"*(1+{c}uplift_pct)",
    )
    derived(
        f"{c}break_even_u",
        f"Option {k}: break-even utilization (A − C) ÷ (D − B)",
        f'IF({c}slope_total-onprem_slope_total=0,"",(onprem_fixed_total-{c}fixed_total)'
        f"/({c}slope_total-onprem_slope_total))",
        "fraction",
        PERCENT,
    )


def time_amounts(derived: Derived) -> None:
    """Buying's time to capacity: ready and late days, the bridge and the cost of delay."""
    # tco.engine.capacity.plan_capacity, for buying and keeping the fleet.
    derived(
        "ready_days",
        "Ready: max(stock covers the fleet ? 0 : lead time × 7, site readiness × 7) + installation",
        "MAX(IF(units_in_stock>=servers,0,lead_time_weeks*7),site_readiness_weeks*7)+install_days",
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
