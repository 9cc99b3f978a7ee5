"""The workbook's *Summary* sheet (tco/presentation/workbook.py): totals, NPV (month 0 plus
Excel's ``NPV()`` over months 1..N, since ``NPV()`` discounts its first value by one
period), payback month, fractional break-even month, break-even utilization, a chart, and
the verdict's headline as the page words it when the file was made."""

from __future__ import annotations

from django.utils.translation import gettext as _
from openpyxl.chart import LineChart, Reference
from openpyxl.styles import Font
from openpyxl.worksheet.worksheet import Worksheet

from tco.presentation.wording import cloud_label, verdict_headline
from tco.presentation.wording_verdict import verdict_notes
from tco.presentation.workbook_cashflow import FIRST, CashFlow, CloudColumns
from tco.presentation.workbook_cells import (
    BOLD,
    MONEY,
    PERCENT,
    Names,
    formula_text,
    header,
    text,
    widths,
)
from tco.presentation.workbook_inputs import WorkbookInputs
from tco.report import Report

FIRST_OPTION = 6  # the Summary's row of the first option (buying)


def write_summary(
    summary: Worksheet,
    report: Report,
    inputs: WorkbookInputs,
    flow: CashFlow,
    names: Names,
    *,
    title: str | None,
    inputs_sheet: str,
) -> None:
    """The Summary sheet: the verdict as the page says it, a row of formulas for each
    option, the cheapest one, and the cumulative cost chart."""
    cur = report.currency
    write_verdict(summary, report, title=title, inputs_sheet=inputs_sheet)
    write_onprem_row(summary, flow, names)
    for k, (cloud, cols) in enumerate(zip(inputs.clouds, flow.clouds, strict=True), start=1):
        text(summary.cell(row=FIRST_OPTION + k, column=1), cloud_label(cloud.name))
        write_cloud_row(summary, flow, cols, k, names)
    end = FIRST_OPTION + len(inputs.clouds)
    if inputs.run_hours is not None:
        end += 1
        summary.cell(row=end, column=1, value=_("Buy, run and resell"))
        summary.cell(row=end, column=2, value="=resell_total")
        summary.cell(row=end, column=3, value="=resell_npv")
    for r in range(FIRST_OPTION, end + 1):
        for column, fmt in ((2, MONEY), (3, MONEY), (4, "0"), (5, "0.00"), (6, PERCENT)):
            summary.cell(row=r, column=column).number_format = fmt
    summary.cell(row=end + 2, column=1, value=_("Cheapest option (nominal total):")).font = BOLD
    summary.cell(
        row=end + 2, column=2, value=f"=INDEX(A6:A{end},MATCH(MIN(B6:B{end}),B6:B{end},0))"
    )
    summary.freeze_panes = "A6"
    widths(summary, (48, 20, 20, 16, 18, 22))
    summary.add_chart(cumulative_chart(flow, cur, inputs.horizon), f"A{end + 5}")


def write_verdict(
    summary: Worksheet, report: Report, *, title: str | None, inputs_sheet: str
) -> None:
    """The title, the page's headline and what to read with it, and the options' header."""
    cur = report.currency
    text(summary["A1"], title or _("GPU TCO model"))
    summary["A1"].font = Font(bold=True, size=14)
    summary["A2"] = _("Verdict (from the engine when this file was made):")
    # The page's headline, in the reader's language (tco.presentation.wording).
    text(summary["B2"], verdict_headline(report.verdict, cur))
    # The site's decision, the bridge and its risk, an idle fleet: as the page says them.
    notes = verdict_notes(report)
    if notes:
        summary["A4"] = _("Read with the verdict:")
        text(summary["B4"], " ".join(notes))
    summary["A3"] = _(
        "Every figure below is a formula over the %(sheet)s sheet: change an input and it follows."
    ) % {"sheet": inputs_sheet}
    header(
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


def write_onprem_row(summary: Worksheet, flow: CashFlow, names: Names) -> None:
    """Buying and keeping: the total and NPV of on-prem's monthly totals."""
    month0, month1 = FIRST, FIRST + 1
    summary["A6"] = _("Own (buy and keep)")
    summary["B6"] = f"=SUM({flow.column_range(flow.on_total, FIRST, flow.last)})"
    summary["C6"] = (
        f"={flow.column_range(flow.on_total, month0, month0).split(':')[0]}"
        f"+NPV(month_rate,{flow.column_range(flow.on_total, month1, flow.last)})"
    )
    names.add("onprem_total", summary, "B6")
    names.add("onprem_npv", summary, "C6")


def write_cloud_row(
    summary: Worksheet, flow: CashFlow, cols: CloudColumns, k: int, names: Names
) -> None:
    """The k-th cloud option (from 1): total, NPV, payback month, break-even month and
    break-even utilization."""
    r = FIRST_OPTION + k
    month0, month1, last = FIRST, FIRST + 1, flow.last
    flags = flow.column_range(cols.gap + 1, FIRST, last)
    gaps = flow.column_range(cols.gap, FIRST, last)
    summary.cell(row=r, column=2, value=f"=SUM({flow.column_range(cols.total, FIRST, last)})")
    summary.cell(
        row=r,
        column=3,
        value=f"={flow.column_range(cols.total, month0, month0).split(':')[0]}"
        f"+NPV(month_rate,{flow.column_range(cols.total, month1, last)})",
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
    summary.cell(row=r, column=6, value=break_even_utilization(k))
    names.add(f"cloud{k}_total", summary, f"B{r}")
    names.add(f"cloud{k}_npv", summary, f"C{r}")
    names.add(f"cloud{k}_payback_month", summary, f"D{r}")
    names.add(f"cloud{k}_break_even_month", summary, f"E{r}")


def break_even_utilization(k: int) -> str:
    """As the page words it (tco.presentation.wording.break_even_cell): a utilization within
    0-100 %, else "always" when owning wins at every utilization, "none" when it never
    does (a commitment's (A − C) ÷ (D − B) is no utilization: 2,604 %)."""
    u, own_slope, rent_slope = (
        f"cloud{k}_break_even_u",
        "onprem_slope_total",
        f"cloud{k}_slope_total",
    )
    return (
        f"=IF(ISNUMBER({u}),IF(AND({u}>0,{u}<1),{u},"
        f"IF(OR(AND({own_slope}>{rent_slope},{u}>=1),AND({own_slope}<{rent_slope},{u}<=0)),"
        f'"{formula_text(_("always"))}","{formula_text(_("none"))}")),'
        f'"{formula_text(_("none"))}")'
    )


def cumulative_chart(flow: CashFlow, currency: str, horizon: int) -> LineChart:
    """On-prem's and each cloud option's cumulative cost over the horizon."""
    chart = LineChart()
    chart.title = _("Cumulative cost (%(currency)s)") % {"currency": currency}
    chart.x_axis.title = _("Month")
    chart.y_axis.title = currency
    chart.height, chart.width = 9, 20
    chart_end = FIRST + horizon
    for column in [flow.on_cum, *(cols.cum for cols in flow.clouds)]:
        data = Reference(flow.sheet, min_col=column, min_row=2, max_row=chart_end)
        chart.add_data(data, titles_from_data=True)
    chart.set_categories(Reference(flow.sheet, min_col=1, min_row=FIRST, max_row=chart_end))
    return chart
