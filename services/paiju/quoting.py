"""Quoting what a caller sent in a refusal: a short prefix, never the whole input.

A refusal that echoed its input whole would send a 1 MB action straight back, in the status
message and its trailers, and gRPC would drop the answer for exceeding the metadata limit
(RESOURCE_EXHAUSTED about metadata size instead of the real reason). Every message that names
rejected input quotes it through :func:`quoted`.
"""

from __future__ import annotations

QUOTE_LIMIT = 32
"""Characters of rejected input a message quotes at most."""

ELLIPSIS = "…"


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value``'s text, quoted like ``repr``, cut so that what is between the quotes holds at
    most ``limit`` characters (a character ``repr`` escapes counts as its escape: up to ten).

    >>> quoted("raise 300")
    "'raise 300'"
    >>> quoted("x" * 100, limit=5)
    "'xxxxx'…"
    >>> quoted(42)
    "'42'"
    >>> quoted(chr(31) * 10, limit=9)  # each one an escape of four characters
    "'\\\\x1f\\\\x1f'…"
    """
    text = value if isinstance(value, str) else str(value)
    kept = min(len(text), limit)
    while len(repr(text[:kept])) - 2 > limit:
        kept -= 1
    return repr(text[:kept]) + ("" if kept == len(text) else ELLIPSIS)
