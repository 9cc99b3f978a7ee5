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
