"""The self-serve calculator form: bounds, messages, and its translation into a scenario."""

from __future__ import annotations

from decimal import Decimal
from functools import cached_property
from typing import Any

from django import forms
from django.forms.renderers import BaseRenderer
from django.template import engines
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from catalog.models import PricingTerm, past_sale_life
from common.formatting import grouped
from tco.engine import defaults
from tco.inputs.field_paths import (
    SERVING_DEMAND_FIELDS,
    SERVING_LATENCY_FIELDS,
    always,
    document_values,
)
from tco.inputs.presets import DEFAULT_PRESET, PRESETS, preset_data
from tco.scenario import ScenarioDocument, parse_document, parse_server
from tco.scenario.resolve import CatalogSnapshot
from tco.scenario.schema import Server

KINDS = [
    ("pretrain", _("Pre-training")),
    ("full_finetune", _("Full fine-tuning")),
    ("lora", _("LoRA fine-tuning")),
    ("qlora", _("QLoRA fine-tuning")),
    ("inference", _("Inference serving")),
]
PRECISIONS = [("bf16", "BF16"), ("fp8", "FP8"), ("fp4", "FP4")]
OPTIMIZERS = [
    ("adam_mixed", _("Adam, mixed precision (16 bytes/parameter)")),
    ("adam_fp32", _("Adam, fp32")),
    ("adam_8bit", _("8-bit Adam")),
    ("sgd_momentum", _("SGD with momentum")),
]
SHARDINGS = [
    ("auto", _("Choose for me")),
    ("ddp", "DDP"),
    ("zero1", "ZeRO-1"),
    ("zero2", "ZeRO-2"),
    ("zero3", _("ZeRO-3 / FSDP")),
]
INTERCONNECTS = [
    ("infiniband", "InfiniBand"),
    ("roce", _("RoCE (Ethernet with RDMA)")),
    ("ethernet", _("Ethernet")),
]
HORIZONS = [
    (1, _("1 year")),
    (2, _("2 years")),
    (3, _("3 years")),
    (4, _("4 years")),
    (5, _("5 years")),
    (6, _("6 years")),
    (7, _("7 years")),
    (8, _("8 years")),
    (9, _("9 years")),
    (10, _("10 years")),
]
DEMAND_PATTERNS = [
    ("one_off", _("Once")),
    ("recurring", _("Several times a year")),
    ("continuous", _("Continuously (a fleet kept busy)")),
]
CURRENCIES = [("EUR", "EUR (€)"), ("USD", "USD ($)")]
PROVIDERS = [
    "AWS",
    "Google Cloud",
    "Azure",
    "Lambda",
    "CoreWeave",
    "RunPod",
    "Nebius",
    "Scaleway",
    "OVHcloud",
    "Verda",
    "Hyperstack",
]
# The buyer's terms (the scenario's "constraints" block): a checklist beside the workload.
CONSTRAINT_FIELDS = (
    "eu_data_only",
    "own_premises_only",
    "eu_jurisdiction_only",
    "air_gapped",
    "preferred_providers",
)
# When the work needs capacity (the scenario's capacity block, docs/methodology.md § 3i).
CAPACITY_FIELDS = (
    "needed_in_days",
    "if_late",
    "cost_of_delay_per_week",
    "site_readiness_weeks",
    "lead_time_weeks",
    "units_in_stock",
)
IF_LATE = [
    ("bridge", _("Rent until the servers are ready (bridge)")),
    ("delay", _("Start late and count the cost of delay")),
    ("rule_out", _("Rule the option out")),
]

# "Your site" (tco/engine/site.py): what the buyer's site can take; empty: the catalog site's.
SITE_FIELDS = (
    "site_cooling",
    "rack_power_limit",
    "available_it_kw",
    "grid_headroom_kw",
    "pue_liquid",
)
SITE_COOLINGS = [
    ("", _("As the site in the catalog")),
    ("air", _("Air only")),
    ("rear_door", _("Rear-door heat exchangers")),
    ("direct_liquid", _("Direct liquid (CDUs in place)")),
    ("facility_water", _("Facility water, no CDUs yet")),
]

# How a served load is described: in users and requests, or (experts) in tokens/s.
SERVING_LOADS = [
    ("users", _("Users and requests")),
    ("tokens", _("Output tokens per second (expert)")),
]
SERVING_USES = [
    ("interactive", _("Interactive: people read the answer as it streams")),
    ("batch", _("Batch: offline jobs, only throughput counts")),
]
# Inference fields of one way of describing the load (tco/serving_form.py builds the rest).
USERS_FIELDS = (*SERVING_DEMAND_FIELDS, "compare_apis")
LOAD_ONLY = {
    **{name: "users" for name in USERS_FIELDS},
    "target_tokens_per_second": "tokens",
    "utilization_pct": "tokens",  # derived from the requests
}


