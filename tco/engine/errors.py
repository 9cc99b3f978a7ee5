"""Error types raised by the engine for inputs that cannot work.

Every message is written for the buyer reading it in the web form or the CLI:
it says what is wrong and, where possible, what to change.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class InvalidInput(EngineError, ValueError):
    """An input value is out of its allowed range.

    ``field`` names the offending input so that a form can attach the message
    to the right widget.

    >>> err = InvalidInput("pue", "PUE must be at least 1.0, got 0.9.")
    >>> err.field, str(err)
    ('pue', 'pue: PUE must be at least 1.0, got 0.9.')
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class DoesNotFit(EngineError):
    """The workload cannot fit in GPU memory with the chosen settings."""


class DeadlineInfeasible(EngineError):
    """No fleet within the engine's limits finishes the run by the deadline."""
