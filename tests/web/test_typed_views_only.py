"""The web client reads views and events as typed messages only (``TableView.state``,
``Event.typed``, ``ReplayStep.state``), through the generated types, so that tsc checks every
field it reads against the contract: no source of ``web/src`` asks for the JSON form or reads the
JSON text (``viewJson``, ``payloadJson``), which no type checks."""

from __future__ import annotations

import re
from pathlib import Path

WEB_SOURCES = Path(__file__).resolve().parents[2] / "web" / "src"
GENERATED = WEB_SOURCES / "gen"

# What reading the JSON form takes: asking for it, or reading its text.
JSON_FORM = re.compile(r"ViewFormat\.JSON\b|VIEW_FORMAT_JSON|\bviewJson\b|\bpayloadJson\b|\bview_json\b|\bpayload_json\b")


def client_sources() -> list[Path]:
    """The client's own sources (its tests included), not the generated stubs."""
    return [path for path in sorted(WEB_SOURCES.rglob("*.ts*")) if GENERATED not in path.parents]


def test_the_pattern_finds_the_json_form_where_the_stubs_declare_it() -> None:
    stubs = (GENERATED / "paiju" / "v1" / "table_pb.ts").read_text()
    assert JSON_FORM.search(stubs), "the generated TableView no longer has viewJson: update this test"
    assert len(client_sources()) > 20, "the client's sources were not found"


def test_no_web_source_asks_for_or_reads_json_views_or_events() -> None:
    found = [
        f"{path.relative_to(WEB_SOURCES)}:{number}: {line.strip()}"
        for path in client_sources()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if JSON_FORM.search(line)
    ]
    assert found == []
