"""Published serving measurements, run through the engine (docs/calibration.md, serving).

Each measurement is what a buyer would type to size it: the model (parameters, active
parameters and experts, its published shape), the GPU, the serving precision and KV-cache
format, the tensor-parallel degree of the run, the prompt and answer lengths, and either
the run's concurrency or "as many as fit" (the benchmarks' maximum load, batch use).
The engine's figure is a model copy's tokens per second at that batch, its time per
output token and its time to first token. ``markdown_tables()`` renders the tables of
docs/calibration.md; tests/engine/test_calibration_serving.py checks that the document
shows what the engine computes and that every row stays inside its tolerance.

``python -m tco.engine.calibration`` prints the tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.engine.inputs import (
    GpuSpec,
    ModelShape,
    Precision,
    ServerSpec,
    ServingDemand,
    ServingUse,
    Workload,
    WorkloadKind,
)
from tco.engine.sizing import SizingResult, size_inference
from tco.engine.units import Money

TOLERANCE = 0.30
"""Every row within ±30 % of its published figure (issue 29)."""

# Datasheet figures of catalog/data/gpus.csv (dense; NVLink both directions).
GPUS = {
    "H100": GpuSpec("H100 SXM5 80GB", 80.0, 3.35, 989.0, 1979.0, None, 700.0, 900.0),
    "H200": GpuSpec("H200 SXM 141GB", 141.0, 4.8, 989.0, 1979.0, None, 700.0, 900.0),
    "B200": GpuSpec("B200 (HGX) 180GB", 180.0, 7.7, 2250.0, 4500.0, 9000.0, 1000.0, 1800.0),
}


@dataclass(frozen=True, slots=True)
class Model:
    name: str
    params_billion: float
    shape: ModelShape
    active_params_billion: float | None = None
    experts: int | None = None
    experts_per_token: int | None = None

    @property
    def is_moe(self) -> bool:
        return self.active_params_billion is not None


LLAMA_70B = Model("Llama 3.3 70B", 70.6, ModelShape(80, 8192, 64, 8))
LLAMA_405B = Model("Llama 3.1 405B", 405.9, ModelShape(126, 16384, 128, 8))
LLAMA_8B = Model("Llama 3.1 8B", 8.03, ModelShape(32, 4096, 32, 8))
# 64 query heads of 128 on a 4,096-wide model, 4 KV heads.
QWEN3_235B = Model("Qwen3-235B-A22B", 235.0, ModelShape(94, 4096, 64, 4, 128), 22.0, 128, 8)
LLAMA4_MAVERICK = Model("Llama 4 Maverick", 400.0, ModelShape(48, 5120, 40, 8, 128), 17.0, 128, 1)
# Multi-head latent attention caches one 576-value latent per token and layer: written as
# one KV head of 288 (keys and values), which gives its 70 KB per token at BF16.
DEEPSEEK_R1 = Model("DeepSeek-R1", 671.0, ModelShape(61, 7168, 128, 1, 288), 37.0, 256, 8)


@dataclass(frozen=True, slots=True)
class Measurement:
    """One published serving result."""

    model: Model
    gpu: str
    precision: Precision
    tensor_parallel: int
    input_tokens: int
    output_tokens: int
    tokens_per_second: float  # published output tokens/s of the TP group
    source: str  # key in docs/sources.md
    date: str
    concurrency: int | None = None  # None: maximum load (as many sequences as fit)
    kv_cache_bytes: float = 1.0  # NVIDIA's FP8/FP4 checkpoints carry an FP8 KV cache
    time_per_output_token_ms: float | None = None  # published ITL, when given
    time_to_first_token_ms: float | None = None  # published TTFT, when checked


TRT = "S-TRTLLM-PERF"
TRT_DATE = "2025 (v1.0)"
_F8, _F4 = Precision.FP8, Precision.FP4


def _trt(model: Model, gpu: str, precision: Precision, tp: int, rows: str) -> list[Measurement]:
    """TensorRT-LLM's performance overview: 'ISL/OSL tokens/s, …' for one model and GPU."""
    out = []
    for cell in rows.split(","):
        lengths, value = cell.split()
        isl, osl = (int(x) for x in lengths.split("/"))
        out.append(Measurement(model, gpu, precision, tp, isl, osl, float(value), TRT, TRT_DATE))
    return out


