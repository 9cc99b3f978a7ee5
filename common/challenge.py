"""A small proof of work for public forms, solved by the visitor's browser unnoticed.

The form carries a challenge: a random value and a number of bits, signed with a
timestamp (so it cannot be forged and expires). static/js/site.js finds a proof while the
visitor types: the smallest counter n for which SHA-256("<challenge>:<n>") begins with
that many zero bits. A browser needs 2^bits hashes on average (16 bits: about 65,000,
well under a second), and so does a bot, for every request that needs one. The server
checks a proof with one hash, and takes each challenge once (`spend`).

This does not stop a determined attacker; it makes each request past a network's share
cost work, so a burst slows down instead of closing the form for everyone
(docs/security.md).
"""

from __future__ import annotations

import hashlib
import secrets

from django.core import signing

from common import throttle

SALT = "public-form-challenge"
MAX_AGE = 24 * 3600  # the lead form's own lifetime (quotes/forms.py)
MAX_PROOF_DIGITS = 12


def issue(bits: int) -> str:
    """A fresh signed challenge of `bits` bits."""
    return signing.TimestampSigner(salt=SALT).sign(f"{bits}.{secrets.token_hex(8)}")


def zero_bits(digest: bytes) -> int:
    """How many zero bits a digest begins with.

    >>> zero_bits(bytes([0, 0, 0b00010000]) + bytes(29)), zero_bits(bytes([0xFF]))
    (19, 0)
    """
    value = int.from_bytes(digest, "big")
    return len(digest) * 8 - value.bit_length()


def proof_digest(challenge: str, proof: str) -> bytes:
    return hashlib.sha256(f"{challenge}:{proof}".encode()).digest()


def bits_of(challenge: str) -> int | None:
    """The bits a genuine, unexpired challenge asks for; None for anything else."""
    try:
        value = signing.TimestampSigner(salt=SALT).unsign(challenge, max_age=MAX_AGE)
        return int(value.split(".", 1)[0])
    except (signing.BadSignature, ValueError):
        return None


def solved(challenge: str, proof: str) -> bool:
    """Whether `proof` solves a genuine, unexpired `challenge` (not whether it was used)."""
    bits = bits_of(challenge)
    if bits is None or not proof.isdigit() or len(proof) > MAX_PROOF_DIGITS:
        return False
    return zero_bits(proof_digest(challenge, proof)) >= bits


def spend(challenge: str) -> bool:
    """Take the challenge: True the first time, False when it was taken before (a proof
    solved once is not a pass for a thousand requests)."""
    return throttle.spend_once(f"challenge:{throttle.digest(challenge)}", MAX_AGE)
