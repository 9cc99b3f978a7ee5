"""A Plotly figure read into typed parts: what tco/presentation/chart_svg.py draws.

The charts are Plotly data (tco/presentation/charts.py builds them from the chart series;
a proposal stores them as they were drawn, so old ones are read again). The SVG drawing
reads this module's types, never the raw data: each part's default is Plotly's, written
once here. Whatever is malformed raises here (KeyError, TypeError, ValueError); the
drawing refuses what it does not draw (chart_svg.UnsupportedFigure).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TEXT_COLOR = "#2a3f5f"


@dataclass(frozen=True)
class Stroke:
    """A line's colour, width and dash (Plotly's ``line``)."""

    color: str
    width: float
    dash: str | None = None


@dataclass(frozen=True)
class Marker:
    """A marker's symbol, size, fill and outline (Plotly's ``marker``); a bar's fill."""

    symbol: str
    size: float
    color: Any  # a colour, or one per point
    outline: Stroke


@dataclass(frozen=True)
class Trace:
    """One trace: ``scatter`` (lines, markers) or ``bar``."""

    kind: str
    name: str
    in_legend: bool
    mode: str
    x: tuple[Any, ...]
    y: tuple[Any, ...]
    line: Stroke
    marker: Marker
    vertical_from_zero: bool  # a bar: vertical, without a ``base``


@dataclass(frozen=True)
class AxisSpec:
    """An axis as the figure gives it."""

    title: str
    kind: str | None  # Plotly's ``type``: None (linear) or "category"
    range: tuple[float, float] | None  # a fixed range (not autorange)
    to_zero: bool  # ``rangemode`` tozero
    dtick: float | None
    tickformat: str
    reversed: bool


@dataclass(frozen=True)
class Shape:
    """A ``shapes`` entry: a line from (x0, y0) to (x1, y1)."""

    kind: str
    xref: str
    yref: str
    x0: Any
    x1: Any
    y0: Any
    y1: Any
    line: Stroke


@dataclass(frozen=True)
class Annotation:
    """A label at a point, with an arrow (offset ``ax``, ``ay`` px) or anchored there."""

    text: str
    size: float
    color: str
    xref: str
    yref: str
    x: Any
    y: Any
    arrow: bool
    ax: Any  # px, read where the arrow is drawn
    ay: Any
    arrow_color: str
    xanchor: str
    yanchor: str
    background: str | None


@dataclass(frozen=True)
class PlotFigure:
    """A figure's traces and layout."""

    title: str
    separators: str
    data: tuple[Trace, ...]
    xaxis: AxisSpec
    yaxis: AxisSpec
    barmode: str | None
    bargap: Any  # a fraction of a category's band, read where bars are drawn
    shapes: tuple[Shape, ...]
    annotations: tuple[Annotation, ...]


def title_text(part: Mapping[str, Any]) -> str:
    """The ``title`` text of a layout or an axis ("" when it has none)."""
    title = part.get("title") or {}
    return str(title.get("text") or "") if isinstance(title, Mapping) else str(title)


def stroke(line: Mapping[str, Any] | None, color: str, width: float) -> Stroke:
    """A ``line`` with Plotly's defaults where it gives none."""
    line = line or {}
    return Stroke(line.get("color", color), float(line.get("width", width)), line.get("dash"))


def marker(spec: Mapping[str, Any] | None) -> Marker:
    spec = spec or {}
    return Marker(
        symbol=spec.get("symbol", "circle"),
        size=float(spec.get("size", 6)),
        color=spec.get("color", TEXT_COLOR),
        outline=stroke(spec.get("line"), "#444444", 0),
    )


def trace(spec: Mapping[str, Any]) -> Trace:
    kind = spec.get("type")
    bar = kind == "bar"
    name = spec.get("name")
    return Trace(
        kind=str(kind),
        name=str(name) if name else "",
        in_legend=spec.get("showlegend") is not False and bool(name),
        mode=spec.get("mode", "lines"),
        # A bar needs its categories and amounts; a scatter may have none.
        x=tuple(spec["x"] if bar else spec.get("x", [])),
        y=tuple(spec["y"] if bar else spec.get("y", [])),
        line=stroke(spec.get("line"), TEXT_COLOR, 2),
        marker=marker(spec.get("marker")),
        vertical_from_zero=spec.get("orientation", "v") == "v" and "base" not in spec,
    )


def axis(spec: Mapping[str, Any] | None) -> AxisSpec:
    spec = spec or {}
    given = spec.get("range")
    fixed = None
    if given is not None and spec.get("autorange") in (None, False):
        fixed = (float(given[0]), float(given[1]))
    return AxisSpec(
        title=title_text(spec),
        kind=spec.get("type"),
        range=fixed,
        to_zero=spec.get("rangemode") == "tozero",
        dtick=float(spec["dtick"]) if spec.get("dtick") else None,
        tickformat=str(spec.get("tickformat", "")),
        reversed=spec.get("autorange") == "reversed",
    )


def shape(spec: Mapping[str, Any]) -> Shape:
    return Shape(
        kind=str(spec.get("type")),
        xref=spec.get("xref", "x"),
        yref=spec.get("yref", "y"),
        x0=spec.get("x0"),
        x1=spec.get("x1"),
        y0=spec.get("y0"),
        y1=spec.get("y1"),
        line=stroke(spec.get("line"), "#444444", 2),
    )


def annotation(spec: Mapping[str, Any]) -> Annotation:
    font = spec.get("font") or {}
    color = str(font.get("color", TEXT_COLOR))
    background = spec.get("bgcolor")
    return Annotation(
        text=str(spec.get("text", "")),
        size=float(font.get("size", 12)),
        color=color,
        xref=spec.get("xref", "x"),
        yref=spec.get("yref", "y"),
        x=spec["x"],
        y=spec["y"],
        arrow=bool(spec.get("showarrow", True)),
        ax=spec.get("ax", -10),
        ay=spec.get("ay", -30),
        arrow_color=spec.get("arrowcolor", color),
        xanchor=spec.get("xanchor", "center"),
        yanchor=spec.get("yanchor", "middle"),
        background=str(background) if background else None,
    )


def plot_figure(figure: Mapping[str, Any]) -> PlotFigure:
    """The figure (``{"data": [...], "layout": {...}}``) read into its typed parts."""
    specs: Sequence[Mapping[str, Any]] = list(figure.get("data") or [])
    layout: Mapping[str, Any] = figure.get("layout") or {}
    data = tuple(trace(spec) for spec in specs)
    has_bars = any(t.kind == "bar" for t in data)
    return PlotFigure(
        title=title_text(layout),
        separators=str(layout.get("separators") or ".,"),
        data=data,
        xaxis=axis(layout.get("xaxis")),
        yaxis=axis(layout.get("yaxis")),
        barmode=layout.get("barmode", "relative" if has_bars else None),
        bargap=layout.get("bargap", 0.2),
        shapes=tuple(shape(spec) for spec in layout.get("shapes") or []),
        annotations=tuple(annotation(spec) for spec in layout.get("annotations") or []),
    )
