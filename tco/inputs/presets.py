"""The workloads buyers ask about most, as starting points for the calculator form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Preset:
    slug: str
    title: Promise
    values: dict[str, Any]


# The EU cloud in the default comparison of a buyer whose site is in the EU or whose terms
# ask for the EU (docs/methodology.md, "Which clouds are compared"): Nebius, a Dutch
# company (Nebius Group N.V., Amsterdam) with EU regions, is the one EU cloud in the
# catalog that rents every GPU the catalog's servers carry (H100, H200, B200 and B300).
EU_CLOUD = "Nebius"
EU_TERMS = ("eu_data_only", "eu_jurisdiction_only")

COMMON: dict[str, Any] = {
    "server": "auto",
    "site": "nl-colo-amsterdam",
    "horizon_years": 5,
    "currency": "EUR",
    "utilization_pct": 70,
    "demand_pattern": "continuous",
    "tolerates_interruptions": False,
    "precision": "bf16",
    "optimizer": "adam_mixed",
    "sharding": "auto",
    "sequence_length": 4096,
    "interconnect": "infiniband",
    "mfu_pct": 45,
    "goodput_pct": 90,
    "discount_rate_pct": 8,
    # The global clouds; form_data adds EU_CLOUD for a buyer in the EU (see there).
    "providers": ["AWS", "Google Cloud", "Azure", "Lambda", "CoreWeave", "RunPod"],
    "terms": ["on_demand", "reserved_3y"],
    # Serving: the engine derives the context from the requests and chooses the batch.
    "serving_use": "interactive",
    "serving_efficiency_pct": 100,
    # Serving described in users and requests (the customer's terms); the peak factor 3 is
    # the engine's default (an estimate).
    "serving_load": "users",
    "input_tokens_per_request": 1000,
    "output_tokens_per_request": 400,
    "peak_factor": 3,
    "hours_per_day": 10,
    "days_per_week": 5,
    "compare_apis": True,
}

# What each workload starts from when the visitor switches to it on the page
# (static/js/calculator.js): a value still at the previous workload's default is replaced,
# so a LoRA fine-tune never inherits a pre-training run's trillion tokens. Each set is
# complete for its demand pattern (a recurring fine-tune says how often: four times a
# year). Serving runs continuously; its request rate is an estimate (the field's help says
# so). The pretrain-7b, finetune-8b and lora-70b presets are these runs on one model size.
KIND_DEFAULTS: dict[str, dict[str, Any]] = {
    "pretrain": {"tokens_billion": 1000, "deadline_days": 30, "demand_pattern": "one_off"},
    "full_finetune": {
        "tokens_billion": 5,
        "deadline_days": 3,
        "demand_pattern": "recurring",
        "runs_per_year": 4,
    },
    "lora": {"tokens_billion": 1, "deadline_days": 2, "demand_pattern": "one_off"},
    "qlora": {"tokens_billion": 1, "deadline_days": 2, "demand_pattern": "one_off"},
    "inference": {
        "demand_pattern": "continuous",
        "serving_load": "users",
        "users": 2000,
        "requests_per_user_per_day": 20,
    },
}

LORA_70B = Preset(
    "lora-70b",
    _("LoRA fine-tune 70B, once"),
    {"kind": "lora", "params_billion": 70, **KIND_DEFAULTS["lora"]},
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        "pretrain-7b",
        _("Pre-train a 7B model on 1T tokens in 30 days, once"),
        {"kind": "pretrain", "params_billion": 7, **KIND_DEFAULTS["pretrain"]},
    ),
    Preset(
        "pretrain-70b",
        _("Pre-train 70B on 2T tokens, three times a year"),
        {
            "kind": "pretrain",
            "params_billion": 70,
            "tokens_billion": 2000,
            "deadline_days": 90,
            "demand_pattern": "recurring",
            "runs_per_year": 3,
        },
    ),
    Preset(
        "finetune-8b",
        _("Full fine-tune 8B, four times a year"),
        {"kind": "full_finetune", "params_billion": 8, **KIND_DEFAULTS["full_finetune"]},
    ),
    LORA_70B,
    Preset(
        "serve-70b",
        _("Serve a 70B model at 5,000 tokens/s"),
        {
            "kind": "inference",
            "params_billion": 70,
            "target_tokens_per_second": 5000,
            "serving_load": "tokens",
        },
    ),
    Preset(
        "customer-service",
        _("Customer-service assistant: 2,000 users, 20 questions a day each"),
        {
            # The demand of issue 16 in the customer's terms; the requests' sizes, the peak and
            # the office hours (ten a day, five days a week) are COMMON's.
            "kind": "inference",
            "params_billion": 70,
            "serving_load": "users",
            "users": 2000,
            "requests_per_user_per_day": 20,
            "latency_ms_per_token": 50,
        },
    ),
)
# A buyer whose terms, not cost, decide: patient or client data that may not leave the EU
# nor the buyer's own building (tco/engine/constraints.py). Renting the one-off fine-tune
# would be cheapest; the verdict says so and what meeting the terms costs.
CONSTRAINED_BUYER = Preset(
    "eu-own-premises",
    _("Fine-tune 70B once; data stays in the EU, on our own premises"),
    {
        **LORA_70B.values,
        "site": "onprem-server-room",
        "eu_data_only": True,
        "own_premises_only": True,
        "providers": ["AWS", "Google Cloud", "Azure", "Nebius", "Scaleway", "OVHcloud"],
    },
)
# Frontier pre-training on rack-scale systems: 400 B parameters on 4 T tokens in 90 days
# on GB300 NVL72 racks (72 GPUs in one NVLink domain, 140 kW a rack). The buyer's server
# room takes 20 kW a rack on air only, so the site fit sends the racks to the liquid-ready
# colocation and the verdict says the site decided where they stand (tco/engine/site.py).
RACK_SCALE = Preset(
    "rack-scale-nvl72",
    _("Pre-train 400B on GB300 NVL72 racks (liquid-cooled, 140 kW a rack)"),
    {
        "kind": "pretrain",
        "params_billion": 400,
        "tokens_billion": 4000,
        "deadline_days": 90,
        "demand_pattern": "continuous",
        "server": "nvidia-gb300-nvl72",
        "site": "onprem-server-room",
        "rack_power_limit": 20,
        "site_cooling": "air",
    },
)
PRESETS = (*PRESETS, CONSTRAINED_BUYER, RACK_SCALE)
PRESETS_BY_SLUG = {preset.slug: preset for preset in PRESETS}
DEFAULT_PRESET = PRESETS[0]


def preset_data(slug: str) -> dict[str, Any] | None:
    """The full form data of a preset, or None for an unknown slug."""
    preset = PRESETS_BY_SLUG.get(slug)
    if preset is None:
        return None
    return {**COMMON, **preset.values, "preset": slug}
