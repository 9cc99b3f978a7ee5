"""The proposal's charts as static SVG, drawn in Python from the figures of tco.presentation.charts.

The web page hands the figures (plain Plotly data, :mod:`tco.presentation.charts`) to Plotly in the
browser. The PDF used to export the same figures through kaleido, a headless Chromium:
0.13-0.4 s of browser work for a proposal's three charts, on the same two cores as the
render, and ~400 SVG elements a chart for WeasyPrint to draw. This module draws the same
data, with the same colours, dashes, markers, labels and number format, as ~100 plain
elements in a few milliseconds. Each figure is still built once (tco.presentation.charts); only its
drawing differs by medium.

The figure is read into typed parts first (tco/presentation/plot_figure.py: traces, axes,
shapes, annotations, each default Plotly's); the drawing reads only those. It draws the
subset of Plotly's figure schema that the builders of the PDF's charts use and refuses
anything else (:class:`UnsupportedFigure`) rather than draw it wrongly:

- traces ``scatter`` (``mode`` lines or markers; ``line.color/width/dash``; marker
  symbols circle, diamond and line-ew) and vertical ``bar`` (``barmode`` relative:
  stacked, negative amounts below zero);
- axes: linear (``range`` or automatic with ``rangemode`` tozero, ``dtick`` or automatic
  ticks as Plotly chooses them, ``tickformat`` ",.0f" or ".0%") or ``category``; titles;
- layout ``title``, ``separators`` (decimal mark, thousands mark), ``shapes`` of type line,
  ``annotations`` with an arrow (offset ``ax``/``ay`` in px) or without one (``xanchor``/
  ``yanchor``); the legend horizontal below the plot, wrapped into rows.

Text is placed with DejaVu Sans's advance widths (tco/presentation/text_width.py): WeasyPrint draws
SVG text letter by letter at those advances, so right-aligned and centred labels are
computed here, not left to ``text-anchor`` (which makes WeasyPrint draw each label twice).
Pure: no Django, no I/O.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from tco.presentation.plot_figure import (
    TEXT_COLOR,
    Annotation,
    AxisSpec,
    Marker,
    PlotFigure,
    Shape,
    Trace,
    plot_figure,
    title_text,
)
from tco.presentation.text_width import ASCENT, text_width

__all__ = ["HEIGHT", "WIDTH", "UnsupportedFigure", "figure_svg", "title_text"]

WIDTH, HEIGHT = 900, 440
FONT = "DejaVu Sans, sans-serif"
GRID_COLOR = "#ebf0f8"
ZERO_LINE_COLOR = "#c8d4e3"
PAD = 8  # around the figure (Plotly's margin l/r/b: 8)
PLOT_TOP = 48  # Plotly's margin t: the title sits above it
TITLE_SIZE = 15
TICK_SIZE = 12
AXIS_TITLE_SIZE = 14
LEGEND_SIZE = 12
LEGEND_ROW = 19
LEGEND_SAMPLE = 40  # the line or swatch before each legend entry's name
LEGEND_GAP = 24  # between legend entries in a row
MINUS = "\u2212"  # Plotly writes negative tick labels with the minus sign


class UnsupportedFigure(ValueError):
    """The figure uses a part of Plotly's schema this module does not draw."""


# --- numbers --------------------------------------------------------------------------------


def _separated(text: str, separators: str) -> str:
    """Python's "1,234.5" with the figure's marks: ",." makes it "1.234,5"."""
    decimal, thousands = separators[0], separators[1]
    return text.translate({ord(","): thousands, ord("."): decimal})


def tick_text(value: float, tickformat: str, separators: str, step: float) -> str:
    """A tick label as Plotly writes it for the tickformats the charts use."""
    if tickformat == ",.0f":
        text = _separated(f"{abs(value):,.0f}", separators)
    elif tickformat == ".0%":
        text = f"{abs(value) * 100:.0f}%"
    elif tickformat == "":
        decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
        text = _separated(f"{abs(value):.{decimals}f}", separators)
    else:
        raise UnsupportedFigure(f"tickformat {tickformat!r}")
    negative = value < 0 and text.strip("0%.,") != ""
    return (MINUS if negative else "") + text


