"""The PDF's charts drawn as SVG (tco/presentation/chart_svg.py): real engine figures in, checked by
reading the SVG back — where each value lands, which labels are written, nothing drawn
outside the picture."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from tco.engine import evaluate
from tco.engine.examples import reference_scenario
from tco.presentation.chart_svg import (
    HEIGHT,
    WIDTH,
    UnsupportedFigure,
    figure_svg,
    nice_step,
    tick_text,
    without_collinear,
)
from tco.presentation.charts import all_charts, chart_series
from tco.presentation.text_width import text_width

from .test_charts import DUTCH

NS = "{http://www.w3.org/2000/svg}"
PDF_CHARTS = ("cumulative", "breakdown", "utilization")


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    result = evaluate(reference_scenario())
    return {
        "en": all_charts(chart_series(result)),
        "nl": all_charts(chart_series(result), DUTCH, ",."),
    }


def parsed(svg: bytes) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    assert (root.get("width"), root.get("height")) == (str(WIDTH), str(HEIGHT))
    return root


def texts(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(f"{NS}text"))


def words(root: ET.Element) -> list[str]:
    return [t.text or "" for t in texts(root)]


@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("name", PDF_CHARTS)
def test_every_label_of_the_figure_is_written(
    figures: dict[str, Any], language: str, name: str
) -> None:
    figure = figures[language][name]
    written = words(parsed(figure_svg(figure)))
    layout = figure["layout"]
    assert layout["title"]["text"] in written
    assert layout["xaxis"]["title"]["text"] in written
    assert layout["yaxis"]["title"]["text"] in written
    for trace in figure["data"]:
        if trace.get("showlegend") is not False:
            assert trace["name"] in written  # its legend entry
    for annotation in layout.get("annotations", []):
        assert annotation["text"] in written


@pytest.mark.parametrize("language", ["en", "nl"])
@pytest.mark.parametrize("name", PDF_CHARTS)
def test_no_text_leaves_the_picture_and_legend_rows_do_not_overlap(
    figures: dict[str, Any], language: str, name: str
) -> None:
    root = parsed(figure_svg(figures[language][name]))
    boxes = []
    for element in texts(root):
        if element.get("transform"):  # the rotated y-axis title: its length runs upward
            continue
        x, y, size = (float(element.get(k, 0)) for k in ("x", "y", "font-size"))
        width = text_width(element.text or "", size)
        assert x >= 0 and x + width <= WIDTH, element.text
        assert size <= y <= HEIGHT, element.text
        boxes.append((x, x + width, y, element.text))
    # Texts on the same row (legend entries, tick labels) never overlap one another.
    for i, (x0, x1, y, a) in enumerate(boxes):
        for u0, u1, v, b in boxes[i + 1 :]:
            same_row = abs(y - v) < 1
            assert not (same_row and x0 < u1 - 0.5 and u0 < x1 - 0.5), (a, b)


def test_dutch_ticks_use_dutch_marks(figures: dict[str, Any]) -> None:
    dutch = words(parsed(figure_svg(figures["nl"]["cumulative"])))
    english = words(parsed(figure_svg(figures["en"]["cumulative"])))
    assert any(re.fullmatch(r"\d{1,3}(\.\d{3})+", w) for w in dutch)
    assert not any(re.fullmatch(r"\d{1,3}(,\d{3})+", w) for w in dutch)
    assert any(re.fullmatch(r"\d{1,3}(,\d{3})+", w) for w in english)
    utilization = words(parsed(figure_svg(figures["nl"]["utilization"])))
    assert {"0%", "50%", "100%"} <= set(utilization)


def test_tick_labels_as_plotly_writes_them() -> None:
    assert tick_text(3_000_000, ",.0f", ".,", 500_000) == "3,000,000"
    assert tick_text(3_000_000, ",.0f", ",.", 500_000) == "3.000.000"
    assert tick_text(-500_000, ",.0f", ".,", 500_000) == "\u2212500,000"
    assert tick_text(0.3, ".0%", ".,", 0.1) == "30%"
    assert tick_text(48, "", ".,", 12) == "48"
    assert tick_text(0.25, "", ",.", 0.05) == "0,25"
    assert tick_text(-0.0, ",.0f", ".,", 1) == "0"
    with pytest.raises(UnsupportedFigure):
        tick_text(1, ".2e", ".,", 1)


@pytest.mark.parametrize(
    ("span", "length", "step"),
    [
        # What Plotly chose for the same axes in its own exports of these charts: a
        # cumulative axis to 3.07 M over 255 px → 500,000; a utilization axis to 7.0 M → 1 M.
        (3_070_000, 255, 500_000),
        (7_000_000, 255, 1_000_000),
        (1_650_000 + 120_000, 180, 500_000),
        # 4 ticks at the least, 9 at the most (then + 1): 1 over 1,000 px → 0.1.
        (1, 1000, 0.1),
        (1, 40, 0.2),
    ],
)
def test_automatic_ticks_follow_plotly(span: float, length: float, step: float) -> None:
    assert nice_step(span, length, 40) == pytest.approx(step)


def _path_points(d: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"(-?[\d.]+),(-?[\d.]+)", d)]


def test_a_line_lands_where_its_values_are() -> None:
    """Hand-checked: on a y axis fixed at 0-200 and an x axis at 0-10, the points (0, 0),
    (5, 100) and (10, 200) lie on one straight line from the plot's bottom-left corner to
    its top-right one; the middle point, halfway, is dropped as collinear."""
    figure = {
        "data": [
            {"type": "scatter", "mode": "lines", "name": "a", "x": [0, 5, 10], "y": [0, 100, 200]},
            {"type": "scatter", "mode": "lines", "name": "b", "x": [0, 10], "y": [100, 100]},
        ],
        "layout": {
            "xaxis": {"range": [0, 10], "autorange": False, "dtick": 5},
            "yaxis": {"range": [0, 200], "autorange": False, "dtick": 50},
        },
    }
    root = parsed(figure_svg(figure))
    drawn = [p for p in root.iter(f"{NS}path") if p.get("stroke-width") == "2"]
    line_a, line_b = (_path_points(p.get("d", "")) for p in drawn[:2])
    (x0, y0), (x1, y1) = line_a
    assert len(line_a) == 2 and x1 > x0 and y1 < y0  # up and to the right
    # b at 100 is halfway up a's rise, across the whole width.
    assert line_b[0][0] == x0 and line_b[1][0] == x1
    assert line_b[0][1] == pytest.approx((y0 + y1) / 2, abs=0.1)
    # The y ticks 0, 50, …, 200 are written at their grid lines.
    assert {"0", "50", "100", "150", "200"} <= set(words(root))


def test_stacked_bars_sum_to_the_year_and_negative_parts_hang_below_zero(
    figures: dict[str, Any],
) -> None:
    figure = figures["en"]["breakdown"]
    root = parsed(figure_svg(figure))
    bars = [r for r in root.iter(f"{NS}rect") if r.get("fill") not in ("#ffffff", None)]
    legend = [r for r in bars if r.get("width") == "12"]
    bars = [r for r in bars if r not in legend]
    components = [t for t in figure["data"] if t["type"] == "bar"]
    assert len(legend) == len(components)
    years = len(components[0]["x"])
    assert len(bars) == sum(len(t["y"]) for t in components)
    # px per currency unit, from one bar; every bar's height then matches its amount.
    scale = None
    for trace, start in zip(components, range(0, len(bars), years), strict=True):
        for amount, rect in zip(trace["y"], bars[start : start + years], strict=True):
            height = float(rect.get("height", 0))
            if amount and scale is None:
                scale = height / abs(amount)
            if scale:
                assert height == pytest.approx(abs(amount) * scale, abs=0.15)
    # Residual value (negative, last year) starts at the zero line and goes down.
    residual = next(t for t in components if t["name"] == "Residual value")
    assert residual["y"][-1] < 0
    zero = next(p for p in root.iter(f"{NS}path") if p.get("stroke") == "#c8d4e3")
    zero_y = _path_points(zero.get("d", ""))[0][1]
    index = components.index(residual) * years + years - 1
    assert float(bars[index].get("y", 0)) == pytest.approx(zero_y, abs=0.1)
    above = [r for r in bars if float(r.get("y", 0)) + float(r.get("height", 0)) <= zero_y + 0.1]
    assert len(above) == len(bars) - sum(1 for t in components for v in t["y"] if v < 0)


def test_a_name_longer_than_the_legend_is_cut_and_stays_inside() -> None:
    long_name = "A customer's own offering with a very long name, " * 4
    figure = {
        "data": [
            {"type": "scatter", "mode": "lines", "name": long_name, "x": [0, 1], "y": [0, 1]},
            {"type": "scatter", "mode": "lines", "name": "Short", "x": [0, 1], "y": [1, 0]},
        ],
        "layout": {},
    }
    root = parsed(figure_svg(figure))
    cut = next(t for t in texts(root) if (t.text or "").endswith("…"))
    assert (cut.text or "").startswith("A customer's own offering")
    assert float(cut.get("x", 0)) + text_width(cut.text or "", 12) <= WIDTH - 8
    assert "Short" in words(root)


def test_a_label_near_the_edge_moves_inside_and_its_arrow_still_points_at_the_point() -> None:
    figure = {
        "data": [{"type": "scatter", "mode": "lines", "name": "a", "x": [0, 60], "y": [0, 9]}],
        "layout": {
            "xaxis": {"range": [0, 60], "autorange": False, "dtick": 12},
            "yaxis": {"range": [0, 10], "autorange": False},
            "annotations": [{"x": 59, "y": 9, "text": "Month 59", "ax": 60, "ay": -60}],
        },
    }
    root = parsed(figure_svg(figure))
    label = next(t for t in texts(root) if t.text == "Month 59")
    assert float(label.get("x", 0)) + text_width("Month 59", 12) <= WIDTH
    assert float(label.get("y", 0)) >= 12
    head = next(
        _path_points(p.get("d", ""))[0]
        for p in root.iter(f"{NS}path")
        if p.get("d", "").endswith("Z")
    )
    line = next(p for p in root.iter(f"{NS}path") if p.get("stroke-width") == "2")
    (x0, _y0), (x1, y1) = _path_points(line.get("d", ""))  # from (0, 0) to (60, 9)
    assert head == pytest.approx((x0 + (x1 - x0) * 59 / 60, y1), abs=0.2)  # at (59, 9)


def test_collinear_points_go_and_bends_stay() -> None:
    line = [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 2.0), (4.0, 2.0)]
    assert without_collinear(line) == [(0.0, 0.0), (2.0, 2.0), (4.0, 2.0)]
    back = [(0.0, 0.0), (2.0, 0.0), (1.0, 0.0)]  # turning back is a bend
    assert without_collinear(back) == back


@pytest.mark.parametrize(
    "figure",
    [
        {"data": [{"type": "pie", "values": [1, 2]}], "layout": {}},
        {"data": [{"type": "bar", "orientation": "h", "x": [1], "y": ["a"]}], "layout": {}},
        {"data": [{"type": "bar", "x": ["a"], "y": [1]}], "layout": {"barmode": "group"}},
        {
            "data": [{"type": "scatter", "mode": "lines", "x": [0, 1], "y": [0, 1]}],
            "layout": {"yaxis": {"tickformat": ".2e"}},
        },
        {
            "data": [{"type": "scatter", "mode": "markers", "x": [0], "y": [0],
                      "marker": {"symbol": "star"}}],
            "layout": {},
        },
    ],
)  # fmt: skip
def test_what_it_cannot_draw_is_refused_not_drawn_wrongly(figure: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedFigure):
        figure_svg(figure)


def test_markers_and_annotations_sit_on_their_points(figures: dict[str, Any]) -> None:
    figure = figures["en"]["utilization"]
    root = parsed(figure_svg(figure))
    circles = list(root.iter(f"{NS}circle"))
    marker_traces = [t for t in figure["data"] if t.get("mode") == "markers"]
    assert len(circles) == len(marker_traces) >= 1
    heads = [
        _path_points(p.get("d", ""))[0]
        for p in root.iter(f"{NS}path")
        if p.get("fill") not in (None, "none") and p.get("d", "").endswith("Z")
    ]
    for circle in circles:
        centre = (float(circle.get("cx", 0)), float(circle.get("cy", 0)))
        # an arrow's head points at each marker
        assert any(math.dist(centre, head) < 0.2 for head in heads)


@pytest.mark.parametrize(
    "figure",
    [
        # x and y of different lengths, a category where a number belongs, an annotation
        # without its point, a trace that is not a mapping
        {"data": [{"type": "scatter", "x": [0, 1], "y": [0]}], "layout": {}},
        {"data": [{"type": "scatter", "x": ["a"], "y": [1]}], "layout": {}},
        {
            "data": [{"type": "scatter", "x": [0, 1], "y": [0, 1]}],
            "layout": {"annotations": [{"text": "no point"}]},
        },
        {"data": ["scatter"], "layout": {}},
    ],
)
def test_a_malformed_figure_is_refused_never_a_bare_error(figure: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedFigure):
        figure_svg(figure)


def test_every_page_chart_is_drawn_or_refused(figures: dict[str, Any]) -> None:
    # The page draws its first chart with figure_svg and falls back to Plotly on a refusal:
    # no page chart may raise anything else (the confidence chart's bars on a numeric axis
    # raised a bare ValueError).
    drawn, refused = [], []
    for name, figure in figures["en"].items():
        try:
            parsed(figure_svg(figure))
            drawn.append(name)
        except UnsupportedFigure:
            refused.append(name)
    assert set(PDF_CHARTS) <= set(drawn)
    assert "confidence" in refused and "tornado" in refused


def test_the_pages_options_name_the_picture_and_mark_its_title(figures: dict[str, Any]) -> None:
    figure = figures["en"]["cumulative"]
    root = ET.fromstring(
        figure_svg(
            figure,
            950,
            400,
            clip_id="chart-clip-cumulative",
            label='Cumulative "cost"',
            elementtiming="first-chart",
            fluid=True,
        )
    )
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == (
        "100%",
        "100%",
        "0 0 950 400",
    )
    assert (root.get("role"), root.get("aria-label")) == ("img", 'Cumulative "cost"')
    clips = [c.get("id") for c in root.iter(f"{NS}clipPath")]
    assert clips == ["chart-clip-cumulative"]
    assert {g.get("clip-path") for g in root.iter(f"{NS}g")} == {"url(#chart-clip-cumulative)"}
    marked = [t for t in texts(root) if t.get("elementtiming")]
    assert [(t.get("elementtiming"), t.text) for t in marked] == [
        ("first-chart", figure["layout"]["title"]["text"])
    ]
    # Without the options: the PDF's picture, as before.
    plain = parsed(figure_svg(figure))
    assert plain.get("role") is None and [c.get("id") for c in plain.iter(f"{NS}clipPath")] == [
        "plot"
    ]
