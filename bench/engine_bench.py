"""Benchmark of the pure cost engine (no Django).

Run from the repository root:  .venv/bin/python bench/engine_bench.py [--full-loop]

Scenario: 7 B pre-training on 1 T tokens in 30 days on HGX H100 8-GPU servers
(~$300k each, estimate) in a Dutch colocation site (€0.18/kWh, PUE 1.3,
€150/kW-month), against AWS p5.48xlarge on demand ($55.04/h), GCP
a3-highgpu-8g 3-year commitment ($38.86/h) and CoreWeave 8 × H100 ($49.24/h).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from tco.engine import CostModel, build_cost_model, compare_options, evaluate, sweep
from tco.engine.examples import reference_scenario

N_SCENARIOS = 10_000
TARGET_SINGLE_MS = 5.0
TARGET_SWEEP_MS = 200.0
TARGET_SPEEDUP = 50.0


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def random_overrides(base: CostModel, n: int, seed: int = 42) -> dict[str, np.ndarray]:
    """Realistic spread around the base scenario, one value per scenario."""
    rng = np.random.default_rng(seed)
    return {
        "servers": rng.integers(1, 65, n).astype(np.float64),
        "server_price": rng.uniform(200_000.0, 400_000.0, n),
        "electricity_price_per_kwh": rng.uniform(0.05, 0.35, n),
        "pue": rng.uniform(1.1, 1.7, n),
        "colocation_per_kw_month": rng.uniform(100.0, 250.0, n),
        "utilization": rng.uniform(0.1, 1.0, n),
        "horizon_months": rng.integers(36, 61, n).astype(np.float64),
        "discount_rate": rng.uniform(0.0, 0.15, n),
        "support_pct_per_year": rng.uniform(0.05, 0.25, n),
        "cloud_price_scale": rng.uniform(0.7, 1.3, n),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--full-loop",
        action="store_true",
        help="loop over all 10,000 scenarios instead of timing 1,000 and extrapolating",
    )
    args = parser.parse_args()

    scenario = reference_scenario()
    single = median_seconds(lambda: evaluate(scenario), repeats=200)

    base = build_cost_model(scenario, evaluate(scenario).sizing.servers_required)
    overrides = random_overrides(base, N_SCENARIOS)
    sweep_time = median_seconds(lambda: sweep(base, overrides), repeats=30)

    loop_n = N_SCENARIOS if args.full_loop else 1_000
    models = [
        base.replace(**{name: float(values[j]) for name, values in overrides.items()})
        for j in range(loop_n)
    ]
    start = time.perf_counter()
    for m in models:
        compare_options(m)
    loop_time = (time.perf_counter() - start) * N_SCENARIOS / loop_n
    speedup = loop_time / sweep_time

    # The two paths must agree on what they computed.
    check = sweep(base, {k: v[:loop_n] for k, v in overrides.items()})
    onprem, clouds = compare_options(models[-1])
    assert np.isclose(check.onprem_total[-1], onprem.total_cost, rtol=1e-9)
    assert np.isclose(check.cloud_npv[0, -1], clouds[0].npv, rtol=1e-9)
    assert "django" not in sys.modules

    def verdict(ok: bool) -> str:
        return "OK" if ok else "MISSED"

    loop_note = "measured" if args.full_loop else "1,000 timed, extrapolated x10"
    print("Engine benchmark (7B pre-train, 6 x HGX H100, NL site, 3 cloud offerings)")
    print(
        f"  single scenario (sizing + racks + 3 clouds + 60-month cash flows + break-even"
        f" + 10-input tornado): median {single * 1e3:7.2f} ms   target < {TARGET_SINGLE_MS:g} ms"
        f"   {verdict(single * 1e3 < TARGET_SINGLE_MS)}"
    )
    print(
        f"  vectorized sweep, {N_SCENARIOS:,} scenarios x 3 clouds (totals, NPV, break-even):"
        f" median {sweep_time * 1e3:7.2f} ms   target < {TARGET_SWEEP_MS:g} ms"
        f"   {verdict(sweep_time * 1e3 < TARGET_SWEEP_MS)}"
    )
    print(
        f"  loop of the single-scenario cost function (compare_options) over {N_SCENARIOS:,}:"
        f" {loop_time * 1e3:9.1f} ms ({loop_note})"
    )
    print(
        f"  speed-up of the sweep over the loop: {speedup:,.0f}x   target >= {TARGET_SPEEDUP:g}x"
        f"   {verdict(speedup >= TARGET_SPEEDUP)}"
    )


if __name__ == "__main__":
    main()
