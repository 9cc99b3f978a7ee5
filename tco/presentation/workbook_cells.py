"""What the workbook's sheets share (tco/presentation/workbook.py): the cell styles, text
cells, labels in the reader's language, defined names, header rows and where an input
came from."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.worksheet import Worksheet

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


def text(cell: Any, value: str) -> Any:
    """Write text that came from outside (a scenario's name, a catalog source) as a string
    cell: openpyxl would store "=..." as a live formula."""
    cell.value = value
    cell.data_type = "s"
    return cell


def tr(label: str) -> str:
    """A workbook label in the reader's language. The workbook's labels are English in the
    tables of its modules; their Dutch is in the .po like every other message
    ("Option 2: …" is translated as its prefix and its label)."""
    option = OPTION_LABEL.match(label)
    if option:
        return _("Option %(k)s: %(label)s") % {"k": option[1], "label": _(option[2])}
    return _(label) if label else label


OPTION_LABEL = re.compile(r"^Option (\d+): (.+)$")


def unit(name: str, cur: str) -> str:
    """A unit in the reader's language, the currency put in."""
    return tr(name).replace("{cur}", cur)


def formula_text(value: str) -> str:
    """Text inside a formula's double quotes."""
    return value.replace('"', '""')


class Names:
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


def header(ws: Worksheet, row: int, titles: Sequence[str]) -> None:  # titles: translated
    for col, title in enumerate(titles, start=1):
        cell = text(ws.cell(row=row, column=col), title)  # cloud option names among them
        cell.font = BOLD
        cell.fill = HEADER_FILL
        cell.alignment = Alignment(wrap_text=True, vertical="top")


def widths(ws: Worksheet, columns: Sequence[float]) -> None:
    """Column widths from column A on."""
    for col_letter, width in zip("ABCDEFG", columns, strict=False):
        ws.column_dimensions[col_letter].width = width
