"""What the catalog's commands share: the import commands (import_prices, import_stock) take
one file, check it, import it all rows or none and report it; a refused file or catalog
(load_catalog too) ends the command with its problems."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.services import PriceImportError, check_upload, import_price_file
from common.time_budget import command_time_budget


def import_file(
    command: BaseCommand,
    *,
    path: Path,
    kind: str,
    source: str,
    dry_run: bool,
    rows_on_refusal: bool,
) -> None:
    """Import `path` as `kind` (`source`: who imported it, for the price history).

    A refused file raises CommandError after its problems are written to stderr, with its
    rows first on stdout when `rows_on_refusal`; nothing is imported then.
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CommandError(f"{path}: cannot be read ({exc.strerror})") from exc
    # The size is checked before the file is read, so a huge file is never loaded.
    refused = check_upload(filename=path.name, size=size)
    if refused:
        raise CommandError("\n".join(error.reason for error in refused))
    # A file that passes every bound but is slow to parse (a very wide workbook)
    # stops at the budget instead of running on.
    try:
        with command_time_budget(float(settings.IMPORT_TIME_BUDGET_SECONDS)):
            preview = import_price_file(
                kind=kind,
                filename=path.name,
                data=path.read_bytes(),
                source=source[:300],
                dry_run=dry_run,
            )
    except PriceImportError as exc:
        if rows_on_refusal:
            for line in exc.preview.lines():
                command.stdout.write(line)
        raise refusal(command, exc.preview.errors, exc.preview.error_count) from exc
    for line in preview.lines():
        command.stdout.write(line)
    changed = len(preview.new) + len(preview.changed)
    if dry_run:
        command.stdout.write(f"Dry run: {changed} row(s) would change; nothing was written.")
    else:
        command.stdout.write(
            command.style.SUCCESS(f"Imported {path.name}: {changed} row(s) changed.")
        )


def refusal(command: BaseCommand, problems: Sequence[object], count: int) -> CommandError:
    """Write each problem to stderr; the error that ends the command (`count` problems in
    all, more than are listed when the list was capped), nothing imported."""
    for problem in problems:
        command.stderr.write(str(problem))
    return CommandError(f"{count} problem(s) found; nothing was imported.")


class FileImportCommand(BaseCommand):
    """A command that imports one file (`file`, `--dry-run`) as the kind `kind_of` names:
    the class's `kind`, or what a subclass reads from its own options."""

    source_name: ClassVar[str]  # the command's name, recorded as the rows' source
    kind: ClassVar[str] = ""  # the price-list kind every file of this command is
    rows_on_refusal: ClassVar[bool] = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--dry-run", action="store_true", help="check and show the changes, write nothing"
        )

    def kind_of(self, options: dict[str, Any]) -> str:
        return self.kind

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        import_file(
            self,
            path=path,
            kind=self.kind_of(options),
            source=f"{self.source_name} {path}",
            dry_run=options["dry_run"],
            rows_on_refusal=self.rows_on_refusal,
        )
