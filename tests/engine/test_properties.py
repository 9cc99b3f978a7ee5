"""Property tests (hypothesis) of the cost core's invariants."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import (
    CloudCostParams,
    CostModel,
    InvalidInput,
    SiteSpec,
    compare_options,
    sweep,
)
from tco.engine.costmodel import cloud_totals, onprem_totals
from tco.engine.inputs import FinanceInputs

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CLOUDS = (
    CloudCostParams("on demand", 55.04, 8.0, 0.0),
    CloudCostParams("committed", 38.86, 8.0, 1.0),
    CloudCostParams("spot", 20.0, 8.0, 0.0, usage_multiplier=1.15, uplift_pct=0.05),
    CloudCostParams("per gpu", 3.99, 1.0, 0.0),
    CloudCostParams("1y term", 30.0, 8.0, 1.0, term_months=12.0, uplift_pct=0.02),
    CloudCostParams("3y other gpu", 25.0, 8.0, 1.0, term_months=36.0, fleet_ratio=2.0),
    CloudCostParams("slower gpu", 30.0, 8.0, 0.0, work_ratio=2.3, fleet_ratio=2.0),
)


def money(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


@st.composite
def models(draw: st.DrawFn) -> CostModel:
    idle = draw(money(0.0, 5.0))
    leased = draw(st.sampled_from([0.0, 1.0]))
    return CostModel(
        servers=float(draw(st.integers(1, 64))),
        gpus_per_server=8.0,
        server_price=draw(money(50_000.0, 600_000.0)),
        idle_power_kw=idle,
        max_power_kw=idle + draw(money(0.5, 12.0)),
        pue=draw(money(1.0, 2.0)),
        electricity_price_per_kwh=draw(money(0.0, 0.5)),
        colocation_per_kw_month=draw(money(0.0, 400.0)),
        utilization=draw(money(0.0, 1.0)),
        horizon_months=float(draw(st.integers(12, 120))),
        discount_rate=draw(money(0.0, 0.3)),
        clouds=CLOUDS,
        networking_per_server=draw(money(0.0, 60_000.0)),
        storage_total=draw(money(0.0, 500_000.0)),
        installation_per_server=draw(money(0.0, 20_000.0)),
        spares_pct=draw(money(0.0, 0.1)),
        support_pct_per_year=draw(money(0.0, 0.3)),
        staff_fte=draw(money(0.0, 3.0)),
        staff_annual_cost=draw(money(0.0, 250_000.0)),
        software_per_gpu_year=draw(money(0.0, 5_000.0)),
        insurance_pct_per_year=draw(money(0.0, 0.02)),
        residual_pct=draw(money(0.0, 0.5)),
        leased=leased,
        lease_annual_rate=draw(money(0.0, 0.15)),
        lease_term_months=float(draw(st.integers(12, 84))),
        cloud_price_scale=draw(money(0.5, 1.5)),
        active_months=float(draw(st.sampled_from([1e9, *range(1, 130, 7)]))),
        whole_terms=draw(st.sampled_from([0.0, 1.0])),
        fixed_monthly=draw(money(0.0, 20_000.0)),
        one_off_cost=draw(money(0.0, 200_000.0)),
    )


def total(m: CostModel) -> float:
    return float(onprem_totals(m).total)


@FAST
@given(models(), money(1.0, 3.0))
def test_onprem_total_never_falls_when_costs_rise(m: CostModel, factor: float) -> None:
    for name in ("electricity_price_per_kwh", "server_price"):
        base = float(getattr(m, name))
        assert total(m.replace(**{name: base * factor})) >= total(m) * (1 - 1e-12)
    higher_pue = min(3.0, float(m.pue) * factor)
    assert total(m.replace(pue=higher_pue)) >= total(m) * (1 - 1e-12)
    assert float(onprem_totals(m.replace(pue=higher_pue)).npv) >= float(onprem_totals(m).npv) * (
        1 - 1e-12
    )


def bisect_root(f: Any, lo: float, hi: float) -> float:
    """Plain bisection, independent of the engine's closed form."""
    f_lo = f(lo)
    for _ in range(48):  # 200 / 2^48 < 1e-12: far below the 1e-6 tolerance
        mid = (lo + hi) / 2
        f_mid = f(mid)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return (lo + hi) / 2


