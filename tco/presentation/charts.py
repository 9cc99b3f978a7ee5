"""Plotly figures from a result's chart series: pure functions, no Django, no database.

Every builder takes the :class:`~tco.report.chart_series.ChartSeries` computed once from
the engine's result (tco/report/chart_series.py), a :class:`ChartLabels`
(already-translated strings; English defaults) and Plotly's ``separators``
string (decimal mark then thousands mark: ``".,"`` for English, ``",."`` for
Dutch) and returns the figure as plain data (:data:`Figure`). The web page embeds them with
``Plotly.newPlot`` (see :func:`figure_payload` and :data:`PLOTLY_CONFIG`); the PDF
export renders the same figures to static SVG.

Labels may contain ``str.format`` fields: ``{currency}`` in axis titles,
``{option}`` in the tornado title, ``{month}``, ``{year}``, ``{percent}`` and
``{pct}`` where noted on :class:`ChartLabels`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tco.report.chart_series import (
    CHARTED_CLOUD_OPTIONS,
    UTILIZATION_GRID,
    ByUtilization,
    ChartSeries,
    Cumulative,
    chart_series,
    charted,
)

__all__ = [
    "CHARTED_CLOUD_OPTIONS",
    "PLOTLY_CONFIG",
    "ChartLabels",
    "ChartSeries",
    "all_charts",
    "chart_series",
    "charted",
    "charts_json",
    "cumulative_cost_chart",
    "figure_payload",
    "omitted_charts",
    "onprem_breakdown_chart",
    "scenarios_cumulative_chart",
    "tornado_chart",
    "utilization_chart",
]

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
ONPREM_COLOR = "#0072B2"
# Twelve cloud colours (Okabe-Ito, then Paul Tol's muted scheme) and dash styles: no two of
# the first twelve options share a colour, and neighbours never share a dash.
CLOUD_COLORS = (
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#D55E00",
    "#56B4E9",
    "#000000",
    "#882255",
    "#117733",
    "#999933",
    "#332288",
    "#AA4499",
    "#44AA99",
)
CLOUD_DASHES = ("dash", "dot", "dashdot", "longdash", "longdashdot", "solid")
COMPONENT_COLORS: Mapping[str, str] = {
    "hardware": "#0072B2",
    "lease": "#56B4E9",
    "energy": "#E69F00",
    "colocation": "#D55E00",
    "support": "#009E73",
    "staff": "#CC79A7",
    "software": "#F0E442",
    "insurance": "#999999",
    "residual": "#000000",
}
_AXIS_STYLE = {
    "gridcolor": "#EBF0F8",
    "linecolor": "#EBF0F8",
    "zerolinecolor": "#C8D4E3",
    "zerolinewidth": 1,
    "ticks": "",
    "automargin": True,
}
# A small white template: Plotly's stock templates cost ~10 ms a figure to validate.
TEMPLATE: dict[str, Any] = {
    "layout": {
        "font": {"color": "#2a3f5f"},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "colorway": list(CLOUD_COLORS),
        "hoverlabel": {"align": "left"},
        "xaxis": _AXIS_STYLE,
        "yaxis": _AXIS_STYLE,
    }
}
LOW_COLOR = "#56B4E9"
HIGH_COLOR = "#D55E00"
# The utilization chart's x values, 0.07, not 0.07000000000000001.
_UTILIZATION_X_LIST: list[float] = np.round(UTILIZATION_GRID, 4).tolist()

PLOTLY_CONFIG: dict[str, Any] = {
    "responsive": True,
    "displaylogo": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"],
}
"""Suggested ``config`` argument for ``Plotly.newPlot`` on the web page."""


@dataclass(frozen=True)
class ChartLabels:
    """Every user-visible string of the charts, already translated by the caller.

    Not slotted, so that ``cached_property`` can keep the option names' map.
    """

    cumulative_title: str = "Cumulative cost over time"
    breakdown_title: str = "On-prem cost by year"
    utilization_title: str = "Total cost over the horizon by utilization"
    tornado_title: str = "What moves the saving from buying instead of renting {option}"
    month: str = "Month"
    year: str = "Year"
    year_tick: str = "Year {year}"  # {year}: 1, 2, ...
    cost: str = "Cost ({currency})"
    cumulative_cost: str = "Cumulative cost ({currency})"
    total_cost: str = "Total cost ({currency})"
    utilization: str = "Utilization"
    onprem: str = "On-prem"
    resell: str = "Buy, run and resell"
    breakdown_resell_title: str = "Buying, running and reselling: cost by year"
    break_even: str = "Break-even"
    break_even_annotation: str = "Break-even {percent} %"  # {percent}: whole number
    crossover: str = "Crossover"
    crossover_annotation: str = "Month {month}"
    current_utilization: str = "Planned utilization"
    purchase: str = "Purchase"
    lease: str = "Lease"
    energy: str = "Energy"
    colocation: str = "Colocation"
    support: str = "Support"
    staff: str = "Staff"
    software: str = "Software"
    insurance: str = "Insurance"
    residual: str = "Residual value"
    net_total: str = "Net total"
    tornado_axis: str = "NPV saving of buying ({currency})"
    tornado_low: str = "Input −{pct} %"  # {pct}: the tornado swing, e.g. 20
    tornado_high: str = "Input +{pct} %"
    base: str = "Base"
    input_value: str = "Input value"
    carbon_title: str = "CO₂ of each option over the horizon"
    carbon_axis: str = "Tonnes CO₂"
    confidence_title: str = "How sure: the saving across {draws} plausible futures"
    confidence_axis: str = "Saving of the recommended choice ({currency})"
    confidence_count: str = "Futures"
    confidence_own: str = "Owning cheaper"
    confidence_rent: str = "Renting cheaper"
    # (engine input name, translated label) pairs for the tornado bars, e.g.
    # (("pue", "PUE"), ("utilization", "Benutting")); unknown names keep the engine's label.
    input_names: tuple[tuple[str, str], ...] = ()
    # (engine option name, name for people) pairs, e.g. ("AWS p5 (committed_3y)",
    # "AWS p5, 3-year commitment"); unknown names are shown as the engine gives them.
    option_names: tuple[tuple[str, str], ...] = ()

    def option_name(self, name: str) -> str:
        return self._option_map.get(name, name)

    @functools.cached_property
    def _option_map(self) -> dict[str, str]:
        return dict(self.option_names)

    def with_option_names(self, names: tuple[tuple[str, str], ...]) -> ChartLabels:
        """These labels with other option names."""
        return dataclasses.replace(self, option_names=names)

    def component(self, column: str) -> str:
        """Label of an on-prem cash-flow column."""
        if column == "hardware":
            return self.purchase
        value = getattr(self, column, None)
        return value if isinstance(value, str) else column.replace("_", " ").capitalize()


DEFAULT_LABELS = ChartLabels()


# --- shared helpers -----------------------------------------------------------------


def _check_separators(separators: str) -> str:
    if len(separators) != 2 or separators[0] == separators[1]:
        raise ValueError(
            f"separators must be two different characters (decimal, thousands), "
            f"e.g. '.,' or ',.', got {separators!r}."
        )
    return separators


def amounts(values: Any) -> list[Any]:
    """Amounts for a trace, in whole currency units: what the hover shows (``_money``) and
    far finer than a chart's pixels. The page's chart data gets a third shorter and
    quicker to encode than with every float's 17 digits."""
    array = np.asarray(values, dtype=float)
    # One reduction for both checks (a page makes ~18 of these): the largest magnitude is
    # NaN when any value is, and infinite when any is, and neither compares below 2**53.
    if not array.size or np.abs(array).max() < 2.0**53:
        return list(np.rint(array).astype(np.int64).tolist())
    return list(array.tolist())


