"""The calculator page when the owned unit is larger than the work (issue 40): an 8B model
served to the customer-service preset's users from a GB300 NVL72 rack."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from common.formatting import format_money
from tco.analysis import CatalogSnapshot
from tco.analysis.calculator import analyse_form
from tco.inputs.forms import CalculatorForm
from tco.inputs.presets import preset_data

pytestmark = pytest.mark.django_db


def _inputs(server: str) -> dict[str, Any]:
    data = preset_data("customer-service")
    assert data is not None
    return {**data, "params_billion": 8, "server": server}


def _text(page: str, css_class: str) -> list[str]:
    found = re.findall(rf'<p class="{css_class}"[^>]*>(.*?)</p>', page, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", f)).strip() for f in found]


def _analysis(server: str) -> Any:
    with translation.override("en"):
        form = CalculatorForm(_inputs(server), catalog=CatalogSnapshot.current())
        assert form.is_valid(), form.errors
        analysis = analyse_form(form).analysis
    assert analysis is not None
    return analysis.result


def test_the_page_warns_that_the_rack_stands_idle_and_names_the_smaller_server(
    client: Client, seed_catalog: object
) -> None:
    """The peak of 2,000 users × 20 requests × 400 tokens over a 10-hour day, × 3, is
    1,333.3 tokens/s: a sliver of a 72-GPU rack. The verdict names the server the
    calculator itself picks for this work on "auto" (the cheapest to own) and what owning
    it costs, as that page's "Buy and keep" total."""
    page = client.get("/calculator/", _inputs("nvidia-gb300-nvl72")).content.decode()
    (warning,) = [w for w in _text(page, "warning") if "stand idle" in w]
    assert warning.startswith("⚠ Bought, the 1 × NVIDIA GB300 NVL72 (72 GPUs) would use ")
    assert "of its capacity even at the peak" in warning
    auto, rack = _analysis("auto"), _analysis("nvidia-gb300-nvl72")
    assert auto.sizing.gpus_required == 8 and rack.sizing.gpus_required == 72
    smaller = f"1 × {auto.scenario.server.name} (8 GPUs)"
    cost = format_money(auto.onprem.total_cost, "EUR", 0)
    (headline,) = _text(page, "verdict-headline")
    assert f"a smaller system does this work: {smaller}, {cost} to own." in headline
    # The rented options are sized to the work, not to the rack: one 8-GPU instance each
    # (the model needs one GPU), the same bill whichever server is bought.
    assert {o.instances for o in rack.cloud_options} == {1}
    assert [round(o.total_cost, 2) for o in rack.cloud_options] == [
        round(o.total_cost, 2) for o in auto.cloud_options
    ]


def test_a_server_sized_to_the_work_gets_neither(client: Client, seed_catalog: object) -> None:
    page = client.get("/calculator/", _inputs("auto")).content.decode()
    assert not [w for w in _text(page, "warning") if "stand idle" in w]
    assert "a smaller system does this work" not in page


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "of the month it is owned"),
        ("nl", "van de maand in bezit"),
    ],
)
def test_a_one_off_runs_idle_share_names_the_month_it_is_owned(
    client: Client, seed_catalog: object, language: str, words: str
) -> None:
    # The LoRA preset's one-off run is owned for one month (bought, run, resold), and its
    # busy share is of that month; the verdict's workload line gives the share of the
    # whole horizon. The warning names its month, so the two shares do not seem to clash.
    client.get(f"/language/?language={language}&next=/")
    page = client.get("/calculator/", {"preset": "lora-70b"}).content.decode()
    warnings = _text(page, "warning")
    assert any(words in w for w in warnings), warnings
