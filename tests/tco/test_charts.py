"""Charts: real engine results in, Plotly figures with the right numbers out."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np
import plotly.graph_objects as go
import pytest

from tco.engine import (
    LeaseTerms,
    Scenario,
    ScenarioResult,
    evaluate,
)
from tco.engine.examples import CLOUD_OFFERINGS as CLOUDS
from tco.engine.examples import reference_scenario
from tco.presentation.charts import (
    ChartLabels,
    all_charts,
    amounts,
    chart_series,
    cumulative_cost_chart,
    figure_payload,
    onprem_breakdown_chart,
    scenarios_cumulative_chart,
    tornado_chart,
    utilization_chart,
)

# The charts carry amounts in whole currency units (what their hover shows): each is
# within half a unit of the engine's figure, a stack of bars within half a unit per bar.
UNIT = 0.5

DUTCH = ChartLabels(
    cumulative_title="Cumulatieve kosten",
    breakdown_title="On-prem kosten per jaar",
    utilization_title="Totale kosten naar benutting",
    tornado_title="Gevoeligheid t.o.v. {option}",
    month="Maand",
    year="Jaar",
    year_tick="Jaar {year}",
    cost="Kosten ({currency})",
    cumulative_cost="Cumulatieve kosten ({currency})",
    total_cost="Totale kosten ({currency})",
    utilization="Benutting",
    onprem="Eigen servers",
    break_even="Omslagpunt",
    crossover="Kruispunt",
    crossover_annotation="Maand {month}",
    purchase="Aankoop",
    energy="Energie",
    tornado_low="Invoer −{pct} %",
    tornado_high="Invoer +{pct} %",
    input_names=(("pue", "PUE (NL)"), ("utilization", "Benutting")),
)


def make_scenario(**finance: Any) -> Scenario:
    """The engine's reference scenario on a fixed fleet of 6 servers."""
    reference = reference_scenario()
    return dataclasses.replace(
        reference,
        finance=dataclasses.replace(reference.finance, **finance),
        servers=6,
        name="7B pre-training on 6 H100 servers",
    )


@pytest.fixture(scope="module")
def result() -> ScenarioResult:
    return evaluate(make_scenario())


@pytest.fixture(scope="module")
def figures(result: ScenarioResult) -> dict[str, go.Figure]:
    return validated(all_charts(chart_series(result), ChartLabels(), ".,"))


def validated(figures: dict[str, Any]) -> dict[str, go.Figure]:
    """The plain figure data checked against Plotly's schema (go.Figure raises on errors)."""
    return {name: go.Figure(figure) for name, figure in figures.items()}


def traces(fig: go.Figure, name: str) -> list[Any]:
    return [t for t in fig.data if t.name == name]


# --- bundle and layout ----------------------------------------------------------------


def test_all_charts_returns_the_six_figures(figures: dict[str, go.Figure]) -> None:
    assert list(figures) == [
        "cumulative",
        "breakdown",
        "utilization",
        "tornado",
        "confidence",
        "carbon",
    ]
    for fig in figures.values():
        assert isinstance(fig, go.Figure)
        layout = fig.layout
        assert layout.autosize is True
        assert layout.legend.orientation == "h"
        # Below everything, in figure coordinates: never over the x-axis title.
        assert layout.legend.yref == "container" and layout.legend.y == 0
        assert layout.margin.l <= 20 and layout.margin.r <= 20
        assert layout.separators == ".,"
        assert layout.title.text


def test_titles_and_hover_show_the_currency(figures: dict[str, go.Figure]) -> None:
    assert figures["cumulative"].layout.title.text == "Cumulative cost over time"
    assert figures["cumulative"].layout.yaxis.title.text == "Cumulative cost (USD)"
    assert figures["breakdown"].layout.yaxis.title.text == "Cost (USD)"
    assert figures["utilization"].layout.yaxis.title.text == "Total cost (USD)"
    assert figures["tornado"].layout.xaxis.title.text == "NPV saving of buying (USD)"
    for name, fig in figures.items():
        for trace in fig.data:
            unit = " t<" if name == "carbon" else " USD"  # CO₂ in tonnes, the rest in money
            assert unit in trace.hovertemplate, trace.name


