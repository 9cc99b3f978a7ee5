"""Import a distributor's stock feed (docs/catalog.md): all rows or none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from catalog.management.file_import import import_file


class Command(BaseCommand):
    help = (
        "Import a stock feed (CSV or XLSX: sku, quantity, lead_time_weeks, as_of, optional "
        "gpu) as an ERP exports it: servers in stock and lead times, all rows or none."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--dry-run", action="store_true", help="check and show the changes, write nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        import_file(
            self,
            path=path,
            kind="stock",
            source=f"import_stock {path}",
            dry_run=options["dry_run"],
            rows_on_refusal=False,
        )
