"""What the root ``conftest.py`` checks around a run: no token issued while tests are collected,
nothing new left in the repository's root."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

from paiju.common.auth import TokenSigner

TOOL_CACHES = frozenset({".pytest_cache", ".hypothesis", ".ruff_cache"})
"""What pytest, hypothesis and ruff keep in the folder they run in (ignored by git)."""


class TokenAtCollectionError(RuntimeError):
    """A session token was issued at import or collection time."""


@contextmanager
def tokens_refused(reason: str) -> Iterator[None]:
    """Within the block ``TokenSigner.issue`` raises ``TokenAtCollectionError(reason)``."""
    issue = TokenSigner.issue

    def refuse(*_args: object, **_options: object) -> NoReturn:
        raise TokenAtCollectionError(reason)

    TokenSigner.issue = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        TokenSigner.issue = issue  # type: ignore[method-assign]


def root_entries(root: Path) -> frozenset[str]:
    """The names in ``root`` (a folder), tool caches aside."""
    return frozenset(entry.name for entry in root.iterdir()) - TOOL_CACHES


def new_entries_in(root: Path, before: frozenset[str]) -> list[str]:
    """The names in ``root`` that were not there ``before``, sorted."""
    return sorted(root_entries(root) - before)
