"""The buyer's constraints, the refresh cycle and the horizon view, against hand calculations.

The scenario is the one of test_demand_verdict.py, so every cost can be derived on
paper: one 8 × H100 server at $300,000, nothing but energy (2 kW idle, 10 kW busy,
$0.20/kWh, PUE 1.0) and a 10 % residual; clouds of the same GPU priced per 8-GPU
instance-hour; no discounting. The one-off LoRA run takes T hours (sized in
test_sizing.py); renting it costs ⌈T⌉ × the hourly price.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine import (
    EU_COUNTRIES,
    CloudOfferingSpec,
    CloudTerm,
    Constraints,
    Demand,
    DemandPattern,
    FinanceInputs,
    InvalidInput,
    Scenario,
    ScenarioResult,
    ServerSpec,
    SiteSpec,
    SizingMemo,
    Workload,
    WorkloadKind,
    cost_of_owning,
    costs_of_owning,
    evaluate,
    owning_plan,
    verdict_text,
    violations,
)
from tco.engine.costmodel import onprem_totals
from tco.engine.examples import H100_SXM
from tco.engine.options import table_npv
from tco.engine.units import Money
from tco.report import build_report

SERVER = ServerSpec("Test H100 server", H100_SXM, 8, 8, 10.0, 2.0, False, Money(300_000.0))
COLOCATION_NL = SiteSpec(0.20, 1.0, 0.0, 40.0, country="NL")
OWN_ROOM_NL = dataclasses.replace(COLOCATION_NL, on_premises=True)


def offer(provider: str, price: float, jurisdiction: str, data_country: str) -> CloudOfferingSpec:
    return CloudOfferingSpec(
        provider,
        "8x H100",
        CloudTerm.ON_DEMAND,
        8,
        price,
        gpu=H100_SXM,
        jurisdiction=jurisdiction,
        data_country=data_country,
    )


US_CLOUD = offer("US Cloud", 40.0, "US", "US")
EU_CLOUD = offer("EU Cloud", 45.0, "NL", "FI")
UNKNOWN_REGION = offer("Global Cloud", 38.0, "US", "")
UK_CLOUD_EU_DATA = offer("UK Cloud", 42.0, "GB", "DE")
FINANCE = FinanceInputs(
    horizon_months=60,
    discount_rate=0.0,
    networking_per_server=0.0,
    installation_per_server=0.0,
    support_pct_per_year=0.0,
    staff_fte=0.0,
    insurance_pct_per_year=0.0,
    residual_pct=0.10,
)
LORA_70B = Workload(WorkloadKind.LORA, 70.0, tokens_billion=1.0, deadline_days=2.0)
ALL_CLOUDS = (US_CLOUD, EU_CLOUD, UNKNOWN_REGION, UK_CLOUD_EU_DATA)


def one_off(constraints: Constraints, site: SiteSpec = COLOCATION_NL) -> Scenario:
    return Scenario(
        workload=LORA_70B,
        server=SERVER,
        site=site,
        cloud_offerings=ALL_CLOUDS,
        finance=FINANCE,
        demand=Demand(DemandPattern.ONE_OFF),
        constraints=constraints,
    )


def flagged(result: ScenarioResult) -> dict[str, list[str]]:
    options = result.verdict.options
    return {o.name: [n.code for n in o.violations] for o in options if o.violations}


def test_without_constraints_the_cheapest_option_wins_and_nothing_is_flagged() -> None:
    r = evaluate(one_off(Constraints()))
    t = r.sizing.training_hours
    assert t is not None
    assert r.verdict.recommended == UNKNOWN_REGION.name
    assert r.verdict.params["cost"] == pytest.approx(math.ceil(t) * 38.0, rel=1e-12)
    assert flagged(r) == {} and r.verdict.params["constraint_decided"] is False
    assert r.verdict.params["constraint_cost"] == 0.0


def test_eu_data_removes_exactly_the_options_outside_or_unknown_and_says_what_it_costs() -> None:
    r = evaluate(one_off(Constraints(eu_data_only=True)))
    t = r.sizing.training_hours
    assert t is not None
    # US data and an unknown region break it; the EU-region clouds (one under UK law)
    # and the owned fleet in the Netherlands comply.
    assert flagged(r) == {
        US_CLOUD.name: ["data_outside_eu"],
        UNKNOWN_REGION.name: ["data_country_unknown"],
    }
    # The cheapest compliant option is the UK provider's EU region at $42/h.
    p = r.verdict.params
    assert r.verdict.recommended == UK_CLOUD_EU_DATA.name and r.verdict.action == "rent"
    assert p["constraint_decided"] is True and p["cheapest_overall"] == UNKNOWN_REGION.name
    assert p["cheapest_overall_cost"] == pytest.approx(math.ceil(t) * 38.0, rel=1e-12)
    assert p["constraint_cost"] == pytest.approx(math.ceil(t) * (42.0 - 38.0), rel=1e-12)
    ranked = {o.name: o for o in r.verdict.options}
    assert not ranked[US_CLOUD.name].eligible and ranked[US_CLOUD.name].excluded_code == (
        "constraint"
    )
    assert ranked[EU_CLOUD.name].eligible
    summary = build_report(r).to_json()["constraints"]
    assert summary["decided_verdict"] is True
    assert summary["cost_of_constraints"] == pytest.approx(math.ceil(t) * 4.0, abs=0.01)
    assert {e["name"] for e in summary["excluded"]} == {US_CLOUD.name, UNKNOWN_REGION.name}
    assert "Your constraints decided this" in verdict_text(r.verdict, "USD")


def test_eu_jurisdiction_also_rules_out_the_uk_provider() -> None:
    r = evaluate(one_off(Constraints(eu_data_only=True, eu_jurisdiction_only=True)))
    t = r.sizing.training_hours
    assert t is not None
    assert flagged(r) == {
        US_CLOUD.name: ["data_outside_eu", "jurisdiction_outside_eu"],
        UNKNOWN_REGION.name: ["data_country_unknown", "jurisdiction_outside_eu"],
        UK_CLOUD_EU_DATA.name: ["jurisdiction_outside_eu"],
    }
    assert r.verdict.recommended == EU_CLOUD.name
    assert r.verdict.params["constraint_cost"] == pytest.approx(math.ceil(t) * 7.0, rel=1e-12)


def test_own_premises_turns_the_verdict_to_owning_and_prices_the_constraint() -> None:
    r = evaluate(one_off(Constraints(eu_data_only=True, own_premises_only=True), OWN_ROOM_NL))
    t = r.sizing.training_hours
    assert t is not None
    assert set(flagged(r)) == {c.name for c in ALL_CLOUDS}
    assert all("not_own_premises" in codes for codes in flagged(r).values())
    # Buy, run one month, resell at 85 % − 7 %/12 of $300,000 (test_demand_verdict.py).
    resell = 300_000 + 2 * 730 * 0.20 + 8 * t * 0.20 - 300_000 * (0.85 - 0.07 / 12)
    v = r.verdict
    assert (v.action, v.code) == ("buy", "buy_resell")
    assert v.params["cost"] == pytest.approx(resell, rel=1e-9)
    assert v.params["constraint_cost"] == pytest.approx(resell - math.ceil(t) * 38.0, rel=1e-9)
    assert v.reference_cloud is None  # no compliant cloud to compare with
    # Reselling after the run does not depend on the horizon compared.
    assert r.horizons is not None and r.horizons.resell is not None
    assert r.horizons.resell == pytest.approx((resell,) * 4, rel=1e-9)


def test_a_colocation_site_is_not_own_premises_so_nothing_complies() -> None:
    with pytest.raises(InvalidInput) as caught:
        evaluate(one_off(Constraints(own_premises_only=True)))
    assert caught.value.field == "constraints"


def test_a_constraint_the_cheapest_option_meets_changes_nothing() -> None:
    cheap_eu = offer("EU Cloud", 30.0, "FR", "FR")
    s = dataclasses.replace(
        one_off(Constraints(eu_data_only=True)), cloud_offerings=(US_CLOUD, cheap_eu)
    )
    r = evaluate(s)
    assert r.verdict.recommended == cheap_eu.name
    assert r.verdict.params["constraint_decided"] is False
    assert flagged(r) == {US_CLOUD.name: ["data_outside_eu"]}
    assert "constraints decided" not in verdict_text(r.verdict, "USD")


def test_preferred_providers_and_air_gap() -> None:
    r = evaluate(one_off(Constraints(preferred_providers=("eu cloud",))))
    assert set(flagged(r)) == {US_CLOUD.name, UNKNOWN_REGION.name, UK_CLOUD_EU_DATA.name}
    assert r.verdict.recommended == EU_CLOUD.name
    gapped = evaluate(one_off(Constraints(air_gapped=True)))
    assert set(flagged(gapped)) == {c.name for c in ALL_CLOUDS}
    assert gapped.verdict.action == "buy"  # an owned fleet can be air-gapped in colocation


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["US", "GB", "CH", "", *sorted(EU_COUNTRIES)]),
    st.sampled_from(["US", "NO", "", *sorted(EU_COUNTRIES)]),
    st.booleans(),
    st.booleans(),
)
def test_violations_follow_the_country_lists(
    jurisdiction: str, data_country: str, eu_data: bool, eu_law: bool
) -> None:
    notes = violations(
        Constraints(eu_data_only=eu_data, eu_jurisdiction_only=eu_law),
        provider="P",
        jurisdiction=jurisdiction,
        data_country=data_country,
        on_premises=False,
    )
    breaks = (eu_data and data_country not in EU_COUNTRIES) or (
        eu_law and jurisdiction not in EU_COUNTRIES
    )
    assert bool(notes) == breaks


# --- refresh cycle and horizon view ---------------------------------------------------


def continuous(horizon_months: int, service_life_months: int = 60) -> Scenario:
    return Scenario(
        workload=LORA_70B,
        server=SERVER,
        site=COLOCATION_NL,
        cloud_offerings=(US_CLOUD,),
        finance=dataclasses.replace(
            FINANCE, horizon_months=horizon_months, service_life_months=service_life_months
        ),
        servers=1,
        demand=Demand(DemandPattern.CONTINUOUS, utilization=0.5),
    )


# Energy: (2 + 8 × 0.5) kW × 730 h × $0.20 = $876 a month.
ENERGY = 6 * 730 * 0.20


def test_seven_years_buys_the_fleet_again_after_its_five_year_life() -> None:
    r = evaluate(continuous(84))
    # $300,000 + energy + at month 60 ($300,000 − the old fleet's $30,000), less the
    # second fleet's book value at 24 months: 10 % + 90 % × (1 − 24/60) = 64 %.
    expected = 300_000 + ENERGY * 84 + (300_000 - 30_000) - 0.64 * 300_000
    assert expected == pytest.approx(451_584.0)
    assert r.onprem.total_cost == pytest.approx(expected, rel=1e-12)
    table = r.onprem.cashflow
    assert table["hardware"][60] == pytest.approx(300_000.0)
    assert table["residual"][60] == pytest.approx(-30_000.0)
    assert table["residual"][84] == pytest.approx(-192_000.0)
    # The closed form and the monthly table agree, discounted too.
    discounted = evaluate(
        dataclasses.replace(
            continuous(84), finance=dataclasses.replace(continuous(84).finance, discount_rate=0.08)
        )
    )
    assert float(onprem_totals(discounted.cost_model).npv) == pytest.approx(
        table_npv(discounted.onprem.cashflow, 0.08), rel=1e-12
    )


def test_within_the_service_life_nothing_changes() -> None:
    for months in (12, 36, 60):
        with_life = evaluate(continuous(months, service_life_months=60))
        never = evaluate(continuous(months, service_life_months=240))
        assert with_life.onprem.total_cost == pytest.approx(never.onprem.total_cost, rel=1e-12)
        assert with_life.onprem.npv == pytest.approx(never.onprem.npv, rel=1e-12)
    # 5 years: $300,000 + 60 months of energy − the 10 % residual.
    five = evaluate(continuous(60))
    assert five.onprem.total_cost == pytest.approx(300_000 + ENERGY * 60 - 30_000, rel=1e-12)


def test_horizon_view_costs_every_option_at_three_five_seven_and_ten_years() -> None:
    r = evaluate(continuous(60))
    view = r.horizons
    assert view is not None and view.months == (36, 60, 84, 120)
    assert view.refreshes == (0, 0, 1, 1)
    # Owning: 3 and 5 years within the life; 10 years: bought again at 60, the second
    # fleet 60 months old at the end, so kept at the 10 % residual.
    assert view.onprem[0] == pytest.approx(300_000 + ENERGY * 36 - 30_000, rel=1e-12)
    assert view.onprem[1] == pytest.approx(r.onprem.total_cost, rel=1e-12)
    assert view.onprem[2] == pytest.approx(451_584.0, rel=1e-12)
    assert view.onprem[3] == pytest.approx(300_000 + ENERGY * 120 + 270_000 - 30_000, rel=1e-12)
    # Renting: 1 instance × 730 h × months × 50 % × $40.
    for months, total in zip(view.months, view.clouds[0], strict=True):
        assert total == pytest.approx(730 * months * 0.5 * 40.0, rel=1e-12)
    summary = build_report(r).to_json()["horizons"]
    assert summary["months"] == [36, 60, 84, 120]
    assert summary["options"][0]["totals"][2] == pytest.approx(451_584.0, abs=0.01)


def test_service_life_is_validated() -> None:
    with pytest.raises(InvalidInput) as caught:
        dataclasses.replace(FINANCE, service_life_months=6)
    assert caught.value.field == "service_life_months"


@settings(max_examples=80, deadline=None)
@given(
    st.integers(min_value=12, max_value=120),
    st.integers(min_value=12, max_value=240),
    st.floats(min_value=0.0, max_value=0.2),
    st.floats(min_value=0.0, max_value=0.5),
)
def test_refresh_closed_form_equals_the_monthly_table(
    horizon: int, life: int, rate: float, residual: float
) -> None:
    from tco.engine.costmodel import NO_REFRESH
    from tco.engine.onprem import onprem_cashflow
    from tests.engine.helpers import simple_model

    model = simple_model(
        horizon_months=float(horizon),
        service_life_months=float(life),
        discount_rate=rate,
        residual_pct=residual,
        installation_per_server=5_000.0,
    )
    table = onprem_cashflow(model)
    totals = onprem_totals(model)
    assert float(totals.total) == pytest.approx(float(table["total"].sum()), rel=1e-9)
    assert float(totals.npv) == pytest.approx(table_npv(table, rate), rel=1e-9)
    never = onprem_totals(model.replace(service_life_months=NO_REFRESH))
    if horizon <= life:  # within the service life nothing changes
        assert float(totals.total) == pytest.approx(float(never.total), rel=1e-12)
    else:  # a refresh costs more in cash than keeping the old fleet (new price > resale)
        assert float(totals.total) > float(never.total)


def test_horizons_of_a_one_off_run_equal_each_horizon_evaluated_on_its_own() -> None:
    # The view costs the four horizons in one vectorised pass; each must be the scenario
    # evaluated over that horizon (a one-off run: buy-run-resell where the run is shorter).
    base = one_off(Constraints())
    view = evaluate(base).horizons
    assert view is not None
    for k, months in enumerate(view.months):
        alone = evaluate(
            dataclasses.replace(base, finance=dataclasses.replace(FINANCE, horizon_months=months))
        )
        assert view.onprem[k] == pytest.approx(alone.onprem.total_cost, rel=1e-9)
        for c, option in enumerate(alone.cloud_options):
            assert view.clouds[c][k] == pytest.approx(option.total_cost, rel=1e-9)
        resold = alone.resell.total_cost if alone.resell is not None else None
        assert view.resell is not None and view.resell[k] == pytest.approx(resold, rel=1e-9)


def test_ranking_in_one_pass_equals_one_server_at_a_time() -> None:
    # costs_of_owning stacks the candidates' cost models; each total must be the one a
    # scenario of that server alone gives, keeping or reselling after the run.
    servers = [
        SERVER,
        dataclasses.replace(SERVER, name="Dearer", price=Money(390_000.0), max_power_kw=11.0),
        dataclasses.replace(SERVER, name="Four GPUs", gpus_per_server=4, price=Money(160_000.0)),
    ]
    for demand in (Demand(DemandPattern.ONE_OFF), Demand(DemandPattern.RECURRING, runs_per_year=6)):
        scenarios = [
            dataclasses.replace(one_off(Constraints()), server=s, demand=demand) for s in servers
        ]
        sizings: SizingMemo = {}
        together = costs_of_owning([owning_plan(s, sizings) for s in scenarios])
        assert len(sizings) == 2  # two GPU boards: 8 and 4 H100s
        for scenario, total in zip(scenarios, together, strict=True):
            alone = evaluate(scenario)
            expected = alone.onprem.total_cost
            if alone.resell is not None:
                expected = min(expected, alone.resell.total_cost)
            assert total == pytest.approx(expected, rel=1e-9)
            assert total == cost_of_owning(scenario)
