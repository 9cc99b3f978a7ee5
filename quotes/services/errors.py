"""Exceptions the quote rules raise; their messages are shown to the user."""

from __future__ import annotations


class QuoteError(Exception):
    """A request the rules refuse; the message is shown to the user."""


class RevisionLocked(QuoteError):
    """The revision was sent: it can no longer change."""


class BuyerLinkInvalid(QuoteError):
    pass


class BuyerLinkExpired(BuyerLinkInvalid):
    pass


class TransientDeliveryError(Exception):
    """The SMTP server did not take the message this time; the task retries."""


class RateLimited(QuoteError):
    def __init__(self, message: str, *, challenge: bool = False) -> None:
        super().__init__(message)
        self.challenge = challenge  # a solved challenge would have let the request through