def nice_step(span: float, length: float, minimum_px: float) -> float:
    """Plotly's automatic tick spacing (autoTicks): about one tick per `minimum_px`, four
    to nine of them, rounded up to 1, 2 or 5 times a power of ten."""
    count = min(max(length / minimum_px, 4.0), 9.0) + 1.0
    rough = span / count
    base = 10.0 ** math.floor(math.log10(rough))
    for multiple in (1.0, 2.0, 5.0, 10.0):
        if multiple * base >= rough * (1 - 1e-9):
            return multiple * base
    return 10.0 * base  # pragma: no cover - the loop always returns


def _ticks(low: float, high: float, step: float) -> list[float]:
    """Multiples of `step` within [low, high] (as multiples, so 0.1 × 3 is 0.3, not
    0.30000000000000004)."""
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


# --- SVG pieces -----------------------------------------------------------------------------


def _n(value: float) -> str:
    """A coordinate to 0.1 px (a chart is ~900 px drawn ~176 mm wide: 0.02 mm)."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _text(
    x: float,
    y: float,
    text: str,
    size: float,
    color: str = TEXT_COLOR,
    anchor: str = "start",
    rotate: bool = False,
) -> str:
    """A label with its baseline at y; `anchor` start, middle or end at x (computed from the
    font's widths, see the module doc). `rotate`: read bottom to top, centred on (x, y)."""
    width = text_width(text, size)
    shift = {"start": 0.0, "middle": width / 2, "end": width}[anchor]
    if rotate:
        return (
            f'<text transform="rotate(-90 {_n(x)} {_n(y)})" x="{_n(x - shift)}" y="{_n(y)}" '
            f'font-size="{size:g}" fill="{color}">{escape(text)}</text>'
        )
    return (
        f'<text x="{_n(x - shift)}" y="{_n(y)}" font-size="{size:g}" fill="{color}">'
        f"{escape(text)}</text>"
    )


def _dasharray(dash: str | None, width: float) -> str:
    """Plotly's dash styles (drawing.dashStyle) as an SVG dasharray."""
    unit = max(width, 3.0)
    patterns = {
        None: (),
        "solid": (),
        "dot": (1, 1),
        "dash": (3, 3),
        "longdash": (5, 5),
        "dashdot": (3, 1, 1, 1),
        "longdashdot": (5, 2, 1, 2),
    }
    if dash not in patterns:
        raise UnsupportedFigure(f"line dash {dash!r}")
    pattern = patterns[dash]
    return f' stroke-dasharray="{",".join(_n(p * unit) for p in pattern)}"' if pattern else ""


def _line(points: Sequence[tuple[float, float]], color: str, width: float, dash: str | None) -> str:
    d = "M" + "L".join(f"{_n(x)},{_n(y)}" for x, y in points)
    return (
        f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width:g}"'
        f'{_dasharray(dash, width)} stroke-linejoin="round"/>'
    )


def without_collinear(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The polyline without points that lie on the straight line between their neighbours
    (within 0.05 px): the same drawing, far fewer segments for WeasyPrint to stroke (the
    utilization curves are straight lines of 101 points)."""
    if len(points) < 3:
        return points
    kept = [points[0]]
    for i in range(1, len(points) - 1):
        (x0, y0), (x1, y1), (x2, y2) = kept[-1], points[i], points[i + 1]
        length = math.hypot(x2 - x0, y2 - y0)
        cross = abs((x2 - x0) * (y1 - y0) - (y2 - y0) * (x1 - x0))
        if length == 0 or cross / length > 0.05 or not min(x0, x2) <= x1 <= max(x0, x2):
            kept.append(points[i])
    kept.append(points[-1])
    return kept


def _marker(x: float, y: float, marker: Marker) -> str:
    """Plotly's marker symbols circle, diamond and line-ew (drawing/symbol_defs)."""
    symbol = marker.symbol
    radius = marker.size / 2
    stroke_color = marker.outline.color
    stroke_width = marker.outline.width
    fill = marker.color
    if symbol == "line-ew":
        return (
            f'<path d="M{_n(x + radius)},{_n(y)}H{_n(x - radius)}" stroke="{stroke_color}" '
            f'stroke-width="{max(stroke_width, 1):g}"/>'
        )
    stroke = f' stroke="{stroke_color}" stroke-width="{stroke_width:g}"' if stroke_width else ""
    if symbol == "circle":
        return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(radius)}" fill="{fill}"{stroke}/>'
    if symbol == "diamond":
        r = radius * 1.3
        return (
            f'<path d="M{_n(x + r)},{_n(y)}L{_n(x)},{_n(y + r)}L{_n(x - r)},{_n(y)}'
            f'L{_n(x)},{_n(y - r)}Z" fill="{fill}"{stroke}/>'
        )
    raise UnsupportedFigure(f"marker symbol {symbol!r}")


# --- axes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """One axis mapped onto pixels: data value → px, with its ticks and labels."""

    low: float
    high: float
    start: float  # px of `low`
    end: float  # px of `high`
    ticks: tuple[float, ...]
    labels: tuple[str, ...]
    categories: tuple[str, ...] = ()

    def px(self, value: float) -> float:
        if self.categories:  # value is a category's index; its band's centre
            band = (self.end - self.start) / len(self.categories)
            return self.start + band * (value + 0.5)
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)

    def band(self) -> float:
        return abs(self.end - self.start) / max(len(self.categories), 1)


def _value_range(axis: AxisSpec, values: Iterable[float], padded: bool) -> tuple[float, float]:
    """The axis's own `range`, or the data's: with zero when `rangemode` is tozero (bars
    always), 5 % more at an end that is not zero (as Plotly pads its autorange)."""
    if axis.range is not None:
        return axis.range
    finite = [v for v in values if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if axis.to_zero or padded:
        low, high = min(low, 0.0), max(high, 0.0)
    if high == low:
        high = low + 1.0
    span = high - low
    return (low if low == 0 else low - 0.05 * span), (high if high == 0 else high + 0.05 * span)


def _linear_ticks(
    axis: AxisSpec, low: float, high: float, length: float, minimum_px: float
) -> tuple[float, list[float]]:
    step = axis.dtick or nice_step(high - low, length, minimum_px)
    return step, _ticks(low, high, step)


# --- the figure -----------------------------------------------------------------------------


@dataclass
class _Entry:
    name: str
    kind: str  # "line", "bar" or "marker"
    color: str
    width: float = 2.0
    dash: str | None = None
    marker: Marker | None = None

    def width_px(self) -> float:
        return LEGEND_SAMPLE + text_width(self.name, LEGEND_SIZE)


def fitted(text: str, size: float, room: float) -> str:
    """`text`, cut short with an ellipsis where it is wider than `room` px."""
    if text_width(text, size) <= room:
        return text
    while text and text_width(text + "…", size) > room:
        text = text[:-1]
    return text.rstrip() + "…"


def _legend_entries(data: Sequence[Trace], width: float) -> list[_Entry]:
    """One entry per trace shown in the legend; a name longer than a whole row is cut."""
    entries = []
    for trace in data:
        if not trace.in_legend:
            continue
        name = fitted(trace.name, LEGEND_SIZE, width - 2 * PAD - LEGEND_SAMPLE)
        if trace.kind == "bar":
            color = trace.marker.color
            entries.append(_Entry(name, "bar", color if isinstance(color, str) else TEXT_COLOR))
        elif "lines" in trace.mode:
            line = trace.line
            entries.append(_Entry(name, "line", line.color, line.width, line.dash))
        else:
            entries.append(_Entry(name, "marker", trace.marker.color, marker=trace.marker))
    return entries


def _legend_rows(entries: list[_Entry], width: float) -> list[list[_Entry]]:
    """The entries in rows that fit the width, in order."""
    rows: list[list[_Entry]] = []
    used = math.inf
    for entry in entries:
        needed = entry.width_px() + (LEGEND_GAP if rows and rows[-1] else 0)
        if used + needed > width - 2 * PAD:
            rows.append([entry])
            used = entry.width_px()
        else:
            rows[-1].append(entry)
            used += needed
    return rows


def _legend_svg(rows: list[list[_Entry]], top: float) -> list[str]:
    parts = []
    for r, row in enumerate(rows):
        y = top + LEGEND_ROW * r + LEGEND_ROW / 2
        x = float(PAD)
        for entry in row:
            if entry.kind == "bar":
                parts.append(
                    f'<rect x="{_n(x + 14)}" y="{_n(y - 6)}" width="12" height="12" '
                    f'fill="{entry.color}"/>'
                )
            elif entry.kind == "line":
                parts.append(_line([(x + 5, y), (x + 35, y)], entry.color, entry.width, entry.dash))
            elif entry.marker is not None:
                marker = dataclasses.replace(entry.marker, size=min(entry.marker.size, 24))
                parts.append(_marker(x + 20, y, marker))
            parts.append(_text(x + LEGEND_SAMPLE, y + 0.35 * LEGEND_SIZE, entry.name, LEGEND_SIZE))
            x += entry.width_px() + LEGEND_GAP
    return parts


def _stacked_bars(
    bars: Sequence[Trace], categories: Sequence[str]
) -> list[tuple[Trace, int, float, float]]:
    """(trace, category index, bottom, top) of every bar, stacked as barmode relative:
    positive amounts upward from zero, negative ones downward, in trace order."""
    index = {name: i for i, name in enumerate(categories)}
    up = [0.0] * len(categories)
    down = [0.0] * len(categories)
    pieces = []
    for trace in bars:
        if not trace.vertical_from_zero:
            raise UnsupportedFigure("only vertical bars stacked from zero")
        for category, value in zip(trace.x, trace.y, strict=True):
            i, amount = index[str(category)], float(value or 0.0)
            if amount >= 0:
                pieces.append((trace, i, up[i], up[i] + amount))
                up[i] += amount
            else:
                pieces.append((trace, i, down[i] + amount, down[i]))
                down[i] += amount
    return pieces


def figure_svg(
    figure: Mapping[str, Any],
    width: int = WIDTH,
    height: int = HEIGHT,
    *,
    clip_id: str = "plot",
    label: str | None = None,
    elementtiming: str | None = None,
    fluid: bool = False,
) -> bytes:
    """The figure (``{"data": [...], "layout": {...}}``) as a standalone SVG document.

    For a web page (the calculator draws its first chart with it, tco/web/chart_context.py):
    ``clip_id`` names the plot area's clip path, unique in the page; ``label`` makes the
    picture an image with that accessible name; ``elementtiming`` marks its title for the
    browser's Element Timing (the page bench reads when the chart is painted); ``fluid``
    fills its box (width and height 100 %, scaled from the ``width`` × ``height`` view box).

    Raises :class:`UnsupportedFigure` for a figure it cannot draw, whatever is wrong with
    it, never another error: a caller can always fall back to drawing it otherwise."""
    try:
        return _figure_svg(figure, width, height, clip_id, label, elementtiming, fluid)
    except UnsupportedFigure:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
        raise UnsupportedFigure(f"{type(exc).__name__}: {exc}") from exc


@dataclass(frozen=True)
class _Frame:
    """Where a figure's parts go, from the bottom up: legend rows, the x axis' title, its
    tick labels, then the plot."""

    rows: list[list[_Entry]]
    legend_top: float
    x_title_base: float
    tick_base: float
    plot_top: float
    plot_bottom: float


def _frame(figure: PlotFigure, width: int, height: int) -> _Frame:
    rows = _legend_rows(_legend_entries(figure.data, width), width)
    legend_top = height - PAD - LEGEND_ROW * len(rows)
    x_title_base = legend_top - 10 if rows else height - PAD - 4
    tick_base = x_title_base - (AXIS_TITLE_SIZE + 10 if figure.xaxis.title else 0)
    plot_bottom = tick_base - TICK_SIZE * ASCENT - 6
    return _Frame(rows, legend_top, x_title_base, tick_base, float(PLOT_TOP), plot_bottom)


def _figure_svg(
    source: Mapping[str, Any],
    width: int,
    height: int,
    clip_id: str,
    label: str | None,
    elementtiming: str | None,
    fluid: bool,
) -> bytes:
    figure = plot_figure(source)
    _supported(figure)
    frame = _frame(figure, width, height)
    parts: list[str] = _title_svg(figure.title, width, elementtiming)
    # y axis: range and ticks first (the labels' width sets the left margin).
    bars = [t for t in figure.data if t.kind == "bar"]
    category_axis = figure.xaxis.kind == "category" or bool(bars)
    categories = _categories(figure.data) if category_axis else []
    pieces = _stacked_bars(bars, categories) if bars else []
    y_axis = _y_axis(figure, frame, pieces, padded=bool(bars))
    plot_left = y_axis_left(figure.yaxis, y_axis)
    if category_axis:
        x_axis = Axis(0, len(categories), plot_left, width - PAD, (), (), tuple(categories))
    else:
        x_axis = _linear_x_axis(
            figure.data, figure.xaxis, figure.separators, plot_left, width - PAD
        )

    def x_px(value: Any) -> float:
        if category_axis:
            return x_axis.px(categories.index(str(value)))
        return x_axis.px(float(value))

    parts += _grid_svg(x_axis, y_axis)
    parts += _labels_svg(
        x_axis, y_axis, frame.tick_base, figure.xaxis.title, frame.x_title_base, figure.yaxis.title
    )
    # The data, clipped to the plot area.
    parts.append(f'<g clip-path="url(#{clip_id})">')
    band = x_axis.band() * (1 - float(figure.bargap)) if category_axis else 0.0
    parts += _bars_svg(pieces, x_axis, y_axis, band)
    parts += _scatter_svg(figure.data, x_px, y_axis)
    parts.append("</g>")
    parts += _overlays_svg(figure, x_px, y_axis, (width, height))
    parts += _legend_svg(frame.rows, frame.legend_top)
    head = _svg_head(x_axis, y_axis, (width, height), clip_id, label, fluid)
    return (head + "".join(parts) + "</svg>").encode()


def _y_axis(
    figure: PlotFigure,
    frame: _Frame,
    pieces: Sequence[tuple[Trace, int, float, float]],
    *,
    padded: bool,
) -> Axis:
    """The y axis over the scatter values and the stacked bars' edges (the px of its left
    end is set once its labels' width is known: y_axis_left)."""
    yaxis = figure.yaxis
    y_values = [float(v) for t in figure.data if t.kind == "scatter" for v in t.y]
    y_values += [edge for _, _, bottom, top in pieces for edge in (bottom, top)]
    y_low, y_high = _value_range(yaxis, y_values, padded=padded)
    y_step, y_ticks = _linear_ticks(yaxis, y_low, y_high, frame.plot_bottom - frame.plot_top, 40)
    y_labels = [tick_text(v, yaxis.tickformat, figure.separators, y_step) for v in y_ticks]
    return Axis(y_low, y_high, frame.plot_bottom, frame.plot_top, tuple(y_ticks), tuple(y_labels))


def y_axis_left(yaxis: AxisSpec, y_axis: Axis) -> float:
    """The plot's left edge: after the y axis' title and its widest tick label."""
    label_width = max((text_width(label, TICK_SIZE) for label in y_axis.labels), default=0.0)
    return PAD + (AXIS_TITLE_SIZE + 8 if yaxis.title else 0) + label_width + 6


def _grid_svg(x_axis: Axis, y_axis: Axis) -> list[str]:
    """Grid and zero lines at the ticks, under the data."""
    left, right, top, bottom = x_axis.start, x_axis.end, y_axis.end, y_axis.start
    parts = [_grid(v, f"M{_n(left)},{_n(y_axis.px(v))}H{_n(right)}") for v in y_axis.ticks]
    parts += [_grid(v, f"M{_n(x_axis.px(v))},{_n(top)}V{_n(bottom)}") for v in x_axis.ticks]
    return parts


def _overlays_svg(
    figure: PlotFigure, x_px: Callable[[Any], float], y_axis: Axis, bounds: tuple[float, float]
) -> list[str]:
    """The shapes and annotations, above the data."""
    top, bottom = y_axis.end, y_axis.start
    parts = [_shape(shape, x_px, y_axis, top, bottom) for shape in figure.shapes]
    for annotation in figure.annotations:
        parts += _annotation(annotation, x_px, y_axis, top, bottom, bounds)
    return parts


def _svg_head(
    x_axis: Axis,
    y_axis: Axis,
    size: tuple[int, int],
    clip_id: str,
    label: str | None,
    fluid: bool,
) -> str:
    """The document's opening: its size, name, white background and the plot's clip."""
    left, right, top, bottom = x_axis.start, x_axis.end, y_axis.end, y_axis.start
    width, height = size
    clip = (
        f'<clipPath id="{clip_id}"><rect x="{_n(left)}" y="{_n(top - 8)}" '
        f'width="{_n(right - left + 8)}" height="{_n(bottom - top + 8)}"/>'
        "</clipPath>"
    )
    dimensions = 'width="100%" height="100%"' if fluid else f'width="{width}" height="{height}"'
    name = f' role="img" aria-label={quoteattr(label)}' if label is not None else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" {dimensions}{name} '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}">'
        f'<rect width="{width}" height="{height}" fill="#ffffff"/><defs>{clip}</defs>'
    )