def test_chart_amounts_are_whole_units_and_keep_what_is_not_finite() -> None:
    assert amounts(np.array([1262068.9655, -0.4, 2.5, 3.5])) == [1262069, 0, 2, 4]
    assert all(isinstance(x, int) for x in amounts([1.2, 3.7]))
    # Beyond what an integer or a finite float holds: left as floats, not wrapped around.
    assert amounts([1e300, 1.5]) == [1e300, 1.5]
    assert math.isnan(amounts([math.nan, 1.0])[0])
    assert amounts([1.0, math.inf]) == [1.0, math.inf]
    assert amounts([-math.inf, 2.0]) == [-math.inf, 2.0]
    assert amounts([2.0**53, 1.0]) == [2.0**53, 1.0]
    assert amounts([]) == []


# --- cumulative cost ------------------------------------------------------------------


def test_cumulative_has_one_line_per_option_ending_at_its_total(
    result: ScenarioResult, figures: dict[str, go.Figure]
) -> None:
    fig = figures["cumulative"]
    lines = [t for t in fig.data if t.mode == "lines"]
    assert [t.name for t in lines] == ["On-prem", *(o.name for o in result.cloud_options)]
    assert len(lines) == 1 + len(CLOUDS)
    totals = [result.onprem.total_cost, *(o.total_cost for o in result.cloud_options)]
    for line, total in zip(lines, totals, strict=True):
        assert list(line.x) == list(range(reference_scenario().finance.horizon_months + 1))
        assert line.y[-1] == pytest.approx(total, abs=UNIT)
    # On-prem starts with the purchase; cloud bills start at zero in month 0.
    assert lines[0].y[0] == pytest.approx(result.onprem.cashflow["total"][0], abs=UNIT)
    assert all(line.y[0] == 0 for line in lines[1:])


def test_crossover_markers_sit_at_the_payback_month(
    result: ScenarioResult, figures: dict[str, go.Figure]
) -> None:
    fig = figures["cumulative"]
    markers = traces(fig, "Crossover")
    with_payback = [o for o in result.cloud_options if o.payback_month is not None]
    assert with_payback, "the reference scenario pays back against every cloud"
    assert len(markers) == len(with_payback)
    on_cum = result.onprem.cashflow["cumulative"]
    cloud_lines = {t.name: t for t in fig.data if t.mode == "lines"}
    for marker, option in zip(markers, with_payback, strict=True):
        month = option.payback_month
        assert month is not None
        assert list(marker.x) == [month]
        assert marker.y[0] == pytest.approx(on_cum[month])
        # At the crossover on-prem has spent no more than the cloud; a month earlier, more.
        cloud_y = cloud_lines[option.name].y
        assert marker.y[0] <= cloud_y[month]
        assert on_cum[month - 1] > cloud_y[month - 1]
        assert marker.showlegend is False
        assert option.name in marker.hovertemplate
    texts = [a.text for a in fig.layout.annotations]
    assert texts == [f"Month {o.payback_month}" for o in with_payback]
    assert [a.x for a in fig.layout.annotations] == [o.payback_month for o in with_payback]


def test_no_crossover_marker_when_on_prem_never_pays_back() -> None:
    # Hardly used servers never catch up with pay-per-hour clouds.
    result = evaluate(make_scenario(utilization=0.05))
    on_demand = [o for o in result.cloud_options if o.payback_month is None]
    assert on_demand
    fig = go.Figure(cumulative_cost_chart(chart_series(result, None), ChartLabels(), ".,"))
    expected = sum(o.payback_month is not None for o in result.cloud_options)
    assert len(traces(fig, "Crossover")) == expected
    assert len(fig.layout.annotations) == expected


# --- on-prem breakdown ----------------------------------------------------------------


def yearly_totals(result: ScenarioResult) -> np.ndarray:
    cf = result.onprem.cashflow
    years = np.maximum(1, np.ceil(cf.months / 12)).astype(int)
    return np.bincount(years, weights=cf["total"])[1:]


