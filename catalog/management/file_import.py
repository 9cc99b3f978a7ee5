"""What the import commands (import_prices, import_stock) share: one file checked, imported
all rows or none, and reported on the command's output."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

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
        for error in exc.preview.errors:
            command.stderr.write(str(error))
        raise CommandError(
            f"{exc.preview.error_count} problem(s) found; nothing was imported."
        ) from exc
    for line in preview.lines():
        command.stdout.write(line)
    changed = len(preview.new) + len(preview.changed)
    if dry_run:
        command.stdout.write(f"Dry run: {changed} row(s) would change; nothing was written.")
    else:
        command.stdout.write(
            command.style.SUCCESS(f"Imported {path.name}: {changed} row(s) changed.")
        )
