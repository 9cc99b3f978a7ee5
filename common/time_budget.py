"""A time budget for one piece of work: a web request (config/middleware.py) or a
management command that imports a file (catalog/management/commands).

`OverTimeBudget` derives from `BaseException`, like `KeyboardInterrupt`, so that no
`except Exception` on the way (a file reader that turns any parser error into "not an
Excel workbook", a cache fallback) can swallow it: it always reaches the code that set the
budget, which answers 503 (a request) or stops with an error (a command).

The budget uses the process's real-time interval timer (SIGALRM), so it applies only on
the main thread: gunicorn's sync workers, management commands and the test client.
Elsewhere (threaded servers) the work runs without a budget.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management.base import CommandError

# Seconds between the timer's repeated shots once the budget is spent (see time_budget).
REPEAT_SECONDS = 0.2


class OverTimeBudget(BaseException):
    """Raised in work that ran past its time budget."""


def _over_budget(signum: int, frame: object) -> None:
    raise OverTimeBudget


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Raise `OverTimeBudget` in the enclosed work once it has run `seconds` (0: no budget).

    The timer and the previous SIGALRM handler are restored on the way out, however the
    work ends.
    """
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _over_budget) or signal.SIG_DFL
    # Past the budget the timer fires again every REPEAT_SECONDS: a signal handler's
    # exception that lands in a finalizer (`__del__`, run by the garbage collector at any
    # point of a parse) is printed and dropped by Python, so one shot alone can be lost.
    signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def command_time_budget(seconds: float) -> Iterator[None]:
    """A management command's budget: past it the command stops with a `CommandError`
    (exit status 1) instead of running on; an import inside it writes nothing, because
    its transaction rolls back on any exception."""
    try:
        with time_budget(seconds):
            yield
    except OverTimeBudget:
        raise CommandError(
            f"Stopped after {seconds:g} s (IMPORT_TIME_BUDGET_SECONDS); nothing was imported."
        ) from None