def _money(axis: str, currency: str) -> str:
    """Hover fragment for an amount, e.g. ``%{y:,.0f} USD`` (honours layout.separators)."""
    return f"%{{{axis}:,.0f}} {currency}"


def _layout(title: str, separators: str, **extra: Any) -> dict[str, Any]:
    """Responsive, phone-friendly layout: small margins, horizontal legend at the bottom."""
    layout: dict[str, Any] = {
        "title": {
            "text": title,
            "x": 0.0,
            "xref": "container",  # the full width: long titles fit better on phones
            "xanchor": "left",
            "y": 1.0,
            "yref": "paper",
            "yanchor": "bottom",
            "pad": {"l": 8, "b": 16},
            "font": {"size": 15},
            "automargin": True,
        },
        "separators": _check_separators(separators),
        "autosize": True,
        "margin": {"l": 8, "r": 8, "t": 48, "b": 8, "pad": 0},
        # Anchored to the bottom of the whole figure, so it never covers the x-axis title
        # (automargin makes room for it, however many rows it wraps into on a phone).
        "legend": {
            "orientation": "h",
            "x": 0.0,
            "xanchor": "left",
            "xref": "container",
            "y": 0.0,
            "yanchor": "bottom",
            "yref": "container",
        },
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"},
        "template": TEMPLATE,
        "hoverlabel": {"namelength": -1},
    }
    layout.update(extra)
    return layout