# Document paths (tco/inputs/field_paths.py) that CalculatorForm writes together.
TRAINING_PATHS = (
    "workload.tokens_billion",
    "workload.deadline_days",
    "workload.sequence_length",
    "workload.mfu",
    "workload.goodput",
)
SERVING_SIZE_PATHS = ("workload.context_tokens", "workload.concurrent_sequences")
# The load in users and requests, written as it is; the input tokens a request (0 when
# empty) and the latency targets (only when given) have rules of their own.
USERS_PATHS = tuple(
    f"workload.serving_demand.{name}"
    for name in SERVING_DEMAND_FIELDS
    if name not in ("input_tokens_per_request", *SERVING_LATENCY_FIELDS)
)
LATENCY_PATHS = tuple(f"workload.serving_demand.{name}" for name in SERVING_LATENCY_FIELDS)
FINANCE_PATHS = (
    "finance.utilization",
    "finance.lease_annual_rate",
    "finance.staff_fte",
    "finance.support_pct_per_year",
    "finance.service_life_months",
)
SITE_PATHS = (
    "site.electricity_price_per_kwh",
    "site.pue",
    "site.colocation_per_kw_month",
    "site.rack_power_limit_kw",
    "site.available_it_kw",
    "site.grid_headroom_kw",
    "site.pue_liquid",
)
BURST_PATHS = ("demand.bursts_per_year", "demand.burst_servers", "demand.burst_days")


def _same(value: Any, preset: Any) -> bool:
    """A form value equals the preset's: both empty, or the same text or number."""
    if value in (None, "") or preset in (None, ""):
        return value in (None, "") and preset in (None, "")
    if isinstance(preset, int | float):
        return float(value) == float(preset)
    return str(value) == str(preset)


# Fields shown to every buyer; everything else sits under "Advanced".
BASIC_FIELDS = (
    "kind",
    "params_billion",
    "tokens_billion",
    "deadline_days",
    "serving_load",
    "serving_use",
    *USERS_FIELDS,
    "target_tokens_per_second",
    "demand_pattern",
    "runs_per_year",
    "utilization_pct",
    "growth_pct",
    "server",
    "site",
    "horizon_years",
    "currency",
)
# The page's sections of fields, in its order (templates/jinja2/tco/calculator_body.jinja);
# every field in none of them, but the hidden ones, sits under "Advanced".
SECTIONS = {
    "basic": BASIC_FIELDS,
    "site": SITE_FIELDS,
    "terms": CONSTRAINT_FIELDS,
    "capacity": CAPACITY_FIELDS,
}
HIDDEN_FIELDS = ("preset", "full")
TRAINING_KINDS = {"pretrain", "full_finetune", "lora", "qlora"}
# Fields that matter only for some workloads or demand patterns: shown only then (the page
# hides the others) and neither validated nor used otherwise.
TRAINING_ONLY = (
    "tokens_billion",
    "deadline_days",
    "optimizer",
    "sharding",
    "sequence_length",
    "interconnect",
    "mfu_pct",
    "goodput_pct",
)
INFERENCE_ONLY = (
    "serving_load",
    "serving_use",
    *USERS_FIELDS,
    "target_tokens_per_second",
    "context_tokens",
    "concurrency",
    "serving_efficiency_pct",
    "growth_pct",
)
PATTERN_ONLY = {"runs_per_year": "recurring", "utilization_pct": "continuous"}


def _show_rules(name: str) -> str:
    """A field's data attributes for calculator.js (CalculatorForm.relevance)."""
    rules = []
    if name in TRAINING_ONLY:
        rules.append('data-show-kind="training"')
    if name in INFERENCE_ONLY:
        rules.append('data-show-kind="inference"')
    if name in PATTERN_ONLY:
        rules.append(f'data-show-pattern="{PATTERN_ONLY[name]}"')
    if name in LOAD_ONLY:
        rules.append(f'data-show-load="{LOAD_ONLY[name]}"')
    return " ".join(rules)


# Each field's rules, by name (fields without any have none).
_SHOW_RULES = {
    name: _show_rules(name) for name in {*TRAINING_ONLY, *INFERENCE_ONLY, *PATTERN_ONLY, *LOAD_ONLY}
}

# An API serves "the same model" when its size is within 10 % of the workload's
# (Llama 3.3 70B has 70.6 B parameters).
API_SIZE_TOLERANCE = 0.10


