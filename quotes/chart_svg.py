"""Chart SVGs made cheaper for WeasyPrint to draw, without changing what they show.

Plotly writes every element's presentation as a ``style`` attribute and leaves ~150 empty
``<g>`` layers per chart. WeasyPrint parses each ``style`` with tinycss2 while drawing
(~1,000 parses a proposal) and saves/restores the graphics state for every ``<g>``; the
charts were ~20 % of a proposal's render time. The same pixels come from:

- the ``style`` declarations as presentation attributes: WeasyPrint's SVG cascade lets a
  style declaration override the element's attribute of the same name and then inherits
  both alike, so writing the declaration into the attribute is the same cascade. Parsed
  with tinycss2 as WeasyPrint does, once per distinct string (a chart repeats a few dozen);
- no empty ``<g>`` (nothing inside: it draws nothing);
- no ``<g>`` whose only attribute is ``class`` (~100 a chart, Plotly's layers and its
  ``<g class="point">`` around every bar): its children take its place. It sets nothing
  that is drawn or inherited (a class matters only to a ``<style>``), and WeasyPrint would
  save and restore the graphics state around it;
- no ``<path>`` that draws nothing: without ``d``, or only a point (``M0,0Z``: Plotly's bar
  of zero height, five a bar chart) with no stroke of its own (``stroke-width`` 0 or
  ``stroke`` none), unless it has an ``id`` or the SVG uses markers;
- ``rgb(r, g, b)`` colours (integers) as ``#rrggbb``, the same colour: WeasyPrint parses
  each colour again whenever it draws (~450 a proposal), and a hex colour is one token.

Only for SVGs without a ``<style>`` element (whose rules would sit between attributes and
``style`` in the cascade); on anything unexpected the SVG is returned unchanged.
"""

from __future__ import annotations

import functools
import logging
import re
import xml.etree.ElementTree as ET

import tinycss2

logger = logging.getLogger(__name__)

SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
POINT = re.compile(r"M\s*-?[\d.]+\s*[, ]\s*-?[\d.]+\s*Z", re.IGNORECASE)
RGB = re.compile(r"rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)")


def _hex_colour(value: str) -> str:
    match = RGB.fullmatch(value)
    if match is None or any(int(part) > 255 for part in match.groups()):
        return value
    return "#" + "".join(f"{int(part):02x}" for part in match.groups())


@functools.lru_cache(maxsize=2048)
def _declarations(style: str) -> tuple[tuple[str, str], ...] | None:
    """The declarations of a style attribute as WeasyPrint reads them (svg/css.py
    parse_declarations), or None when one is !important (kept as a style)."""
    declarations = []
    for declaration in tinycss2.parse_blocks_contents(style):
        if declaration.type != "declaration" or declaration.name.startswith("-"):
            continue
        if declaration.important:
            return None
        declarations.append((declaration.lower_name, tinycss2.serialize(declaration.value).strip()))
    return tuple(declarations)


def _draws_nothing(path: ET.Element) -> bool:
    if "id" in path.attrib:
        return False
    d = path.get("d", "").strip()
    unstroked = path.get("stroke-width") in ("0", "0px") or path.get("stroke") == "none"
    return not d or (POINT.fullmatch(d) is not None and unstroked)


def _tidy(element: ET.Element, markers: bool) -> None:
    children = []
    for child in element:
        _tidy(child, markers)
        empty = len(child) == 0 and not (child.text or "").strip()
        if child.tag == f"{{{SVG_NS}}}g" and empty and "id" not in child.attrib:
            continue
        if child.tag == f"{{{SVG_NS}}}g" and set(child.attrib) <= {"class"} and not empty:
            children.extend(child)  # its children in its place, in the same order
            continue
        if child.tag == f"{{{SVG_NS}}}path" and not markers and _draws_nothing(child):
            continue
        children.append(child)
    element[:] = children
    style = element.attrib.get("style")
    if style is not None:
        declarations = _declarations(style)
        if declarations is not None:
            del element.attrib["style"]
            for name, value in declarations:
                element.set(name, value)
    for name, value in element.attrib.items():
        if value.startswith("rgb("):
            element.set(name, _hex_colour(value))


def tidy_chart_svg(svg: bytes) -> bytes:
    """The chart with styles as attributes, without empty or class-only groups and paths
    that draw nothing (see module doc)."""
    try:
        root = ET.fromstring(svg)
        if root.tag != f"{{{SVG_NS}}}svg" or root.find(f".//{{{SVG_NS}}}style") is not None:
            return svg
        # marker-* properties are inherited: a point path could carry one from a group
        markers = any(name.startswith("marker") for el in root.iter() for name in el.attrib)
        _tidy(root, markers)
        return ET.tostring(root, encoding="utf-8", xml_declaration=False)
    except (ET.ParseError, ValueError):
        logger.warning("chart SVG left as it was: could not tidy it", exc_info=True)
        return svg
