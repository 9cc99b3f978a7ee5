"""Training compute and time, scaling efficiency (serving: tco/engine/decode.py)."""

from __future__ import annotations

import math

from tco.engine import defaults
from tco.engine.errors import InvalidInput
from tco.engine.inputs import Interconnect, Recompute, WorkloadKind
from tco.engine.units import HOURS_PER_DAY, SECONDS_PER_HOUR

SCALING_ALPHA: dict[Interconnect, float] = {
    Interconnect.NVLINK: defaults.SCALING_ALPHA_NVLINK,
    Interconnect.INFINIBAND: defaults.SCALING_ALPHA_INFINIBAND,
    Interconnect.ROCE: defaults.SCALING_ALPHA_ROCE,
    Interconnect.ETHERNET: defaults.SCALING_ALPHA_ETHERNET,
}
"""Loss of efficiency per doubling of servers, by interconnect (see defaults.py).

At 2,048 servers (16,384 GPUs) InfiniBand gives 1/(1 + 0.02·11) = 0.82; the
measured MFU of large runs already includes part of this, so alpha is small.
"""


def training_flops(params: float, tokens: float, kind: WorkloadKind) -> float:
    """Model FLOPs of a training run: 6·N·D (forward 2ND + backward 4ND, Kaplan et al.).

    LoRA and QLoRA compute no weight gradients for the frozen base, so backward
    is ~2ND: 4·N·D. For a mixture of experts N is the *active* parameters per
    token. Activation recomputation is not work the model needs: it changes the
    hardware FLOPs (see :func:`hardware_flops_factor`), not these.
    7 B params on 1 T tokens: 6 × 7e9 × 1e12 = 4.2e22.

    >>> training_flops(7e9, 1e12, WorkloadKind.PRETRAIN)
    4.2e+22
    >>> training_flops(7e9, 1e9, WorkloadKind.LORA)
    2.8e+19
    """
    if kind is WorkloadKind.INFERENCE:
        raise InvalidInput("kind", "Inference has no training compute.")
    per_token_param = 4.0 if kind in (WorkloadKind.LORA, WorkloadKind.QLORA) else 6.0
    return per_token_param * params * tokens


def hardware_flops_factor(kind: WorkloadKind, recompute: Recompute) -> float:
    """Hardware FLOPs ÷ model FLOPs: what recomputation adds on top of the work.

    Full recomputation repeats the forward pass (2ND): 8/6 for pre-training,
    6/4 for LoRA. Selective recomputation repeats only the attention scores,
    a few per cent (Korthikanti et al. 2022), counted as 1. HFU = MFU × factor.

    >>> round(hardware_flops_factor(WorkloadKind.PRETRAIN, Recompute.FULL), 4)
    1.3333
    >>> hardware_flops_factor(WorkloadKind.LORA, Recompute.FULL)
    1.5
    >>> hardware_flops_factor(WorkloadKind.PRETRAIN, Recompute.SELECTIVE)
    1.0
    """
    if recompute is not Recompute.FULL:
        return 1.0
    base = 4.0 if kind in (WorkloadKind.LORA, WorkloadKind.QLORA) else 6.0
    return (base + 2.0) / base


def scaling_efficiency(servers: float, interconnect: Interconnect) -> float:
    """Fraction of linear speed-up kept across servers: 1 / (1 + α·log2(servers)).

    One server (NVLink inside the node) is 1.0. With InfiniBand (α = 0.02),
    16 servers: 1 / (1 + 0.02·4) = 0.9259.

    >>> scaling_efficiency(1, Interconnect.ETHERNET)
    1.0
    >>> round(scaling_efficiency(16, Interconnect.INFINIBAND), 4)
    0.9259
    >>> round(scaling_efficiency(16, Interconnect.ETHERNET), 4)
    0.7143
    """
    if servers < 1:
        raise InvalidInput("servers", "At least one server is needed.")
    return 1.0 / (1.0 + SCALING_ALPHA[interconnect] * math.log2(servers))


def training_hours(
    flops: float,
    gpus: int,
    peak_tflops: float,
    mfu: float,
    scaling: float = 1.0,
    goodput: float = defaults.GOODPUT,
    pipeline_efficiency: float = 1.0,
) -> float:
    """Wall-clock hours = FLOPs / (GPUs × peak × MFU × scaling × goodput × (1 − bubble)).

    ``flops`` are model FLOPs (6·N·D), so MFU is defined on them.
    4.2e22 FLOPs on 48 H100s (989 TFLOPS bf16), MFU 0.4, scaling 1, goodput 0.9:
    4.2e22 / (48 × 989e12 × 0.4 × 0.9) / 3600 = 682.7 hours; with a pipeline
    bubble of 3/11 (4 stages, 8 micro-batches) 682.7 / (8/11) = 938.7 hours.

    >>> round(training_hours(4.2e22, 48, 989.0, 0.4, 1.0, 0.9), 1)
    682.7
    >>> round(training_hours(4.2e22, 48, 989.0, 0.4, 1.0, 0.9, 8 / 11), 1)
    938.7
    """
    rate = gpus * peak_tflops * 1e12 * mfu * scaling * goodput * pipeline_efficiency
    if rate <= 0:
        raise InvalidInput("gpus", "The effective compute rate must be greater than zero.")
    return flops / rate / SECONDS_PER_HOUR


