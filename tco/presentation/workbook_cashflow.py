"""The workbook's *Cash flow* sheet (tco/presentation/workbook.py): months 0..N for
on-prem and each cloud option, with cumulative sums (rows beyond the horizon are zero, so
a shorter or longer horizon, up to the rows written, also works)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from openpyxl.utils import get_column_letter as letter
from openpyxl.utils import quote_sheetname
from openpyxl.worksheet.worksheet import Worksheet

from tco.presentation.wording import cloud_label
from tco.presentation.workbook_cells import BOLD, MONEY, header, tr
from tco.presentation.workbook_inputs import WorkbookInputs

MIN_ROWS_MONTHS = 120  # cash-flow rows written at least (months 0..N)
FIRST = 3  # month 0 is on row 3

# On-prem's columns: (title, formula of month {m}).
ONPREM_COLUMNS: tuple[tuple[str, str], ...] = (
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
)

TIME_COLUMN = ("Time to capacity", "IF({m}=0,time_cost,0)")
CLOUD_TITLES = (
    "compute",
    "storage and egress",
    "total",
    "cumulative",
    "cumulative cloud − on-prem",
    "on-prem paid back (month)",
)


@dataclass(frozen=True)
class CloudColumns:
    """Where a cloud option's columns are: compute, uplift, total, cumulative, the gap to
    on-prem's cumulative, and the month on-prem has paid back in (gap + 1)."""

    compute: int
    uplift: int
    total: int
    cum: int
    gap: int


@dataclass(frozen=True)
class CashFlow:
    """The Cash flow sheet's layout, for the Summary's formulas and chart."""

    sheet: Worksheet
    months: int  # the last month written
    onprem: tuple[tuple[str, str], ...]  # on-prem's cost columns from B: (title, formula)
    clouds: tuple[CloudColumns, ...] = field(default=())

    @property
    def last(self) -> int:
        return FIRST + self.months

    @property
    def on_total(self) -> int:
        return len(self.onprem) + 2

    @property
    def on_cum(self) -> int:
        return self.on_total + 1

    @property
    def end(self) -> int:
        """The first column after the last option's."""
        return self.on_cum + 1 + 6 * len(self.clouds)

    def column_range(self, column: int, start: int, end: int) -> str:
        return (
            f"{quote_sheetname(self.sheet.title)}!${letter(column)}${start}:${letter(column)}${end}"
        )


def cash_flow_layout(sheet: Worksheet, inputs: WorkbookInputs) -> CashFlow:
    onprem = ONPREM_COLUMNS + ((TIME_COLUMN,) if inputs.time_to_capacity else ())
    start = len(onprem) + 4  # after Month, on-prem's columns, its total and cumulative
    clouds = tuple(
        CloudColumns(col, col + 1, col + 2, col + 3, col + 4)
        for col in range(start, start + 6 * len(inputs.clouds), 6)
    )
    return CashFlow(sheet, max(MIN_ROWS_MONTHS, inputs.horizon), onprem, clouds)


def write_cash_flow(sheet: Worksheet, inputs: WorkbookInputs, currency: str) -> CashFlow:
    """The Cash flow sheet: its titles and a row of formulas for each month."""
    flow = cash_flow_layout(sheet, inputs)
    on_prem = _("On-prem: %(column)s")
    titles = [_("Month")] + [on_prem % {"column": tr(t)} for t, _f in flow.onprem]
    titles += [on_prem % {"column": tr(t)} for t in ("total", "cumulative")]
    for cloud in inputs.clouds:
        titles += [f"{cloud_label(cloud.name)}: {tr(t)}" for t in CLOUD_TITLES]
    sheet.cell(
        row=1,
        column=1,
        value=_("Monthly cash flows in %(currency)s; month 0 is the purchase")
        % {"currency": currency},
    )
    sheet.cell(row=1, column=1).font = BOLD
    header(sheet, 2, titles)
    for m in range(flow.months + 1):
        write_month(flow, m)
    sheet.freeze_panes = "B3"
    sheet.column_dimensions["A"].width = 8
    for j in range(2, flow.end):
        sheet.column_dimensions[letter(j)].width = 16
    return flow


def write_month(flow: CashFlow, m: int) -> None:
    """Month m's row: on-prem's costs, total and cumulative, then each cloud option's."""
    sheet, r = flow.sheet, FIRST + m
    sheet.cell(row=r, column=1, value=m)
    month_ref = f"$A{r}"
    for j, (_title, formula) in enumerate(flow.onprem, start=2):
        sheet.cell(row=r, column=j, value="=" + formula.replace("{m}", month_ref))
    sheet.cell(row=r, column=flow.on_total, value=f"=SUM(B{r}:{letter(flow.on_total - 1)}{r})")
    previous = f"+{letter(flow.on_cum)}{r - 1}" if m else ""
    sheet.cell(row=r, column=flow.on_cum, value=f"={letter(flow.on_total)}{r}{previous}")
    for k, cols in enumerate(flow.clouds, start=1):
        write_cloud_month(flow, cols, k, m)
    for j in range(2, flow.end):
        sheet.cell(row=r, column=j).number_format = MONEY
    for cols in flow.clouds:
        sheet.cell(row=r, column=cols.gap + 1).number_format = "0"


def write_cloud_month(flow: CashFlow, cols: CloudColumns, k: int, m: int) -> None:
    """The k-th cloud option's cells of month m (tco.engine.cloud: by use in the active
    months, a commitment's months paid, the rest of a term at the horizon)."""
    sheet, r = flow.sheet, FIRST + m
    month_ref = f"$A{r}"
    c = f"cloud{k}_"
    compute = (
        f"=IF(AND({month_ref}>=1,{month_ref}<=horizon_months),"
        f"IF({month_ref}<=active_rows,{c}usage_total/active,0)"
        f"+IF({month_ref}<={c}paid,{c}committed_monthly,0)"
        f"+IF({month_ref}=horizon_months,{c}committed_monthly"
        f"*MAX({c}committed_months-{c}paid,0),0),0)"
    )
    sheet.cell(row=r, column=cols.compute, value=compute)
    sheet.cell(row=r, column=cols.uplift, value=f"={letter(cols.compute)}{r}*{c}uplift_pct")
    sheet.cell(
        row=r,
        column=cols.total,
        value=f"={letter(cols.compute)}{r}+{letter(cols.uplift)}{r}",
    )
    prev = f"+{letter(cols.cum)}{r - 1}" if m else ""
    sheet.cell(row=r, column=cols.cum, value=f"={letter(cols.total)}{r}{prev}")
    sheet.cell(row=r, column=cols.gap, value=f"={letter(cols.cum)}{r}-{letter(flow.on_cum)}{r}")
    sheet.cell(
        row=r,
        column=cols.gap + 1,
        value=f"=IF(AND({month_ref}>=1,{month_ref}<=horizon_months,"
        f'{letter(cols.gap)}{r}>=0),{month_ref},"")',
    )