def _axis(title: str, **extra: Any) -> dict[str, Any]:
    return {"title": {"text": title}, "automargin": True, **extra}


def cloud_style(index: int) -> tuple[str, str]:
    return CLOUD_COLORS[index % len(CLOUD_COLORS)], CLOUD_DASHES[index % len(CLOUD_DASHES)]


Figure = dict[str, Any]
Trace = dict[str, Any]  # a trace, a shape or an annotation of a figure
"""A Plotly figure as plain data: ``{"data": [...], "layout": {...}}``.

Built without ``go.Figure``: its validation cost ~15 ms a page; the tests check the
figures against Plotly's schema instead (``go.Figure(figure)`` raises on any mistake).
"""


def _figure(data: list[dict[str, Any]], layout: dict[str, Any]) -> Figure:
    return {"data": data, "layout": layout}


def _owning_name(series: ChartSeries, labels: ChartLabels) -> str:
    return labels.resell if series.resells else labels.onprem


def line_trace(
    name: str, group: str, x: Any, y: list[Any], line: dict[str, Any], money: str
) -> Trace:
    """A line of one option's values."""
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "legendgroup": group,
        "x": x,
        "y": y,
        "line": line,
        "hovertemplate": f"{money}<extra>{name}</extra>",
    }


def marker_trace(
    name: str, group: str, point: tuple[float, float], symbol: str, color: str, hover: str
) -> Trace:
    """One marked point (a crossover, a break-even) of an option, not in the legend."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "legendgroup": group,
        "showlegend": False,
        "x": [point[0]],
        "y": [point[1]],
        "marker": {
            "symbol": symbol,
            "size": 12,
            "color": color,
            "line": {"color": "#000000", "width": 1},
        },
        "hovertemplate": hover,
    }


def pointer(point: tuple[float, float], text: str, color: str, offset: tuple[int, int]) -> Trace:
    """An annotation with an arrow to a marked point."""
    return {
        "x": point[0],
        "y": point[1],
        "text": text,
        "showarrow": True,
        "arrowhead": 2,
        "arrowcolor": color,
        "ax": offset[0],
        "ay": offset[1],
        "font": {"size": 11, "color": color},
        "bgcolor": "rgba(255,255,255,0.8)",
    }


def vertical_line(x: float, color: str, dash: str | None = None) -> Trace:
    """A line across the plot's height at ``x``."""
    line: dict[str, Any] = {"color": color, "width": 1}
    if dash is not None:
        line["dash"] = dash
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": line,
    }


# --- 1. cumulative cost -------------------------------------------------------------


def cumulative_cost_chart(
    series: ChartSeries, labels: ChartLabels = DEFAULT_LABELS, separators: str = ".,"
) -> Figure:
    """Cumulative spend by month: on-prem and each cloud option, crossovers marked.

    Traces: on-prem line, one line per cloud option, then one marker trace
    (named ``labels.crossover``, grouped with its option) per option that
    has a payback month; the marker sits on the on-prem curve at that month.
    """
    cur = series.currency
    c = series.cumulative
    on_cum = c.owning
    months = list(range(len(on_cum)))  # months 0..N as plain ints
    money = _money("y", cur)
    own_name = _owning_name(series, labels)
    line = {"color": ONPREM_COLOR, "width": 3}
    data = [line_trace(own_name, "onprem", months, amounts(on_cum), line, money)]
    for k, option in enumerate(c.clouds):
        color, dash = cloud_style(k)
        name = labels.option_name(option.name)
        line = {"color": color, "width": 2, "dash": dash}
        x = list(range(len(option.values)))
        data.append(line_trace(name, f"cloud{k}", x, amounts(option.values), line, money))
    # The crossovers are with keeping the fleet: not drawn on the resale's curve.
    markers, annotations = ([], []) if series.resells else crossovers(c, labels, money)
    if c.api is not None:  # the hosted API the headline compares with
        name = labels.option_name(c.api.name)
        color, dash = cloud_style(len(c.clouds))
        line = {"color": color, "width": 2, "dash": dash}
        data.append(line_trace(name, "api", months, amounts(c.api.values), line, money))
    top = max([float(on_cum.max())] + [float(t["y"][-1]) for t in data[1:]] + [1.0])
    top = max([top] + [max(t["y"]) for t in data])
    layout = _cumulative_layout(labels, separators, cur, months[-1], top, annotations=annotations)
    return _figure(data + markers, layout)


