"""GPU memory: model states (ZeRO), activations (Korthikanti), LoRA, inference.

All sizes in decimal GB (1e9 bytes), matching the ZeRO paper's figures.
"""

from __future__ import annotations

import math

from tco.engine.errors import InvalidInput
from tco.engine.inputs import ModelShape, Recompute, Sharding
from tco.engine.units import BYTES_PER_GB

# Default shape: hidden ~= 128 x layers (GPT-3 175B: 12288/96; Llama 2 7B: 4096/32)
# and 128-wide heads, with 12 L h^2 parameters in the transformer blocks.
DEFAULT_ASPECT_RATIO = 128
DEFAULT_HEAD_DIM = 128
DEFAULT_KV_HEADS = 8  # grouped-query attention as in Llama 3 and Mistral

QLORA_BYTES_PER_PARAM = 0.5 + 0.127 / 8
"""4-bit NF4 weights plus double-quantised constants (0.127 bits/param, QLoRA paper)."""


def model_state_gb_per_gpu(
    params: float,
    sharding: Sharding,
    data_parallel: int,
    optimizer_bytes: float = 12.0,
    weight_bytes: float = 2.0,
    grad_bytes: float = 2.0,
) -> float:
    """Weights + gradients + optimizer state per GPU (ZeRO paper, Table 1).

    DDP (2+2+K)Ψ, ZeRO-1 2Ψ+2Ψ+KΨ/N, ZeRO-2 2Ψ+(2+K)Ψ/N, ZeRO-3 (2+2+K)Ψ/N.
    The paper's example, Ψ = 7.5 B, N = 64, K = 12:

    >>> [round(model_state_gb_per_gpu(7.5e9, s, 64), 6) for s in Sharding]
    [120.0, 31.40625, 16.640625, 1.875]
    >>> model_state_gb_per_gpu(7e9, Sharding.DDP, 1)  # 7 B x 16 bytes
    112.0
    """
    if data_parallel < 1:
        raise InvalidInput("data_parallel", "Data-parallel degree must be at least 1.")
    w, g, k, n = weight_bytes, grad_bytes, optimizer_bytes, float(data_parallel)
    per_param = {
        Sharding.DDP: w + g + k,
        Sharding.ZERO1: w + g + k / n,
        Sharding.ZERO2: w + (g + k) / n,
        Sharding.ZERO3: (w + g + k) / n,
    }[sharding]
    return params * per_param / BYTES_PER_GB


def replicated_and_sharded_bytes(
    sharding: Sharding, optimizer_bytes: float, weight_bytes: float = 2.0, grad_bytes: float = 2.0
) -> tuple[float, float]:
    """Split bytes/param into the part every GPU keeps and the part divided by N.

    Used to solve for the smallest N that fits: replicated + sharded/N <= free.

    >>> replicated_and_sharded_bytes(Sharding.ZERO2, 12.0)
    (2.0, 14.0)
    """
    w, g, k = weight_bytes, grad_bytes, optimizer_bytes
    return {
        Sharding.DDP: (w + g + k, 0.0),
        Sharding.ZERO1: (w + g, k),
        Sharding.ZERO2: (w, g + k),
        Sharding.ZERO3: (0.0, w + g + k),
    }[sharding]


