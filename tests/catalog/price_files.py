"""Helpers for the price import tests: exported files to edit, and the catalog's state."""

from __future__ import annotations

import csv
import io
from typing import Any

import openpyxl

from catalog.models import (
    ApiOffering,
    CloudOffering,
    FxRate,
    Gpu,
    InfrastructureItem,
    PriceChange,
    PriceImport,
    ServerModel,
    Site,
)
from catalog.services import export_price_list

MODELS = (
    Gpu,
    ServerModel,
    CloudOffering,
    Site,
    InfrastructureItem,
    FxRate,
    PriceChange,
    ApiOffering,
)


def catalog_state() -> dict[str, list[dict[str, object]]]:
    """Every catalog row and history entry: equal before and after means nothing changed."""
    state = {
        model.__name__: [dict(row) for row in model.objects.order_by("pk").values()]
        for model in MODELS
    }
    imports = PriceImport.objects.order_by("pk").values("pk", "status")
    return state | {"PriceImport": [dict(row) for row in imports]}


def exported_rows(kind: str) -> list[list[str]]:
    """The current price list of one kind as CSV rows (header first)."""
    content = export_price_list(kind=kind, file_format="csv").content.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(content)))


def csv_bytes(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def xlsx_bytes(rows: list[list[Any]]) -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def set_cell(rows: list[list[str]], key: str, column: str, value: str) -> int:
    """Set one cell of the row whose first cell is `key`; return its spreadsheet row."""
    index = rows[0].index(column)
    for number, row in enumerate(rows, start=1):
        if row[0] == key:
            row[index] = value
            return number
    raise KeyError(key)
