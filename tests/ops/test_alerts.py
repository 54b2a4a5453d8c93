"""deploy/prometheus/alerts.yaml: promtool accepts it and its unit tests pass, every alert the
issue asks for is there, and every metric it reads is one the code defines."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import missing_tool
from tests.ops.promql import defined_series, promtool, series_used

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (comes with kubernetes-validate)")

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"
RULES = DEPLOY / "alerts.yaml"
RULE_TESTS = DEPLOY / "alerts_test.yaml"


def alerting_rules() -> list[dict[str, object]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def test_the_alerts_the_issue_asks_for_are_defined() -> None:
    names = {str(rule["alert"]) for rule in alerting_rules()}
    assert {
        "PaijuOutboxNotDraining",
        "PaijuDeadlineLagHigh",
        "PaijuRpcErrorRateHigh",
        "PaijuRpcLatencyP99High",
    } <= names


def test_every_alert_has_a_severity_a_summary_and_a_pending_period() -> None:
    for rule in alerting_rules():
        assert rule["labels"]["severity"] in {"warning", "critical"}, rule["alert"]  # type: ignore[index]
        assert rule["annotations"]["summary"], rule["alert"]  # type: ignore[index]
        assert str(rule["for"]).endswith("m"), rule["alert"]


SCRAPE_ALERTS = {"PaijuTargetDown", "PaijuMetricsAbsent"}
"""They read Prometheus's own ``up``: they watch the scraping that every other alert relies on."""


def test_the_scraping_itself_is_watched() -> None:
    rules = {str(rule["alert"]): str(rule["expr"]) for rule in alerting_rules()}
    assert SCRAPE_ALERTS <= set(rules)
    assert "absent(" in rules["PaijuMetricsAbsent"] and "== 0" in rules["PaijuTargetDown"]


def test_every_metric_an_alert_reads_is_defined_in_the_code() -> None:
    defined = defined_series()
    for rule in alerting_rules():
        if rule["alert"] in SCRAPE_ALERTS:
            continue
        used = series_used(str(rule["expr"]))
        assert used, f"{rule['alert']} reads no paiju metric"
        assert used <= defined, f"{rule['alert']} reads unknown {sorted(used - defined)}"


def test_every_alert_is_exercised_by_a_unit_test() -> None:
    tests = yaml.safe_load(RULE_TESTS.read_text())["tests"]
    exercised = {
        str(case["alertname"])
        for test in tests
        for case in test.get("alert_rule_test", [])
        if case["exp_alerts"]
    }
    critical = {str(r["alert"]) for r in alerting_rules() if r["labels"]["severity"] == "critical"}  # type: ignore[index]
    assert critical <= exercised, f"no firing test for {sorted(critical - exercised)}"


def run_promtool(*args: str) -> subprocess.CompletedProcess[str]:
    binary = promtool()
    if binary is None:
        missing_tool("promtool is not installed (Debian package `prometheus`)")
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=120, check=False)


def test_promtool_accepts_the_rules() -> None:
    result = run_promtool("check", "rules", str(RULES))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_alert_unit_tests_pass_under_promtool() -> None:
    result = run_promtool("test", "rules", str(RULE_TESTS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout
