"""Chart SVGs are tidied for WeasyPrint without changing what they draw (quotes/chart_svg.py),
and a rendering process keeps one font configuration."""

from __future__ import annotations

import threading
import xml.etree.ElementTree as ET

from quotes import pdf
from quotes.chart_svg import SVG_NS, tidy_chart_svg

PLOTLY_LIKE = (
    b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    b'width="900" height="440" style="">'
    b'<g class="bglayer"/><g class="layer-below"><g class="imagelayer"/></g>'
    b'<g class="gridlayer"><path d="M0,48v296" stroke="red" '
    b'style="stroke: rgb(235, 240, 248); stroke-opacity: 1; stroke-width: 1px;"/></g>'
    b'<text x="10" y="20" style="font-family: \'Open Sans\', verdana, sans-serif; '
    b'font-size: 12px; fill: rgba(42, 63, 95, 0.5);">1.000 &lt;&#8364;&gt;</text>'
    b'<g id="kept-for-use"/></svg>'
)


def _q(tag: str) -> str:
    return f"{{{SVG_NS}}}{tag}"


def test_styles_become_attributes_that_win_over_the_old_ones() -> None:
    root = ET.fromstring(tidy_chart_svg(PLOTLY_LIKE))
    path = root.find(f".//{_q('path')}")
    assert path is not None and "style" not in path.attrib
    assert path.get("stroke") == "#ebf0f8"  # the style's colour, not the attribute's "red"
    assert path.get("stroke-width") == "1px"
    text = root.find(_q("text"))
    assert text is not None
    # serialised as WeasyPrint serialises a style's value (it reads the same families)
    assert text.get("font-family") == '"Open Sans", verdana, sans-serif'
    assert text.get("fill") == "rgba(42, 63, 95, 0.5)"  # with alpha: left as written
    assert text.text == "1.000 <€>"


def test_empty_groups_go_unless_they_have_an_id() -> None:
    root = ET.fromstring(tidy_chart_svg(PLOTLY_LIKE))
    groups = root.findall(f".//{_q('g')}")
    # (the gridlayer, not empty, has only a class: its path takes its place)
    assert [g.get("class") or g.get("id") for g in groups] == ["kept-for-use"]


BARS = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="440">'
    b'<g class="barlayer"><g class="trace bars" opacity="1"><g class="points">'
    b'<g class="point"><path d="M16.16,288.84V85.55H145.44V288.84Z" stroke-width="0px" '
    b'fill="#0072b2"/></g>'
    b'<g class="point"><path d="M0,0Z" stroke-width="0px" fill="#0072b2"/></g>'
    b'<g class="point"><path d="M5,5Z" stroke="none" fill="#0072b2"/></g>'
    b'<g class="point"><path d="M5,5Z" stroke="#000" stroke-width="2" '
    b'stroke-linecap="round"/></g>'
    b'<path d="M1,1Z" id="referenced"/><path class="xlines-below"/>'
    b"</g></g></g>"
    b'<g class="axes" transform="translate(84,0)"><text x="0" y="357">12</text></g></svg>'
)


def test_class_only_groups_give_way_to_their_children_in_order() -> None:
    root = ET.fromstring(tidy_chart_svg(BARS))
    # only the group with an opacity is left; the layers and the points are gone
    assert [g.get("class") for g in root.iter(_q("g"))] == ["trace bars", "axes"]
    trace = root.find(_q("g"))
    assert trace is not None and trace.get("opacity") == "1"
    assert [p.get("d") for p in trace] == [
        "M16.16,288.84V85.55H145.44V288.84Z",
        "M5,5Z",  # a point with a round cap of width 2 draws a dot
        "M1,1Z",  # another element may use it
    ]
    axes = root.find(f"{_q('g')}[@class='axes']")
    assert axes is not None and axes.get("transform") == "translate(84,0)"


def test_paths_that_draw_nothing_stay_when_the_svg_uses_markers() -> None:
    marked = BARS.replace(b'<g class="barlayer">', b'<g class="barlayer" marker-mid="url(#m)">')
    root = ET.fromstring(tidy_chart_svg(marked))
    assert len(root.findall(f".//{_q('path')}")) == 6


def test_an_important_style_or_a_stylesheet_is_left_alone() -> None:
    important = PLOTLY_LIKE.replace(b"stroke-width: 1px;", b"stroke-width: 1px !important;")
    assert b'style="stroke: rgb(235' in tidy_chart_svg(important)
    styled = PLOTLY_LIKE.replace(b"<g class", b"<style>path { stroke: blue }</style><g class", 1)
    assert tidy_chart_svg(styled) == styled


def test_what_is_not_an_svg_comes_back_unchanged() -> None:
    for data in (b"not xml", b"<html><body/></html>"):
        assert tidy_chart_svg(data) == data


def test_one_font_configuration_per_thread() -> None:
    first = pdf.font_config()
    assert pdf.font_config() is first
    other: list[object] = []
    thread = threading.Thread(target=lambda: other.append(pdf.font_config()))
    thread.start()
    thread.join()
    assert other and other[0] is not first
