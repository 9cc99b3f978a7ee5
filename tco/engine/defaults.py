"""Every default the engine assumes, in one place, each with its source or a reason.

A value marked "estimate" has no public source: it is a planning figure and the
reason says where it comes from. Sources are listed in docs/sources.md; the
table in docs/methodology.md ("Defaults") is checked against :data:`TABLE` by
``tests/engine/test_defaults.py``.

>>> MFU, GOODPUT, MEMORY_HEADROOM
(0.45, 0.9, 0.1)
>>> by_name("SUPPORT_PCT_PER_YEAR").value
0.1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# --- on-prem cost items (FinanceInputs; the catalog items use the same figures) ---------

INSTALLATION_PER_SERVER_USD: Final = 5_000.0
SUPPORT_PCT_PER_YEAR: Final = 0.10
STAFF_ANNUAL_COST_USD: Final = 150_000.0
INSURANCE_PCT_PER_YEAR: Final = 0.005
RESIDUAL_PCT: Final = 0.10
SPOT_INTERRUPTION_OVERHEAD: Final = 0.15
LEASE_ANNUAL_RATE: Final = 0.06
# Share of the hardware value a buyer gets back at age 0, 1, 2, 3, 4, 5 years.
RESALE_BY_YEAR: Final = (0.85, 0.78, 0.60, 0.46, 0.35, 0.27)
RESALE_AFTER_1_YEAR: Final = RESALE_BY_YEAR[1]
# A fleet is replaced after this many months (refresh cycle).
SERVICE_LIFE_MONTHS: Final = 60

# --- owning costs that scale with the fleet (tco/engine/extras.py) ---------------------

# The GPU fabric of multi-node training, per GPU port: a NIC, one link per tier and
# 2 × tiers − 1 switch ports (a non-blocking fat tree of 64-port switches).
FABRIC_SWITCH_PRICE_USD: Final = 36_000.0
FABRIC_SWITCH_PORTS: Final = 64
FABRIC_LINK_USD: Final = 1_300.0
FABRIC_NIC_USD: Final = 2_188.0
# Every server but a workstation: two front-end ports (storage, users, management) to a
# top-of-rack switch.
FRONT_END_NIC_USD: Final = 1_550.0
FRONT_END_PORTS_PER_SERVER: Final = 2
FRONT_END_LINK_USD: Final = 400.0
# Operations staff: FTE per server, at least the floor, at most the ceiling.
STAFF_FTE_PER_SERVER: Final = 0.032
STAFF_FTE_FLOOR: Final = 0.1
STAFF_FTE_CEILING: Final = 12.0
# Below this many GPUs a fleet at a data-centre or server-room site is more likely a
# workstation: the result warns that the data-centre defaults were applied.
SMALL_FLEET_GPUS: Final = 8

# --- site fit and build-out (tco/engine/site.py; the catalog's facility items) --------

# An in-row coolant distribution unit and the kW of IT it serves.
CDU_PRICE_USD: Final = 90_000.0
CDU_CAPACITY_KW: Final = 250.0
LIQUID_COOLING_PER_KW_USD: Final = 400.0
POWER_PER_KW_USD: Final = 250.0
CDU_WEEKS: Final = 16.0
LIQUID_COOLING_WEEKS: Final = 26.0
POWER_WEEKS: Final = 20.0
# What one rack can shed without liquid at the chips.
AIR_RACK_MAX_KW: Final = 40.0
REAR_DOOR_RACK_MAX_KW: Final = 60.0
# The IT power a server room of the buyer's own takes when the buyer gives none.
SERVER_ROOM_IT_KW: Final = 30.0
# The EU Energy Efficiency Directive's thresholds of installed IT power.
EED_REPORTING_KW: Final = 500.0
EED_HEAT_REUSE_KW: Final = 1_000.0

# --- training efficiency --------------------------------------------------------------

MFU: Final = 0.45
GOODPUT: Final = 0.90
SCALING_ALPHA_NVLINK: Final = 0.01
SCALING_ALPHA_INFINIBAND: Final = 0.02
SCALING_ALPHA_ROCE: Final = 0.04
SCALING_ALPHA_ETHERNET: Final = 0.10
MFU_REFERENCE_HIDDEN: Final = 4096
WIDTH_RIDGE_FACTOR: Final = 7.5
GRADIENT_BYTES: Final = 2.0
GRADIENT_OVERLAP: Final = 0.0

# --- memory and parallelism -----------------------------------------------------------

MEMORY_HEADROOM: Final = 0.10
FRAMEWORK_OVERHEAD_GB: Final = 3.0
SEQUENCE_LENGTH: Final = 4096
MICRO_BATCH_SIZE: Final = 1
GLOBAL_BATCH_TOKENS: Final = 4_000_000.0
MAX_CONTEXT_PARALLEL: Final = 16
MAX_PIPELINE_PARALLEL: Final = 128
FSDP_MAX_PARAMS_ACROSS_SERVERS: Final = 100e9
LORA_ADAPTER_FRACTION: Final = 0.005

# --- serving demand in business terms ---------------------------------------------------

SERVING_PEAK_FACTOR: Final = 3.0

# --- serving a model copy (tco/engine/decode.py; calibrated in docs/calibration.md) -----

SERVING_BANDWIDTH_EFFICIENCY: Final = 0.75
SERVING_COMPUTE_EFFICIENCY: Final = 0.46
FP4_COMPUTE_FACTOR: Final = 0.60
MOE_EXPERT_EFFICIENCY: Final = 0.28
COLLECTIVE_LATENCY_US: Final = 19.0
PCIE_BANDWIDTH_GBPS: Final = 64.0
NETWORK_GBPS_PER_GPU: Final = 50.0
INTERACTIVE_TPOT_MS: Final = 40.0
INTERACTIVE_TTFT_MS: Final = 450.0
CONTEXT_TOKENS: Final = 8192
KV_CACHE_BYTES: Final = 2.0
MOE_EXPERTS: Final = 128
MOE_EXPERTS_PER_TOKEN: Final = 8


@dataclass(frozen=True, slots=True)
class Default:
    """One default: the constant's name, value, unit, source (or "estimate") and reason."""

    name: str
    value: float
    unit: str
    source: str
    reason: str