def _cumulative_layout(
    labels: ChartLabels,
    separators: str,
    currency: str,
    last_month: int,
    top: float,
    **extra: Any,
) -> dict[str, Any]:
    """The layout of a cumulative spend chart (the options' or saved scenarios'): months 0
    to ``last_month``, money from zero to 5 % above the highest line ``top``."""
    return _layout(
        labels.cumulative_title,
        separators,
        xaxis=_axis(labels.month, dtick=12, range=[0, last_month], autorange=False),
        # A fixed range: autorange would stretch below zero to fit the labels.
        yaxis=_axis(
            labels.cumulative_cost.format(currency=currency),
            tickformat=",.0f",
            range=[0, top * 1.05],
            autorange=False,
        ),
        hovermode="x unified",
        **extra,
    )


def scenarios_cumulative_chart(
    lines: Sequence[tuple[str, Sequence[float]]],
    currency: str,
    labels: ChartLabels = DEFAULT_LABELS,
    separators: str = ".,",
) -> Figure:
    """Cumulative spend by month of several saved scenarios' owned options in one chart: a
    line per scenario, under its name (quotes' comparison of saved scenarios). The first
    line has the owning colour, the others the cloud options' colours and dashes, so that
    each line is told apart without colour too."""
    money = _money("y", currency)
    data: list[Trace] = []
    for k, (name, values) in enumerate(lines):
        color, dash = (ONPREM_COLOR, "solid") if k == 0 else cloud_style(k - 1)
        line = {"color": color, "width": 3 if k == 0 else 2, "dash": dash}
        months = list(range(len(values)))
        data.append(line_trace(name, f"scenario{k}", months, amounts(values), line, money))
    last = max([len(values) - 1 for _name, values in lines] + [1])
    top = max([max(t["y"], default=0.0) for t in data] + [1.0])
    return _figure(data, _cumulative_layout(labels, separators, currency, last, top))