def site_figure(value: Decimal) -> str:
    """A site's figure as the reader writes it, all its digits and no grouping: 1.58 → "1,58"
    on a Dutch page (a placeholder is text the browser shows as it is)."""
    exponent = value.normalize().as_tuple().exponent
    decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    return grouped(value, decimals, grouping=False)


def server_choice_label(server: Any, past_sale_life: bool) -> str:
    """A server in the calculator's list; one past its sale life says so (the cheapest that
    fits leaves it out, a buyer may still choose it)."""
    label = f"{server.vendor} {server.sku} · {server.gpu_count}× {server.gpu.name}"
    if past_sale_life:
        return str(_("%(server)s (past its sale life)") % {"server": label})
    return label


def _number(
    label: StrOrPromise,
    low: float,
    high: float,
    *,
    step: str = "any",
    required: bool = True,
    help_text: StrOrPromise = "",
    integer: bool = False,
) -> forms.Field:
    widget = forms.NumberInput(
        attrs={
            "step": "1" if integer else step,
            "min": low,
            "max": high,
            "inputmode": "numeric" if integer else "decimal",
        }
    )
    if integer:  # the bounds of an integer field are whole numbers
        return forms.IntegerField(
            label=label,
            min_value=int(low),
            max_value=int(high),
            required=required,
            widget=widget,
            help_text=help_text,
        )
    return forms.FloatField(
        label=label,
        min_value=low,
        max_value=high,
        required=required,
        widget=widget,
        help_text=help_text,
    )


class CalculatorFormRenderer(BaseRenderer):
    """Django's widget rendering through the project's Jinja2 engine (config/jinja.py),
    whose directories include Django's own Jinja2 widget templates: the form's widgets are
    rendered by the engine that renders the page (templates/jinja2/tco/_field.jinja lays
    out each field around its widget)."""

    def get_template(self, template_name: str) -> Any:
        return engines["jinja2"].get_template(template_name)