def test_breakdown_stacks_sum_to_the_yearly_cash_flow(
    result: ScenarioResult, figures: dict[str, go.Figure]
) -> None:
    fig = figures["breakdown"]
    bars = [t for t in fig.data if t.type == "bar"]
    assert fig.layout.barmode == "relative"
    assert [t.name for t in bars] == [
        "Purchase",
        "Energy",
        "Colocation",
        "Support",
        "Staff",
        "Insurance",
        "Residual value",
    ]  # lease and software are zero here, so they are left out
    ticks = [f"Year {y}" for y in range(1, 6)]
    for bar in bars:
        assert list(bar.x) == ticks
    stacked = np.sum([bar.y for bar in bars], axis=0)
    expected = yearly_totals(result)
    np.testing.assert_allclose(stacked, expected, rtol=0, atol=UNIT * len(bars))
    assert stacked.sum() == pytest.approx(result.onprem.total_cost, abs=UNIT * stacked.size)
    (net,) = traces(fig, "Net total")
    np.testing.assert_allclose(net.y, expected, rtol=0, atol=UNIT)
    purchase = traces(fig, "Purchase")[0]
    assert purchase.y[0] == pytest.approx(result.onprem.cashflow["hardware"][0], abs=UNIT)
    assert list(purchase.y[1:]) == [0, 0, 0, 0]
    residual = traces(fig, "Residual value")[0]
    assert residual.y[-1] < 0 and list(residual.y[:-1]) == [0, 0, 0, 0]


def test_breakdown_of_a_leased_partial_year_horizon() -> None:
    result = evaluate(make_scenario(horizon_months=30, lease=LeaseTerms(0.07, 36)))
    fig = go.Figure(onprem_breakdown_chart(chart_series(result, None), ChartLabels(), ".,"))
    names = [t.name for t in fig.data if t.type == "bar"]
    assert "Lease" in names and "Purchase" not in names
    bars = [t for t in fig.data if t.type == "bar"]
    assert list(bars[0].x) == ["Year 1", "Year 2", "Year 3"]
    np.testing.assert_allclose(
        np.sum([b.y for b in bars], axis=0),
        yearly_totals(result),
        rtol=0,
        atol=UNIT * len(bars),
    )


# --- utilization ----------------------------------------------------------------------


def test_utilization_curves_match_the_scenario_totals(
    result: ScenarioResult, figures: dict[str, go.Figure]
) -> None:
    fig = figures["utilization"]
    lines = [t for t in fig.data if t.mode == "lines"]
    assert [t.name for t in lines] == ["On-prem", *(o.name for o in result.cloud_options)]
    for line in lines:
        assert len(line.x) == 101
        assert line.x[0] == 0 and line.x[-1] == 1
    # The planned utilization (70 %) is grid point 70: the curves pass through the totals.
    assert lines[0].x[70] == pytest.approx(0.70)
    totals = [result.onprem.total_cost, *(o.total_cost for o in result.cloud_options)]
    for line, total in zip(lines, totals, strict=True):
        assert line.y[70] == pytest.approx(total, abs=UNIT)
    # A committed cloud bills every hour whatever the use: a flat line.
    gcp = lines[2]
    assert max(gcp.y) == pytest.approx(min(gcp.y))
    assert fig.layout.xaxis.tickformat == ".0%"
    assert fig.layout.shapes[0].x0 == pytest.approx(0.70)


def test_break_even_markers_sit_where_the_lines_cross(
    result: ScenarioResult, figures: dict[str, go.Figure]
) -> None:
    fig = figures["utilization"]
    markers = traces(fig, "Break-even")
    in_range = [
        o
        for o in result.cloud_options
        if o.break_even_utilization is not None and 0 <= o.break_even_utilization <= 1
    ]
    # AWS and CoreWeave on demand cross; GCP committed never does below 100 %.
    assert [o.name for o in in_range] == [CLOUDS[0].name, CLOUDS[2].name]
    assert len(markers) == len(in_range)
    for marker, option in zip(markers, in_range, strict=True):
        u = option.break_even_utilization
        assert u is not None
        assert marker.x[0] == u
        # Independently: re-run the whole engine at that utilization.
        at_u = evaluate(make_scenario(utilization=u))
        assert marker.y[0] == pytest.approx(at_u.onprem.total_cost, rel=1e-4)
        cloud_at_u = next(o for o in at_u.cloud_options if o.name == option.name)
        assert marker.y[0] == pytest.approx(cloud_at_u.total_cost, rel=1e-4)
        assert option.name in marker.hovertemplate
    labelled = [a.text for a in fig.layout.annotations if a.showarrow]
    assert labelled == [
        f"Break-even {round((o.break_even_utilization or 0) * 100)} %" for o in in_range
    ]