def crossovers(c: Cumulative, labels: ChartLabels, money: str) -> tuple[list[Trace], list[Trace]]:
    """A marker and an annotation on the owning curve at each cloud option's payback month."""
    markers: list[Trace] = []
    annotations: list[Trace] = []
    for k, option in enumerate(c.clouds):
        month = c.paybacks[k]
        if month is None or not 0 <= month < len(c.owning):
            continue
        color, _dash = cloud_style(k)
        point = (month, float(c.owning[month]))
        hover = (
            f"{labels.crossover}: {labels.month} %{{x}}<br>{money}"
            f"<extra>{labels.option_name(option.name)}</extra>"
        )
        markers.append(marker_trace(labels.crossover, f"cloud{k}", point, "diamond", color, hover))
        # Alternately below and above the point, staggered, so that close
        # crossovers do not stack their labels past the plot's edge.
        n = len(annotations)
        offset = (24 + 8 * n, (36 + 12 * (n // 2)) * (1 if n % 2 == 0 else -1))
        text = labels.crossover_annotation.format(month=month)
        annotations.append(pointer(point, text, color, offset))
    return markers, annotations


# --- 2. on-prem breakdown -----------------------------------------------------------


def onprem_breakdown_chart(
    series: ChartSeries, labels: ChartLabels = DEFAULT_LABELS, separators: str = ".,"
) -> Figure:
    """On-prem spend per year, stacked by component (residual value below zero).

    Month 0 (the purchase) counts in year 1; months 1-12 are year 1, 13-24
    year 2, and so on (a partial last year keeps its months). Components that
    are zero in every month are left out. The last trace is the net total per
    year (markers), which equals the sum of the bars.
    """
    cur = series.currency
    b = series.breakdown
    ticks = [labels.year_tick.format(year=y) for y in range(1, len(b.net) + 1)]
    money = _money("y", cur)
    data: list[Trace] = []
    for j, column in enumerate(b.components):
        name = labels.component(column)
        data.append(
            {
                "type": "bar",
                "name": name,
                "x": ticks,
                "y": amounts(b.per_year[:, j]),
                "marker": {"color": COMPONENT_COLORS.get(column, "#999999")},
                "hovertemplate": f"{money}<extra>{name}</extra>",
            }
        )
    data.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": labels.net_total,
            "x": ticks,
            "y": amounts(b.net),
            "marker": {
                "symbol": "line-ew",
                "size": 28,
                "line": {"width": 3, "color": "#000000"},
            },
            "hovertemplate": f"{money}<extra>{labels.net_total}</extra>",
        }
    )
    layout = _layout(
        labels.breakdown_resell_title if series.resells else labels.breakdown_title,
        separators,
        barmode="relative",
        xaxis=_axis(labels.year, type="category"),
        yaxis=_axis(labels.cost.format(currency=cur), tickformat=",.0f"),
        hovermode="x unified",
    )
    return _figure(data, layout)


# --- 3. total cost against utilization ----------------------------------------------


def utilization_chart(
    series: ChartSeries, labels: ChartLabels = DEFAULT_LABELS, separators: str = ".,"
) -> Figure:
    """Total cost over the horizon at 0-100 % utilization; break-even points marked.

    Traces: on-prem line, one line per cloud option, then one marker trace
    (named ``labels.break_even``) per option whose break-even utilization lies within
    0-100 %, at x = that utilization and y = the on-prem total there. x is a fraction
    (0-1) shown as a percentage. Empty without the series (omitted_charts says why).
    """
    cur = series.currency
    u = series.utilization
    if u is None:
        return _figure([], {})
    x = _UTILIZATION_X_LIST
    money = _money("y", cur)
    line = {"color": ONPREM_COLOR, "width": 3}
    data = [line_trace(labels.onprem, "onprem", x, amounts(u.onprem), line, money)]
    for k, option in enumerate(u.clouds):
        color, dash = cloud_style(k)
        name = labels.option_name(option.name)
        line = {"color": color, "width": 2, "dash": dash}
        data.append(line_trace(name, f"cloud{k}", x, amounts(option.values), line, money))
    if u.api is not None:  # the same requests whatever the fleet's utilization
        name = labels.option_name(u.api.name)
        color, dash = cloud_style(len(u.clouds))
        line = {"color": color, "width": 2, "dash": dash}
        data.append(line_trace(name, "api", x, amounts(u.api.values), line, money))
    markers, annotations = break_evens(u, labels, money)
    annotations.append(planned_note(u.planned, labels))
    layout = _layout(
        labels.utilization_title,
        separators,
        xaxis=_axis(labels.utilization, tickformat=".0%", range=[-0.01, 1.03], dtick=0.1),
        yaxis=_axis(labels.total_cost.format(currency=cur), tickformat=",.0f", rangemode="tozero"),
        hovermode="x unified",
        annotations=annotations,
        shapes=[vertical_line(u.planned, "#666666", "dot")],
    )
    return _figure(data + markers, layout)


def break_evens(
    u: ByUtilization, labels: ChartLabels, money: str
) -> tuple[list[Trace], list[Trace]]:
    """A marker and an annotation on the owning curve at each break-even utilization."""
    markers: list[Trace] = []
    annotations: list[Trace] = []
    for i, point in enumerate(u.break_evens):
        color, _dash = cloud_style(point.option)
        name = labels.option_name(u.clouds[point.option].name)
        hover = f"{labels.break_even}: %{{x:.0%}}<br>{money}<extra>{name}</extra>"
        xy = (point.utilization, point.total)
        group = f"cloud{point.option}"
        markers.append(marker_trace(labels.break_even, group, xy, "circle", color, hover))
        text = labels.break_even_annotation.format(percent=round(point.utilization * 100))
        annotations.append(pointer(xy, text, color, (-30 - 8 * i, -40 - 24 * i)))
    return markers, annotations


def planned_note(planned: float, labels: ChartLabels) -> Trace:
    """The words at the top of the planned utilization's line."""
    return {
        "x": planned,
        "y": 1,
        "xref": "x",
        "yref": "paper",
        "text": labels.current_utilization,
        "showarrow": False,
        "xanchor": "right" if planned > 0.5 else "left",
        "yanchor": "top",
        "font": {"size": 10, "color": "#666666"},
    }


# --- 4. tornado ---------------------------------------------------------------------


def tornado_chart(
    series: ChartSeries, labels: ChartLabels = DEFAULT_LABELS, separators: str = ".,"
) -> Figure:
    """Sensitivity tornado: NPV saving with each input at its low and high value.

    Two bar traces (low, high), horizontal, starting at the base value; the
    category order is largest swing first, drawn at the top.
    """
    _check_separators(separators)
    cur = series.currency
    t = series.tornado
    if t is None:
        return _figure([], {})
    bars = t.bars
    names = dict(labels.input_names)
    categories = [names.get(b.input_name, b.label) for b in bars]
    base = t.base_value
    pct = t.pct
    pct_text = f"{pct:.0f}" if math.isclose(pct, round(pct)) else f"{pct:.1f}"
    money = _money("customdata[0]", cur)
    data: list[dict[str, Any]] = []
    for name, color, values, inputs in (
        (
            labels.tornado_low.format(pct=pct_text),
            LOW_COLOR,
            [b.low_value for b in bars],
            [b.low_input for b in bars],
        ),
        (
            labels.tornado_high.format(pct=pct_text),
            HIGH_COLOR,
            [b.high_value for b in bars],
            [b.high_input for b in bars],
        ),
    ):
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": name,
                "y": categories,
                "x": [v - base for v in values],
                "base": base,
                "customdata": [[v, i] for v, i in zip(values, inputs, strict=True)],
                "marker": {"color": color},
                "hovertemplate": (
                    f"%{{y}}<br>{labels.input_value}: %{{customdata[1]:,.4~g}}<br>"
                    f"{money}<extra>{name}</extra>"
                ),
            }
        )
    layout = _layout(
        labels.tornado_title.format(option=labels.option_name(t.reference_option)),
        separators,
        barmode="overlay",
        xaxis=_axis(labels.tornado_axis.format(currency=cur), tickformat=",.0f"),
        yaxis=_axis(
            "",
            type="category",
            categoryorder="array",
            categoryarray=categories,
            autorange="reversed",
        ),
        shapes=[vertical_line(base, "#000000")],
        annotations=[
            {
                "x": base,
                "y": 1,
                "xref": "x",
                "yref": "paper",
                "yanchor": "bottom",
                "text": f"{labels.base}: {_format_amount(base, separators)} {cur}",
                "showarrow": False,
                "font": {"size": 10},
            }
        ],
        bargap=0.25,
    )
    return _figure(data, layout)


