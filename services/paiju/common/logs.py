"""Structured logs: one JSON object per line, carrying the table, hand and player ids in scope.

``configure_logging`` sets up the root logger once per process; ``log_context`` binds ids for
everything logged inside it (threads and gRPC calls each see their own, through contextvars)::

    configure_logging("INFO")
    with log_context(table_id="t-17", hand_id="h-3"):
        log.info("hand started")     # {"ts": ..., "level": "INFO", ..., "table_id": "t-17", ...}

Only the standard library's ``logging`` is used. ``extra=`` fields of a call are kept too.

>>> import io, json, logging
>>> stream = io.StringIO()
>>> handler = configure_logging("INFO", stream=stream)
>>> with log_context(table_id="t-1", player_id="p-9"):
...     logging.getLogger("paiju.demo").info("seated %s", "p-9")
>>> line = json.loads(stream.getvalue())
>>> line["message"], line["table_id"], line["player_id"], "hand_id" in line
('seated p-9', 't-1', 'p-9', False)
>>> logging.getLogger().removeHandler(handler)
>>> configure_logging("LOUD")
Traceback (most recent call last):
...
ValueError: unknown log level 'LOUD' (one of CRITICAL, ERROR, WARNING, INFO, DEBUG)
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

CONTEXT_KEYS: tuple[str, ...] = ("table_id", "hand_id", "player_id")
"""Ids that may be bound to the log context; ``bind_log_context`` refuses any other name."""
LEVELS: tuple[str, ...] = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")

_context: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "paiju_log_context", default=None
)
_HANDLER_MARK = "_paiju_handler"
# Attributes every LogRecord has; anything else on a record came from ``extra=``.
_STANDARD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "taskName",
}


def current_log_context() -> dict[str, str]:
    """The ids bound in this context, e.g. ``{"table_id": "t-1"}``.

    >>> current_log_context()
    {}
    """
    return dict(_context.get() or {})


def bind_log_context(**ids: str | None) -> contextvars.Token[Mapping[str, str] | None]:
    """Bind ids (``None`` unbinds one) until ``reset_log_context`` with the returned token.

    Prefer ``log_context`` (a ``with`` block) unless binding and unbinding happen apart.
    """
    unknown = sorted(set(ids) - set(CONTEXT_KEYS))
    if unknown:
        raise ValueError(f"cannot bind {unknown} to the log context; known: {list(CONTEXT_KEYS)}")
    merged = dict(_context.get() or {})
    for key, value in ids.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = str(value)
    return _context.set(merged)


def reset_log_context(token: contextvars.Token[Mapping[str, str] | None]) -> None:
    """Undo the ``bind_log_context`` call that returned ``token``."""
    _context.reset(token)


@contextmanager
def log_context(**ids: str | None) -> Iterator[dict[str, str]]:
    """Bind ids for the ``with`` block (nested blocks add to the outer ones)."""
    token = bind_log_context(**ids)
    try:
        yield current_log_context()
    finally:
        reset_log_context(token)


class ContextFilter(logging.Filter):
    """Copies the bound ids onto each record (as attributes), so any formatter can show them."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in (_context.get() or {}).items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts, level, logger, message, bound ids, ``extra=`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": _iso_time(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRIBUTES and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """Human-readable lines for a terminal, with the bound ids after the message."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        ids = " ".join(f"{key}={getattr(record, key)}" for key in CONTEXT_KEYS if hasattr(record, key))
        line = super().format(record)
        return f"{line} [{ids}]" if ids else line


def configure_logging(
    level: str | int = "INFO", *, json: bool = True, stream: TextIO | None = None
) -> logging.Handler:
    """Send the root logger's records to ``stream`` (stderr) as JSON lines (or text).

    Calling it again replaces the handler it installed before; other handlers are left alone.
    """
    resolved = _level(level)
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if json else TextFormatter())
    handler.addFilter(ContextFilter())
    setattr(handler, _HANDLER_MARK, True)
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _HANDLER_MARK, False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(resolved)
    return handler


def current_logging() -> tuple[int, bool] | None:
    """The level and the form (``True``: JSON lines) that :func:`configure_logging` last set up
    in this process, or None: what a process started with ``spawn`` needs to log alike, since
    it begins with none of this process's logging.

    >>> import io
    >>> handler = configure_logging("INFO", json=False, stream=io.StringIO())
    >>> current_logging() == (logging.INFO, False)
    True
    >>> logging.getLogger().removeHandler(handler)
    >>> current_logging() is None
    True
    """
    root = logging.getLogger()
    for handler in root.handlers:
        if getattr(handler, _HANDLER_MARK, False):
            return root.level, isinstance(handler.formatter, JsonFormatter)
    return None


def _level(level: str | int) -> int:
    if isinstance(level, int):
        return level
    name = level.strip().upper()
    if name not in LEVELS:
        raise ValueError(f"unknown log level {level!r} (one of {', '.join(LEVELS)})")
    return logging.getLevelNamesMapping()[name]


def _iso_time(created: float) -> str:
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created))
    return f"{seconds}.{int(created % 1 * 1000):03d}Z"
