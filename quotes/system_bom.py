"""Each system's bill of materials as the documents print it: the system line, the lines
under it with their part numbers, and the system's subtotal.

Works on a revision's lines as frozen (services.snapshots: plain dicts with the line's
position, kind, catalog key, parent position, quantities and amounts), so the proposal
PDF and the BOM export read the same rows from the same function. A system whose
configuration is not quoted part by part (no component lines under it) lists the server
model's parts instead, marked as included in the system's price. Docs: docs/quotes.md,
"Bill of materials per system".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .money import to_cents

SYSTEM_KIND = "server"  # models.LineKind.SERVER
COMPONENT_PREFIX = "component:"  # a component line's catalog key: "component:<part number>"

RoleLabel = Callable[[str], str]


@dataclass(frozen=True)
class BomRow:
    """One row of a system's bill of materials. `position` is the quote line's number;
    None for a part included in the system's price (then `amount` is None too)."""

    position: int | None
    part_number: str
    description: str
    per_system: Decimal | None
    quantity: Decimal
    unit_price: Decimal | None
    amount: Decimal | None

    @property
    def included(self) -> bool:
        return self.amount is None


@dataclass(frozen=True)
class SystemBom:
    """A system line with its rows; `subtotal` = the system line's amount + its child
    lines' amounts; `per_system` = subtotal ÷ the number of systems, to the cent."""

    position: int
    description: str
    quantity: Decimal
    optional: bool
    rows: tuple[BomRow, ...]
    subtotal: Decimal
    per_system: Decimal


def part_number(line: Mapping[str, Any]) -> str:
    """A line's manufacturer part number: a component's from its catalog key, a system's
    model (SKU) from its configuration; empty for other lines.

    >>> part_number({"catalog_key": "component:P4X-EMR8558P-SRN5C"})
    'P4X-EMR8558P-SRN5C'
    >>> part_number({"catalog_key": "server:h100", "configuration": {"sku": "SYS-821GE-TNHR"}})
    'SYS-821GE-TNHR'
    >>> part_number({"catalog_key": "item:installation-per-server"})
    ''
    """
    key = str(line.get("catalog_key") or "")
    if key.startswith(COMPONENT_PREFIX):
        return key.removeprefix(COMPONENT_PREFIX)
    configuration = line.get("configuration") or {}
    return str(configuration.get("sku") or "")


def is_component(line: Mapping[str, Any]) -> bool:
    return str(line.get("catalog_key") or "").startswith(COMPONENT_PREFIX)


def _dec(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def _described(role: str, description: str) -> str:
    return f"{role[:1].upper()}{role[1:]}: {description}" if role else description


def _line_row(line: Mapping[str, Any]) -> BomRow:
    per = line.get("per_parent")
    return BomRow(
        position=int(line["position"]),
        part_number=part_number(line),
        description=str(line["description"]),
        per_system=_dec(per) if per is not None else None,
        quantity=_dec(line["quantity"]),
        unit_price=_dec(line["unit_price"]),
        amount=_dec(line["amount"]),
    )


def _included_parts(system: Mapping[str, Any], role_label: RoleLabel) -> list[BomRow]:
    """The server model's parts (frozen with the line), as included in its price, each
    described with its role ("Processor: …")."""
    quantity = _dec(system["quantity"])
    return [
        BomRow(
            position=None,
            part_number=str(part.get("part_number") or ""),
            description=_described(role_label(str(part.get("role") or "")), part["description"]),
            per_system=Decimal(part["quantity"]),
            quantity=Decimal(part["quantity"]) * quantity,
            unit_price=None,
            amount=None,
        )
        for part in (system.get("configuration") or {}).get("parts", [])
    ]


def _no_label(role: str) -> str:
    return ""


def system_boms(
    lines: Sequence[Mapping[str, Any]], role_label: RoleLabel = _no_label
) -> list[SystemBom]:
    """Every system line's bill of materials, in line order; `role_label` words a part's
    role code in the reader's language (none: the description alone).

    A system of 2 servers at 200,000.00 with 2 CPUs per server at 5,000.00 (10,000.00 per
    system in CPUs, 20,000.00 on the line) has a subtotal of 400,000 + 20,000 = 420,000.00,
    210,000.00 per system:

    >>> boms = system_boms([
    ...     {"position": 1, "kind": "server", "catalog_key": "server:h100",
    ...      "description": "8 × H100", "quantity": "2", "unit_price": "200000.00",
    ...      "amount": "400000.00", "parent": None, "optional": False},
    ...     {"position": 2, "kind": "component", "catalog_key": "component:CPU-1",
    ...      "description": "Xeon", "quantity": "4", "unit_price": "5000.00",
    ...      "amount": "20000.00", "parent": 1, "per_parent": "2", "optional": False},
    ... ])
    >>> [(b.subtotal, b.per_system, [r.part_number for r in b.rows]) for b in boms]
    [(Decimal('420000.00'), Decimal('210000.00'), ['', 'CPU-1'])]
    """
    children: dict[int, list[Mapping[str, Any]]] = {}
    for line in lines:
        if line.get("parent") is not None:
            children.setdefault(int(line["parent"]), []).append(line)
    boms = []
    for line in lines:
        if line.get("kind") != SYSTEM_KIND or line.get("parent") is not None:
            continue
        own = children.get(int(line["position"]), [])
        rows = [_line_row(line), *(_line_row(child) for child in own)]
        if not any(is_component(child) for child in own):
            rows[1:1] = _included_parts(line, role_label)
        subtotal = sum((row.amount for row in rows if row.amount is not None), Decimal(0))
        quantity = _dec(line["quantity"])
        boms.append(
            SystemBom(
                position=int(line["position"]),
                description=str(line["description"]),
                quantity=quantity,
                optional=bool(line.get("optional")),
                rows=tuple(rows),
                subtotal=to_cents(subtotal),
                per_system=to_cents(subtotal / quantity) if quantity else to_cents(subtotal),
            )
        )
    return boms
