"""Memory formulas against the ZeRO paper and hand calculations."""

from __future__ import annotations

import pytest

from tco.engine import ModelShape, Recompute, Sharding, default_shape, model_state_gb_per_gpu
from tco.engine.memory import (
    QLORA_BYTES_PER_PARAM,
    activation_bytes_per_layer,
    activation_gb_per_gpu,
    inference_weights_gb,
    kv_cache_gb,
    lora_state_gb,
    replicated_and_sharded_bytes,
)


def test_zero_paper_example_exactly() -> None:
    # Ψ = 7.5e9, N = 64, K = 12 (ZeRO paper, Figure 1):
    # DDP   7.5e9 × 16 / 1e9              = 120
    # ZeRO1 7.5 × (2 + 2 + 12/64)         = 31.40625  (paper: 31.4)
    # ZeRO2 7.5 × (2 + 14/64)             = 16.640625 (paper: 16.6)
    # ZeRO3 7.5 × 16 / 64                 = 1.875     (paper: 1.9)
    assert model_state_gb_per_gpu(7.5e9, Sharding.DDP, 64) == pytest.approx(120.0, abs=1e-12)
    assert model_state_gb_per_gpu(7.5e9, Sharding.ZERO1, 64) == pytest.approx(31.40625, abs=1e-9)
    assert model_state_gb_per_gpu(7.5e9, Sharding.ZERO2, 64) == pytest.approx(16.640625, abs=1e-9)
    assert model_state_gb_per_gpu(7.5e9, Sharding.ZERO3, 64) == pytest.approx(1.875, abs=1e-12)
    rounded = [round(model_state_gb_per_gpu(7.5e9, s, 64), 1) for s in Sharding]
    assert rounded == [120.0, 31.4, 16.6, 1.9]


def test_seven_billion_times_sixteen_bytes() -> None:
    # 7e9 × (2 + 2 + 12) bytes = 112e9 bytes = 112 GB
    assert model_state_gb_per_gpu(7e9, Sharding.DDP, 1) == 112.0


@pytest.mark.parametrize(
    ("optimizer_bytes", "weight", "grad", "expected_gb"),
    [
        (12.0, 2.0, 2.0, 16.0),  # mixed-precision Adam: 16 B/param
        (8.0, 4.0, 4.0, 16.0),  # fp32 Adam: 4 + 4 + 8
        (8.0, 2.0, 2.0, 12.0),  # SGD momentum K = 8
        (6.0, 2.0, 2.0, 10.0),  # 8-bit Adam K = 6
    ],
)
def test_optimizers_one_billion_ddp(
    optimizer_bytes: float, weight: float, grad: float, expected_gb: float
) -> None:
    assert model_state_gb_per_gpu(1e9, Sharding.DDP, 8, optimizer_bytes, weight, grad) == (
        pytest.approx(expected_gb)
    )


def test_replicated_plus_sharded_reproduces_table() -> None:
    for sharding in Sharding:
        rep, shard = replicated_and_sharded_bytes(sharding, 12.0)
        assert 7.5e9 * (rep + shard / 64) / 1e9 == pytest.approx(
            model_state_gb_per_gpu(7.5e9, sharding, 64)
        )


def test_data_parallel_must_be_positive() -> None:
    with pytest.raises(ValueError):
        model_state_gb_per_gpu(1e9, Sharding.ZERO3, 0)


def test_activations_korthikanti() -> None:
    # GPT-3 175B layer: s = 2048, b = 1, h = 12288, a = 96, t = 8.
    # sbh = 2048 × 12288 = 25,165,824
    # none:      sbh × (10 + 24/8 + 5·96·2048/(12288·8)) = sbh × (13 + 10) = 578,813,952
    # selective: sbh × 13 = 327,155,712
    # full:      2 sbh = 50,331,648
    args = (2048, 1, 12288, 96, 8)
    assert activation_bytes_per_layer(*args, Recompute.NONE) == 578_813_952.0
    assert activation_bytes_per_layer(*args, Recompute.SELECTIVE) == 327_155_712.0
    assert activation_bytes_per_layer(*args, Recompute.FULL) == 50_331_648.0
    # × 96 layers, selective: 31.407 GB per GPU
    shape = ModelShape(96, 12288, 96, 96)
    assert activation_gb_per_gpu(shape, 2048, 1, 8, Recompute.SELECTIVE) == pytest.approx(
        96 * 327_155_712 / 1e9
    )


def test_default_shape_is_close_to_the_parameter_count() -> None:
    # 7e9 / (12 × 128²) = 35,604 → L = 33; h = sqrt(7e9 / 396) = 4204 → 4224
    assert default_shape(7e9) == ModelShape(33, 4224, 33, 8)
    for params in (1e9, 8e9, 70e9, 405e9):
        shape = default_shape(params)
        block_params = 12 * shape.layers * shape.hidden_size**2
        assert block_params == pytest.approx(params, rel=0.1)


def test_lora_and_qlora() -> None:
    # LoRA 70B, 1 % adapters: 70e9 × 2 + 0.7e9 × 16 = 151.2 GB
    assert lora_state_gb(70e9, 0.01, quantized_base=False) == pytest.approx(151.2)
    # QLoRA 70B: 70e9 × 0.515875 + 0.7e9 × 16 = 36.11 + 11.2 = 47.31 GB
    assert abs(QLORA_BYTES_PER_PARAM - 0.515875) < 1e-12
    assert lora_state_gb(70e9, 0.01, quantized_base=True) == pytest.approx(47.31125)


def test_inference_weights_and_kv_cache() -> None:
    # 70 B: bf16 140 GB, fp8 70 GB, fp4 35 GB
    assert [inference_weights_gb(70e9, b) for b in (2.0, 1.0, 0.5)] == [140.0, 70.0, 35.0]
    # 2 × 32 layers × 8 kv × 128 dim × 2 B = 131,072 B/token; × 4096 × 16 = 8.59 GB
    shape = ModelShape(32, 4096, 32, 8)
    assert kv_cache_gb(shape, 4096, 16) == pytest.approx(131_072 * 4096 * 16 / 1e9)