# --- tornado --------------------------------------------------------------------------


def test_tornado_bars_are_ordered_by_swing_from_the_base(
    result: ScenarioResult, figures: dict[str, go.Figure]
) -> None:
    fig = figures["tornado"]
    t = result.tornado
    low, high = fig.data
    assert (low.name, high.name) == ("Input −20 %", "Input +20 %")
    assert low.orientation == high.orientation == "h"
    by_swing = sorted(t.bars, key=lambda b: b.swing, reverse=True)
    assert list(low.y) == [b.label for b in by_swing]
    assert list(fig.layout.yaxis.categoryarray) == [b.label for b in by_swing]
    assert fig.layout.yaxis.autorange == "reversed"  # largest swing on top
    swings = [abs(h - lo) for lo, h in zip(low.x, high.x, strict=True)]
    assert swings == sorted(swings, reverse=True)
    assert low.base == high.base == pytest.approx(t.base_value)
    for b, dx_low, dx_high in zip(by_swing, low.x, high.x, strict=True):
        assert t.base_value + dx_low == pytest.approx(b.low_value)
        assert t.base_value + dx_high == pytest.approx(b.high_value)
    assert t.reference_option in fig.layout.title.text
    assert fig.layout.shapes[0].x0 == pytest.approx(t.base_value)


# --- labels, separators, payload ------------------------------------------------------


def test_translated_labels_and_dutch_separators(result: ScenarioResult) -> None:
    figs = validated(all_charts(chart_series(result), DUTCH, ",."))
    assert all(f.layout.separators == ",." for f in figs.values())
    assert figs["cumulative"].layout.title.text == "Cumulatieve kosten"
    assert figs["cumulative"].layout.xaxis.title.text == "Maand"
    assert figs["cumulative"].data[0].name == "Eigen servers"
    assert len(traces(figs["cumulative"], "Kruispunt")) == 3
    assert figs["cumulative"].layout.annotations[0].text.startswith("Maand ")
    assert figs["breakdown"].data[0].name == "Aankoop"
    assert figs["breakdown"].data[0].x[0] == "Jaar 1"
    assert figs["utilization"].layout.xaxis.title.text == "Benutting"
    assert len(traces(figs["utilization"], "Omslagpunt")) == 2
    tornado = figs["tornado"]
    assert tornado.data[0].name == "Invoer −20 %"
    assert "Benutting" in tornado.data[0].y and "PUE (NL)" in tornado.data[0].y
    assert "Electricity price" in tornado.data[0].y  # untranslated names keep the engine's
    # Static text formatted in Python follows the thousands mark too.
    base_text = tornado.layout.annotations[0].text
    assert "." in base_text and "," not in base_text


@pytest.mark.parametrize("bad", ["", ".", "..", "., "])
def test_invalid_separators_are_rejected(result: ScenarioResult, bad: str) -> None:
    with pytest.raises(ValueError, match="separators"):
        tornado_chart(chart_series(result, None), ChartLabels(), bad)


def test_payload_is_json_for_plotly_new_plot(result: ScenarioResult) -> None:
    raw = all_charts(chart_series(result), ChartLabels(), ".,")
    figures = validated(raw)
    for name, fig in figures.items():
        payload = figure_payload(raw[name])
        assert set(payload) == {"data", "layout"}
        text = json.dumps(payload, allow_nan=False)
        again = json.loads(text)
        assert len(again["data"]) == len(fig.data), name
        assert again["layout"]["separators"] == ".,"
    cumulative = figure_payload(raw["cumulative"])
    assert cumulative["data"][0]["name"] == "On-prem"
    assert isinstance(cumulative["data"][0]["y"], list)  # plain arrays, not base64 blobs
    assert not math.isnan(cumulative["data"][0]["y"][-1])


