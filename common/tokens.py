"""Secrets handed out once (API tokens, links that lift an account's lock): only their
digest is stored, so that a copy of the database cannot be used to sign in."""

import hashlib


def token_digest(token: str) -> str:
    """SHA-256 (hex) of a token: what is stored and looked up; the token itself never is.

    >>> token_digest("gtco_example")[:16]
    '7e20ca3c69da575e'
    """
    return hashlib.sha256(token.encode()).hexdigest()
