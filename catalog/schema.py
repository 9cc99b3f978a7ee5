"""The columns of each catalog data file and how each cell is read and checked.

One spec per kind of row serves the seed loader (`load_catalog`) and anything else that
reads price lists, so a file that loads here means the same thing everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from django.db import models
from django.utils import timezone

from common.bounds import (
    CLOUD_LEAD_DAYS,
    INSTALL_DAYS,
    LEAD_TIME_WEEKS,
    MINIMUM_DAYS,
    OBSERVED_ON,
    NumberRange,
    plain_duration,
)

from .models import (
    PRICE_BOOK_CATEGORIES,
    ApiOffering,
    ChassisDefault,
    ChassisRules,
    CloudAvailability,
    CloudOffering,
    CloudRegion,
    Component,
    ComponentRole,
    Cooling,
    Currency,
    DriveFormFactor,
    FxRate,
    Gpu,
    InfrastructureItem,
    ItemCategory,
    ObtainedBy,
    PartRole,
    PriceBookRow,
    PriceTier,
    PricingTerm,
    PricingUnit,
    PsuRedundancy,
    ServerAvailability,
    ServerModel,
    ServerPart,
    ServiceLevel,
    Site,
    SiteCooling,
    SiteKind,
    SlotSize,
)

# A spreadsheet treats a cell starting with one of these as a formula (or the start of
# one): exported text cells that start with them are neutralised, see `neutralise`.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """Text for a CSV cell that no spreadsheet will run as a formula.

    >>> neutralise('=HYPERLINK("http://evil.example","x")'), neutralise("h100-sxm")
    ('\'=HYPERLINK("http://evil.example","x")', 'h100-sxm')
    """
    return "'" + text if text.startswith(FORMULA_TRIGGERS) else text


def unneutralise(text: str) -> str:
    """The text an export neutralised, read back: `'=x` → `=x` (other text unchanged)."""
    if text.startswith("'") and text[1:].startswith(FORMULA_TRIGGERS):
        return text[1:]
    return text


class CellError(ValueError):
    """A cell that cannot be read; the message says why in plain words."""


Parser = Callable[[str], object]


def text(raw: str) -> str:
    if not raw:
        raise CellError("is empty")
    return raw


def optional_text(raw: str) -> str:
    return raw


def name_text(raw: str) -> str:
    """A key or name: text that a spreadsheet would not run as a formula.

    Names reach the TCO workbook's labels and headers, CSV exports and the proposal; one
    that begins with =, +, - or @ is refused (the export neutralises such text, and the
    import used to take it back as it was).

    >>> name_text("AWS")
    'AWS'
    >>> name_text('=HYPERLINK("http://evil.example")')
    Traceback (most recent call last):
    ...
    catalog.schema.CellError: begins with "=": a spreadsheet would run it as a formula
    """
    return optional_name_text(text(raw))


def optional_name_text(raw: str) -> str:
    if raw.startswith(FORMULA_TRIGGERS):
        raise CellError(f'begins with "{raw[0]}": a spreadsheet would run it as a formula')
    return raw


# A plain number: ASCII digits, an optional decimal point, an optional exponent (Excel
# writes very small or large numbers as 1E-05). No signs other than a leading one, no
# grouping separators, no underscores, no other scripts' digits.
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?", re.ASCII)
_PLAIN_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)


def _number_problem(raw: str) -> str:
    """Why `raw` is not a plain number, in words that tell the reader what to write."""
    if raw.strip("+-").lower() in {"inf", "infinity", "nan", "snan"}:
        return f"{raw!r} is not a finite number"
    if any(ch.isdigit() and not ch.isascii() for ch in raw):
        return f"{raw!r} has digits other than 0-9; type the number with 0-9"
    if "_" in raw:
        return f"{raw!r} contains an underscore; write the number without separators"
    if "," in raw and "." in raw:
        return (
            f"{raw!r} is ambiguous (1.234,5 or 1,234.5?); write it without thousands "
            "separators and with a decimal point, e.g. 1234.5"
        )
    if "," in raw:
        return (
            f"{raw!r} has a comma; write numbers with a decimal point and no thousands "
            "separators, e.g. 1234.5"
        )
    return f"{raw!r} is not a number"


def _decimal(raw: str) -> Decimal:
    """A cell as a Decimal, strictly.

    >>> _decimal("1234.5"), _decimal("1E-05")
    (Decimal('1234.5'), Decimal('0.00001'))
    >>> for bad in ("1.234,5", "1,234.5", "1_000", "\u0661\u0662", "12,5"):
    ...     try:
    ...         _decimal(bad)
    ...     except CellError as exc:
    ...         print(str(exc).split(";")[0])
    '1.234,5' is ambiguous (1.234,5 or 1,234.5?)
    '1,234.5' is ambiguous (1.234,5 or 1,234.5?)
    '1_000' contains an underscore
    '١٢' has digits other than 0-9
    '12,5' has a comma
    """
    if not raw:
        raise CellError("is empty")
    if not _PLAIN_NUMBER.fullmatch(raw):
        raise CellError(_number_problem(raw))
    try:
        value = Decimal(raw)
    except InvalidOperation as exc:  # pragma: no cover - the pattern admits only numbers
        raise CellError(f"{raw!r} is not a number") from exc
    if not value.is_finite():
        raise CellError(f"{raw!r} is not a finite number")
    return value.normalize() if "e" in raw.lower() else value


def decimal_comma_cell(raw: str) -> str:
    """A number from a decimal-comma file (1234,5) in the plain form (1234.5).

    Such files (semicolon-separated, as Dutch or German Excel saves CSV) may not use a
    point at all: "1.234" would be one thousand two hundred and thirty-four to their
    author and 1.234 to us, so it is refused rather than guessed.

    >>> decimal_comma_cell("1234,5"), decimal_comma_cell("7")
    ('1234.5', '7')
    """
    if "." in raw:
        raise CellError(
            f"{raw!r} has a point, but this file uses decimal commas; write it without "
            "thousands separators, e.g. 1234,5"
        )
    if raw.count(",") > 1:
        raise CellError(f"{raw!r} is not a number")
    return raw.replace(",", ".")


def decimal_non_negative(raw: str) -> Decimal:
    value = _decimal(raw)
    if value < 0:
        raise CellError(f"{raw} is negative")
    return value


def decimal_positive(raw: str) -> Decimal:
    value = _decimal(raw)
    if value <= 0:
        raise CellError(f"{raw} must be greater than zero")
    return value


def optional_decimal_positive(raw: str) -> Decimal | None:
    return decimal_positive(raw) if raw else None


def optional_decimal_non_negative(raw: str) -> Decimal | None:
    return decimal_non_negative(raw) if raw else None


def int_positive(raw: str) -> int:
    if not _PLAIN_INTEGER.fullmatch(raw):
        problem = _number_problem(raw) if raw else "is empty"
        if problem.endswith("is not a number"):
            problem = f"{raw!r} is not a whole number"
        raise CellError(problem)
    value = int(raw)
    if value <= 0:
        raise CellError(f"{raw} must be greater than zero")
    return value


def int_non_negative(raw: str) -> int:
    """A whole number, zero allowed (units in stock).

    >>> int_non_negative("0"), int_non_negative("12")
    (0, 12)
    """
    if _PLAIN_INTEGER.fullmatch(raw) and int(raw) < 0:
        raise CellError(f"{raw} is negative")
    if _PLAIN_INTEGER.fullmatch(raw) and int(raw) == 0:
        return 0
    return int_positive(raw)


def optional_int_positive(raw: str) -> int | None:
    return int_positive(raw) if raw else None


def boolean(raw: str) -> bool:
    lowered = raw.lower()
    if lowered in {"true", "yes", "1"}:
        return True
    if lowered in {"false", "no", "0", ""}:
        return False
    raise CellError(f"{raw!r} is not true or false")


def past_date(raw: str) -> date:
    """The day a figure was observed (`as_of`): common.bounds.OBSERVED_ON."""
    try:
        value = date.fromisoformat(raw)
    except ValueError as exc:
        raise CellError(f"{raw!r} is not a date in YYYY-MM-DD form") from exc
    problem = OBSERVED_ON.problem(value, today=timezone.localdate())
    if problem:
        raise CellError(problem)
    return value


def any_date(raw: str) -> date:
    """A day in YYYY-MM-DD form, past or future (a price book's validity)."""
    try:
        return date.fromisoformat(raw)
    except ValueError as exc:
        raise CellError(f"{raw!r} is not a date in YYYY-MM-DD form") from exc


def optional_date(raw: str) -> date | None:
    return any_date(raw) if raw else None


def optional_catalog_key(raw: str) -> str:
    """A catalog item as a quote line names it: `server:<key>` or `item:<key>`, or empty.

    >>> optional_catalog_key("server:h100-sxm"), optional_catalog_key("")
    ('server:h100-sxm', '')
    >>> optional_catalog_key("gpu:h100")
    Traceback (most recent call last):
    ...
    catalog.schema.CellError: 'gpu:h100' is not server:<key> or item:<key>
    """
    if not raw:
        return ""
    prefix, sep, key = raw.partition(":")
    if not sep or prefix not in {"server", "item"} or not key:
        raise CellError(f"{raw!r} is not server:<key> or item:<key>")
    return optional_name_text(raw)


def optional_price_book_category(raw: str) -> str:
    if raw and raw not in PRICE_BOOK_CATEGORIES:
        raise CellError(f"{raw!r} is not one of {', '.join(PRICE_BOOK_CATEGORIES)}")
    return raw


def duration(bounds: NumberRange) -> Parser:
    """A duration within `bounds` (common.bounds), written as a plain number.

    >>> from common.bounds import LEAD_TIME_WEEKS
    >>> weeks = duration(LEAD_TIME_WEEKS)
    >>> weeks("12.5")
    Decimal('12.5')
    >>> for bad in ("9999.9", "1e3", "-1"):
    ...     try:
    ...         weeks(bad)
    ...     except CellError as exc:
    ...         print(exc)
    9999.9 weeks is more than 260 weeks
    '1e3' is not written as a duration (digits and a decimal point, e.g. 12.5)
    -1 is negative
    """

    def parse(raw: str) -> Decimal:
        value = decimal_non_negative(raw)  # the general number checks and messages first
        if not plain_duration(raw):
            raise CellError(
                f"{raw!r} is not written as a duration (digits and a decimal point, e.g. 12.5)"
            )
        problem = bounds.problem(value)
        if problem:
            raise CellError(problem)
        return value

    return parse


def optional(parse: Parser) -> Parser:
    """`parse`, or None for an empty cell."""
    return lambda raw: parse(raw) if raw else None


lead_time_weeks = duration(LEAD_TIME_WEEKS)
optional_lead_time_weeks = optional(lead_time_weeks)
install_days = duration(INSTALL_DAYS)
cloud_lead_days = duration(CLOUD_LEAD_DAYS)
optional_minimum_days = optional(duration(MINIMUM_DAYS))


def choice(choices: type[models.TextChoices]) -> Parser:
    allowed = [str(value) for value in choices.values]

    def parse(raw: str) -> str:
        if raw not in allowed:
            raise CellError(f"{raw!r} is not one of {', '.join(allowed)}")
        return raw

    return parse


def optional_choice(choices: type[models.TextChoices]) -> Parser:
    """One of `choices`, or empty."""
    parse = choice(choices)
    return lambda raw: parse(raw) if raw else ""


def int_list(raw: str) -> str:
    """A list of whole numbers separated by ";" (`4800;5600`), kept as written.

    >>> int_list("4800;5600")
    '4800;5600'
    >>> int_list("4800;fast")
    Traceback (most recent call last):
    ...
    catalog.schema.CellError: 'fast' is not a whole number (list the values separated by ";")
    """
    for part in text(raw).split(";"):
        if not _PLAIN_INTEGER.fullmatch(part) or int(part) <= 0:
            raise CellError(f'{part!r} is not a whole number (list the values separated by ";")')
    return raw


def code_list(raw: str) -> str:
    """A list of codes separated by ";" (`xeon-4;xeon-5`), kept as written."""
    for part in text(raw).split(";"):
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", part):
            raise CellError(f"{part!r} is not a code (lower-case letters, digits and -)")
    return raw


def country_code(raw: str) -> str:
    if len(raw) != 2 or not raw.isalpha():
        raise CellError(f"{raw!r} is not a two-letter country code")
    return raw.upper()


def optional_country_code(raw: str) -> str:
    """A two-letter country code, or empty when it is not known."""
    return country_code(raw) if raw else ""


@dataclass(frozen=True)
class Reference:
    """A cell that names another catalog row by its key (a GPU by `h100-sxm`), or by
    another unique field (a component by its part number)."""

    model: type[models.Model]
    label: str
    field: str = "key"


@dataclass(frozen=True)
class Column:
    name: str
    parse: Parser | Reference


@dataclass(frozen=True)
class TableSpec:
    kind: str
    label: str
    model: type[models.Model]
    filename: str
    columns: tuple[Column, ...]
    # The first tuple finds the existing row; every tuple must be unique within a file.
    unique: tuple[tuple[str, ...], ...] = field(default=(("key",),))
    # The column whose changes are kept as price history (None: not a price list).
    price_field: str | None = None
    # Checks that involve more than one cell of a row: (values) → [(column, reason)].
    row_check: Callable[[dict[str, object]], list[tuple[str, str]]] | None = None
    # The column with the price's date (a server's price has its own, apart from the date
    # of its specifications).
    price_date: str = "as_of"

    @property
    def column_names(self) -> list[str]:
        return [column.name for column in self.columns]

    @property
    def optional_columns(self) -> set[str]:
        """The Dutch texts (`…_nl`): a file written before a Dutch column existed (an older
        export) still imports, keeping the catalog's Dutch text of each row it updates."""
        return {name for name in self.column_names if name.endswith("_nl")}

    @property
    def lookup(self) -> tuple[str, ...]:
        return self.unique[0]

    def history_key(self, values: dict[str, object]) -> str:
        """The price history a row belongs to: its key, or for FX rates the pair."""
        if "key" in values:
            return str(values["key"])
        if "base" in values:
            return f"{values['base']}-{values['quote']}"
        return "-".join(str(values[name]) for name in self.lookup)  # availability: its row

    def history_currency(self, values: dict[str, object]) -> str:
        return str(values.get("currency") or values.get("quote"))


def _idle_not_above_max(values: dict[str, object]) -> list[tuple[str, str]]:
    idle, peak = values["idle_power_kw"], values["max_power_kw"]
    if isinstance(idle, Decimal) and isinstance(peak, Decimal) and idle > peak:
        return [("idle_power_kw", f"{idle} is above max_power_kw {peak}")]
    return []


def _distinct_currencies(values: dict[str, object]) -> list[tuple[str, str]]:
    if values["base"] == values["quote"]:
        return [("quote", "is the same currency as base")]
    return []


def _price_book_row(values: dict[str, object]) -> list[tuple[str, str]]:
    """A price-book row names one target (an item or a category) and one price (a
    discount or a net price in a currency); a category takes only a discount."""
    problems: list[tuple[str, str]] = []
    if bool(values["catalog_key"]) == bool(values["category"]):
        problems.append(("catalog_key", "give either catalog_key or category"))
    discount, net = values["discount_pct"], values["net_price"]
    if (discount is None) == (net is None):
        problems.append(("discount_pct", "give either discount_pct or net_price"))
    if isinstance(discount, Decimal) and discount > 100:
        problems.append(("discount_pct", f"{discount} is more than 100"))
    if net is not None and values["category"]:
        problems.append(("net_price", "a net price is for one catalog_key, not a category"))
    if net is not None and not values["currency"]:
        problems.append(("currency", "a net price needs its currency"))
    start, end = values["valid_from"], values["valid_to"]
    if isinstance(start, date) and isinstance(end, date) and end < start:
        problems.append(("valid_to", f"{end} is before valid_from {start}"))
    return problems


PROVENANCE = (
    Column("source", text),
    Column("source_nl", optional_text),  # the source as Dutch readers read it (may be empty)
    Column("source_url", optional_text),
    Column("as_of", past_date),
    Column("is_estimate", boolean),
)

GPUS = TableSpec(
    kind="gpus",
    label="GPUs",
    model=Gpu,
    filename="gpus.csv",
    columns=(
        Column("key", name_text),
        Column("name", name_text),
        Column("vendor", name_text),
        Column("form_factor", name_text),
        Column("memory_gb", decimal_positive),
        Column("memory_type", optional_text),
        Column("memory_bandwidth_tbps", decimal_positive),
        Column("bf16_tflops", decimal_positive),
        Column("fp8_tflops", optional_decimal_positive),
        Column("fp4_tflops", optional_decimal_positive),
        Column("tdp_w", int_positive),
        Column("nvlink_generation", optional_text),
        Column("nvlink_bandwidth_gbps", optional_int_positive),
        *PROVENANCE,
    ),
)

SERVERS = TableSpec(
    kind="servers",
    label="server models",
    model=ServerModel,
    filename="servers.csv",
    columns=(
        Column("key", name_text),
        Column("vendor", name_text),
        Column("sku", name_text),
        Column("name", name_text),
        Column("gpu", Reference(Gpu, "GPU")),
        Column("gpu_count", int_positive),
        Column("rack_units", int_positive),
        Column("max_power_kw", decimal_positive),
        Column("idle_power_kw", decimal_non_negative),
        Column("cooling", choice(Cooling)),
        Column("cpu", optional_text),
        Column("ram", optional_text),
        Column("network", optional_text),
        Column("list_price", decimal_non_negative),
        Column("currency", choice(Currency)),
        Column("price_source", optional_text),
        Column("price_source_nl", optional_text),
        Column("price_as_of", past_date),
        Column("price_is_estimate", boolean),
        Column("cost_price", optional_decimal_non_negative),
        *PROVENANCE,
        Column("name_nl", optional_name_text),
        Column("warranty_years", optional_int_positive),
        Column("service_level", optional_choice(ServiceLevel)),
        Column("warranty_source", optional_text),
        Column("typical_power_kw", optional_decimal_positive),
        Column("nvlink_domain_gpus", int_positive),
        Column("whole_rack", boolean),
        Column("facility_needs", optional_text),
        Column("facility_needs_nl", optional_text),
    ),
    unique=(("key",), ("sku", "gpu")),
    price_field="list_price",
    row_check=_idle_not_above_max,
    price_date="price_as_of",
)

CLOUD = TableSpec(
    kind="cloud",
    label="cloud offerings",
    model=CloudOffering,
    filename="cloud_offerings.csv",
    columns=(
        Column("key", name_text),
        Column("provider", name_text),
        Column("instance_type", name_text),
        Column("region", name_text),
        Column("gpu", Reference(Gpu, "GPU")),
        Column("gpu_count", int_positive),
        Column("term", choice(PricingTerm)),
        Column("price_per_hour", decimal_non_negative),
        Column("currency", choice(Currency)),
        *PROVENANCE,
        Column("jurisdiction", optional_country_code),
        Column("data_country", optional_country_code),
        Column("jurisdiction_source", optional_text),
        Column("jurisdiction_source_nl", optional_text),
    ),
    unique=(("key",), ("provider", "instance_type", "region", "term")),
    price_field="price_per_hour",
)

SITES = TableSpec(
    kind="sites",
    label="sites",
    model=Site,
    filename="sites.csv",
    columns=(
        Column("key", name_text),
        Column("name", name_text),
        Column("kind", choice(SiteKind)),
        Column("country", country_code),
        Column("electricity_price_per_kwh", decimal_non_negative),
        Column("pue", decimal_positive),
        Column("colocation_per_kw_month", decimal_non_negative),
        Column("rack_power_limit_kw", decimal_positive),
        Column("carbon_g_per_kwh", int_positive),
        Column("currency", choice(Currency)),
        *PROVENANCE,
        Column("name_nl", optional_name_text),
        Column("cooling", choice(SiteCooling)),
        Column("pue_liquid", optional_decimal_positive),
        Column("available_it_kw", optional_decimal_positive),
        Column("grid_headroom_kw", optional_decimal_non_negative),
    ),
)

CLOUD_REGIONS = TableSpec(
    kind="cloud_regions",
    label="cloud regions",
    model=CloudRegion,
    filename="cloud_regions.csv",
    columns=(
        Column("key", name_text),
        Column("provider", name_text),
        Column("region", name_text),
        Column("pue", decimal_positive),
        Column("carbon_g_per_kwh", int_positive),
        *PROVENANCE,
    ),
    unique=(("key",), ("provider", "region")),
)

API_OFFERINGS = TableSpec(
    kind="api",
    label="hosted model API offerings",
    model=ApiOffering,
    filename="api_offerings.csv",
    columns=(
        Column("key", name_text),
        Column("provider", name_text),
        Column("model", name_text),
        Column("params_billion", decimal_positive),
        Column("region", optional_name_text),
        Column("jurisdiction", optional_country_code),
        Column("data_country", optional_country_code),
        Column("price_input_per_million", decimal_non_negative),
        Column("price_output_per_million", decimal_positive),
        Column("currency", choice(Currency)),
        *PROVENANCE,
    ),
    unique=(("key",), ("provider", "model", "region")),
    # The history follows the output price (answers dominate the bill of an assistant);
    # the input price is updated with the row.
    price_field="price_output_per_million",
)

ITEMS = TableSpec(
    kind="items",
    label="infrastructure and service items",
    model=InfrastructureItem,
    filename="items.csv",
    columns=(
        Column("key", name_text),
        Column("name", name_text),
        Column("category", choice(ItemCategory)),
        Column("unit", choice(PricingUnit)),
        Column("price", decimal_non_negative),
        Column("currency", choice(Currency)),
        Column("cost_price", optional_decimal_non_negative),
        *PROVENANCE,
        Column("name_nl", optional_name_text),
        Column("service_level", optional_choice(ServiceLevel)),
    ),
    price_field="price",
)

# A server model's configuration as we sell it (CPU, memory, drives, NICs, power supplies
# with part numbers): printed per server line on a proposal, frozen in its snapshot.
SERVER_PARTS = TableSpec(
    kind="server_parts",
    label="server configurations",
    model=ServerPart,
    filename="server_parts.csv",
    columns=(
        Column("server", Reference(ServerModel, "server model")),
        Column("position", int_positive),
        Column("role", choice(PartRole)),
        Column("quantity", int_positive),
        Column("description", text),
        Column("part_number", optional_text),
        *PROVENANCE,
        Column("description_nl", optional_text),
    ),
    unique=(("server", "position"),),
)


def _typical_not_above_max(values: dict[str, object]) -> list[tuple[str, str]]:
    typical, peak = values["typical_w"], values["max_w"]
    if isinstance(typical, int) and isinstance(peak, int) and typical > peak:
        return [("typical_w", f"{typical} is above max_w {peak}")]
    return []


# Configure to order (docs/configure.md): the components systems are built from, each
# chassis's rules and its default configuration.
COMPONENTS = TableSpec(
    kind="components",
    label="components",
    model=Component,
    filename="components.csv",
    columns=(
        Column("part_number", name_text),
        Column("manufacturer", name_text),
        Column("role", choice(ComponentRole)),
        Column("name", name_text),
        Column("name_nl", optional_name_text),
        Column("cpu_family", optional_text),
        Column("cpu_socket", optional_text),
        Column("memory_type", optional_text),
        Column("memory_speed_mts", optional_int_positive),
        Column("memory_capacity_gb", optional_int_positive),
        Column("drive_form_factor", optional_choice(DriveFormFactor)),
        Column("capacity_tb", optional_decimal_positive),
        Column("slot", optional_choice(SlotSize)),
        Column("network_gbps", optional_int_positive),
        Column("psu_rating_w", optional_int_positive),
        Column("list_price", decimal_non_negative),
        Column("cost_price", optional_decimal_non_negative),
        Column("currency", choice(Currency)),
        Column("price_source", optional_text),
        Column("price_as_of", past_date),
        Column("price_is_estimate", boolean),
        Column("typical_w", int_non_negative),
        Column("max_w", int_non_negative),
        Column("lead_time_weeks", optional_lead_time_weeks),
        *PROVENANCE,
    ),
    unique=(("part_number",),),
    price_field="list_price",
    row_check=_typical_not_above_max,
    price_date="price_as_of",
)

CHASSIS_RULES = TableSpec(
    kind="chassis",
    label="chassis rules",
    model=ChassisRules,
    filename="chassis_rules.csv",
    columns=(
        Column("server", Reference(ServerModel, "server model")),
        Column("gpu_baseboard", text),
        Column("fixed", boolean),
        Column("cpu_sockets", int_positive),
        Column("cpu_socket", text),
        Column("cpu_families", code_list),
        Column("memory_slots", int_positive),
        Column("memory_channels_per_socket", int_positive),
        Column("memory_type", text),
        Column("memory_speeds", int_list),
        Column("memory_capacities_gb", int_list),
        Column("pcie_x16_slots", int_non_negative),
        Column("pcie_x8_slots", int_non_negative),
        Column("bays_u2", int_non_negative),
        Column("bays_e1s", int_non_negative),
        Column("bays_m2", int_non_negative),
        Column("psu_bays", int_positive),
        Column("psu_ratings_w", int_list),
        Column("psu_redundancy", choice(PsuRedundancy)),
        *PROVENANCE,
    ),
    unique=(("server",),),
)

CHASSIS_DEFAULTS = TableSpec(
    kind="defaults",
    label="default configurations",
    model=ChassisDefault,
    filename="chassis_defaults.csv",
    columns=(
        Column("server", Reference(ServerModel, "server model")),
        Column("position", int_positive),
        Column("component", Reference(Component, "component", field="part_number")),
        Column("quantity", int_positive),
        *PROVENANCE,
    ),
    unique=(("server", "position"), ("server", "component")),
)

FX = TableSpec(
    kind="fx",
    label="FX rates",
    model=FxRate,
    filename="fx_rates.csv",
    columns=(
        Column("base", choice(Currency)),
        Column("quote", choice(Currency)),
        Column("rate", decimal_positive),
        *PROVENANCE,
    ),
    unique=(("base", "quote", "as_of"),),
    price_field="rate",
    row_check=_distinct_currencies,
)

# How soon each server model can be had (docs/methodology.md § 3i): the seed's figures are
# public lead-time ranges or estimates; the distributor's stock feed replaces them.
SERVER_AVAILABILITY = TableSpec(
    kind="stock",
    label="server stock and lead times",
    model=ServerAvailability,
    filename="server_availability.csv",
    columns=(
        Column("server", Reference(ServerModel, "server model")),
        Column("units_in_stock", int_non_negative),
        Column("lead_time_weeks", lead_time_weeks),
        Column("lead_time_weeks_max", optional_lead_time_weeks),
        Column("install_days", install_days),
        *PROVENANCE,
    ),
    unique=(("server",),),
)

CLOUD_AVAILABILITY = TableSpec(
    kind="cloud_lead",
    label="cloud availability",
    model=CloudAvailability,
    filename="cloud_availability.csv",
    columns=(
        Column("offering", Reference(CloudOffering, "cloud offering")),
        Column("obtained", choice(ObtainedBy)),
        Column("lead_days", cloud_lead_days),
        Column("minimum_days", optional_minimum_days),
        Column("note", optional_text),
        *PROVENANCE,
    ),
    unique=(("offering",),),
)

# A tier's price book (docs/quotes.md, "Price books and tiers"): no price history (a
# quote line keeps the rule it was priced by), so no price_field.
PRICE_BOOK = TableSpec(
    kind="price_book",
    label="price books",
    model=PriceBookRow,
    filename="price_book.csv",
    columns=(
        Column("key", name_text),
        Column("tier", Reference(PriceTier, "price tier")),
        Column("catalog_key", optional_catalog_key),
        Column("category", optional_price_book_category),
        Column("discount_pct", optional_decimal_non_negative),
        Column("net_price", optional_decimal_non_negative),
        Column("currency", optional_choice(Currency)),
        Column("valid_from", any_date),
        Column("valid_to", optional_date),
        Column("note", optional_text),
    ),
    row_check=_price_book_row,
    price_date="valid_from",
)

# Parsers of numeric cells: a decimal-comma file's cells are converted before these run.
NUMERIC_PARSERS: frozenset[Parser] = frozenset(
    {
        decimal_non_negative,
        decimal_positive,
        optional_decimal_positive,
        optional_decimal_non_negative,
        int_positive,
        int_non_negative,
        optional_int_positive,
        lead_time_weeks,
        optional_lead_time_weeks,
        install_days,
        cloud_lead_days,
        optional_minimum_days,
    }
)

# Load order matters: servers and cloud offerings refer to GPUs by key, server parts to
# servers.
ALL_SPECS: tuple[TableSpec, ...] = (
    GPUS,
    SERVERS,
    SERVER_PARTS,
    CLOUD,
    CLOUD_REGIONS,
    SITES,
    ITEMS,
    FX,
    API_OFFERINGS,
    SERVER_AVAILABILITY,
    CLOUD_AVAILABILITY,
    COMPONENTS,
    CHASSIS_RULES,
    CHASSIS_DEFAULTS,
)
SPECS_BY_KIND = {spec.kind: spec for spec in ALL_SPECS}
# The price lists staff import and export (`import_prices`, /catalog/import/).
PRICE_SPECS: tuple[TableSpec, ...] = (
    CLOUD,
    SERVERS,
    ITEMS,
    FX,
    API_OFFERINGS,
    SERVER_AVAILABILITY,
    CLOUD_AVAILABILITY,
    COMPONENTS,
    CHASSIS_RULES,
    CHASSIS_DEFAULTS,
    PRICE_BOOK,
)
PRICE_SPECS_BY_KIND = {spec.kind: spec for spec in PRICE_SPECS}