def test_defaults_are_english_labels_and_english_separators(result: ScenarioResult) -> None:
    fig = go.Figure(utilization_chart(chart_series(result, None)))
    assert fig.layout.separators == ".,"
    assert fig.data[0].name == "On-prem"
    # Pay-per-hour clouds cost nothing at 0 % utilization; owned servers still cost money.
    assert fig.data[1].y[0] == 0
    assert fig.data[0].y[0] > 0


def test_charts_draw_the_recommended_and_cheapest_cloud_options_only() -> None:
    from dataclasses import replace

    from tco.engine import CloudOfferingSpec, CloudTerm, evaluate
    from tco.engine.examples import reference_scenario
    from tco.presentation.charts import CHARTED_CLOUD_OPTIONS, charted

    base = reference_scenario()
    extra = tuple(
        CloudOfferingSpec("Cloud", f"8x H100 #{k}", CloudTerm.ON_DEMAND, 8, 60.0 + k)
        for k in range(8)
    )
    result = evaluate(replace(base, cloud_offerings=base.cloud_offerings + extra))
    shown = charted(result)
    assert len(result.cloud_options) == 11
    assert len(shown.cloud_options) == len(shown.cost_model.clouds) == CHARTED_CLOUD_OPTIONS
    cheapest = sorted(o.total_cost for o in result.cloud_options)[:CHARTED_CLOUD_OPTIONS]
    assert sorted(o.total_cost for o in shown.cloud_options) == cheapest
    lines = [
        t
        for t in go.Figure(all_charts(chart_series(result))["cumulative"]).data
        if t.mode == "lines"
    ]
    assert len(lines) == 1 + CHARTED_CLOUD_OPTIONS


def test_confidence_histogram_counts_every_draw(figures: dict[str, go.Figure]) -> None:
    fig = figures["confidence"]
    bars = [t for t in fig.data if t.type == "bar"]
    assert [t.name for t in bars] == ["Owning cheaper", "Renting cheaper"]
    assert sum(sum(t.y) for t in bars) == 10_000
    assert all(x > 0 for x in bars[0].x) and all(x <= 0 for x in bars[1].x)
    assert "10,000" in fig.layout.title.text


def test_the_page_bundle_draws_every_trace_type_the_charts_use(result: ScenarioResult) -> None:
    from pathlib import Path

    bundle = Path(__file__).resolve().parents[2] / "static/vendor/plotly/plotly-basic.min.js"
    head = bundle.read_text(encoding="utf-8")[:200]
    assert "plotly.js (basic - minified) v4.1.1" in head
    # Chromium compiles the whole bundle off the main thread (README of the bundle).
    assert head.startswith("//# allFunctionsCalledOnLoad\n")
    used = {t["type"] for fig in all_charts(chart_series(result)).values() for t in fig["data"]}
    assert used <= {"scatter", "bar", "pie"}, used


def test_cloud_styles_never_repeat_for_twelve_options() -> None:
    from tco.presentation.charts import cloud_style

    styles = [cloud_style(k) for k in range(12)]
    assert len({color for color, _ in styles}) == 12
    assert all(styles[k][1] != styles[k + 1][1] for k in range(11))


def test_cumulative_axis_ends_at_the_horizon(figures: dict[str, go.Figure]) -> None:
    axis = figures["cumulative"].layout.xaxis
    assert list(axis.range) == [0, 60] and axis.autorange is False
    for note in figures["cumulative"].layout.annotations:
        assert abs(note.ay) <= 60  # close to their crossover, alternately below and above


