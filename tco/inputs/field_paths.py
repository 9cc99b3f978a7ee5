"""The calculator form's fields and the scenario document's paths they set (docs/scenario.md),
in one table: the form's document (CalculatorForm.to_document) is written from it, and a
document error is placed beside the field its path maps to (FORM_FIELD_FOR_PATH).

A field with its own rule (the staff cost converted to US dollars, the negotiated server
price, the APIs compared) is listed for placing its errors; CalculatorForm writes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# The scenario's workload.serving_demand fields, named alike on the form: the load, then
# the latency targets.
SERVING_LATENCY_FIELDS = ("latency_ms_per_token", "time_to_first_token_ms")
SERVING_DEMAND_FIELDS = (
    "users",
    "requests_per_user_per_day",
    "input_tokens_per_request",
    "output_tokens_per_request",
    "peak_factor",
    "hours_per_day",
    "days_per_week",
    *SERVING_LATENCY_FIELDS,
)


def same(value: Any) -> Any:
    return value


def percent(value: Any) -> Any:
    """A percentage on the form, a fraction in the document."""
    return value / 100


def whole_months(years: Any) -> Any:
    """Years on the form, whole months in the document (a year at least)."""
    return max(12, round(years * 12))


@dataclass(frozen=True)
class FieldPath:
    """A form field and the document path it sets, with the form value → document value."""

    field: str
    path: str
    convert: Callable[[Any], Any] = same

    @property
    def key(self) -> str:
        """The path's last name: the key in its block of the document."""
        return self.path.rsplit(".", 1)[-1]


FIELD_PATHS: tuple[FieldPath, ...] = (
    FieldPath("params_billion", "workload.params_billion"),
    FieldPath("tokens_billion", "workload.tokens_billion"),
    FieldPath("deadline_days", "workload.deadline_days"),
    FieldPath("target_tokens_per_second", "workload.target_tokens_per_second"),
    FieldPath("mfu_pct", "workload.mfu", percent),
    FieldPath("goodput_pct", "workload.goodput", percent),
    FieldPath("sequence_length", "workload.sequence_length"),
    FieldPath("context_tokens", "workload.context_tokens"),
    FieldPath("concurrency", "workload.concurrent_sequences"),
    FieldPath("serving_efficiency_pct", "workload.serving_efficiency", percent),
    FieldPath("serving_use", "workload.serving_use"),
    *(FieldPath(name, f"workload.serving_demand.{name}") for name in SERVING_DEMAND_FIELDS),
    FieldPath("pue", "site.pue"),
    FieldPath("electricity_price", "site.electricity_price_per_kwh"),
    FieldPath("colocation_price", "site.colocation_per_kw_month"),
    FieldPath("rack_power_limit", "site.rack_power_limit_kw"),
    FieldPath("available_it_kw", "site.available_it_kw"),
    FieldPath("grid_headroom_kw", "site.grid_headroom_kw"),
    FieldPath("pue_liquid", "site.pue_liquid"),
    FieldPath("site_cooling", "site.cooling"),
    FieldPath("utilization_pct", "finance.utilization", percent),
    FieldPath("discount_rate_pct", "finance.discount_rate", percent),
    FieldPath("lease_rate_pct", "finance.lease_annual_rate", percent),
    FieldPath("staff_fte", "finance.staff_fte"),
    FieldPath("staff_cost", "finance.staff_annual_cost"),  # in US dollars: its own rule
    FieldPath("support_pct", "finance.support_pct_per_year", percent),
    FieldPath("service_life_years", "finance.service_life_months", whole_months),
    FieldPath("demand_pattern", "demand.pattern"),
    FieldPath("runs_per_year", "demand.runs_per_year"),
    FieldPath("growth_pct", "demand.growth_per_year", percent),
    FieldPath("utilization_pct", "demand.utilization", percent),
    FieldPath("bursts_per_year", "demand.bursts_per_year"),
    FieldPath("burst_servers", "demand.burst_servers"),
    FieldPath("burst_days", "demand.burst_days"),
    FieldPath("server_price", "server.list_price"),  # less the discount: its own rule
    FieldPath("fleet_servers", "servers"),
    FieldPath("compare_apis", "api_offerings"),  # the catalog's APIs of the model's size
)
BY_PATH = {entry.path: entry for entry in FIELD_PATHS}
# Scenario paths (docs/scenario.md) → the calculator field that sets them.
FORM_FIELD_FOR_PATH = {entry.path: entry.field for entry in FIELD_PATHS}


def given(value: Any) -> bool:
    return value is not None


def always(value: Any) -> bool:
    return True


def document_values(
    data: Mapping[str, Any], paths: tuple[str, ...], keep: Callable[[Any], bool] = given
) -> dict[str, Any]:
    """The document's values at ``paths`` (of one block), from the form's cleaned ``data``:
    each keyed by its name in the block, converted; a field whose value ``keep`` refuses
    is left out (by default, an empty one). With ``always``, an empty one is None."""
    found: dict[str, Any] = {}
    for path in paths:
        entry = BY_PATH[path]
        value = data.get(entry.field)
        if keep(value):
            found[entry.key] = None if value is None else entry.convert(value)
    return found
