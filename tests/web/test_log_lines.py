"""Every event docs/views-and-events.md lists has a line in the table's log, or is quiet for a
stated reason (web/src/log_lines.ts): a 炒地皮 rob once changed trump while the log showed only
passes, because ``robbed`` had no line."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "views-and-events.md"
LOG_LINES = ROOT / "web" / "src" / "log_lines.ts"
LABELS = ROOT / "web" / "src" / "labels.ts"


def documented_events() -> set[str]:
    """The event types in the first column of every events table of the doc."""
    text = DOC.read_text()
    sections = re.split(r"\n#{2,3} ", text)
    events: set[str] = set()
    for section in sections:
        if not section.startswith(("Events", "Table events")):
            continue
        for line in section.splitlines():
            if line.startswith("| `"):
                events.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return events


def documented_stood_reasons() -> set[str]:
    """The reasons the doc's ``stood`` row lists."""
    row = next(line for line in DOC.read_text().splitlines() if line.startswith("| `stood` |"))
    return set(re.findall(r"`([a-z_]+)`", row.split("|")[2].split("(", 1)[1]))


def keys_of(constant: str, source_file: Path = LOG_LINES, exported: bool = True) -> set[str]:
    """The keys of ``[export ]const <constant>: Record<…> = { … };`` in a source file (log_lines.ts)."""
    source = source_file.read_text()
    body = source.split(f"{'export ' if exported else ''}const {constant}:", 1)[1].split("\n};", 1)[0]
    return set(re.findall(r"^  ([a-z_]+):", body, flags=re.MULTILINE))


def test_every_documented_event_is_logged_or_quiet_for_a_reason() -> None:
    events = documented_events()
    assert {"robbed", "folded", "stood", "hand_started", "reveal"} <= events, "the doc's tables were not read"
    logged, quiet = keys_of("LOG_LINES"), keys_of("QUIET")
    assert events - logged - quiet == set()
    assert (logged | quiet) - events == set(), "a line for an event the doc does not list"


def test_every_documented_reason_a_player_is_stood_up_for_has_a_log_line_and_a_label() -> None:
    reasons = documented_stood_reasons()
    assert {"left", "not_ready", "table_ended"} <= reasons, "the doc's stood row was not read"
    assert keys_of("STOOD_WHY", exported=False) == reasons
    assert keys_of("STAND_REASONS", LABELS) == reasons
