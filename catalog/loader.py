"""Read catalog data files, check every cell, and write them in one transaction.

A file with any error writes nothing: the whole load is one transaction and is only
attempted once every row of every file has passed its checks. Row numbers are those a
spreadsheet shows: the header is row 1, the first data row is row 2.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import IntegrityError, models, transaction

from .schema import ALL_SPECS, CellError, Reference, TableSpec

DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class RowError:
    file: str
    row: int
    column: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}, row {self.row}" + (
            f", column {self.column!r}" if self.column else ""
        )
        return f"{where}: {self.reason}"


class CatalogLoadError(Exception):
    def __init__(self, errors: Sequence[RowError]):
        self.errors = list(errors)
        super().__init__("\n".join(str(error) for error in self.errors))


@dataclass
class ParsedTable:
    spec: TableSpec
    file: str
    rows: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # Keys named in the file, even on rows with other errors, so that rows referring to
    # them are not reported a second time as "unknown".
    declared_keys: set[str] = field(default_factory=set)


@dataclass
class LoadSummary:
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> int:
        return sum(self.created.values()) + sum(self.updated.values())

    def lines(self) -> list[str]:
        return [
            f"{kind}: {self.created.get(kind, 0)} new, {self.updated.get(kind, 0)} changed, "
            f"{self.unchanged.get(kind, 0)} unchanged"
            for kind in self.created
        ]


def read_csv_text(data: bytes, file: str) -> tuple[str | None, list[RowError]]:
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        row = data[: exc.start].count(b"\n") + 1
        return None, [RowError(file, row, "", "the file is not UTF-8 text (save it as CSV UTF-8)")]


def parse_table(
    spec: TableSpec,
    text: str,
    file: str,
    known_keys: dict[type[models.Model], set[str]],
) -> tuple[ParsedTable, list[RowError]]:
    """Check the header and every cell of one file; return the parsed rows and all errors."""
    table = ParsedTable(spec, file)
    errors: list[RowError] = []
    reader = csv.reader(io.StringIO(text))
    header = [name.strip() for name in next(reader, [])]
    missing = [name for name in spec.column_names if name not in header]
    extra = [name for name in header if name not in spec.column_names]
    errors += [RowError(file, 1, name, "column is missing") for name in missing]
    errors += [RowError(file, 1, name, "column is not expected") for name in extra]
    if len(set(header)) != len(header):
        errors.append(RowError(file, 1, "", "a column name appears twice"))
    if errors:
        return table, errors

    seen: dict[tuple[str, ...], dict[tuple[object, ...], int]] = {u: {} for u in spec.unique}
    for row_number, cells in enumerate(reader, start=2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            errors.append(
                RowError(file, row_number, "", f"has {len(cells)} cells, expected {len(header)}")
            )
            continue
        raw = {name: cell.strip() for name, cell in zip(header, cells, strict=True)}
        values: dict[str, Any] = {}
        row_errors: list[RowError] = []
        for column in spec.columns:
            cell = raw[column.name]
            if isinstance(column.parse, Reference):
                if cell not in known_keys.get(column.parse.model, set()):
                    reason = f"unknown {column.parse.label} {cell!r}" if cell else "is empty"
                    row_errors.append(RowError(file, row_number, column.name, reason))
                values[column.name] = cell
                continue
            try:
                values[column.name] = column.parse(cell)
            except CellError as exc:
                row_errors.append(RowError(file, row_number, column.name, str(exc)))
        if not row_errors:
            for unique in spec.unique:
                identity = tuple(values[name] for name in unique)
                if identity in seen[unique]:
                    first = seen[unique][identity]
                    row_errors.append(
                        RowError(
                            file,
                            row_number,
                            ", ".join(unique),
                            f"duplicate of row {first} ({', '.join(map(str, identity))})",
                        )
                    )
                else:
                    seen[unique][identity] = row_number
        if isinstance(values.get("key"), str):
            table.declared_keys.add(values["key"])
        errors += row_errors
        if not row_errors:
            table.rows.append((row_number, values))
    return table, errors


def _resolve_references(spec: TableSpec, values: dict[str, Any]) -> dict[str, Any]:
    resolved = dict(values)
    for column in spec.columns:
        if isinstance(column.parse, Reference):
            resolved[column.name] = column.parse.model._default_manager.get(key=values[column.name])
    return resolved


def _write_table(table: ParsedTable, summary: LoadSummary) -> None:
    spec = table.spec
    manager = spec.model._default_manager
    created = updated = unchanged = 0
    for _row_number, values in table.rows:
        fields = _resolve_references(spec, values)
        lookup = {name: fields[name] for name in spec.lookup}
        existing = manager.filter(**lookup).first()
        if existing is None:
            manager.create(**fields)
            created += 1
            continue
        changed = [name for name, value in fields.items() if getattr(existing, name) != value]
        if changed:
            for name in changed:
                setattr(existing, name, fields[name])
            existing.save(update_fields=changed)
            updated += 1
        else:
            unchanged += 1
    summary.created[spec.kind] = created
    summary.updated[spec.kind] = updated
    summary.unchanged[spec.kind] = unchanged


def load_tables(
    sources: Iterable[tuple[TableSpec, str, bytes]], *, dry_run: bool = False
) -> LoadSummary:
    """Check every (spec, file name, content) source, then write them all or nothing.

    Sources are processed in order, so a later file may refer to keys an earlier one adds.
    Raises CatalogLoadError listing every problem found; nothing is written then.
    """
    from .models import Gpu

    known_keys: dict[type[models.Model], set[str]] = {
        Gpu: set(Gpu.objects.values_list("key", flat=True))
    }
    tables: list[ParsedTable] = []
    errors: list[RowError] = []
    for spec, file, data in sources:
        text, decode_errors = read_csv_text(data, file)
        if text is None:
            errors += decode_errors
            continue
        table, table_errors = parse_table(spec, text, file, known_keys)
        errors += table_errors
        tables.append(table)
        if spec.model is Gpu:
            known_keys[Gpu] |= table.declared_keys
    if errors:
        raise CatalogLoadError(errors)

    summary = LoadSummary()
    try:
        with transaction.atomic():
            for table in tables:
                _write_table(table, summary)
            if dry_run:
                transaction.set_rollback(True)
    except IntegrityError as exc:
        error = RowError("catalog", 0, "", f"rejected by the database: {exc}")
        raise CatalogLoadError([error]) from exc
    return summary


def load_catalog(
    *, data_dir: Path = DATA_DIR, specs: Sequence[TableSpec] = ALL_SPECS, dry_run: bool = False
) -> LoadSummary:
    """Load the seed catalog files from `data_dir` (one per spec), all or nothing."""
    sources: list[tuple[TableSpec, str, bytes]] = []
    missing: list[RowError] = []
    for spec in specs:
        path = data_dir / spec.filename
        if not path.exists():
            missing.append(RowError(spec.filename, 0, "", f"file not found in {data_dir}"))
            continue
        sources.append((spec, spec.filename, path.read_bytes()))
    if missing:
        raise CatalogLoadError(missing)
    return load_tables(sources, dry_run=dry_run)