# --- 6. carbon ----------------------------------------------------------------------


def carbon_chart(
    series: ChartSeries, labels: ChartLabels = DEFAULT_LABELS, separators: str = ".,"
) -> Figure:
    """Tonnes of CO₂ over the horizon: owning, then each charted cloud option (one bar each)."""
    names = [_owning_name(series, labels)]
    tonnes = [series.carbon.owning]
    colors = [ONPREM_COLOR]
    for k, (option, option_tonnes) in enumerate(series.carbon.clouds):
        names.append(labels.option_name(option))
        tonnes.append(option_tonnes)
        colors.append(cloud_style(k)[0])
    shown = [(n, t, c) for n, t, c in zip(names, tonnes, colors, strict=True) if t is not None]
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "name": labels.carbon_axis,
            "y": [n for n, _, _ in shown],
            "x": [round(float(t), 1) for _, t, _ in shown],
            "marker": {"color": [c for _, _, c in shown]},
            "hovertemplate": "%{x:,.1f} t<extra>%{y}</extra>",
            "showlegend": False,
        }
    ]
    layout = _layout(
        labels.carbon_title,
        separators,
        xaxis=_axis(labels.carbon_axis, tickformat=",.0f", rangemode="tozero"),
        yaxis=_axis("", autorange="reversed"),
    )
    return _figure(data, layout)


