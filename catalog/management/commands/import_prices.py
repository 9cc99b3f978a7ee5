from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from catalog.management.file_import import import_file
from catalog.schema import PRICE_SPECS_BY_KIND


class Command(BaseCommand):
    help = (
        "Import a price list (CSV or XLSX) for cloud offerings, server models, "
        "infrastructure items or FX rates: all rows or none, with price history."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--kind", required=True, choices=sorted(PRICE_SPECS_BY_KIND))
        parser.add_argument(
            "--dry-run", action="store_true", help="check and show the changes, write nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        import_file(
            self,
            path=path,
            kind=options["kind"],
            source=f"import_prices {path}",
            dry_run=options["dry_run"],
            rows_on_refusal=True,
        )
