"""The reference scenario of docs/methodology.md, shared by tests, bench and CLI.

Figures from /docs data sources: H100 SXM5 datasheet (dense), DGX H100 power
(10.2 kW, 8U), server price and idle power are estimates; Dutch site
(€0.18/kWh, PUE 1.3, €150/kW-month colocation, estimates); cloud list prices:
AWS p5.48xlarge on demand $55.04/h, GCP a3-highgpu-8g 3-year commitment
$38.86/h, CoreWeave 8 × H100 $49.24/h.
"""

from __future__ import annotations

from tco.engine.inputs import (
    CloudOfferingSpec,
    CloudTerm,
    Demand,
    DemandPattern,
    FinanceInputs,
    GpuSpec,
    ModelShape,
    Precision,
    Scenario,
    ServerSpec,
    SiteSpec,
    Workload,
    WorkloadKind,
)
from tco.engine.units import FxRates, Money

H100_SXM = GpuSpec(
    name="H100 SXM5",
    memory_gb=80.0,
    memory_bandwidth_tbps=3.35,
    bf16_tflops=989.0,
    fp8_tflops=1979.0,
    fp4_tflops=None,
    tdp_w=700.0,
    nvlink_bandwidth_gbps=900.0,
)

HGX_H100_SERVER = ServerSpec(
    name="HGX H100 8-GPU (8U)",
    gpu=H100_SXM,
    gpus_per_server=8,
    rack_units=8,
    max_power_kw=10.2,
    idle_power_kw=3.0,  # estimate: fans, CPUs, NICs and idle GPUs
    liquid_cooled=False,
    price=Money(300_000.0, "USD"),  # estimate
)

SITE_NL = SiteSpec(
    electricity_price_per_kwh=0.18,
    pue=1.3,
    colocation_per_kw_month=150.0,
    rack_power_limit_kw=40.0,
    currency="EUR",
    name="Netherlands colocation",
)

CLOUD_OFFERINGS = (
    CloudOfferingSpec("AWS", "p5.48xlarge", CloudTerm.ON_DEMAND, 8, 55.04),
    CloudOfferingSpec("GCP", "a3-highgpu-8g", CloudTerm.COMMITTED_3Y, 8, 38.86),
    CloudOfferingSpec("CoreWeave", "8x H100", CloudTerm.ON_DEMAND, 8, 49.24),
)

PRETRAIN_7B = Workload(
    kind=WorkloadKind.PRETRAIN,
    params_billion=7.0,
    tokens_billion=1000.0,
    deadline_days=30.0,
)

# Llama 3.3 70B served at FP8 with a BF16 KV cache: the model of the serving worked
# examples (tco/engine/decode.py), on H100_SXM.
LLAMA_70B_FP8 = Workload(
    kind=WorkloadKind.INFERENCE,
    params_billion=70.6,
    precision=Precision.FP8,
    shape=ModelShape(80, 8192, 64, 8),
)


def reference_scenario() -> Scenario:
    """7 B pre-training on 1 T tokens in 30 days, H100 servers in NL vs 3 clouds, the fleet
    kept busy 70 % of the time for five years.

    >>> reference_scenario().server.gpus_per_server
    8
    """
    return Scenario(
        workload=PRETRAIN_7B,
        server=HGX_H100_SERVER,
        site=SITE_NL,
        cloud_offerings=CLOUD_OFFERINGS,
        finance=FinanceInputs(
            horizon_months=60,
            discount_rate=0.08,
            utilization=0.70,
            reporting_currency="USD",
            fx=FxRates(usd_per_eur=1.08),
            # The worked example's own figures (docs/methodology.md § 6), not the defaults.
            networking_per_server=30_000.0,
            support_pct_per_year=0.15,
            staff_fte=0.5,
        ),
        name="7B pre-training, 8x H100 servers in NL vs AWS, GCP, CoreWeave",
        # A fleet kept busy 70 % of the time for five years (finance.utilization).
        demand=Demand(DemandPattern.CONTINUOUS),
    )