# --- 5. confidence ------------------------------------------------------------------


def confidence_chart(
    series: ChartSeries, labels: ChartLabels = DEFAULT_LABELS, separators: str = ".,"
) -> Figure:
    """Histogram of the Monte Carlo saving of the verdict's side; bars where it wins in green.

    One bar trace per side (the verdict's side wins at saving > 0), so the legend
    says which futures favour owning and which renting.
    """
    c = series.confidence
    cur = series.currency
    data: list[dict[str, Any]] = []
    if c is not None:
        edges = np.asarray(c.histogram_edges)
        mids = ((edges[:-1] + edges[1:]) / 2).tolist()
        width = float(edges[1] - edges[0]) if len(edges) > 1 else 1.0
        counts = np.asarray(c.histogram_counts)
        wins = np.asarray(mids) > 0
        own_side = c.favours == "own"
        for mask, name, color in (
            (wins, labels.confidence_own if own_side else labels.confidence_rent, ONPREM_COLOR),
            (~wins, labels.confidence_rent if own_side else labels.confidence_own, HIGH_COLOR),
        ):
            data.append(
                {
                    "type": "bar",
                    "name": name,
                    "x": [m for m, keep in zip(mids, mask, strict=True) if keep],
                    "y": [int(n) for n, keep in zip(counts, mask, strict=True) if keep],
                    "width": width,
                    "marker": {"color": color},
                    "hovertemplate": f"{_money('x', cur)}: %{{y}}<extra>{name}</extra>",
                }
            )
    draws = _format_amount(float(c.draws if c else 0), separators)
    layout = _layout(
        labels.confidence_title.format(draws=draws),
        separators,
        xaxis=_axis(labels.confidence_axis.format(currency=cur), tickformat=",.0f"),
        yaxis=_axis(labels.confidence_count, rangemode="tozero"),
        bargap=0.05,
        shapes=[vertical_line(0, "#666666", "dot")],
    )
    return _figure(data, layout)


def _format_amount(value: float, separators: str) -> str:
    """Whole amount with the thousands mark of ``separators`` (for static text)."""
    return f"{value:,.0f}".replace(",", separators[1])


# --- bundles ------------------------------------------------------------------------


def all_charts(
    series: ChartSeries,
    labels: ChartLabels = DEFAULT_LABELS,
    separators: str = ".,",
) -> dict[str, Figure]:
    """The figures of a result's chart series (tco.report.chart_series), keyed
    ``cumulative``, ``breakdown``, ``utilization``, ``tornado``, ``confidence``, ``carbon``.
    A figure :func:`omitted_charts` names is left out."""
    _check_separators(separators)
    builders = {
        "cumulative": cumulative_cost_chart,
        "breakdown": onprem_breakdown_chart,
        "utilization": utilization_chart,
        "tornado": tornado_chart,
        "confidence": confidence_chart,
        "carbon": carbon_chart,
    }
    return {
        name: build(series, labels, separators)
        for name, build in builders.items()
        if name not in series.omitted
    }


def omitted_charts(series: ChartSeries) -> dict[str, str]:
    """The charts left out, each with the reason's code (tco.report.chart_series.omitted)."""
    return series.omitted


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


# Characters that must not appear raw inside a <script> element, escaped as Django's
# json_script escapes them.
_SCRIPT_ESCAPES = (("&", "\\u0026"), ("<", "\\u003C"), (">", "\\u003E"))


def charts_json(figures: Mapping[str, Figure]) -> str:
    """Every figure as one compact JSON object ``{name: {"data", "layout"}}``, safe to put
    inside ``<script type="application/json">``: the page's chart data."""
    text = json.dumps(figures, default=_jsonable, separators=(",", ":"))
    for raw, escaped in _SCRIPT_ESCAPES:
        text = text.replace(raw, escaped)
    return text


def figure_payload(fig: Figure) -> dict[str, Any]:
    """``{"data": [...], "layout": {...}}``, JSON-safe, for ``Plotly.newPlot``."""
    payload: dict[str, Any] = json.loads(json.dumps(fig, default=_jsonable))
    return {"data": payload["data"], "layout": payload["layout"]}
