"""What the dashboard and alert tests share: the metric names the code defines, the ones a
PromQL expression uses, and where promtool is."""

from __future__ import annotations

import re
import shutil

from prometheus_client import CollectorRegistry

from paiju.common.metrics import PaijuMetrics

_IDENTIFIER = re.compile(r"\bpaiju_[a-z0-9_]+\b")
_SUFFIXES = {
    "histogram": ("_bucket", "_count", "_sum"),
    "counter": ("_total",),
    "gauge": ("",),
}


def defined_series() -> set[str]:
    """Every series name ``PaijuMetrics`` exposes (``_bucket``, ``_count``, ``_total`` ...)."""
    names: set[str] = set()
    for family in PaijuMetrics(CollectorRegistry()).registry.collect():
        names.update(family.name + suffix for suffix in _SUFFIXES[family.type])
    return names


def series_used(expression: str) -> set[str]:
    """The ``paiju_*`` names a PromQL expression reads.

    >>> sorted(series_used('rate(paiju_a_total[5m]) / paiju_b{x="paiju_not_a_name"}'))
    ['paiju_a_total', 'paiju_b']
    """
    without_strings = re.sub(r'"[^"]*"', '""', expression)
    return set(_IDENTIFIER.findall(without_strings))


def promtool() -> str | None:
    """The promtool binary (Debian package ``prometheus``), or ``None``."""
    return shutil.which("promtool")