ESTIMATE: Final = "estimate"

TABLE: Final[tuple[Default, ...]] = (
    Default(
        "CDU_PRICE_USD",
        CDU_PRICE_USD,
        "USD/CDU",
        ESTIMATE,
        "no public price for an installed in-row CDU (catalog item cdu-in-row-250kw); "
        "priced when a site has water but no CDUs",
    ),
    Default(
        "CDU_CAPACITY_KW",
        CDU_CAPACITY_KW,
        "kW of IT per CDU",
        "[S-SERVERSIMPLY]",
        "a 250 kW CDU per GB300 NVL72 row",
    ),
    Default(
        "LIQUID_COOLING_PER_KW_USD",
        LIQUID_COOLING_PER_KW_USD,
        "USD/kW of IT",
        "[S-SESTERCE]",
        "liquid cooling $300-500 per kW: the midpoint (catalog item liquid-cooling-per-kw)",
    ),
    Default(
        "POWER_PER_KW_USD",
        POWER_PER_KW_USD,
        "USD/kW of IT",
        "[S-SESTERCE]",
        "UPS $150-200 and PDU $50-100 per kW: the midpoints (catalog item power-per-kw)",
    ),
    Default(
        "CDU_WEEKS",
        CDU_WEEKS,
        "weeks",
        ESTIMATE,
        "delivery, placing and commissioning of CDUs on existing facility water",
    ),
    Default(
        "LIQUID_COOLING_WEEKS",
        LIQUID_COOLING_WEEKS,
        "weeks",
        ESTIMATE,
        "design, piping and commissioning of a secondary liquid loop",
    ),
    Default(
        "POWER_WEEKS",
        POWER_WEEKS,
        "weeks",
        ESTIMATE,
        "UPS and power distribution delivered and installed within the existing connection",
    ),
    Default(
        "AIR_RACK_MAX_KW",
        AIR_RACK_MAX_KW,
        "kW/rack",
        ESTIMATE,
        "what air with contained aisles removes from one rack (commonly put at 30-40 kW); "
        "racks are filled up to it, a single server above it does not fit",
    ),
    Default(
        "REAR_DOOR_RACK_MAX_KW",
        REAR_DOOR_RACK_MAX_KW,
        "kW/rack",
        ESTIMATE,
        "what a rear-door heat exchanger commonly removes from one air-cooled rack",
    ),
    Default(
        "SERVER_ROOM_IT_KW",
        SERVER_ROOM_IT_KW,
        "kW of IT",
        ESTIMATE,
        "a server room of the buyer's own without a typed available power: a small room "
        "of up to 3 racks at the 10 kW of enterprise racks (S-UPTIME: below 8-10 kW); a "
        "fleet above it does not fit the room",
    ),
    Default(
        "EED_REPORTING_KW",
        EED_REPORTING_KW,
        "kW of IT",
        "[S-EED]",
        "data centres of at least 500 kW installed IT power report yearly (art. 12)",
    ),
    Default(
        "EED_HEAT_REUSE_KW",
        EED_HEAT_REUSE_KW,
        "kW of IT",
        "[S-EED]",
        "above 1 MW a data centre assesses waste-heat reuse or justifies why not (art. 26)",
    ),
    Default(
        "INSTALLATION_PER_SERVER_USD",
        INSTALLATION_PER_SERVER_USD,
        "USD/server",
        ESTIMATE,
        "distributor rack-and-stack and burn-in rate (catalog item installation-per-server); "
        "a workstation needs none",
    ),
    Default(
        "SUPPORT_PCT_PER_YEAR",
        SUPPORT_PCT_PER_YEAR,
        "fraction of hardware/year",
        ESTIMATE,
        "10-20 % a year is the range commonly quoted and DGX-class contracts are about "
        "20 % (catalog item support-20pct); standard next-business-day support on OEM HGX "
        "servers sits at the low end (catalog item support-10pct)",
    ),
    Default(
        "STAFF_ANNUAL_COST_USD",
        STAFF_ANNUAL_COST_USD,
        "USD/year",
        ESTIMATE,
        "fully loaded cost of an experienced infrastructure engineer",
    ),
    Default(
        "INSURANCE_PCT_PER_YEAR",
        INSURANCE_PCT_PER_YEAR,
        "fraction of hardware/year",
        ESTIMATE,
        "property insurance of IT equipment in a colocation site",
    ),
    Default(
        "RESIDUAL_PCT",
        RESIDUAL_PCT,
        "fraction of hardware",
        ESTIMATE,
        "a 5-year-old H100 GPU keeps about a quarter of its price on the resale curve of "
        "[S-RESALE]; a whole server with its networking resells for less, so 10 %",
    ),
    Default(
        "FABRIC_SWITCH_PRICE_USD",
        FABRIC_SWITCH_PRICE_USD,
        "USD/switch",
        "[S-FABRIC-SHEET], [S-INFRA-ECON]",
        "a 64-port 400 Gb/s InfiniBand switch (NVIDIA Quantum-2 QM9700 class): $36,000 "
        "(FS.com, Aug 2024; NVIDIA's own about $50,000) and $35,000 on average in a "
        "10,000-GPU build; $562.50 a port",
    ),
    Default(
        "FABRIC_SWITCH_PORTS",
        FABRIC_SWITCH_PORTS,
        "ports/switch",
        "[S-QUANTUM2], [S-SESTERCE]",
        "64 × 400 Gb/s per Quantum-2 switch; a non-blocking fat tree of t tiers of k-port "
        "switches reaches 2·(k/2)^t GPU ports: 64 in one tier, 2,048 in two (two tiers up "
        "to about 2,000 GPUs), 65,536 in three",
    ),
    Default(
        "FABRIC_LINK_USD",
        FABRIC_LINK_USD,
        "USD/link",
        "[S-SESTERCE], [S-INFRA-ECON]",
        "an optical link has a transceiver at each end: cables and transceivers $400-900 "
        "each, OSFP transceivers $500-1,000 each; 2 × $650. A GPU port needs one link per "
        "tier",
    ),
    Default(
        "FABRIC_NIC_USD",
        FABRIC_NIC_USD,
        "USD/GPU",
        "[S-NIC-PRICES]",
        "one 400 Gb/s NIC per GPU (ConnectX-7 single-port OSFP): $2,188 at FS.com US, "
        "$1,599 at NADDOD (2026-09); a server whose list price includes its compute NICs "
        "(DGX) counts them twice unless finance.networking_per_server is set",
    ),
    Default(
        "FRONT_END_NIC_USD",
        FRONT_END_NIC_USD,
        "USD/server",
        "[S-NIC-PRICES]",
        "the front-end NIC of a server (storage, users, management): a dual-port 100 GbE "
        "ConnectX-6 Dx, $1,550 at FS.com US (2026-09)",
    ),
    Default(
        "FRONT_END_PORTS_PER_SERVER",
        FRONT_END_PORTS_PER_SERVER,
        "ports/server",
        ESTIMATE,
        "two ports to the top-of-rack switch, so that one link or switch may fail; each "
        "port costs a copper link and a switch port at the fabric's price per port",
    ),
    Default(
        "FRONT_END_LINK_USD",
        FRONT_END_LINK_USD,
        "USD/link",
        "[S-SESTERCE]",
        "a copper cable inside the rack: the bottom of the $400-900 range of cables and "
        "transceivers",
    ),
    Default(
        "STAFF_FTE_PER_SERVER",
        STAFF_FTE_PER_SERVER,
        "FTE/server",
        "[S-CTWATCH], [S-SYSADMIN]",
        "HPC sites add one FTE for roughly every 250 processors: counting a GPU as a "
        "processor, 8 ÷ 250 per 8-GPU server; between the traditional one administrator per "
        "20 servers and the one per 1,000 identical, automated servers of a modern data "
        "centre",
    ),
    Default(
        "STAFF_FTE_FLOOR",
        STAFF_FTE_FLOOR,
        "FTE",
        ESTIMATE,
        "even one data-centre server takes an engineer about half a day a week (drivers, "
        "firmware, monitoring, swapping parts with the vendor); below 50 processors sites "
        "have no dedicated person [S-CTWATCH], so it is a share of someone's time",
    ),
    Default(
        "STAFF_FTE_CEILING",
        STAFF_FTE_CEILING,
        "FTE",
        "[S-CTWATCH]",
        "a single large stand-alone HPC system takes 8-12 FTE for administration, "
        "security, networking, storage and 24x7 operations; beyond it staff grows much "
        "more slowly than the machine",
    ),
    Default(
        "SMALL_FLEET_GPUS",
        SMALL_FLEET_GPUS,
        "GPUs",
        ESTIMATE,
        "one HGX or DGX server; a smaller fleet at a data-centre or server-room site gets a "
        "warning that the data-centre defaults (network, installation, staff) were applied",
    ),
    Default(
        "SPOT_INTERRUPTION_OVERHEAD",
        SPOT_INTERRUPTION_OVERHEAD,
        "fraction of hours",
        ESTIMATE,
        "work lost to pre-emptions and restarts from the last checkpoint",
    ),
    Default(
        "MFU",
        MFU,
        "fraction of dense peak",
        "[S-LLAMA3], [S-LLAMA1], [S-BLOOM]",
        "published large-run MFU spans 38-43 % (Llama 3 405B, 16k H100s) to about 48-50 % "
        "(LLaMA 65B at 380 tokens/s per A100; BLOOM's 150-156 TFLOPS per A100); 0.45 puts "
        "eight of twelve published runs within 25 % (docs/calibration.md)",
    ),
    Default(
        "GOODPUT",
        GOODPUT,
        "fraction of wall-clock",
        "[S-LLAMA3]",
        "more than 90 % effective training time despite 466 interruptions in 54 days",
    ),
    Default(
        "SCALING_ALPHA_NVLINK",
        SCALING_ALPHA_NVLINK,
        "per doubling of servers",
        ESTIMATE,
        "rack-scale NVLink domain; planning value",
    ),
    Default(
        "SCALING_ALPHA_INFINIBAND",
        SCALING_ALPHA_INFINIBAND,
        "per doubling of servers",
        ESTIMATE,
        "planning value; kept small because measured MFU already contains most of the "
        "communication loss (see docs/calibration.md)",
    ),
    Default(
        "SCALING_ALPHA_ROCE",
        SCALING_ALPHA_ROCE,
        "per doubling of servers",
        ESTIMATE,
        "planning value, twice InfiniBand's",
    ),
    Default(
        "SCALING_ALPHA_ETHERNET",
        SCALING_ALPHA_ETHERNET,
        "per doubling of servers",
        ESTIMATE,
        "planning value for ordinary Ethernet without RDMA",
    ),
    Default(
        "MFU_REFERENCE_HIDDEN",
        MFU_REFERENCE_HIDDEN,
        "hidden size",
        "[S-LLAMA1], [S-LLAMA2]",
        "the width the MFU input holds for: the 7 B-and-wider runs MFU was fitted on (LLaMA "
        "7B is 4,096 wide); narrower models get the width efficiency, wider ones no bonus",
    ),
    Default(
        "WIDTH_RIDGE_FACTOR",
        WIDTH_RIDGE_FACTOR,
        "× the GPU's ridge point (FLOPs per byte)",
        "[S-PYTHIA], [S-MPT-1B], [S-SMOLLM2]",
        "width h₀ where memory-bound element-wise work costs as much as the matrix "
        "multiplies; fitted on three published runs of 1.0-1.7 B models on 64-440 GPUs "
        "(docs/calibration.md, with the held-out errors)",
    ),
    Default(
        "GRADIENT_BYTES",
        GRADIENT_BYTES,
        "bytes per parameter",
        "[S-ZERO]",
        "gradients exchanged in BF16 across the data-parallel copies",
    ),
    Default(
        "GRADIENT_OVERLAP",
        GRADIENT_OVERLAP,
        "fraction of a step's compute",
        "[S-PYTHIA], [S-MPT-1B], [S-SMOLLM2]",
        "share of the step's compute that can hide the gradient exchange; every overlap "
        "above 0 leaves the small-model runs further from their published GPU-hours "
        "(docs/calibration.md), so none is assumed at 50 GB/s per GPU",
    ),
    Default(
        "MEMORY_HEADROOM",
        MEMORY_HEADROOM,
        "fraction of GPU memory",
        ESTIMATE,
        "allocator fragmentation and memory spikes: 79.3 of 80 GB is not a plan anyone "
        "would run, so a plan fits in 90 % of the GPU",
    ),
    Default(
        "FRAMEWORK_OVERHEAD_GB",
        FRAMEWORK_OVERHEAD_GB,
        "GB/GPU",
        ESTIMATE,
        "CUDA context, NCCL buffers and workspace",
    ),
    Default(
        "SEQUENCE_LENGTH",
        SEQUENCE_LENGTH,
        "tokens",
        "[S-LLAMA2]",
        "Llama 2 pre-trained at 4,096 tokens",
    ),
    Default(
        "MICRO_BATCH_SIZE",
        MICRO_BATCH_SIZE,
        "sequences",
        "[S-KORTHIKANTI]",
        "large runs use micro-batch 1 per GPU and reach the batch by data parallelism and "
        "gradient accumulation",
    ),
    Default(
        "GLOBAL_BATCH_TOKENS",
        GLOBAL_BATCH_TOKENS,
        "tokens/step",
        "[S-LLAMA1]",
        "LLaMA and Llama 2 trained with 4 M tokens per step (Llama 3 405B ended at 16 M)",
    ),
    Default(
        "MAX_CONTEXT_PARALLEL",
        MAX_CONTEXT_PARALLEL,
        "GPUs",
        "[S-LLAMA3]",
        "Llama 3 405B used context parallelism 16 for 128 k-token sequences",
    ),
    Default(
        "MAX_PIPELINE_PARALLEL",
        MAX_PIPELINE_PARALLEL,
        "stages",
        ESTIMATE,
        "search limit; never more stages than layers",
    ),
    Default(
        "FSDP_MAX_PARAMS_ACROSS_SERVERS",
        FSDP_MAX_PARAMS_ACROSS_SERVERS,
        "parameters",
        ESTIMATE,
        "above 100 B parameters ZeRO-3 would all-gather every layer over the inter-server "
        "network each step; production runs of that size (Megatron-LM, BLOOM, Falcon, "
        "Llama 3) use tensor + pipeline + data parallelism instead",
    ),
    Default(
        "LORA_ADAPTER_FRACTION",
        LORA_ADAPTER_FRACTION,
        "fraction of parameters",
        "[S-QLORA]",
        "LoRA adapters are typically 0.1-1 % of the parameters",
    ),
    Default(
        "LEASE_ANNUAL_RATE",
        LEASE_ANNUAL_RATE,
        "fraction/year",
        ESTIMATE,
        "no published IT-lease rate for servers in NL; 6 % sits inside the 4-10 % Dutch "
        "business-loan range [S-NL-LOANS] and above the 3.51 % euro-area corporate rate "
        "[S-ECB-MIR]; terms 36/48/60 months follow Dutch server leases [S-IT-LEASE]",
    ),
    Default(
        "RESALE_AFTER_1_YEAR",
        RESALE_BY_YEAR[1],
        "fraction of hardware value",
        "[S-SPOTWIRE]",
        "H100 value kept by age: 1 yr 78 %, 2 yr 60 %, 3 yr 46 %, 4 yr 35 % (model anchors); "
        "age 0+ 85 % (a used server sells below new) and 5 yr 27 % are estimates",
    ),
    Default(
        "SERVICE_LIFE_MONTHS",
        SERVICE_LIFE_MONTHS,
        "months",
        "[S-LIVES]",
        "servers are depreciated over 5 years by Amazon (6 → 5 from Jan 2025) and the median "
        "disclosed GPU-owner rate, 19.5 %/yr, is about a 5-year life; Meta uses 5.5, "
        "Microsoft, Alphabet and CoreWeave 6, Nebius 4 for GPUs. A longer horizon buys the "
        "fleet again at this age",
    ),
    Default(
        "SERVING_BANDWIDTH_EFFICIENCY",
        SERVING_BANDWIDTH_EFFICIENCY,
        "fraction of HBM bandwidth",
        "[S-TRTLLM-PERF], [S-NIM-BENCH], [S-TRTLLM-DSR1]",
        "share of the datasheet memory bandwidth a decode step streams weights and KV cache "
        "at; fitted with the next four factors to 55 published serving measurements on "
        "H100, H200 and B200 (docs/calibration.md: every figure within 25 %)",
    ),
    Default(
        "SERVING_COMPUTE_EFFICIENCY",
        SERVING_COMPUTE_EFFICIENCY,
        "fraction of dense peak",
        "[S-TRTLLM-PERF], [S-NIM-BENCH], [S-TRTLLM-DSR1]",
        "share of the dense tensor peak (BF16/FP8) that prefill and decode matrix products "
        "reach; the same fit. Prefill and decode fitted apart came out at 0.45 and 0.49, so "
        "one factor serves both",
    ),
    Default(
        "FP4_COMPUTE_FACTOR",
        FP4_COMPUTE_FACTOR,
        "× the compute efficiency",
        "[S-TRTLLM-PERF]",
        "FP4 weight products on B200 reach a smaller share of their (twice as high) peak; "
        "attention runs at FP8 (not in FP4). Fitted on the B200 mixture-of-experts rows "
        "(0.60; the dense B200 rows held out stay within 18 %): 0.60 x 0.46 = 28 % of the "
        "FP4 peak",
    ),
    Default(
        "MOE_EXPERT_EFFICIENCY",
        MOE_EXPERT_EFFICIENCY,
        "× the efficiencies of expert layers",
        "[S-TRTLLM-PERF], [S-TRTLLM-DSR1]",
        "routed experts run slower than dense layers of the same bytes and FLOPs (few tokens "
        "per expert, uneven routing across GPUs, the router); fitted to Qwen3-235B-A22B, "
        "Llama 4 Maverick and DeepSeek-R1 on 8 x H100/H200/B200",
    ),
    Default(
        "COLLECTIVE_LATENCY_US",
        COLLECTIVE_LATENCY_US,
        "µs per all-reduce or all-to-all",
        "[S-NIM-BENCH], [S-TRTLLM-PERF]",
        "fixed cost of one tensor-parallel collective inside a server (two per layer and "
        "decode step); fitted with the efficiencies: 3 ms of the 18.6 ms per token measured "
        "for one user of 70 B on two H100s",
    ),
    Default(
        "PCIE_BANDWIDTH_GBPS",
        PCIE_BANDWIDTH_GBPS,
        "GB/s per GPU, both directions",
        "[S-PCIE]",
        "GPUs without NVLink (L40S) exchange tensor-parallel activations over PCIe 4.0 x16: "
        "about 32 GB/s each way",
    ),
    Default(
        "NETWORK_GBPS_PER_GPU",
        NETWORK_GBPS_PER_GPU,
        "GB/s per GPU, each way",
        "[S-DGX-H100], [S-DEEPSEEK-V3]",
        "one 400 Gb/s InfiniBand or RoCE port per GPU, as in DGX/HGX H100 and B200 systems; "
        "DeepSeek measured 50 GB/s of IB per H800 for its expert all-to-all",
    ),
    Default(
        "INTERACTIVE_TPOT_MS",
        INTERACTIVE_TPOT_MS,
        "ms per output token",
        "[S-MLPERF-INF]",
        "time-per-output-token bound of MLPerf Inference's interactive Llama 2 70B scenario "
        "(25 tokens/s per user, faster than reading); batch use has no bound",
    ),
    Default(
        "INTERACTIVE_TTFT_MS",
        INTERACTIVE_TTFT_MS,
        "ms to the first token",
        "[S-MLPERF-INF]",
        "time-to-first-token bound of the same MLPerf scenario; batch use has no bound",
    ),
    Default(
        "CONTEXT_TOKENS",
        CONTEXT_TOKENS,
        "tokens per sequence",
        "[S-LLAMA3]",
        "KV cache held per sequence when neither context_tokens nor the requests' input and "
        "output tokens are given: the 8 k context of Llama 3 pre-training",
    ),
    Default(
        "KV_CACHE_BYTES",
        KV_CACHE_BYTES,
        "bytes per cached value",
        ESTIMATE,
        "BF16 keys and values, what serving engines keep unless the KV cache is quantised "
        "(NVIDIA's FP8/FP4 checkpoints carry an FP8 cache: 1 byte, as in the calibration)",
    ),
    Default(
        "MOE_EXPERTS",
        MOE_EXPERTS,
        "routed experts",
        "[S-QWEN3], [S-DEEPSEEK-V3]",
        "fine-grained mixtures of experts route to 128 (Qwen3-235B-A22B, Llama 4 Maverick) "
        "to 256 (DeepSeek-V3) experts; used when a mixture of experts is given without its "
        "expert count",
    ),
    Default(
        "MOE_EXPERTS_PER_TOKEN",
        MOE_EXPERTS_PER_TOKEN,
        "experts per token",
        "[S-QWEN3], [S-DEEPSEEK-V3]",
        "Qwen3-235B-A22B and DeepSeek-V3 send each token to 8 routed experts",
    ),
    Default(
        "SERVING_PEAK_FACTOR",
        SERVING_PEAK_FACTOR,
        "busiest hour / average of the working day",
        ESTIMATE,
        "no published figure for assistants inside a company; a working day's requests "
        "bunch around mid-morning and after lunch, so the capacity is sized for three times "
        "the day's average (the planning example of issue 16); editable",
    ),
)


def by_name(name: str) -> Default:
    """The table row of one constant.

    >>> by_name("GOODPUT").source
    '[S-LLAMA3]'
    """
    for row in TABLE:
        if row.name == name:
            return row
    raise KeyError(name)


def markdown_table() -> str:
    """The defaults table as it appears in docs/methodology.md.

    >>> markdown_table().splitlines()[0]
    '| Constant | Value | Unit | Source | Reason |'
    """
    lines = ["| Constant | Value | Unit | Source | Reason |", "|---|---|---|---|---|"]
    for row in TABLE:
        lines.append(f"| `{row.name}` | {row.value:g} | {row.unit} | {row.source} | {row.reason} |")
    return "\n".join(lines)