def activation_bytes_per_layer(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tensor_parallel: int = 1,
    recompute: Recompute = Recompute.NONE,
    *,
    sequence_parallel: bool = False,
    context_parallel: int = 1,
) -> float:
    """Activation memory of one transformer layer on one GPU (Korthikanti et al., 2022).

    Without sequence parallelism: none s·b·h·(10 + 24/t + 5·a·s/(h·t)); selective
    s·b·h·(10 + 24/t); full 2·s·b·h. Sequence parallelism splits the remaining
    10·s·b·h (layer norms, dropouts) over the t GPUs too: s·b·h·(34/t + 5·a·s/(h·t)),
    s·b·h·34/t and 2·s·b·h/t. Context parallelism splits the sequence over cp
    GPUs, so s becomes s/cp in every term (each GPU keeps the attention of its
    own s/cp queries against one s/cp block of keys at a time).

    For s=2048, b=1, h=4096, a=32, t=1 without recomputation:
    2048*4096*(34 + 5*32*2048/4096) = 8388608 * 114 = 956,301,312 bytes.

    >>> activation_bytes_per_layer(2048, 1, 4096, 32)
    956301312.0
    >>> activation_bytes_per_layer(2048, 1, 4096, 32, recompute=Recompute.SELECTIVE)
    285212672.0
    >>> activation_bytes_per_layer(2048, 1, 4096, 32, recompute=Recompute.FULL)
    16777216.0

    Tensor parallel 8 with sequence parallelism, selective: 2048*4096*34/8 =
    35,651,584 bytes; context parallel 2 on top halves it: 17,825,792.

    >>> activation_bytes_per_layer(2048, 1, 4096, 32, 8, Recompute.SELECTIVE,
    ...                            sequence_parallel=True)
    35651584.0
    >>> activation_bytes_per_layer(2048, 1, 4096, 32, 8, Recompute.SELECTIVE,
    ...                            sequence_parallel=True, context_parallel=2)
    17825792.0
    """
    s = float(seq_len) / float(context_parallel)
    sbh = s * micro_batch * hidden
    t = float(tensor_parallel)
    shared = 10.0 / t if sequence_parallel else 10.0
    if recompute is Recompute.FULL:
        return 2.0 * sbh / (t if sequence_parallel else 1.0)
    if recompute is Recompute.SELECTIVE:
        return sbh * (shared + 24.0 / t)
    return sbh * (shared + 24.0 / t + 5.0 * heads * s / (hidden * t))


def pipeline_activation_layers(layers: int, pipeline_parallel: int, micro_batches: int) -> float:
    """Layer-activations the first pipeline stage holds at its peak under 1F1B.

    The first stage runs ceil(L/p) layers and, before its first backward pass,
    has min(p, m) micro-batches in flight (Narayanan et al. 2021; Korthikanti
    et al. 2022): ceil(L/p) × min(p, m) layers' worth of activations. With
    m ≥ p and p dividing L this is L, so pipelining does not shrink activations;
    with 126 layers on 16 stages it is 8 × 16 = 128.

    >>> pipeline_activation_layers(32, 1, 8)
    32
    >>> pipeline_activation_layers(32, 4, 16), pipeline_activation_layers(32, 4, 2)
    (32, 16)
    >>> pipeline_activation_layers(126, 16, 16)
    128
    """
    per_stage = math.ceil(layers / pipeline_parallel)
    return per_stage * min(pipeline_parallel, max(1, micro_batches))


def pipeline_bubble(pipeline_parallel: int, micro_batches: int) -> float:
    """Idle fraction of a 1F1B pipeline step: (p − 1) / (m + p − 1).

    4 stages and 8 micro-batches: 3 / 11 = 0.2727; no pipeline: 0.

    >>> round(pipeline_bubble(4, 8), 4), pipeline_bubble(1, 8)
    (0.2727, 0.0)
    """
    p, m = pipeline_parallel, max(1, micro_batches)
    return (p - 1) / (m + p - 1)


def activation_gb_per_gpu(
    shape: ModelShape,
    seq_len: int,
    micro_batch: int,
    tensor_parallel: int = 1,
    recompute: Recompute = Recompute.SELECTIVE,
    *,
    sequence_parallel: bool = False,
    context_parallel: int = 1,
    pipeline_parallel: int = 1,
    micro_batches: int = 1_000_000,
) -> float:
    """Activations held by one GPU of the first pipeline stage.

    Per-layer bytes × :func:`pipeline_activation_layers`. Without pipelining
    that is all L layers:

    >>> shape = ModelShape(layers=32, hidden_size=4096, attention_heads=32, kv_heads=8)
    >>> round(activation_gb_per_gpu(shape, 2048, 1, 1, Recompute.SELECTIVE), 3)
    9.127

    Pipeline 4 with only 2 micro-batches in flight holds 8 layers × 2 = 16:

    >>> round(activation_gb_per_gpu(shape, 2048, 1, 1, Recompute.SELECTIVE,
    ...                             pipeline_parallel=4, micro_batches=2), 4)
    4.5634
    """
    per_layer = activation_bytes_per_layer(
        seq_len,
        micro_batch,
        shape.hidden_size,
        shape.attention_heads,
        tensor_parallel,
        recompute,
        sequence_parallel=sequence_parallel,
        context_parallel=context_parallel,
    )
    layers = pipeline_activation_layers(shape.layers, pipeline_parallel, micro_batches)
    return layers * per_layer / BYTES_PER_GB