@settings(max_examples=60, deadline=None)
@given(models())
def test_break_even_makes_totals_equal(m: CostModel) -> None:
    result = sweep(m)
    for k, cloud in enumerate(m.clouds):
        u_star = float(result.break_even_utilization[k])
        if np.isnan(u_star):
            continue

        def gap(u: float, cloud: CloudCostParams = cloud) -> float:
            at = m.replace(utilization=u)
            return float(onprem_totals(at).total - cloud_totals(at, cloud).total)

        if 0.0 <= u_star <= 1.0:
            at = m.replace(utilization=u_star)
            on, cl = float(onprem_totals(at).total), float(cloud_totals(at, cloud).total)
            assert on == pytest.approx(cl, rel=1e-4)
        if abs(u_star) < 50:
            lo, hi = -100.0, 100.0
            if np.sign(gap(lo)) != np.sign(gap(hi)):
                assert bisect_root(gap, lo, hi) == pytest.approx(u_star, rel=1e-6, abs=1e-9)


@FAST
@given(models(), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12))
def test_a_sweep_without_npvs_has_the_same_totals(m: CostModel, utilizations: list[float]) -> None:
    """sweep(npvs=False), as the utilization chart asks: the same nominal totals, bit for
    bit, and no NPVs."""
    overrides = {"utilization": np.array(utilizations)}
    full = sweep(m, overrides, break_evens=False)
    totals = sweep(m, overrides, break_evens=False, npvs=False)
    assert np.array_equal(totals.onprem_total, full.onprem_total)
    assert np.array_equal(totals.cloud_total, full.cloud_total)
    assert totals.onprem_npv.size == 0 and totals.cloud_npv.size == 0


@FAST
@given(models(), st.integers(2, 5))
def test_cost_scales_linearly_with_servers(m: CostModel, k: int) -> None:
    # Per-server items scale; staff, shared storage and fixed fees do not, so zero them.
    m = m.replace(staff_fte=0.0, storage_total=0.0, fixed_monthly=0.0, one_off_cost=0.0)
    scaled = m.replace(servers=float(m.servers) * k)
    assert total(scaled) == pytest.approx(k * total(m), rel=1e-9)
    for cloud in m.clouds:
        assert float(cloud_totals(scaled, cloud).total) == pytest.approx(
            k * float(cloud_totals(m, cloud).total), rel=1e-9
        )


@FAST
@given(models())
def test_no_nan_inf_or_negative_costs(m: CostModel) -> None:
    onprem, clouds = compare_options(m, tokens_per_second=1000.0)
    for value in (onprem.total_cost, onprem.npv, *(c.total_cost for c in clouds)):
        assert np.isfinite(value) and value >= 0
    assert all(np.isfinite(c.npv) and c.npv >= 0 for c in clouds)
    assert np.isfinite(onprem.cashflow.values).all()
    # only the residual value flows back (so the last month's total may be negative)
    cf = onprem.cashflow
    costs = np.array([cf[c] for c in cf.components if c != "residual"])
    assert (costs >= 0).all()


@settings(max_examples=20, deadline=None)
@given(st.lists(models(), min_size=2, max_size=8))
def test_scalar_and_vectorized_paths_agree(batch: list[CostModel]) -> None:
    fields = [f for f in CostModel.__dataclass_fields__ if f != "clouds"]
    overrides = {f: np.array([float(getattr(m, f)) for m in batch]) for f in fields}
    result = sweep(batch[0], overrides)
    for j, m in enumerate(batch):
        onprem, clouds = compare_options(m)
        assert result.onprem_total[j] == pytest.approx(onprem.total_cost, rel=1e-9)
        assert result.onprem_npv[j] == pytest.approx(onprem.npv, rel=1e-9)
        for k, c in enumerate(clouds):
            assert result.cloud_total[k, j] == pytest.approx(c.total_cost, rel=1e-9)
            assert result.cloud_npv[k, j] == pytest.approx(c.npv, rel=1e-9)
            be = result.break_even_utilization[k, j]
            if c.break_even_utilization is None:
                assert np.isnan(be)
            else:
                assert be == pytest.approx(c.break_even_utilization, rel=1e-9)


@FAST
@given(
    st.one_of(
        st.floats(-10.0, 0.999, allow_nan=False),
        st.floats(3.001, 100.0, allow_nan=False),
        st.just(float("nan")),
    )
)
def test_invalid_pue_raises_engine_error(pue: float) -> None:
    with pytest.raises(InvalidInput) as err:
        SiteSpec(0.2, pue, 150.0, 40.0)
    assert err.value.field == "pue"


@FAST
@given(
    st.sampled_from(["utilization", "horizon_months", "discount_rate", "support_pct_per_year"]),
    st.floats(-1e6, -1e-6, allow_nan=False),
)
def test_invalid_finance_inputs_raise_engine_error(field: str, value: float) -> None:
    v: float | int = round(value) if field == "horizon_months" else value
    inputs: dict[str, Any] = {field: v}
    with pytest.raises(InvalidInput) as err:
        FinanceInputs(**inputs)
    assert err.value.field == field
