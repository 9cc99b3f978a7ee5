"""Garbage-collector settings for a web process, applied once it has started.

A worker holds some 200,000 long-lived objects after start-up (Django, numpy, the
templates, the catalog). Python's full collections walk all of them: measured on a
result page, one full collection every few dozen requests stalled a worker for
100–300 ms, and the collector took 5.5 ms of every request on average. Freezing what
start-up created moves it out of the collector's sight (it is never garbage), and a
larger young generation lets one request's short-lived objects die between collections
instead of being promoted and walked again.
"""

from __future__ import annotations

import gc

YOUNG_GENERATION_THRESHOLD = 10_000  # Python's default is 700 allocations


def settle_after_startup() -> None:
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_GENERATION_THRESHOLD, middle, old)