def hours_to_days(hours: float) -> float:
    """Hours to days (24 h each).

    >>> hours_to_days(48.0)
    2.0
    """
    return hours / HOURS_PER_DAY


def width_efficiency(hidden_size: int, peak_tflops: float, memory_bandwidth_tbps: float) -> float:
    """Share of the large-model MFU a transformer of this width reaches (at most 1).

    Per token and layer the matrix multiplies do ~h² work while normalisations,
    activations and residual additions move ~h bytes at memory speed, so the latter's
    share of a step grows as the model narrows: efficiency h / (h + h₀) with
    h₀ = ``WIDTH_RIDGE_FACTOR`` × the GPU's ridge point (dense peak ÷ memory bandwidth,
    FLOPs per byte). Relative to the reference width of ``MFU_REFERENCE_HIDDEN`` (4,096:
    the 7 B-and-wider runs the default MFU was measured on), capped at 1. H100 (989
    TFLOPS, 3.35 TB/s): ridge 295.2, h₀ = 7.5 × 295.2 = 2,214.2; a 2,560-wide model
    (1.7 B parameters): (2,560 / 4,774.2) ÷ (4,096 / 6,310.2) = 0.5362 ÷ 0.6491 = 0.8261.

    >>> round(width_efficiency(2560, 989.0, 3.35), 4)
    0.8261
    >>> width_efficiency(16384, 989.0, 3.35)
    1.0
    """
    if hidden_size <= 0 or peak_tflops <= 0 or memory_bandwidth_tbps <= 0:
        raise InvalidInput("hidden_size", "Width, peak and bandwidth must be positive.")
    h0 = defaults.WIDTH_RIDGE_FACTOR * peak_tflops / memory_bandwidth_tbps
    ref = defaults.MFU_REFERENCE_HIDDEN
    return min(1.0, (hidden_size / (hidden_size + h0)) / (ref / (ref + h0)))


def gradient_exchange_seconds(
    params_per_gpu: float, data_parallel: int, zero3: bool, link_gb_per_s: float
) -> float:
    """Seconds one step spends exchanging gradients across the data-parallel group.

    Each GPU holds the gradients of its model-parallel share (``params_per_gpu`` ×
    ``GRADIENT_BYTES``, BF16). A ring all-reduce over n copies sends 2(n − 1)/n of them
    over each GPU's link; ZeRO-3 reduce-scatters the gradients ((n − 1)/n) and gathers
    the parameters before the forward and the backward pass (2(n − 1)/n): 3(n − 1)/n.
    1.7 B parameters on 256 data-parallel GPUs at 50 GB/s: 2 × 255/256 × 3.4 GB ÷
    50 GB/s = 135.5 ms; with ZeRO-3 203.2 ms.

    >>> round(gradient_exchange_seconds(1.7e9, 256, False, 50.0) * 1000, 1)
    135.5
    >>> round(gradient_exchange_seconds(1.7e9, 256, True, 50.0) * 1000, 1)
    203.2
    >>> gradient_exchange_seconds(1.7e9, 1, False, 50.0)
    0.0
    """
    n = data_parallel
    if n <= 1:
        return 0.0
    passes = 3.0 if zero3 else 2.0
    return passes * (n - 1) / n * params_per_gpu * defaults.GRADIENT_BYTES / (link_gb_per_s * 1e9)


def exposed_exchange_seconds(exchange_s: float, compute_s: float) -> float:
    """The part of a step's gradient exchange that the step's compute does not hide.

    Gradients leave in buckets while the backward pass still runs, so up to
    ``GRADIENT_OVERLAP`` × the step's compute can hide the exchange; the rest adds to
    the step. The published small-model runs (docs/calibration.md) are reproduced only
    when nothing is hidden, so the default is 0: 135.5 ms of exchange against 364 ms of
    compute adds 135.5 ms (with an overlap of 0.25 it would add 135.5 − 91.0 = 44.5 ms).

    >>> round(exposed_exchange_seconds(0.1355, 0.364) * 1000, 1)
    135.5
    """
    return max(0.0, exchange_s - defaults.GRADIENT_OVERLAP * compute_s)
