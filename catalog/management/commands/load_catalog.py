from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from catalog.coherence import catalog_price_inversions
from catalog.loader import DATA_DIR, CatalogLoadError, load_catalog
from catalog.management.file_import import refusal


class Command(BaseCommand):
    help = "Load the seed catalog (GPUs, servers, cloud prices, sites, items, FX) from CSV files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
        parser.add_argument(
            "--dry-run", action="store_true", help="check and report, write nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            summary = load_catalog(data_dir=options["data_dir"], dry_run=options["dry_run"])
        except CatalogLoadError as exc:
            raise refusal(self, exc.errors, len(exc.errors)) from exc
        for line in summary.lines():
            self.stdout.write(line)
        verb = "would change" if options["dry_run"] else "changed"
        self.stdout.write(self.style.SUCCESS(f"Catalog loaded: {summary.changed} row(s) {verb}."))
        if not options["dry_run"]:
            for inversion in catalog_price_inversions():
                self.stdout.write(self.style.WARNING(f"Price check: {inversion}."))