def _supported(figure: PlotFigure) -> None:
    """UnsupportedFigure for what this module cannot draw (separators other than two marks,
    traces other than scatter and bar, grouped bars, a category or reversed y axis)."""
    if len(figure.separators) != 2:
        raise UnsupportedFigure(f"separators {figure.separators!r}")
    for trace in figure.data:
        if trace.kind not in ("scatter", "bar"):
            raise UnsupportedFigure(f"trace type {trace.kind!r}")
    if figure.barmode not in (None, "relative", "stack"):
        raise UnsupportedFigure(f"barmode {figure.barmode!r}")
    if figure.yaxis.kind == "category" or figure.yaxis.reversed:
        raise UnsupportedFigure("a category or reversed y axis")


def _title_svg(title: str, width: int, elementtiming: str | None) -> list[str]:
    """The title, top left; a long one is set smaller rather than cut. With
    ``elementtiming``, the title carries that attribute (Element Timing reports text)."""
    if not title:
        return []
    title_size = float(TITLE_SIZE)
    if text_width(title, title_size) > width - 2 * PAD:
        title_size *= (width - 2 * PAD) / text_width(title, title_size)
    text = _text(PAD, PAD + TITLE_SIZE * ASCENT + 4, title, title_size)
    if elementtiming is not None:
        text = text.replace("<text ", f"<text elementtiming={quoteattr(elementtiming)} ", 1)
    return [text]


