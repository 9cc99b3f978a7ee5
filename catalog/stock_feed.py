"""A distributor's stock feed, as an ERP exports it: one row per SKU with the quantity in
stock, the lead time in weeks when out of stock, and the date of the count.

    sku,quantity,lead_time_weeks,as_of
    SYS-822GS-NBRT,4,12,2026-12-01

A SKU sold with more than one GPU (Supermicro's SYS-821GE-TNHR carries H100 or H200) needs
the optional `gpu` column (a GPU catalog key). The feed is turned into the catalog's stock
table (catalog/schema.py SERVER_AVAILABILITY) row for row, so that every later check
reports the file's own line numbers; each row keeps the server's longest lead time and
installation days from the catalog. The import that follows writes all rows or none.
"""

from __future__ import annotations

from collections import defaultdict

from .loader import RawTable, RowError
from .models import ServerModel
from .schema import SERVER_AVAILABILITY

REQUIRED = ("sku", "quantity", "lead_time_weeks", "as_of")
# The stock table's columns by the feed's names, for the problems reported on them.
FEED_NAMES = {"units_in_stock": "quantity", "server": "sku"}
OPTIONAL = ("gpu",)


def is_stock_feed(header: list[str]) -> bool:
    """Does this header look like an ERP stock feed rather than the catalog's stock table?

    >>> is_stock_feed(["SKU", "Quantity", "lead_time_weeks", "as_of"]), is_stock_feed(["server"])
    (True, False)
    """
    names = {name.strip().lower() for name in header}
    return "sku" in names and "server" not in names


def stock_table(raw: RawTable, file: str) -> tuple[RawTable | None, list[RowError]]:
    """The feed's rows as the catalog's stock table, and the rows' SKU problems.

    A row whose SKU cannot be matched keeps its place with an empty server (the table's
    later checks report its other cells; the caller drops their "server is empty"), so
    that every problem of the file is reported at once, on its own line. None: the
    header is wrong.
    """
    header = [name.strip().lower() for name in raw.header]
    errors = [
        RowError(file, 1, name, "column is missing") for name in REQUIRED if name not in header
    ]
    errors += [
        RowError(file, 1, name, "column is not expected")
        for name in header
        if name not in REQUIRED and name not in OPTIONAL
    ]
    if errors:
        return None, errors
    at = {name: header.index(name) for name in header}
    by_sku: dict[str, list[ServerModel]] = defaultdict(list)
    for server in ServerModel.objects.select_related("gpu", "availability"):
        by_sku[server.sku.lower()].append(server)
    rows: list[list[str]] = []
    seen: dict[str, int] = {}
    for number, cells in enumerate(raw.rows, start=2):
        cell = {name: (cells[i].strip() if i < len(cells) else "") for name, i in at.items()}
        candidates = by_sku.get(cell["sku"].lower(), [])
        if cell.get("gpu"):
            candidates = [s for s in candidates if s.gpu.key == cell["gpu"]]
        problem = ""
        if not cell["sku"]:
            problem = "is empty"
        elif not candidates:
            problem = f"{cell['sku']!r} is not in the catalog"
        elif len(candidates) > 1:
            gpus = ", ".join(sorted(s.gpu.key for s in candidates))
            problem = f"{cell['sku']!r} is sold with several GPUs ({gpus}); add a gpu column"
        elif candidates[0].key in seen:
            problem = f"the same server as row {seen[candidates[0].key]}"
        if problem:
            errors.append(RowError(file, number, "sku", problem))
            rows.append(
                [
                    "",
                    cell["quantity"],
                    cell["lead_time_weeks"],
                    "",
                    "0",
                    "-",
                    "",  # source_nl: the feed's rows are for staff (no reader sees them)
                    "",
                    cell["as_of"],
                    "false",
                ]
            )
            continue
        server = candidates[0]
        if server.key in seen:
            reason = f"the same server as row {seen[server.key]}"
            errors.append(RowError(file, number, "sku", reason))
            continue
        seen[server.key] = number
        current = getattr(server, "availability", None)
        rows.append(
            [
                server.key,
                cell["quantity"],
                cell["lead_time_weeks"],
                _text(current.lead_time_weeks_max, raw.decimal_comma) if current else "",
                _text(current.install_days, raw.decimal_comma) if current else "7",
                f"Stock feed {file}"[:300],
                "",  # source_nl
                "",
                cell["as_of"],
                "false",
            ]
        )
    table = RawTable(SERVER_AVAILABILITY.column_names, rows, decimal_comma=raw.decimal_comma)
    return table, errors


def in_feed_terms(error: RowError) -> RowError:
    """A problem of the stock table, named by the feed's column."""
    column = FEED_NAMES.get(error.column, error.column)
    return RowError(error.file, error.row, column, error.reason)


def _text(value: object, decimal_comma: bool) -> str:
    """A catalog number as a cell in the feed's own style (a decimal comma if it uses one).

    >>> from decimal import Decimal
    >>> _text(Decimal("52.0"), False), _text(Decimal("7.5"), True), _text(None, True)
    ('52.0', '7,5', '')
    """
    if value is None:
        return ""
    text = format(value, "f")
    return text.replace(".", ",") if decimal_comma else text
