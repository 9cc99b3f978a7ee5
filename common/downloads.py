"""The Content-Disposition header of a download, for any file name (RFC 6266).

A file name made from what a user typed (a scenario's name) may hold any character: sent
raw, a non-ASCII name was garbled by the HTTP layer and a 2 MB name made a 2 MB header.
The header carries a short ASCII `filename` for old clients and the full name, cut to
MAX_FILENAME_LENGTH characters, as UTF-8 in `filename*`.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

from django.http import HttpResponse

MAX_FILENAME_LENGTH = 100


def ascii_filename(filename: str) -> str:
    """The name in plain ASCII letters, digits and -_. (accents dropped, others as -).

    >>> ascii_filename("Überprüfung 7B.xlsx"), ascii_filename("算力.xlsx")
    ('Uberprufung-7B.xlsx', 'download.xlsx')
    """
    stem, dot, suffix = filename.rpartition(".")
    if not dot:
        stem, suffix = filename, ""
    plain = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in plain)
    safe = "-".join(part for part in safe.split("-") if part)[:MAX_FILENAME_LENGTH]
    suffix = "".join(ch for ch in suffix if ch.isascii() and ch.isalnum())[:10]
    return f"{safe or 'download'}{'.' + suffix if suffix else ''}"


def attachment(filename: str, *, inline: bool = False) -> str:
    """`attachment; filename="<ascii>"; filename*=UTF-8''<percent-encoded>`.

    >>> attachment("Kosten – 7B.xlsx")
    'attachment; filename="Kosten-7B.xlsx"; filename*=UTF-8\\'\\'Kosten%20%E2%80%93%207B.xlsx'
    """
    stem, dot, suffix = filename.rpartition(".")
    if not dot or len(suffix) > 10:
        stem, dot, suffix = filename, "", ""
    full = stem[: MAX_FILENAME_LENGTH - len(dot + suffix)] + dot + suffix
    kind = "inline" if inline else "attachment"
    return f"{kind}; filename=\"{ascii_filename(full)}\"; filename*=UTF-8''{quote(full, safe='')}"


def pdf_download(pdf: bytes | memoryview, *, filename: str, sha256: str) -> HttpResponse:
    """A stored PDF as a download, with its SHA-256 in a header so the buyer's and the
    team's copies can be checked against the one on record (proposals, signed copies)."""
    response = HttpResponse(bytes(pdf), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-SHA256"] = sha256
    return response