def _categories(data: Sequence[Trace]) -> list[str]:
    """The x categories of every trace, in the order they first appear."""
    categories: list[str] = []
    for trace in data:
        for category in trace.x:
            if str(category) not in categories:
                categories.append(str(category))
    return categories


def _linear_x_axis(
    data: Sequence[Trace],
    xaxis: AxisSpec,
    separators: str,
    plot_left: float,
    right_edge: float,
) -> Axis:
    """A numeric x axis from `plot_left`, ending early enough for the last label's right
    half where the last tick is the plot's edge."""
    x_values = [float(v) for t in data for v in t.x]
    x_low, x_high = _value_range(xaxis, x_values, padded=False)
    estimate = right_edge - plot_left
    x_step, x_ticks = _linear_ticks(xaxis, x_low, x_high, estimate, 80)
    x_labels = [tick_text(v, xaxis.tickformat, separators, x_step) for v in x_ticks]
    last = text_width(x_labels[-1], TICK_SIZE) / 2 if x_labels else 0.0
    overhang = last - (x_high - x_ticks[-1]) / (x_high - x_low) * estimate if x_ticks else 0.0
    plot_right = right_edge - max(overhang, 0.0)
    return Axis(x_low, x_high, plot_left, plot_right, tuple(x_ticks), tuple(x_labels))