def test_page_json_holds_every_figure_compactly_and_safe_in_a_script(
    result: ScenarioResult,
) -> None:
    from tco.presentation.charts import charts_json

    raw = all_charts(chart_series(result), ChartLabels(), ".,")
    text = charts_json({**raw, "x": {"data": [], "layout": {"title": {"text": "</script>&"}}}})
    assert "<" not in text and ">" not in text and "&" not in text
    assert text == json.dumps(json.loads(text), separators=(",", ":")).replace(
        "<", "\\u003C"
    ).replace(">", "\\u003E").replace("&", "\\u0026")  # no padding
    parsed = json.loads(text)
    assert parsed["x"]["layout"]["title"]["text"] == "</script>&"
    for name in raw:
        assert parsed[name] == figure_payload(raw[name]), name


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("all_options", [False, True])
@pytest.mark.parametrize("reference", ["result's", "uncharted", "unknown"])
def test_page_charts_name_only_the_drawn_options_and_draw_what_all_of_them_gave(
    language: str, all_options: bool, reference: str
) -> None:
    """The page's charts equal the figures built with every option named."""
    from tco.engine import CloudOfferingSpec, CloudTerm

    base = reference_scenario()
    extra = tuple(
        CloudOfferingSpec("Cloud", f"8x H100 #{k}", term, 8, 60.0 + k)
        for k, term in enumerate([CloudTerm.ON_DEMAND, CloudTerm.SPOT] * 4)
    )
    result = evaluate(dataclasses.replace(base, cloud_offerings=base.cloud_offerings + extra))
    from django.utils import translation

    from tco.presentation.chart_labels import SEPARATORS, chart_labels
    from tco.presentation.charts import CHARTED_CLOUD_OPTIONS, charted, charts_json
    from tco.web.chart_context import page_charts

    names = [o.name for o in result.cloud_options]
    drawn = {o.name for o in charted(result, CHARTED_CLOUD_OPTIONS).cloud_options}
    assert len(names) > CHARTED_CLOUD_OPTIONS  # some options are left out of the charts
    if reference != "result's":
        other = next(n for n in names if n not in drawn) if reference == "uncharted" else "X (spot)"
        tornado = dataclasses.replace(result.tornado, reference_option=other)
        result = dataclasses.replace(result, tornado=tornado)
    with translation.override(language):
        page = page_charts(result, language, all_options)
        figures = all_charts(
            chart_series(result, None if all_options else CHARTED_CLOUD_OPTIONS),
            chart_labels(chart_series(result, None)),  # every option of the result named
            SEPARATORS[language],
        )
    assert page.json == charts_json(figures)
    assert page.titles == {n: f["layout"]["title"]["text"] or n for n, f in figures.items()}


def test_labels_with_option_names_name_those_options_only() -> None:
    names = (("AWS p5 (spot)", "AWS p5, spot"), ("X (on_demand)", "X, on demand"))
    before = DUTCH.option_name("AWS p5 (spot)")  # the names' map, made and kept
    ours = DUTCH.with_option_names(names)
    assert type(ours) is ChartLabels and ours.option_names == names
    assert ours.option_name("AWS p5 (spot)") == "AWS p5, spot" != before
    assert ours.option_name("unknown") == "unknown"
    assert DUTCH.option_names == () and DUTCH.option_name("AWS p5 (spot)") == before
    with pytest.raises(dataclasses.FrozenInstanceError):
        field = "month"  # any field: the labels are frozen
        setattr(ours, field, "x")


def test_the_saved_scenarios_chart_draws_one_line_per_scenario() -> None:
    # Two scenarios over 3 months: 100 then +10 a month, and 50 then +40 a month.
    lines = [("A", [100.0, 110.0, 120.0, 130.0]), ("B", [50.0, 90.0, 130.0, 170.0])]
    fig = go.Figure(scenarios_cumulative_chart(lines, "EUR", ChartLabels(), ",."))
    assert [trace.name for trace in fig.data] == ["A", "B"]
    assert list(fig.data[1].y) == [50, 90, 130, 170] and list(fig.data[1].x) == [0, 1, 2, 3]
    # Told apart without colour: the first solid and thicker, the second dashed.
    assert fig.data[0].line.dash == "solid" and fig.data[0].line.width == 3
    assert fig.data[1].line.dash not in (None, "solid")
    # The y axis reaches 5 % above the highest amount (170 × 1.05 = 178.5).
    assert tuple(fig.layout.yaxis.range) == pytest.approx((0, 178.5))
    assert tuple(fig.layout.xaxis.range) == (0, 3) and fig.layout.separators == ",."
    assert "(EUR)" in fig.layout.yaxis.title.text
