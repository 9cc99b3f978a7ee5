"""Names of the Excel downloads, apart from tco/presentation/workbook.py so that the views
naming them do not load openpyxl when the app starts (it loads with the first workbook built)."""

from __future__ import annotations

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


# A scenario's name may be long (up to tco.limits.MAX_TEXT_LENGTH): its file name is not.
MAX_NAME_IN_FILENAME = 60


def workbook_filename(name: str) -> str:
    """The workbook's file name: the scenario's letters and digits (any script; the header
    carries them as UTF-8, common/downloads.py), others as -, at most 60 of them.

    >>> workbook_filename("Pre-train 7B"), workbook_filename("Modèle ≥ 7B")
    ('Pre-train-7B-tco-model.xlsx', 'Modèle---7B-tco-model.xlsx')
    """
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)
    safe = safe[:MAX_NAME_IN_FILENAME].strip("-")
    return f"{safe or 'gpu-tco'}-tco-model.xlsx"
