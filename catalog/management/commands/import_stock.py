"""Import a distributor's stock feed (docs/catalog.md): all rows or none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.services import PriceImportError, check_upload, import_price_file
from common.time_budget import command_time_budget


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
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise CommandError(f"{path}: cannot be read ({exc.strerror})") from exc
        refused = check_upload(filename=path.name, size=size)
        if refused:
            raise CommandError("\n".join(error.reason for error in refused))
        # A file that passes every bound but is slow to parse (a very wide workbook)
        # stops at the budget instead of running on.
        try:
            with command_time_budget(float(settings.IMPORT_TIME_BUDGET_SECONDS)):
                preview = import_price_file(
                    kind="stock",
                    filename=path.name,
                    data=path.read_bytes(),
                    source=f"import_stock {path}"[:300],
                    dry_run=options["dry_run"],
                )
        except PriceImportError as exc:
            for error in exc.preview.errors:
                self.stderr.write(str(error))
            raise CommandError(
                f"{exc.preview.error_count} problem(s) found; nothing was imported."
            ) from exc
        for line in preview.lines():
            self.stdout.write(line)
        changed = len(preview.new) + len(preview.changed)
        if options["dry_run"]:
            self.stdout.write(f"Dry run: {changed} row(s) would change; nothing was written.")
        else:
            self.stdout.write(
                self.style.SUCCESS(f"Imported {path.name}: {changed} row(s) changed.")
            )