def _labels_svg(
    x_axis: Axis,
    y_axis: Axis,
    tick_base: float,
    x_title: str,
    x_title_base: float,
    y_title: str,
) -> list[str]:
    """Tick labels and axis titles (the x labels are the categories on a category axis)."""
    plot_left, plot_right, plot_bottom, plot_top = (
        x_axis.start,
        x_axis.end,
        y_axis.start,
        y_axis.end,
    )
    parts = []
    for value, label in zip(y_axis.ticks, y_axis.labels, strict=True):
        baseline = y_axis.px(value) + 0.35 * TICK_SIZE
        parts.append(_text(plot_left - 6, baseline, label, TICK_SIZE, anchor="end"))
    x_labels_drawn = (
        [(x_axis.px(i), c) for i, c in enumerate(x_axis.categories)]
        if x_axis.categories
        else [(x_axis.px(v), label) for v, label in zip(x_axis.ticks, x_axis.labels, strict=True)]
    )
    for x, label in x_labels_drawn:
        parts.append(_text(x, tick_base, label, TICK_SIZE, anchor="middle"))
    if x_title:
        middle = (plot_left + plot_right) / 2
        parts.append(_text(middle, x_title_base, x_title, AXIS_TITLE_SIZE, anchor="middle"))
    if y_title:
        middle = (plot_top + plot_bottom) / 2
        baseline_x = PAD + AXIS_TITLE_SIZE * ASCENT
        parts.append(
            _text(baseline_x, middle, y_title, AXIS_TITLE_SIZE, anchor="middle", rotate=True)
        )
    return parts


def _bars_svg(
    pieces: Sequence[tuple[Trace, int, float, float]],
    x_axis: Axis,
    y_axis: Axis,
    band: float,
) -> list[str]:
    """One rectangle per stacked bar piece."""
    rects = []
    for trace, i, bottom, top in pieces:
        color = trace.marker.color
        y0, y1 = y_axis.px(top), y_axis.px(bottom)
        rects.append(
            f'<rect x="{_n(x_axis.px(i) - band / 2)}" y="{_n(y0)}" width="{_n(band)}" '
            f'height="{_n(max(y1 - y0, 0.0))}" fill="{color}"/>'
        )
    return rects


def _scatter_svg(data: Sequence[Trace], x_px: Callable[[Any], float], y_axis: Axis) -> list[str]:
    """The scatter traces' lines, then their markers above every line (as Plotly draws)."""
    lines: list[str] = []
    markers: list[str] = []
    for trace in data:
        if trace.kind != "scatter":
            continue
        points = [
            (x_px(x), y_axis.px(float(y)))
            for x, y in zip(trace.x, trace.y, strict=True)
            if y is not None
        ]
        if "lines" in trace.mode and points:
            line = trace.line
            lines.append(_line(without_collinear(points), line.color, line.width, line.dash))
        if "markers" in trace.mode:
            markers += [_marker(x, y, trace.marker) for x, y in points]
    return lines + markers


def _grid(value: float, d: str) -> str:
    """A grid line at a tick; the zero line darker (Plotly's zeroline)."""
    color = ZERO_LINE_COLOR if value == 0 else GRID_COLOR
    return f'<path d="{d}" stroke="{color}" stroke-width="1"/>'


def _paper_or_data_y(value: Any, ref: str, y_axis: Axis, top: float, bottom: float) -> float:
    if ref == "paper":
        return bottom + float(value) * (top - bottom)
    return y_axis.px(float(value))


