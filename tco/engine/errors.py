"""Error types raised by the engine for inputs that cannot work.

Every message is written for the buyer reading it in the web form or the CLI:
it says what is wrong and, where possible, what to change.
"""

from __future__ import annotations

from tco.engine.notes import Note


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


class NoCompliantOption(InvalidInput):
    """No option meets the buyer's terms. ``site``: the ``placed_elsewhere`` warning when
    the owned fleet left the buyer's site (often why owning breaks the terms: a fleet
    beyond a server room's assumed power, taken to a colocation, is off the premises).

    The message (the API's and the command line's) ends with the move when there is one:

    >>> err = NoCompliantOption()
    >>> err.field, err.site, err.message
    ('constraints', None, 'No option meets the constraints.')
    >>> NoCompliantOption(Note("placed_elsewhere", message="Moved.")).message
    'No option meets the constraints. Moved.'
    """

    def __init__(self, site: Note | None = None) -> None:
        said = "No option meets the constraints."
        super().__init__("constraints", f"{said} {site.text}" if site is not None else said)
        self.site = site


class _CodedError(EngineError):
    """An engine error that also carries a code and parameters for the Django layer to word.

    >>> err = DoesNotFit("Too big.", code="does_not_fit", params={"needed_gb": 109.9})
    >>> str(err), err.code, err.params
    ('Too big.', 'does_not_fit', {'needed_gb': 109.9})
    """

    default_code = "engine_error"

    def __init__(
        self, message: str, *, code: str | None = None, params: dict[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code or self.default_code
        self.params: dict[str, object] = dict(params or {})


class DoesNotFit(_CodedError):
    """The workload cannot fit in GPU memory with the chosen settings."""

    default_code = "does_not_fit"


class DeadlineInfeasible(_CodedError):
    """No fleet within the engine's limits finishes the run by the deadline."""

    default_code = "deadline_infeasible"
