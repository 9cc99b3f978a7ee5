from typing import Any

from django.core.management.base import CommandParser

from catalog.management.file_import import FileImportCommand
from catalog.schema import PRICE_SPECS_BY_KIND


class Command(FileImportCommand):
    help = (
        "Import a price list (CSV or XLSX) for cloud offerings, server models, "
        "infrastructure items or FX rates: all rows or none, with price history."
    )
    source_name = "import_prices"
    rows_on_refusal = True  # a price list's rows, then its problems

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--kind", required=True, choices=sorted(PRICE_SPECS_BY_KIND))

    def kind_of(self, options: dict[str, Any]) -> str:
        return str(options["kind"])