MAX_LOAD: tuple[Measurement, ...] = (
    *_trt(LLAMA_70B, "H100", _F8, 2, "128/2048 6651, 1000/1000 4205, 5000/500 898, 20000/2000 437"),
    *_trt(LLAMA_70B, "H200", _F8, 1, "128/2048 4336, 1000/1000 2909, 5000/500 566, 20000/2000 283"),
    *_trt(
        LLAMA_70B, "B200", _F4, 1, "128/2048 9922, 1000/1000 7007, 5000/500 1459, 20000/2000 665"
    ),
    *_trt(
        LLAMA_405B, "H100", _F8, 8, "128/2048 4340, 1000/1000 2919, 5000/500 610, 20000/2000 345"
    ),
    *_trt(
        LLAMA_405B, "H200", _F8, 8, "128/2048 5348, 1000/1000 3330, 5000/500 650, 20000/2000 505"
    ),
    *_trt(
        LLAMA_405B, "B200", _F4, 4, "128/2048 8020, 1000/1000 5209, 5000/500 1048, 20000/2000 672"
    ),
    *_trt(
        LLAMA_8B, "H100", _F8, 1, "128/2048 22714, 1000/1000 15220, 5000/500 3459, 20000/2000 1351"
    ),
    *_trt(
        LLAMA_8B, "H200", _F8, 1, "128/2048 26221, 1000/1000 17744, 5000/500 3902, 20000/2000 1804"
    ),
    *_trt(QWEN3_235B, "H100", _F8, 8, "128/2048 19658, 1000/1000 14898, 5000/500 3225"),
    *_trt(
        QWEN3_235B,
        "H200",
        _F8,
        8,
        "128/2048 42821, 1000/1000 23789, 5000/500 3623, 20000/2000 1876",
    ),
    *_trt(
        QWEN3_235B,
        "B200",
        _F4,
        8,
        "128/2048 66057, 1000/1000 42391, 5000/500 8190, 20000/2000 4453",
    ),
    # Maverick's long-prompt rows are left out: three of its four layers attend within
    # 8,192-token chunks, which the engine's full attention does not represent.
    *_trt(LLAMA4_MAVERICK, "H100", _F8, 8, "128/2048 10829, 1000/1000 9677"),
    *_trt(LLAMA4_MAVERICK, "H200", _F8, 8, "128/2048 40572, 1000/1000 31782"),
    *_trt(LLAMA4_MAVERICK, "B200", _F4, 8, "128/2048 112676, 1000/1000 79617"),
    # DeepSeek's own FP8 weights keep a BF16 KV cache; the B200 run says "FP16 KV cache".
    Measurement(
        DEEPSEEK_R1, "H200", _F8, 8, 1024, 2048, 11489.0, "S-TRTLLM-DSR1", "2025", 1024, 2.0
    ),
    Measurement(
        DEEPSEEK_R1, "B200", _F4, 8, 1024, 2048, 36384.0, "S-TRTLLM-DSR1", "2025", 3072, 2.0
    ),
)

# NIM 1.8.0, Llama 3.3 70B at FP8 on 2 × H100 (TP 2), 5,000-token prompts, 500-token
# answers: (concurrency, TTFT ms, ITL ms, tokens/s). Above 50 the server queues requests
# (TTFT of 8 s at 100), so the sweep stops there.
_NIM: tuple[tuple[int, float, float, float], ...] = (
    (1, 406.77, 18.58, 51.67),
    (5, 546.7, 21.83, 218.48),
    (25, 688.69, 38.75, 623.4),
    (50, 834.51, 59.73, 814.37),
)
SWEEP: tuple[Measurement, ...] = tuple(
    Measurement(
        LLAMA_70B,
        "H100",
        _F8,
        2,
        5000,
        500,
        tps,
        "S-NIM-BENCH",
        "2025 (NIM 1.8.0)",
        concurrency,
        time_per_output_token_ms=itl,
        time_to_first_token_ms=ttft,
    )
    for concurrency, ttft, itl, tps in _NIM
)


def workload(m: Measurement) -> Workload:
    """What a buyer types to size the measured run."""
    model = m.model
    return Workload(
        WorkloadKind.INFERENCE,
        model.params_billion,
        active_params_billion=model.active_params_billion,
        experts=model.experts,
        experts_per_token=model.experts_per_token,
        shape=model.shape,
        precision=m.precision,
        tensor_parallel=m.tensor_parallel,
        kv_cache_bytes=m.kv_cache_bytes,
        concurrent_sequences=m.concurrency,
        # No latency targets: the run's concurrency, or as many sequences as fit.
        serving_use=ServingUse.BATCH,
        serving_demand=ServingDemand(
            users=1,
            requests_per_user_per_day=1.0,
            output_tokens_per_request=m.output_tokens,
            input_tokens_per_request=m.input_tokens,
        ),
    )


