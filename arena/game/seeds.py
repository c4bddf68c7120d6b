"""Seeds derived from names, so that a game's cards never depend on the order of play."""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (a tournament seed, a table, a deal...), stable across runs
    and Python versions (unlike hash())."""
    text = "\x1f".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1
