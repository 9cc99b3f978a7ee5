"""The calculator form as a buyer sees it: the catalog's servers and sites in the reader's
language, the chosen site's figures as placeholders, and the fields the workload ignores
hidden and not required."""

from __future__ import annotations

from typing import Any

import pytest
from django.forms import BaseForm, ChoiceField
from django.http import QueryDict
from django.utils import translation

from tco.analysis.calculator import form_data
from tco.inputs.forms import CalculatorForm
from tco.inputs.presets import DEFAULT_PRESET, KIND_DEFAULTS, preset_data
from tco.scenario.resolve import CatalogSnapshot

pytestmark = pytest.mark.django_db


def _choices(form: BaseForm, name: str) -> list[tuple[str, Any]]:
    """The (value, label) pairs the form set on its choice field `name`."""
    field = form.fields[name]
    assert isinstance(field, ChoiceField) and isinstance(field.choices, list)
    return field.choices


def _form(query: str) -> CalculatorForm:
    return CalculatorForm(form_data(QueryDict(query)), catalog=CatalogSnapshot.load())


@pytest.mark.parametrize(
    ("language", "auto"), [("en", "The cheapest that fits"), ("nl", "De goedkoopste die past")]
)
def test_servers_and_sites_come_from_the_catalog_in_the_readers_language(
    seed_catalog: object, language: str, auto: str
) -> None:
    catalog = CatalogSnapshot.load()
    with translation.override(language):
        form = _form("preset=serve-70b")
        servers = [(key, str(label)) for key, label in _choices(form, "server")]
        sites = [(key, str(label)) for key, label in _choices(form, "site")]
        site_names = [(s.key, s.display_name()) for s in catalog.sites.values()]
        html = str(form["server"])
    assert servers[0] == ("auto", auto)
    by_speed = sorted(catalog.servers.values(), key=lambda s: (s.gpu.bf16_tflops, s.vendor, s.sku))
    assert [key for key, _label in servers[1:]] == [s.key for s in by_speed]
    assert sites == site_names
    assert f">{auto}</option>" in html and html.count("<option") == len(servers)


def test_the_chosen_sites_figures_are_the_override_fields_placeholders(
    seed_catalog: object,
) -> None:
    form = _form("preset=serve-70b")
    site = form.catalog.sites[form.data["site"]]
    assert f'placeholder="{site.pue.normalize():f}"' in str(form["pue"])
    expected = f"{site.electricity_price_per_kwh.normalize():f}"
    assert form.fields["electricity_price"].widget.attrs["placeholder"] == expected


def test_fields_the_workload_ignores_are_hidden_and_not_required(seed_catalog: object) -> None:
    form = _form("preset=serve-70b")  # serving: the training fields do not apply
    assert form.is_valid(), form.errors
    assert "hidden" in form.relevance("tokens_billion")
    assert not form.fields["mfu_pct"].required
    assert "hidden" not in form.relevance("params_billion")
    assert CalculatorForm.base_fields["mfu_pct"].required  # the class's field is left as it was


@pytest.mark.parametrize("kind", sorted(KIND_DEFAULTS))
def test_a_workloads_own_defaults_are_a_complete_answer(seed_catalog: object, kind: str) -> None:
    # The page switches the workload by writing these defaults into the fields
    # (static/js/calculator.js) and sends the form at once: they must be enough for a
    # result, or the visitor sees "Enter how many runs a year" right after the switch.
    values = {**(preset_data(DEFAULT_PRESET.slug) or {}), **KIND_DEFAULTS[kind], "kind": kind}
    query = QueryDict(mutable=True)
    for name, value in values.items():
        query.setlist(
            name, [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]
        )
    query["full"] = "1"
    form = CalculatorForm(query, catalog=CatalogSnapshot.load())
    assert form.is_valid(), form.errors


@pytest.mark.parametrize(
    ("query", "described"),
    [
        ("preset=pretrain-70b", False),  # the preset's colocation: never chosen
        ("preset=pretrain-70b&site=nl-colo-amsterdam", False),  # the preset's, again
        ("preset=pretrain-70b&site=onprem-server-room", True),  # another site chosen
        ("preset=pretrain-70b&site_cooling=air", True),  # a "Your site" figure given
        ("preset=rack-scale-nvl72", False),  # the preset's own 20 kW, air-only room
        ("preset=rack-scale-nvl72&rack_power_limit=20.0", False),  # the same 20 kW
        ("preset=rack-scale-nvl72&site_cooling=", True),  # the preset's air cooling undone
        ("preset=rack-scale-nvl72&available_it_kw=500", True),
        ("site=onprem-server-room", True),  # no preset: against the page's default one
    ],
)
def test_the_site_is_described_when_the_buyer_chose_it_or_gave_its_figures(
    seed_catalog: object, query: str, described: bool
) -> None:
    form = _form(query)
    assert form.is_valid(), form.errors
    document = form.to_document("smc-822gs-nbrt-b200")
    assert document.site.described is described
