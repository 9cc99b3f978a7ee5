"""The calculator's charts in the reader's language, ready to embed in a page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from tco.engine import ScenarioResult
from tco.presentation.chart_labels import SEPARATORS, chart_labels
from tco.presentation.chart_svg import UnsupportedFigure, figure_svg
from tco.presentation.charts import (
    CHARTED_CLOUD_OPTIONS,
    ChartSeries,
    all_charts,
    chart_series,
    charts_json,
    omitted_charts,
)
from tco.presentation.wording import cloud_label


@dataclass(frozen=True)
class PageCharts:
    """The page's charts: each one's title (name → caption), and every figure in one
    compact JSON document for the browser (``{name: {"data", "layout"}}``)."""

    titles: dict[str, str]
    json: str
    # Why a chart is not drawn, one sentence each (tco.presentation.charts.omitted_charts).
    omitted: tuple[str, ...] = ()
    # The first chart drawn on the server as inline SVG (name → markup), so that it is in
    # the page's first paint; Plotly replaces it once loaded. Empty when tco.presentation.chart_svg
    # cannot draw that figure: Plotly alone draws it then.
    svgs: dict[str, str] = field(default_factory=dict)


# The server-drawn chart's view box: the height of the page's chart box (.plot in
# static/css/app.css), the width of the box beside the form on a laptop's screen.
PAGE_SVG_WIDTH, PAGE_SVG_HEIGHT = 950, 400


def first_chart_svg(name: str, figure: dict[str, Any], title: str) -> str | None:
    """The figure as inline SVG for the page (tco.presentation.chart_svg, the PDF's drawing),
    its title marked for Element Timing (`first-chart`); None when chart_svg cannot draw it."""
    try:
        svg = figure_svg(
            figure,
            PAGE_SVG_WIDTH,
            PAGE_SVG_HEIGHT,
            clip_id=f"chart-clip-{name}",
            label=title,
            elementtiming="first-chart",
            fluid=True,
        )
    except UnsupportedFigure:
        return None
    return svg.decode()


def omitted_sentences(series: ChartSeries) -> tuple[str, ...]:
    """The reader's sentence for each chart left out of a result's charts."""
    sentences = {
        ("utilization", "resell"): _(
            "No chart of the cost by utilization: the servers are bought for one run and "
            "resold, so how busy they would be afterwards does not change the comparison."
        ),
        ("tornado", "no_rented_option"): _(
            "No chart of what moves the saving: your terms allow no rented option to compare with."
        ),
        ("confidence", "api"): _(
            "No chart of plausible futures: they are drawn for GPU clouds, and the comparison "
            "here is with a hosted API."
        ),
        ("confidence", "no_rented_option"): _(
            "No chart of plausible futures: your terms allow no rented option to compare with."
        ),
    }
    return tuple(sentences[item] for item in omitted_charts(series).items() if item in sentences)


def page_charts(
    result: ScenarioResult, language: str | None, all_options: bool = False
) -> PageCharts:
    """The page's figures; the cheapest few cloud options unless ``all_options``."""
    # Only the options drawn are named (the cheapest few of a dozen or more, charted here
    # as all_charts would), and the one the tornado compares with (named when it is one of
    # the result's options).
    series = chart_series(result, None if all_options else CHARTED_CLOUD_OPTIONS)
    labels = chart_labels(series)
    reference = result.tornado.reference_option
    named = {name for name, _label in labels.option_names}
    if reference not in named and any(o.name == reference for o in result.cloud_options):
        labels = labels.with_option_names(
            (*labels.option_names, (reference, cloud_label(reference)))
        )
    figures = all_charts(series, labels, SEPARATORS.get((language or "en")[:2], ".,"))
    titles = {name: figure["layout"]["title"]["text"] or name for name, figure in figures.items()}
    first = next(iter(figures), None)
    svg = first_chart_svg(first, figures[first], titles[first]) if first is not None else None
    return PageCharts(
        titles=titles,
        json=charts_json(figures),
        omitted=omitted_sentences(series),
        svgs={first: svg} if first is not None and svg is not None else {},
    )
