"""Text widths in DejaVu Sans, the font the proposal PDF draws its charts' text in.

Advance widths in font units (2,048 to the em) read from DejaVuSans.ttf (DejaVu fonts
2.37, Debian's fonts-dejavu-core) with fontTools, for U+0020-U+00FF and the few other
characters the charts' labels use. WeasyPrint draws SVG text letter by letter at these
advances (no kerning), so a label's width computed here is the width it is drawn at;
the chart layout (tco/presentation/chart_svg.py) places and right-aligns text with it.
"""

from __future__ import annotations

UNITS_PER_EM = 2048
ASCENT = 1901 / UNITS_PER_EM
DESCENT = 483 / UNITS_PER_EM

# U+0020 (space) … U+00FF (ÿ); 0 marks the C1 control characters, which are never drawn.
_LATIN1 = (
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087,
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612,
    1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024,
    1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253,
    1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    651, 821, 1303, 1303, 1303, 1303, 690, 1024, 1024, 2048, 965, 1253, 1716, 739, 2048, 1024,
    1024, 1716, 821, 821, 1024, 1303, 1303, 651, 1024, 821, 965, 1253, 1985, 1985, 1985, 1087,
    1401, 1401, 1401, 1401, 1401, 1401, 1995, 1430, 1294, 1294, 1294, 1294, 604, 604, 604, 604,
    1587, 1532, 1612, 1612, 1612, 1612, 1612, 1716, 1612, 1499, 1499, 1499, 1499, 1251, 1239, 1290,
    1255, 1255, 1255, 1255, 1255, 1255, 2011, 1126, 1260, 1260, 1260, 1260, 569, 569, 569, 569,
    1253, 1298, 1253, 1253, 1253, 1253, 1253, 1716, 1253, 1298, 1298, 1298, 1298, 1212, 1300, 1212,
)  # fmt: skip
_OTHER = {
    "€": 1303, "−": 1716, "–": 1024, "—": 2048, "…": 2048, "‘": 651, "’": 651, "“": 1061,
    "”": 1061, "₂": 821, "→": 1716,
}  # fmt: skip
# Anything else (a customer's product name in another script): about an average letter.
_FALLBACK = 1303


def advance(char: str) -> int:
    """The advance width of one character, in font units."""
    code = ord(char)
    if 0x20 <= code <= 0xFF:
        return _LATIN1[code - 0x20]
    return _OTHER.get(char, _FALLBACK)


def text_width(text: str, size: float) -> float:
    """Width of `text` drawn at font size `size` (px), in px."""
    return sum(advance(char) for char in text) * size / UNITS_PER_EM
