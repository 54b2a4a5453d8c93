"""deploy/grafana/*.json: valid dashboards whose every query is PromQL promtool accepts and
reads only metrics the code defines, with panels that do not overlap."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import missing_tool
from tests.ops.promql import defined_series, promtool, series_used

GRAFANA = Path(__file__).resolve().parents[2] / "deploy" / "grafana"
DASHBOARDS = sorted(GRAFANA.glob("*.json"))
VARIABLES = {"$namespace": ".*", "${namespace}": ".*"}


def panels(dashboard: dict[str, object]) -> list[dict[str, object]]:
    return list(dashboard["panels"])  # type: ignore[call-overload]


def queries(dashboard: dict[str, object]) -> list[str]:
    return [str(t["expr"]) for p in panels(dashboard) for t in p.get("targets", [])]  # type: ignore[attr-defined]


@pytest.fixture(params=DASHBOARDS, ids=[path.name for path in DASHBOARDS])
def dashboard(request: pytest.FixtureRequest) -> dict[str, object]:
    return dict(json.loads(request.param.read_text()))


def test_there_is_a_dashboard() -> None:
    assert DASHBOARDS


def test_panels_have_unique_ids_and_do_not_overlap(dashboard: dict[str, object]) -> None:
    ids = [p["id"] for p in panels(dashboard)]
    assert len(ids) == len(set(ids))
    taken: set[tuple[int, int]] = set()
    for panel in panels(dashboard):
        grid = panel["gridPos"]
        assert 0 <= grid["x"] and grid["x"] + grid["w"] <= 24, panel["title"]  # type: ignore[index]
        cells = {
            (x, y)
            for x in range(grid["x"], grid["x"] + grid["w"])  # type: ignore[index]
            for y in range(grid["y"], grid["y"] + grid["h"])  # type: ignore[index]
        }
        assert not cells & taken, f"{panel['title']} overlaps another panel"
        taken |= cells


def test_every_query_reads_metrics_the_code_defines(dashboard: dict[str, object]) -> None:
    defined = defined_series()
    used: set[str] = set()
    for expression in queries(dashboard):
        names = series_used(expression)
        assert names, f"query reads no paiju metric: {expression}"
        assert names <= defined, f"unknown {sorted(names - defined)} in {expression}"
        used |= names
    families = {name.removesuffix("_bucket").removesuffix("_count").removesuffix("_sum") for name in used}
    undisplayed = {n for n in defined if not any(n.startswith(f) for f in families)}
    assert not undisplayed, f"metrics with no panel: {sorted(undisplayed)}"


def test_every_query_is_promql_that_promtool_accepts(
    dashboard: dict[str, object], tmp_path: Path
) -> None:
    binary = promtool()
    if binary is None:
        missing_tool("promtool is not installed (Debian package `prometheus`)")
    rules = []
    for number, expression in enumerate(queries(dashboard)):
        for variable, value in VARIABLES.items():
            expression = expression.replace(variable, value)
        rules.append({"record": f"dashboard:query_{number}", "expr": expression})
    rule_file = tmp_path / "queries.json"  # promtool reads JSON as YAML
    rule_file.write_text(json.dumps({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = subprocess.run(
        [binary, "check", "rules", str(rule_file)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
