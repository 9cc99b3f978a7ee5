"""Mixture of experts: which weights a token uses, which a batch reads, what moves between GPUs.

A mixture-of-experts model of N parameters of which N_a are active per token has E
routed experts of P_e parameters each (all layers together) and shared weights (attention,
embeddings, shared experts, router) used by every token. Each token goes to k of the E
experts, so N = shared + E·P_e and N_a = shared + k·P_e; both give
P_e = (N − N_a) ÷ (E − k) and shared = N_a − k·P_e (docs/methodology.md, "Mixture of
experts").
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.engine.inputs import Workload


@dataclass(frozen=True, slots=True)
class ExpertSplit:
    """A model's parameters split into shared weights and routed experts."""

    experts: int
    experts_per_token: int
    shared_params: float  # read by every token
    params_per_expert: float  # one routed expert, all layers together

    @property
    def expert_params(self) -> float:
        return self.experts * self.params_per_expert


def expert_split(
    params: float, active_params: float, experts: int, experts_per_token: int
) -> ExpertSplit:
    """Shared and per-expert parameters from the totals.

    DeepSeek-V3: 671 B, 37 B active, 256 experts, 8 per token: each expert holds
    (671 − 37) ÷ 248 = 2.556 B, and 37 − 8 × 2.556 = 16.55 B are shared.

    >>> s = expert_split(671e9, 37e9, 256, 8)
    >>> round(s.params_per_expert / 1e9, 3), round(s.shared_params / 1e9, 2)
    (2.556, 16.55)
    """
    per_expert = (params - active_params) / (experts - experts_per_token)
    return ExpertSplit(
        experts, experts_per_token, active_params - experts_per_token * per_expert, per_expert
    )


def workload_split(workload: Workload) -> ExpertSplit | None:
    """The workload's split, or None for a dense model."""
    if not workload.is_moe:
        return None
    experts, per_token = workload.expert_counts
    return expert_split(workload.params, workload.active_params, experts, per_token)


def experts_touched(experts: int, experts_per_token: int, tokens: float) -> float:
    """Expected distinct experts a batch of tokens routes to: E·(1 − (1 − k/E)^tokens).

    Each token picks k of E experts; an expert is missed by one token with probability
    1 − k/E and by all of them with (1 − k/E)^tokens (routing taken as uniform). With 256
    experts and 8 per token one token reads 8, a batch of 32 already 163 of them, and 512
    tokens nearly all 256.

    >>> [round(experts_touched(256, 8, s), 1) for s in (1, 32, 512)]
    [8.0, 163.3, 256.0]
    """
    missed: float = (1.0 - experts_per_token / experts) ** tokens
    return experts * (1.0 - missed)


def weights_read_per_step(split: ExpertSplit | None, params: float, tokens: float) -> float:
    """Parameters a step over ``tokens`` tokens reads: all of a dense model; for a mixture,
    the shared weights and every expert some token routes to.

    >>> weights_read_per_step(None, 70e9, 64)
    70000000000.0
    >>> s = expert_split(671e9, 37e9, 256, 8)
    >>> round(weights_read_per_step(s, 671e9, 1) / 1e9, 2)  # one token: the active 37 B
    37.0
    """
    if split is None:
        return params
    touched = experts_touched(split.experts, split.experts_per_token, tokens)
    return split.shared_params + touched * split.params_per_expert


def all_to_all_bytes_per_token(
    experts_per_token: int, hidden_size: int, dispatch_bytes: float, combine_bytes: float = 2.0
) -> float:
    """Bytes one token sends to its experts and gets back, per expert layer and pass.

    Dispatch sends the token's hidden state to each of its k experts (in the compute
    precision: 1 byte in FP8) and combine returns k results in BF16 (2 bytes), as
    DeepSeek-V3 does: 8 × 7,168 × (1 + 2) = 172,032 bytes.

    >>> all_to_all_bytes_per_token(8, 7168, 1.0)
    172032.0
    """
    return experts_per_token * hidden_size * (dispatch_bytes + combine_bytes)


def exchange_seconds(
    tokens: float,
    layers: int,
    bytes_per_token_layer: float,
    gpus: int,
    in_server_share: float,
    off_server_share: float,
    link_gb_per_s: float,
    network_gb_per_s: float,
) -> float:
    """Seconds each GPU spends sending tokens to their experts and back, over a run.

    The fleet moves tokens × layers × bytes; each GPU carries 1/gpus of it, the share for
    GPUs of its own server over NVLink (or PCIe), the share for other servers over the
    network. Not overlapped with compute: the published MoE runs of docs/calibration.md
    are reproduced only when the exchange is counted in full. DeepSeek-V3's 14.8 T tokens
    over 61 layers at 2 × 172,032 bytes (forward and backward) on 256 GPUs, experts spread
    over all of them, 8 per server: 7/256 of the traffic stays in the server (160 GB/s),
    248/256 crosses the network (50 GB/s): 23.7 million seconds per GPU.

    >>> shares = (7 / 256, 248 / 256)
    >>> round(exchange_seconds(14.8e12, 61, 2 * 172032, 256, *shares, 160.0, 50.0) / 1e6, 2)
    23.72
    """
    per_gpu = tokens * layers * bytes_per_token_layer / gpus
    return per_gpu * (
        in_server_share / (link_gb_per_s * 1e9) + off_server_share / (network_gb_per_s * 1e9)
    )