def _shape(shape: Shape, x_px: Any, y_axis: Axis, top: float, bottom: float) -> str:
    if shape.kind != "line" or shape.xref != "x":
        raise UnsupportedFigure(f"shape {shape.kind!r}")
    ref = shape.yref
    points = [
        (x_px(shape.x0), _paper_or_data_y(shape.y0, ref, y_axis, top, bottom)),
        (x_px(shape.x1), _paper_or_data_y(shape.y1, ref, y_axis, top, bottom)),
    ]
    return _line(points, shape.line.color, shape.line.width, shape.line.dash)


def _annotation(
    annotation: Annotation,
    x_px: Any,
    y_axis: Axis,
    top: float,
    bottom: float,
    bounds: tuple[float, float],
) -> list[str]:
    """A label at a point: with an arrow, the text's centre sits `ax`, `ay` px from the
    point (moved inside `bounds`, the picture's width and height, where that would leave
    it) and the arrow runs from the text's edge to it; without, the text is anchored at
    the point (`xanchor`, `yanchor`)."""
    text, size, color = annotation.text, annotation.size, annotation.color
    if annotation.xref != "x":
        raise UnsupportedFigure("annotation xref")
    x = x_px(annotation.x)
    y = _paper_or_data_y(annotation.y, annotation.yref, y_axis, top, bottom)
    width, height = text_width(text, size) + 4, size * 1.3 + 2
    parts = []
    if annotation.arrow:
        cx, cy = x + float(annotation.ax), y + float(annotation.ay)
        # Kept inside the picture: a label near an edge moves in, its arrow follows.
        cx = min(max(cx, width / 2), bounds[0] - width / 2)
        cy = min(max(cy, height / 2), bounds[1] - height / 2)
        left, box_top = cx - width / 2, cy - height / 2
        parts.append(_arrow(cx, cy, x, y, width, height, annotation.arrow_color))
    else:
        left = {"left": x, "right": x - width}.get(annotation.xanchor, x - width / 2)
        box_top = {"top": y, "bottom": y - height}.get(annotation.yanchor, y - height / 2)
    background = annotation.background
    if background:
        fill, opacity = _rgba(background)
        parts.append(
            f'<rect x="{_n(left)}" y="{_n(box_top)}" width="{_n(width)}" height="{_n(height)}" '
            f'fill="{fill}" fill-opacity="{opacity:g}"/>'
        )
    baseline = box_top + height / 2 + 0.35 * size
    parts.append(_text(left + 2, baseline, text, size, color))
    return parts


def _rgba(color: str) -> tuple[str, float]:
    """An ``rgba(r,g,b,a)`` colour as ``#rrggbb`` and an opacity (others as given, opaque)."""
    if color.startswith("rgba(") and color.endswith(")"):
        *rgb, alpha = (part.strip() for part in color[5:-1].split(","))
        return "#" + "".join(f"{int(float(c)):02x}" for c in rgb), float(alpha)
    return color, 1.0


def _arrow(
    cx: float, cy: float, x: float, y: float, width: float, height: float, color: str
) -> str:
    """A line from the edge of the text box centred at (cx, cy) to (x, y), with a filled
    head at (x, y) (Plotly's arrowhead 2)."""
    dx, dy = x - cx, y - cy
    length = math.hypot(dx, dy)
    if length == 0:
        return ""
    ux, uy = dx / length, dy / length
    # Leave the box where the line crosses its edge.
    scale = min(
        (width / 2) / abs(dx) if dx else math.inf, (height / 2) / abs(dy) if dy else math.inf
    )
    sx, sy = cx + dx * scale, cy + dy * scale
    if math.hypot(x - sx, y - sy) < 2:
        return ""
    head, half = 7.0, 3.5
    bx, by = x - ux * head, y - uy * head
    return (
        f'<path d="M{_n(sx)},{_n(sy)}L{_n(bx)},{_n(by)}" stroke="{color}" stroke-width="1.5"/>'
        f'<path d="M{_n(x)},{_n(y)}L{_n(bx - uy * half)},{_n(by + ux * half)}'
        f'L{_n(bx + uy * half)},{_n(by - ux * half)}Z" fill="{color}"/>'
    )
