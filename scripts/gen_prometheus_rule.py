"""Writes k8s/base/prometheus-rule.yaml: deploy/prometheus/alerts.yaml as the Prometheus
Operator's PrometheusRule, so a cluster loads the very rules promtool tests.

Run after changing the alerts: ``.venv/bin/python scripts/gen_prometheus_rule.py`` (a test fails
while the rule is stale).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yaml"
RULE = ROOT / "k8s" / "base" / "prometheus-rule.yaml"

HEADER = """\
# Made by scripts/gen_prometheus_rule.py from deploy/prometheus/alerts.yaml: edit that, not this.
# The Prometheus Operator loads these rules (its ruleSelector may need this label).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: paiju
  labels:
    paiju.io/alerts: "true"
spec:
"""


def rule_text() -> str:
    body = "".join(f"  {line}" if line.strip() else line for line in ALERTS.read_text().splitlines(keepends=True))
    return HEADER + body


def main() -> int:
    RULE.write_text(rule_text())
    print(f"wrote {RULE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
