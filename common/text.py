"""Text from visitors made safe for one-line places (email subjects, headers)."""

from __future__ import annotations

import re

_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def one_line(text: str) -> str:
    """`text` on one line: control characters and line breaks become single spaces.

    What a visitor typed into a one-line field (a buyer's name and role) can still hold a
    CR or LF (form fields may, for text areas); in an email's subject that made the
    message undeliverable. Headers get names through this.

    >>> one_line("Jan\\r\\nBcc: x@evil.example"), one_line("  Anna \\t de  Vries ")
    ('Jan Bcc: x@evil.example', 'Anna de Vries')
    """
    return " ".join(_LINE_BREAKS.sub(" ", text).split())