def server(gpu: str) -> ServerSpec:
    return ServerSpec(f"8 × {gpu}", GPUS[gpu], 8, 8, 10.2, 3.0, False, Money(300_000.0))


@dataclass(frozen=True, slots=True)
class Reproduced:
    """A measurement and the engine's figures for it."""

    measurement: Measurement
    sizing: SizingResult

    @property
    def batch(self) -> int:
        return self.sizing.max_concurrent_sequences or 0

    @property
    def tokens_per_second(self) -> float:
        return self.sizing.tokens_per_second_per_replica or 0.0

    @property
    def time_per_output_token_ms(self) -> float:
        assert self.sizing.serving is not None
        return self.sizing.serving.option.capacity.time_per_output_token_s * 1000.0

    @property
    def time_to_first_token_ms(self) -> float:
        assert self.sizing.serving is not None
        return self.sizing.serving.option.capacity.time_to_first_token_s * 1000.0

    def errors(self) -> dict[str, float]:
        """engine ÷ published − 1 for each published figure."""
        m = self.measurement
        out = {"tokens_per_second": self.tokens_per_second / m.tokens_per_second - 1.0}
        if m.time_per_output_token_ms is not None:
            out["time_per_output_token"] = (
                self.time_per_output_token_ms / m.time_per_output_token_ms - 1.0
            )
        if m.time_to_first_token_ms is not None:
            out["time_to_first_token"] = (
                self.time_to_first_token_ms / m.time_to_first_token_ms - 1.0
            )
        return out


def reproduce(m: Measurement) -> Reproduced:
    return Reproduced(m, size_inference(workload(m), server(m.gpu)))


def reproduced() -> list[Reproduced]:
    return [reproduce(m) for m in (*MAX_LOAD, *SWEEP)]


def _pct(x: float) -> str:
    return f"{x * 100:+.1f} %".replace("-", "−")


def _load(m: Measurement) -> str:
    return "max" if m.concurrency is None else f"{m.concurrency:,}"


def markdown_tables(rows: list[Reproduced] | None = None) -> str:
    """The serving tables of docs/calibration.md, as the engine computes them now."""
    rows = reproduced() if rows is None else rows
    head = [
        "| Model | GPU | Precision | TP | Prompt/answer | Load | Published tok/s | Source | "
        "Date | Engine batch | Engine tok/s | Error |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    table = list(head)
    for r in rows:
        m = r.measurement
        if m in SWEEP:
            continue
        table.append(
            f"| {m.model.name} | {m.gpu} | {m.precision.value.upper()} | {m.tensor_parallel} | "
            f"{m.input_tokens:,}/{m.output_tokens:,} | {_load(m)} | "
            f"{m.tokens_per_second:,.0f} | {m.source} | {m.date} | {r.batch:,} | "
            f"{r.tokens_per_second:,.0f} | {_pct(r.errors()['tokens_per_second'])} |"
        )
    sweep = [
        "| Concurrency | Published ITL ms | Engine TPOT ms | Error | Published tok/s | "
        "Engine tok/s | Error | Published TTFT ms | Engine TTFT ms | Error |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        m = r.measurement
        if m not in SWEEP:
            continue
        e = r.errors()
        assert m.time_per_output_token_ms is not None and m.time_to_first_token_ms is not None
        sweep.append(
            f"| {m.concurrency} | {m.time_per_output_token_ms:,.2f} | "
            f"{r.time_per_output_token_ms:,.2f} | {_pct(e['time_per_output_token'])} | "
            f"{m.tokens_per_second:,.1f} | {r.tokens_per_second:,.1f} | "
            f"{_pct(e['tokens_per_second'])} | {m.time_to_first_token_ms:,.0f} | "
            f"{r.time_to_first_token_ms:,.0f} | {_pct(e['time_to_first_token'])} |"
        )
    return "\n".join(table) + "\n\n" + "\n".join(sweep)


def replace_in(text: str, tables: str) -> str:
    """``text`` with the block between the serving markers replaced by ``tables``."""
    start, end = "<!-- serving-calibration -->", "<!-- /serving-calibration -->"
    before, rest = text.split(start)
    _old, after = rest.split(end)
    return f"{before}{start}\n{tables}\n{end}{after}"


if __name__ == "__main__":  # pragma: no cover
    print(markdown_tables())