def default_shape(params: float) -> ModelShape:
    """A plausible transformer shape for a parameter count.

    Block parameters ≈ 12·L·h² with h ≈ 128·L, so L = (P / (12·128²))^(1/3),
    then h = sqrt(P / (12·L)) rounded to a multiple of 128, heads = h / 128,
    8 KV heads (grouped-query attention). For 7 B: L = 33, h = 4224.

    >>> default_shape(7e9)
    ModelShape(layers=33, hidden_size=4224, attention_heads=33, kv_heads=8, attention_head_dim=None)
    >>> default_shape(70e9).layers
    71
    """
    if params <= 0:
        raise InvalidInput("params_billion", "Model size must be greater than zero.")
    layers = max(1, round((params / (12.0 * DEFAULT_ASPECT_RATIO**2)) ** (1.0 / 3.0)))
    hidden = math.sqrt(params / (12.0 * layers))
    hidden_size = max(DEFAULT_HEAD_DIM, round(hidden / DEFAULT_HEAD_DIM) * DEFAULT_HEAD_DIM)
    heads = hidden_size // DEFAULT_HEAD_DIM
    return ModelShape(
        layers=layers,
        hidden_size=hidden_size,
        attention_heads=heads,
        kv_heads=min(DEFAULT_KV_HEADS, heads),
    )


def lora_state_gb(
    params: float, adapter_fraction: float, quantized_base: bool, optimizer_bytes: float = 12.0
) -> float:
    """Frozen base weights + trainable adapters with full optimizer state.

    LoRA keeps the base in bf16 (2 B/param), QLoRA in 4-bit (~0.516 B/param);
    adapters (fraction f of Ψ) carry 2 + 2 + K bytes each. For 7 B, f = 0.5 %:
    LoRA 7e9*2 + 3.5e7*16 = 14.56 GB; QLoRA 7e9*0.515875 + 5.6e8 = 4.171 GB.

    >>> round(lora_state_gb(7e9, 0.005, quantized_base=False), 3)
    14.56
    >>> round(lora_state_gb(7e9, 0.005, quantized_base=True), 3)
    4.171
    """
    base_bytes = QLORA_BYTES_PER_PARAM if quantized_base else 2.0
    adapter_bytes = adapter_fraction * (2.0 + 2.0 + optimizer_bytes)
    return params * (base_bytes + adapter_bytes) / BYTES_PER_GB


def inference_weights_gb(params: float, bytes_per_param: float) -> float:
    """Weights at the serving precision: 70 B at fp8 (1 byte) = 70 GB.

    >>> inference_weights_gb(70e9, 1.0)
    70.0
    """
    return params * bytes_per_param / BYTES_PER_GB


def kv_bytes_per_token(shape: ModelShape, bytes_per_value: float = 2.0) -> float:
    """Keys and values one token leaves in the cache: 2 × layers × kv_heads × head_dim × bytes.

    Llama-3-70B-like (80 layers, 8 KV heads of 128) at bf16: 2*80*8*128*2 = 327,680 bytes.

    >>> shape = ModelShape(layers=80, hidden_size=8192, attention_heads=64, kv_heads=8)
    >>> kv_bytes_per_token(shape)
    327680.0
    """
    return 2.0 * shape.layers * shape.kv_heads * shape.head_dim * bytes_per_value


def kv_cache_gb(
    shape: ModelShape, context_tokens: int, concurrent_sequences: int, bytes_per_value: float = 2.0
) -> float:
    """KV cache: bytes per token × context × sequences.

    Llama-3-70B-like at bf16, 8,192 tokens, 32 sequences: 327,680*8192*32 = 85.9 GB.

    >>> shape = ModelShape(layers=80, hidden_size=8192, attention_heads=64, kv_heads=8)
    >>> round(kv_cache_gb(shape, 8192, 32), 1)
    85.9
    """
    per_token = kv_bytes_per_token(shape, bytes_per_value)
    return per_token * context_tokens * concurrent_sequences / BYTES_PER_GB
