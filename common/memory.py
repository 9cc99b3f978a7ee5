"""Garbage-collector settings for a long-running process, applied once it has started.

A web worker holds some 200,000 long-lived objects after start-up (Django, numpy, the
templates, the catalog). Python's full collections walk all of them: measured on a
result page, one full collection every few dozen requests stalled a worker for
100–300 ms, and the collector took 5.5 ms of every request on average. Freezing what
start-up created moves it out of the collector's sight (it is never garbage), and a
larger young generation lets one request's short-lived objects die between collections
instead of being promoted and walked again.
"""

from __future__ import annotations

import gc

# (young, middle, old) generation thresholds; Python's defaults are (700, 10, 10).
WEB_THRESHOLDS = (10_000, 10, 10)
# WeasyPrint allocates millions of short-lived objects per proposal, and the default
# spent ~20 % of a render's CPU in the collector (0.77 s instead of 0.95 s a proposal).
RENDERING_THRESHOLDS = (100_000, 20, 20)


def settle_after_startup(thresholds: tuple[int, int, int] = WEB_THRESHOLDS) -> None:
    """Freeze what start-up created and set the collector's thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
