"""Import a distributor's stock feed (docs/catalog.md): all rows or none."""

from __future__ import annotations

from catalog.management.file_import import FileImportCommand


class Command(FileImportCommand):
    help = (
        "Import a stock feed (CSV or XLSX: sku, quantity, lead_time_weeks, as_of, optional "
        "gpu) as an ERP exports it: servers in stock and lead times, all rows or none."
    )
    source_name = "import_stock"
    kind = "stock"
