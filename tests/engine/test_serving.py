"""Serving demand in business terms and hosted APIs: hand-derived checks (issue 16).

The derivation, written out once (docs/methodology.md § 1, "Serving demand"):

    2,000 users × 20 requests a day            = 40,000 requests a day
    40,000 requests × 400 output tokens        = 16,000,000 output tokens a day
    10 working hours                           = 36,000 s
    16,000,000 ÷ 36,000 s                      = 444.44 tokens/s on average in working hours
    × peak factor 3                            = 1,333.33 tokens/s at the peak (sized for)
    5 working days: 16e6 × 5 ÷ (168 × 3,600 s) = 132.28 tokens/s over every hour of the week
    requests a month: 40,000 × 5 × 730 ÷ 168   = 869,047.62
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.engine import InvalidInput, Scenario, ScenarioResult, evaluate
from tco.engine.constraints import Constraints
from tco.engine.examples import CLOUD_OFFERINGS, HGX_H100_SERVER, SITE_NL
from tco.engine.hosted_api import api_monthly_cost, break_even_requests_per_day
from tco.engine.inputs import (
    ApiOfferingSpec,
    FinanceInputs,
    Precision,
    ServingDemand,
    Workload,
    WorkloadKind,
)
from tco.engine.serving import derive_load
from tco.engine.units import FxRates
from tco.report import build_report

ISSUE_DEMAND = ServingDemand(
    users=2000,
    requests_per_user_per_day=20,
    output_tokens_per_request=400,
    input_tokens_per_request=1000,
    peak_factor=3,
    hours_per_day=10,
    days_per_week=5,
)
GROQ = ApiOfferingSpec("Groq", "Llama 3.3 70B", 0.59, 0.79, params_billion=70.0)


def test_issue_demand_gives_the_hand_derived_tokens_per_second() -> None:
    load = derive_load(ISSUE_DEMAND)
    assert load.requests_per_day == 40_000
    assert load.output_tokens_per_day == 16_000_000
    assert load.input_tokens_per_day == 40_000_000
    assert load.average_tokens_per_second == pytest.approx(16_000_000 / 36_000)  # 444.44
    assert load.peak_tokens_per_second == pytest.approx(1333.3333, rel=1e-6)
    assert load.average_tokens_per_second_all_hours == pytest.approx(
        16e6 * 5 / (168 * 3600)
    )  # 132.28
    assert load.requests_per_month == pytest.approx(40_000 * 5 * 730 / 168)  # 869,047.62


def _serving_scenario(
    apis: tuple[ApiOfferingSpec, ...] = (GROQ,), **workload_changes: Any
) -> Scenario:
    workload = Workload(
        WorkloadKind.INFERENCE,
        70.0,
        precision=Precision.FP8,
        serving_demand=ISSUE_DEMAND,
    )
    return Scenario(
        workload=dataclasses.replace(workload, **workload_changes),
        server=HGX_H100_SERVER,
        site=SITE_NL,
        cloud_offerings=CLOUD_OFFERINGS,
        finance=FinanceInputs(horizon_months=60, fx=FxRates(usd_per_eur=1.08)),
        api_offerings=apis,
    )


def test_the_fleet_is_sized_for_the_peak_and_busy_at_the_weekly_average() -> None:
    result = evaluate(_serving_scenario())
    capacity = result.sizing.tokens_per_second_capacity
    assert capacity is not None and capacity >= 1333.33
    serving = result.serving
    assert serving is not None
    assert serving.sized_tokens_per_second == pytest.approx(1333.3333, rel=1e-6)
    # Busy 132.28 tokens/s of its capacity, every hour of the horizon.
    assert serving.utilization == pytest.approx(16e6 * 5 / (168 * 3600) / capacity)
    assert result.demand.utilization == pytest.approx(serving.utilization)
    # The same fleet sized from the derived target in tokens/s.
    by_tokens = evaluate(
        _serving_scenario((), serving_demand=None, target_tokens_per_second=1333.3333334)
    )
    assert by_tokens.sizing.servers_required == result.sizing.servers_required


def test_an_api_offering_costs_volume_times_price() -> None:
    result = evaluate(_serving_scenario())
    (api,) = result.api_options
    # Per request: 1,000 input tokens at $0.59/M + 400 output tokens at $0.79/M = $0.000906.
    assert api.price_per_request == pytest.approx(0.000906)
    # 869,047.62 requests a month × 60 months × $0.000906 = $47,241.43.
    assert api.total_cost == pytest.approx(869_047.619_047_6 * 60 * 0.000906)
    assert api.total_cost == pytest.approx(47_241.43, abs=0.01)
    assert api.monthly_cost[0] == 0.0
    assert api.monthly_cost[1] == pytest.approx(787.357, abs=1e-3)


def test_api_prices_convert_to_the_reporting_currency() -> None:
    euro = dataclasses.replace(GROQ, currency="EUR")
    result = evaluate(dataclasses.replace(_serving_scenario(), api_offerings=(euro,)))
    assert result.api_options[0].total_cost == pytest.approx(47_241.43 * 1.08, abs=0.02)


def test_every_option_carries_cost_per_request_and_per_user_month() -> None:
    summary = build_report(evaluate(_serving_scenario())).to_json()
    kinds = {o["kind"] for o in summary["options"]}
    assert {"onprem", "cloud", "api"} <= kinds
    for option in summary["options"]:
        total = option["total_cost"]
        assert option["cost_per_request"] == pytest.approx(
            total / (869_047.619_047_6 * 60), rel=1e-5
        )
        assert option["cost_per_user_month"] == pytest.approx(total / (2000 * 60), rel=1e-5)
    serving = summary["serving"]
    assert serving["peak_tokens_per_second"] == pytest.approx(1333.333, abs=1e-3)
    assert serving["average_tokens_per_second"] == pytest.approx(444.444, abs=1e-3)
    assert serving["requests_per_day"] == 40_000


def test_the_cheap_api_wins_and_owning_breaks_even_only_at_far_more_requests() -> None:
    result = evaluate(_serving_scenario())
    summary = build_report(result).to_json()
    assert summary["verdict"]["recommended"] == GROQ.name
    assert summary["verdict"]["code"] == "rent"
    api = result.api_options[0]
    r_star = api.break_even_requests_per_day
    assert r_star is not None and r_star > 40_000
    # At R* owning the fleet costs what the API costs (owning = A + B·u, u ∝ requests).
    a = result.onprem.total_cost - _owning_slope(result) * result.cost_model.utilization
    owning_at_r = a + _owning_slope(result) * float(result.cost_model.utilization) * r_star / 40_000
    assert owning_at_r == pytest.approx(api.total_cost * r_star / 40_000, rel=1e-6)
    assert summary["break_even_requests_per_day"] == pytest.approx(r_star, abs=0.1)
    # 1,333 tokens/s of fleet capacity cannot take that many requests: more servers needed.
    assert api.break_even_beyond_capacity


def _owning_slope(result: ScenarioResult) -> float:
    from tco.engine.costmodel import onprem_line

    return float(onprem_line(result.cost_model)[1])


def test_growth_raises_the_sized_peak_and_the_api_bill_alike() -> None:
    from tco.engine.inputs import Demand

    grown = dataclasses.replace(_serving_scenario(), demand=Demand(growth_per_year=0.5))
    result = evaluate(grown)
    assert result.serving is not None
    # Year 5 carries 1.5⁴ = 5.0625 × the first year's load.
    assert result.serving.sized_tokens_per_second == pytest.approx(1333.3333 * 5.0625, rel=1e-6)
    factors = sum(1.5**year * 12 for year in range(5))
    assert result.api_options[0].total_cost == pytest.approx(
        869_047.619_047_6 * 0.000906 * factors, rel=1e-9
    )
    assert result.serving.load_months == pytest.approx(factors)


def test_a_latency_target_the_copy_cannot_meet_is_a_warning() -> None:
    strict = dataclasses.replace(ISSUE_DEMAND, latency_ms_per_token=1.0)
    result = evaluate(_serving_scenario(serving_demand=strict))
    codes = [n.code for n in result.warnings]
    assert "latency_target_missed" in codes
    relaxed = dataclasses.replace(ISSUE_DEMAND, latency_ms_per_token=1000.0)
    assert "latency_target_missed" not in [
        n.code for n in evaluate(_serving_scenario(serving_demand=relaxed)).warnings
    ]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"users": 0}, "users"),
        ({"peak_factor": 0.5}, "peak_factor"),
        ({"hours_per_day": 25}, "hours_per_day"),
        ({"days_per_week": 0}, "days_per_week"),
        ({"input_tokens_per_request": -1}, "input_tokens_per_request"),
        ({"latency_ms_per_token": 0}, "latency_ms_per_token"),
    ],
)
def test_impossible_demand_is_refused_naming_the_field(changes: dict[str, int], field: str) -> None:
    with pytest.raises(InvalidInput) as exc:
        dataclasses.replace(ISSUE_DEMAND, **changes)
    assert exc.value.field == field


def test_apis_need_the_demand_in_requests_and_training_takes_none() -> None:
    with pytest.raises(InvalidInput) as exc:
        _serving_scenario(serving_demand=None, target_tokens_per_second=1000.0)
    assert exc.value.field == "api_offerings"
    with pytest.raises(InvalidInput) as exc:
        Workload(WorkloadKind.PRETRAIN, 7.0, tokens_billion=1.0, serving_demand=ISSUE_DEMAND)
    assert exc.value.field == "serving_demand"


@given(
    users=st.integers(1, 1_000_000),
    requests=st.floats(0.1, 500),
    output=st.floats(1, 10_000),
    peak=st.floats(1, 10),
    hours=st.floats(0.5, 24),
    days=st.floats(0.5, 7),
)
def test_peak_is_at_least_the_working_average_which_is_at_least_the_weekly_one(
    users: int, requests: float, output: float, peak: float, hours: float, days: float
) -> None:
    load = derive_load(ServingDemand(users, requests, output, 0, peak, hours, days))
    assert load.peak_tokens_per_second >= load.average_tokens_per_second * (1 - 1e-12)
    assert load.average_tokens_per_second >= load.average_tokens_per_second_all_hours * (1 - 1e-12)
    # Tokens a week are the same whichever way they are counted.
    week = load.average_tokens_per_second_all_hours * 168 * 3600
    assert week == pytest.approx(load.output_tokens_per_day * days, rel=1e-9)


@given(
    price=st.floats(1e-7, 1.0),
    requests=st.floats(1, 1e8),
    months=st.integers(12, 120),
    growth=st.floats(-0.5, 2.0),
)
def test_the_api_bill_is_linear_in_volume_and_price(
    price: float, requests: float, months: int, growth: float
) -> None:
    factors = np.power(1 + growth, np.arange(months) // 12)
    bill = api_monthly_cost(price, requests, factors)
    assert bill.sum() == pytest.approx(price * requests * factors.sum(), rel=1e-9)
    assert api_monthly_cost(2 * price, requests, factors).sum() == pytest.approx(
        2 * bill.sum(), rel=1e-12
    )


@given(
    api_total=st.floats(1, 1e9),
    requests=st.floats(1, 1e7),
    a=st.floats(1, 1e9),
    b=st.floats(0, 1e8),
    u=st.floats(1e-6, 1),
)
def test_owning_and_the_api_cost_the_same_at_the_break_even(
    api_total: float, requests: float, a: float, b: float, u: float
) -> None:
    r_star = break_even_requests_per_day(api_total, requests, a, b, u)
    per_request = api_total / requests
    if r_star is None:
        assert per_request <= b * u / requests
        return
    owning = a + b * u * r_star / requests
    assert math.isclose(owning, per_request * r_star, rel_tol=1e-6)


def test_the_buyers_terms_rule_out_an_api_like_any_rented_option() -> None:
    """Groq (US law, data country unknown) is the cheapest option; under "EU data only" it
    is greyed with the reason, another option is recommended, and the verdict says the
    terms decided it and what they cost. An EU API (French law, data in France) stays."""
    eu_api = ApiOfferingSpec(
        "Scaleway",
        "Llama 3.3 70B",
        0.90,
        0.90,
        params_billion=70.0,
        currency="EUR",
        jurisdiction="FR",
        data_country="FR",
    )
    free = build_report(evaluate(_serving_scenario((GROQ, eu_api)))).to_json()
    assert free["verdict"]["recommended"] == GROQ.name
    terms = Constraints(eu_data_only=True)
    bound = evaluate(dataclasses.replace(_serving_scenario((GROQ, eu_api)), constraints=terms))
    summary = build_report(bound).to_json()
    by_name = {o["name"]: o for o in summary["options"]}
    groq = by_name[GROQ.name]
    assert not groq["recommended"] and not groq["eligible"]
    assert [v["code"] for v in groq["violations"]] == ["data_country_unknown"]
    assert by_name[eu_api.name]["violations"] == []
    recommended = summary["verdict"]["recommended"]
    assert recommended != GROQ.name and not by_name[recommended]["violations"]
    outcome = summary["constraints"]
    assert outcome["decided_verdict"] and outcome["cheapest_overall"] == GROQ.name
    assert outcome["cost_of_constraints"] == pytest.approx(
        by_name[recommended]["total_cost"] - groq["total_cost"], abs=0.01
    )
