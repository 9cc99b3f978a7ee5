"""Names of the Excel downloads, apart from tco/workbook.py so that the views naming them do
not load openpyxl when the app starts (it loads with the first workbook built)."""

from __future__ import annotations

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def workbook_filename(name: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name).strip("-")
    return f"{safe or 'gpu-tco'}-tco-model.xlsx"