class CalculatorForm(forms.Form):
    preset = forms.CharField(required=False, widget=forms.HiddenInput)
    full = forms.CharField(required=False, widget=forms.HiddenInput)
    kind = forms.ChoiceField(label=_("Workload"), choices=KINDS)
    params_billion = _number(_("Model size (billion parameters)"), 0.1, 2000)
    tokens_billion = _number(
        _("Training tokens (billions)"),
        0.001,
        100_000,
        required=False,
        help_text=_("Chinchilla-optimal is about 20 tokens per parameter."),
    )
    deadline_days = _number(
        _("Deadline (days)"),
        0.1,
        3650,
        required=False,
        help_text=_("Leave empty to size for memory only."),
    )
    serving_load = forms.ChoiceField(
        label=_("Describe the load in"), choices=SERVING_LOADS, required=False
    )
    serving_use = forms.ChoiceField(
        label=_("Use"),
        choices=SERVING_USES,
        required=False,
        help_text=_(
            "Interactive use keeps each answer within 40 ms per token and 450 ms to the first "
            "(MLPerf's interactive bounds) unless you set other targets."
        ),
    )
    users = _number(_("Users"), 1, 100_000_000, integer=True, required=False)
    requests_per_user_per_day = _number(
        _("Requests per user a day"),
        0.01,
        10_000,
        required=False,
        help_text=_("Not known yet? 20 a day is an estimate for an assistant used at work."),
    )
    input_tokens_per_request = _number(
        _("Input tokens per request"),
        0,
        1_000_000,
        integer=True,
        required=False,
        help_text=_("Question, conversation so far and retrieved documents."),
    )
    output_tokens_per_request = _number(
        _("Output tokens per request (length of the answer)"),
        1,
        100_000,
        integer=True,
        required=False,
    )
    peak_factor = _number(
        _("Peak-to-average factor"),
        1,
        100,
        required=False,
        help_text=_(
            "The busiest hour's load over the working day's average; capacity is sized for "
            "the peak. Default 3 (estimate)."
        ),
    )
    hours_per_day = _number(
        _("Working hours a day"),
        0.5,
        24,
        required=False,
        help_text=_("24 hours and 7 days: around the clock."),
    )
    days_per_week = _number(_("Working days a week"), 1, 7, integer=True, required=False)
    latency_ms_per_token = _number(
        _("Time per output token (ms)"),
        1,
        10_000,
        required=False,
        help_text=_(
            "Latency target: 50 ms streams 20 tokens a second to each user. Empty: 40 ms for "
            "interactive use, none for batch use."
        ),
    )
    time_to_first_token_ms = _number(
        _("Time to first token (ms)"),
        1,
        600_000,
        required=False,
        help_text=_(
            "How long a user waits for the answer to start. Empty: 450 ms for interactive "
            "use, none for batch use."
        ),
    )
    compare_apis = forms.BooleanField(
        label=_("Compare with hosted model APIs"),
        required=False,
        help_text=_("Pay-per-token APIs serving the same open model, at their published prices."),
    )
    target_tokens_per_second = _number(
        _("Target output tokens per second"), 1, 10_000_000, required=False
    )
    demand_pattern = forms.ChoiceField(
        label=_("How often does this work run?"),
        choices=DEMAND_PATTERNS,
        help_text=_(
            "Once or several times a year: the servers' utilization follows from the runs. "
            "Serving is continuous."
        ),
    )
    runs_per_year = _number(
        _("Runs per year"),
        0.1,
        1000,
        required=False,
        help_text=_("For example 4 fine-tunes a year."),
    )
    growth_pct = _number(
        _("Yearly growth of the served load (%)"),
        -50,
        500,
        required=False,
        help_text=_("Empty: no growth. The owned fleet is sized for the last year."),
    )
    bursts_per_year = _number(
        _("Extra bursts per year"),
        0,
        365,
        required=False,
        help_text=_("On top of the base work, e.g. 4 fine-tunes a year beside serving."),
    )
    burst_servers = _number(_("Servers per burst"), 0, 10_000, required=False)
    burst_days = _number(_("Days per burst"), 0, 366, required=False)
    tolerates_interruptions = forms.BooleanField(
        label=_("My work tolerates interruptions"),
        required=False,
        help_text=_("Only then can spot capacity be recommended."),
    )
    server = forms.ChoiceField(label=_("Server model"))
    site = forms.ChoiceField(label=_("Site"))
    horizon_years = forms.TypedChoiceField(label=_("Horizon"), choices=HORIZONS, coerce=int)
    currency = forms.ChoiceField(label=_("Reporting currency"), choices=CURRENCIES)

    # Your site (SITE_FIELDS)
    site_cooling = forms.ChoiceField(
        label=_("Cooling available"), choices=SITE_COOLINGS, required=False
    )
    rack_power_limit = _number(
        _("Power per rack (kW)"),
        1,
        500,
        required=False,
        help_text=_("What one rack position can take; empty: the site's."),
    )
    available_it_kw = _number(
        _("Available IT power (kW)"),
        0,
        100_000,
        required=False,
        help_text=format_lazy(
            _(
                "Empty: not limited at a colocation; a server room of your own is taken to "
                "hold {kw} kW (an estimate)."
            ),
            kw=f"{defaults.SERVER_ROOM_IT_KW:g}",
        ),
    )
    grid_headroom_kw = _number(
        _("Grid connection headroom (kW)"),
        0,
        100_000,
        required=False,
        help_text=_("What the connection could still add; empty: not limited."),
    )
    pue_liquid = _number(
        _("PUE with liquid cooling"),
        1.0,
        3.0,
        required=False,
        help_text=_("Empty: the site's PUE."),
    )

    # Your terms (CONSTRAINT_FIELDS)
    eu_data_only = forms.BooleanField(label=_("Data must stay in the EU"), required=False)
    own_premises_only = forms.BooleanField(
        label=_("Data must stay on our own premises"),
        required=False,
        help_text=_("Only servers you own, in your own building (choose that site)."),
    )
    eu_jurisdiction_only = forms.BooleanField(
        label=_("No provider under non-EU jurisdiction"),
        required=False,
        help_text=_("A European region of a US company is still under US law."),
    )
    air_gapped = forms.BooleanField(
        label=_("Air-gapped: no connection to outside networks"), required=False
    )
    preferred_providers = forms.MultipleChoiceField(
        label=_("Preferred cloud providers"),
        choices=[(p, p) for p in PROVIDERS],
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_("When ticked, only these providers may be recommended."),
    )

    # When (CAPACITY_FIELDS)
    needed_in_days = _number(
        _("Capacity needed within (days)"),
        0,
        3650,
        required=False,
        help_text=_(
            "Empty: no date; every option is then compared as if ready today. Given: each "
            "option's ready date from stock, lead time and installation."
        ),
    )
    if_late = forms.ChoiceField(
        label=_("When servers arrive after that"), choices=IF_LATE, required=False
    )
    cost_of_delay_per_week = _number(
        _("Cost of delay per week (reporting currency)"),
        0,
        1_000_000_000,
        required=False,
        help_text=_("What each week the work starts late costs you. Empty: nothing."),
    )
    site_readiness_weeks = _number(
        _("Site readiness (weeks)"),
        0,
        520,
        required=False,
        help_text=_("Power or cooling work before the servers can be installed. Empty: ready."),
    )
    lead_time_weeks = _number(
        _("Server lead time (weeks)"),
        0,
        260,
        required=False,
        help_text=_("Empty: the catalog's lead time for the server model."),
    )
    units_in_stock = _number(
        _("Servers in stock"),
        0,
        100_000,
        integer=True,
        required=False,
        help_text=_("Empty: the catalog's stock."),
    )

    # Advanced
    utilization_pct = _number(
        _("Expected utilization (%)"),
        1,
        100,
        required=False,
        help_text=_("Continuous work only: share of hours the servers do useful work."),
    )
    precision = forms.ChoiceField(label=_("Precision"), choices=PRECISIONS)
    optimizer = forms.ChoiceField(label=_("Optimizer"), choices=OPTIMIZERS)
    sharding = forms.ChoiceField(label=_("Sharding (ZeRO stage)"), choices=SHARDINGS)
    sequence_length = _number(_("Sequence length (tokens)"), 128, 1_048_576, integer=True)
    interconnect = forms.ChoiceField(label=_("Network between servers"), choices=INTERCONNECTS)
    mfu_pct = _number(
        _("Model FLOPs utilization, MFU (%)"),
        5,
        80,
        help_text=_("Default 45 %: published training runs imply 38–51 % (see the calibration)."),
    )
    goodput_pct = _number(
        _("Goodput (%)"),
        10,
        100,
        help_text=_("Default 90 %: share of time spent training, not recovering."),
    )
    context_tokens = _number(
        _("Context length (tokens)"),
        128,
        1_048_576,
        integer=True,
        required=False,
        help_text=_("Empty: input plus output tokens of a request (8,192 for tokens per second)."),
    )
    concurrency = _number(
        _("Concurrent sequences per model copy"),
        1,
        100_000,
        integer=True,
        required=False,
        help_text=_(
            "Empty: the engine chooses the batch that meets the latency targets with the "
            "fewest servers."
        ),
    )
    serving_efficiency_pct = _number(
        _("Serving efficiency (%)"),
        5,
        100,
        help_text=_(
            "100 %: the engine's fit to published TensorRT-LLM and NIM measurements; lower it "
            "for a less tuned serving stack."
        ),
    )
    electricity_price = _number(
        _("Electricity price per kWh (site currency)"),
        0,
        5,
        required=False,
        help_text=_("Empty: the site's price."),
    )
    pue = _number(_("PUE"), 1.0, 3.0, required=False, help_text=_("Empty: the site's PUE."))
    colocation_price = _number(
        _("Colocation per kW-month (site currency)"),
        0,
        5000,
        required=False,
        help_text=_("Empty: the site's price."),
    )
    discount_rate_pct = _number(_("Discount rate (%)"), 0, 50)
    service_life_years = _number(
        _("Server service life (years)"),
        1,
        20,
        step="0.5",
        required=False,
        help_text=_(
            "Empty: 5 years, as Amazon depreciates servers (Meta 5.5, Microsoft and Alphabet 6). "
            "A longer horizon buys the fleet again at this age."
        ),
    )
    lease_rate_pct = _number(
        _("Lease interest rate (%)"),
        0,
        30,
        required=False,
        help_text=_("Empty: 6 %, within the 4–10 % Dutch business-loan range (estimate)."),
    )
    server_price = _number(
        _("Server price (server's currency)"),
        0,
        100_000_000,
        required=False,
        help_text=_("With a chosen server model; empty: the catalog list price."),
    )
    discount_pct = _number(
        _("Discount on the server price (%)"),
        0,
        90,
        required=False,
        help_text=_("Empty: none."),
    )
    fleet_servers = _number(
        _("Fixed fleet size (servers)"),
        1,
        100_000,
        required=False,
        integer=True,
        help_text=_("Empty: as many as the work needs."),
    )
    staff_fte = _number(
        _("Operations staff (FTE)"),
        0,
        100,
        required=False,
        help_text=_(
            "Empty: by fleet size, 0.032 FTE per server, at least 0.1 and at most 12; none "
            "at a workstation."
        ),
    )
    staff_cost = _number(
        _("Cost per staff FTE a year (reporting currency)"),
        0,
        10_000_000,
        required=False,
        help_text=_("Empty: $150,000 (estimate)."),
    )
    support_pct = _number(
        _("Support contract a year, share of hardware (%)"),
        0,
        50,
        required=False,
        help_text=_("Empty: the catalog's 10 % (standard next-business-day support)."),
    )
    providers = forms.MultipleChoiceField(
        label=_("Cloud providers"),
        choices=[(p, p) for p in PROVIDERS],
        widget=forms.CheckboxSelectMultiple,
    )
    terms = forms.MultipleChoiceField(
        label=_("Cloud pricing terms"),
        choices=PricingTerm.choices,
        widget=forms.CheckboxSelectMultiple,
    )

    default_renderer = CalculatorFormRenderer()

    def __init__(self, *args: Any, catalog: CatalogSnapshot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.catalog = catalog
        servers = sorted(
            catalog.servers.values(), key=lambda s: (s.gpu.bf16_tflops, s.vendor, s.sku)
        )
        old = past_sale_life(servers)
        self._choice_field("server").choices = [("auto", _("The cheapest that fits"))] + [
            (s.key, server_choice_label(s, s.key in old)) for s in servers
        ]
        self._choice_field("site").choices = [
            (s.key, s.display_name()) for s in catalog.sites.values()
        ]
        self._show_site_defaults()
        for name in self.ignored_fields:
            self.fields[name].required = False

    @cached_property
    def ignored_fields(self) -> frozenset[str]:
        """Fields that do not apply to the submitted workload and demand pattern."""
        kind = str(self.data.get("kind", ""))
        pattern = str(self.data.get("demand_pattern", ""))
        ignored = set(INFERENCE_ONLY if kind in TRAINING_KINDS else TRAINING_ONLY)
        ignored |= {name for name, only in PATTERN_ONLY.items() if pattern != only}
        if kind not in TRAINING_KINDS:
            load = str(self.data.get("serving_load") or "tokens")
            ignored |= {name for name, only in LOAD_ONLY.items() if load != only}
        return frozenset(ignored)

    def relevance(self, name: str) -> SafeString:
        """The page's show/hide rule of a field: data attributes read by calculator.js.

        A field is shown when every rule it carries holds; the load rule applies to
        inference only (utilization is asked for training and for tokens/s serving). A
        bound form's fields that do not apply come hidden already: the page neither lays
        them out nor shifts when the script hides them, and without the script they stay
        out of the way (the server ignores them). Safe HTML: attributes of our own.
        """
        rules = _SHOW_RULES.get(name, "")
        if self.is_bound and name in self.ignored_fields:
            rules = f"hidden {rules}" if rules else "hidden"
        return mark_safe(rules)

    def _show_site_defaults(self) -> None:
        """Put the chosen site's own figures in the empty override fields as placeholders."""
        site = self.catalog.sites.get(str(self.data.get("site", "")))
        if site is None:
            return
        for name, value in (
            ("electricity_price", site.electricity_price_per_kwh),
            ("pue", site.pue),
            ("colocation_price", site.colocation_per_kw_month),
            ("rack_power_limit", site.rack_power_limit_kw),
            ("pue_liquid", site.pue_liquid or site.pue),
        ):
            self.fields[name].widget.attrs["placeholder"] = site_figure(value)

    def section(self, name: str) -> list[forms.BoundField]:
        """The bound fields of one of the page's SECTIONS, or of "advanced": every other
        field that is not hidden."""
        if name != "advanced":
            return [self[field] for field in SECTIONS[name]]
        placed = {field for fields in SECTIONS.values() for field in fields}
        return [
            self[field]
            for field in self.fields
            if field not in placed and field not in HIDDEN_FIELDS
        ]

    def _choice_field(self, name: str) -> forms.ChoiceField:
        field = self.fields[name]
        assert isinstance(field, forms.ChoiceField)
        return field

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        for name in self.ignored_fields:  # not shown, so neither validated nor used
            self.errors.pop(name, None)
            data.pop(name, None)
        kind = data.get("kind")
        if (
            kind in TRAINING_KINDS
            and not data.get("tokens_billion")
            and "tokens_billion" not in self.errors
        ):
            self.add_error("tokens_billion", _("Enter how many tokens the run trains on."))
        if kind == "inference":
            self._require_serving_load(data)
        pattern = data.get("demand_pattern")
        if kind == "inference" and pattern in ("one_off", "recurring"):
            self.add_error(
                "demand_pattern", _("Serving is continuous work: choose 'Continuously'.")
            )
        if (
            pattern == "recurring"
            and not data.get("runs_per_year")
            and "runs_per_year" not in self.errors
        ):
            self.add_error("runs_per_year", _("Enter how many runs a year the work needs."))
        if (
            pattern == "continuous"
            and data.get("utilization_pct") is None
            and "utilization_pct" not in self.errors
            and "utilization_pct" not in self.ignored_fields
        ):
            self.add_error("utilization_pct", _("Enter the share of hours the servers work."))
        return data

    def _require_serving_load(self, data: dict[str, Any]) -> None:
        """Serving needs its load: users and requests, or the tokens/s to serve."""
        load = data.get("serving_load") or "tokens"
        data["serving_load"] = load
        required = (
            {
                "users": _("Enter how many users send requests."),
                "requests_per_user_per_day": _("Enter how many requests a user sends a day."),
                "output_tokens_per_request": _("Enter how long an answer is, in tokens."),
                "peak_factor": _("Enter the peak-to-average factor (3 if unsure)."),
                "hours_per_day": _("Enter the hours a day in which requests arrive."),
                "days_per_week": _("Enter the working days a week."),
            }
            if load == "users"
            else {"target_tokens_per_second": _("Enter the throughput to serve.")}
        )
        for name, message in required.items():
            if data.get(name) is None and name not in self.errors:
                self.add_error(name, message)

    def api_offering_keys(self) -> list[str]:
        """Catalog APIs of the same model size as the workload (within 10 %), when asked for."""
        data = self.cleaned_data
        if data.get("kind") != "inference" or not data.get("compare_apis"):
            return []
        size = float(data["params_billion"])
        return [
            api.key
            for api in sorted(self.catalog.apis.values(), key=lambda a: (a.provider, a.key))
            if abs(float(api.params_billion) - size) <= API_SIZE_TOLERANCE * size
        ]

    def offering_keys(self) -> list[str]:
        """Catalog offerings of any GPU with the chosen providers and terms.

        Each is costed for the same work (sized on its own GPU), so the server
        choice never depends on which providers are ticked.
        """
        data = self.cleaned_data
        return [
            offer.key
            for offer in sorted(
                self.catalog.offerings.values(), key=lambda o: (o.provider, o.instance_type, o.term)
            )
            if offer.provider in data["providers"] and offer.term in data["terms"]
        ]

    def to_document(self, server_key: str) -> ScenarioDocument:
        """The scenario document (docs/scenario.md) this form describes, for one server model.

        Read by the scenario schema like a file or an API body: a value the form lets
        through but the schema refuses is a ScenarioError naming its path (the calculator
        shows it beside the field the path maps to, tco.inputs.field_paths.FORM_FIELD_FOR_PATH).
        The fields' paths and conversions are tco/inputs/field_paths.py's table.
        """
        data = self.cleaned_data
        server = self.catalog.servers[server_key]
        kind = data["kind"]
        return parse_document(
            {
                "name": str(dict(KINDS).get(kind, kind)),
                "workload": self._workload(),
                "server": self._server(server),
                "site": self._site(),
                "cloud_offerings": self.offering_keys(),
                **({"api_offerings": apis} if (apis := self.api_offering_keys()) else {}),
                "demand": self._demand(),
                "finance": self._finance(),
                **document_values(data, ("servers",), bool),
                **self._constraints(),
                **self._capacity(),
            }
        )

    def _workload(self) -> dict[str, Any]:
        """The scenario's ``workload`` block: a training run's or a service's."""
        data = self.cleaned_data
        kind = data["kind"]
        workload: dict[str, Any] = {
            "kind": kind,
            "precision": data["precision"],
            **document_values(data, ("workload.params_billion",), always),
        }
        if kind in TRAINING_KINDS:
            workload.update(
                optimizer=data["optimizer"],
                interconnect=data["interconnect"],
                **document_values(data, TRAINING_PATHS, always),
            )
            if data["sharding"] != "auto":
                workload["sharding"] = data["sharding"]
        else:
            workload.update(
                serving_use=data.get("serving_use") or "interactive",
                **document_values(data, ("workload.serving_efficiency",), always),
                **self._serving_load(),
                **document_values(data, SERVING_SIZE_PATHS, bool),
            )
        return workload

    def _finance(self) -> dict[str, Any]:
        """The scenario's ``finance`` block."""
        data = self.cleaned_data
        finance: dict[str, Any] = {
            "horizon_months": data["horizon_years"] * 12,
            "reporting_currency": data["currency"],
            **document_values(data, ("finance.discount_rate",), always),
            **document_values(data, FINANCE_PATHS),
        }
        if data.get("staff_cost") is not None:
            finance["staff_annual_cost"] = self._usd(data["staff_cost"], data["currency"])
        return finance

    def _site(self) -> dict[str, Any]:
        """The scenario's ``site`` block: the catalog's site and the figures the buyer gave."""
        data = self.cleaned_data
        return {
            "key": data["site"],
            **document_values(data, SITE_PATHS),
            **document_values(data, ("site.cooling",), bool),
            "described": self.site_described(),
        }

    def _capacity(self) -> dict[str, Any]:
        """The scenario's ``capacity`` block; left out when no need date nor site work is
        given (every option then counts as ready today)."""
        data = self.cleaned_data
        if data.get("needed_in_days") is None and not data.get("site_readiness_weeks"):
            return {}
        block: dict[str, Any] = {"if_late": data.get("if_late") or "bridge"}
        for name in ("needed_in_days", "site_readiness_weeks"):
            if data.get(name) is not None:
                block[name] = data[name]
        if data.get("cost_of_delay_per_week"):
            block["cost_of_delay_per_week"] = data["cost_of_delay_per_week"]
        return {"capacity": block}

    def _constraints(self) -> dict[str, Any]:
        """The scenario's ``constraints`` block; left out when the buyer set none."""
        data = self.cleaned_data
        block: dict[str, Any] = {
            name: True
            for name in ("eu_data_only", "own_premises_only", "eu_jurisdiction_only", "air_gapped")
            if data.get(name)
        }
        if data.get("preferred_providers"):
            block["preferred_providers"] = list(data["preferred_providers"])
        return {"constraints": block} if block else {}

    def server_reference(self, server_key: str) -> Server:
        """The document's ``"server"`` for one server model: what differs between the
        documents of two candidates (the calculator ranks them without a document each)."""
        return parse_server(self._server(self.catalog.servers[server_key]))

    def site_described(self) -> bool:
        """Whether the buyer described the site: chose another site than the preset's (the
        page's default when none is marked) or gave any "Your site" figure other than the
        preset's. A preset's site is a default the buyer never chose: the result calls it
        "the default site", not "your site"."""
        data = self.cleaned_data
        preset = preset_data(str(data.get("preset") or "")) or preset_data(DEFAULT_PRESET.slug)
        given = preset or {}
        return any(not _same(data.get(name), given.get(name)) for name in ("site", *SITE_FIELDS))

    def _server(self, server: Any) -> str | dict[str, Any]:
        """The server's catalog key, or the key with the negotiated price."""
        data = self.cleaned_data
        # A typed price belongs to the chosen model; on "the cheapest that fits" only the
        # discount applies (to every candidate's list price).
        price = data.get("server_price") if data.get("server") != "auto" else None
        discount = data.get("discount_pct")
        availability = {
            name: data[name]
            for name in ("lead_time_weeks", "units_in_stock")
            if data.get(name) is not None
        }
        if price is None and not discount and not availability:
            return str(server.key)
        reference: dict[str, Any] = {"key": server.key, **availability}
        if price is not None or discount:
            base = price if price is not None else float(server.list_price)
            reference["list_price"] = round(base * (1 - (discount or 0) / 100), 2)
        return reference

    def _usd(self, amount: float, currency: str) -> float:
        """A reporting-currency amount in US dollars (the finance inputs' currency)."""
        fx = self.catalog.fx_row
        return amount * float(fx.rate) if currency == "EUR" and fx is not None else amount

    def _serving_load(self) -> dict[str, Any]:
        """The workload's load: the serving demand in users and requests, or tokens/s."""
        data = self.cleaned_data
        if data.get("serving_load") != "users":
            return document_values(data, ("workload.target_tokens_per_second",), always)
        demand = {
            **document_values(data, USERS_PATHS, always),
            "input_tokens_per_request": data.get("input_tokens_per_request") or 0,
            **document_values(data, LATENCY_PATHS),
        }
        return {"serving_demand": demand}

    def _demand(self) -> dict[str, Any]:
        data = self.cleaned_data
        pattern = data["demand_pattern"]
        demand: dict[str, Any] = {
            **document_values(data, ("demand.pattern",), always),
            "tolerates_interruptions": bool(data.get("tolerates_interruptions")),
        }
        if pattern == "recurring":
            demand.update(document_values(data, ("demand.runs_per_year",), always))
        if pattern == "continuous" and data.get("utilization_pct") is not None:
            demand.update(document_values(data, ("demand.utilization",)))
            if data.get("growth_pct") and data["kind"] == "inference":
                demand.update(document_values(data, ("demand.growth_per_year",)))
        if data.get("bursts_per_year") and data.get("burst_servers") and data.get("burst_days"):
            demand.update(document_values(data, BURST_PATHS, always))
        return demand


PRESET_CHOICES = [(p.slug, p.title) for p in PRESETS]
