"""Render a kustomization with a real kustomize (``kubectl kustomize`` or ``kustomize build``)
and validate objects offline against the Kubernetes schemas bundled by kubernetes-validate."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import missing_tool

REPO = Path(__file__).resolve().parents[2]
K8S = REPO / "k8s"
KUBERNETES_VERSION = "1.30.0"
"""The oldest cluster we support: gRPC probes are GA from 1.27, PodDisruptionBudget v1 long before."""


def kustomize_command() -> list[str] | None:
    """How to run kustomize here: ``kustomize build`` or ``kubectl kustomize``, else ``None``."""
    if (standalone := shutil.which("kustomize")) is not None:
        return [standalone, "build"]
    if (kubectl := shutil.which("kubectl")) is not None:
        return [kubectl, "kustomize"]
    return None


def render(directory: Path) -> list[dict[str, Any]]:
    """Every object ``directory``'s kustomization builds (skips the test without kustomize)."""
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (comes with kubernetes-validate)")
    command = kustomize_command()
    if command is None:
        missing_tool("no kustomize here: install `kustomize` or `kubectl` to build k8s/ overlays")
    result = subprocess.run(
        [*command, str(directory)], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, f"kustomize failed on {directory}:\n{result.stderr}"
    return [document for document in yaml.safe_load_all(result.stdout) if document]


def validator() -> Any:
    """The ``kubernetes_validate`` module (skips the test when it is not installed)."""
    return pytest.importorskip(
        "kubernetes_validate", reason="kubernetes-validate is not installed (pip install kubernetes-validate)"
    )


def named(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    """The objects of ``kind`` by name."""
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def containers(objects: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(Deployment, container) for every container of every Deployment."""
    for deployment in named(objects, "Deployment").values():
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            yield deployment, container


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """Whether a label selector (matchLabels / matchExpressions, or a bare map) picks ``labels``."""
    match_labels = selector.get("matchLabels", {} if "matchExpressions" in selector else selector)
    if any(labels.get(key) != value for key, value in match_labels.items()):
        return False
    for expression in selector.get("matchExpressions", []):
        value, operator = labels.get(expression["key"]), expression["operator"]
        if operator == "In" and value not in expression["values"]:
            return False
        if operator == "NotIn" and value in expression["values"]:
            return False
        if operator == "Exists" and value is None:
            return False
        if operator == "DoesNotExist" and value is not None:
            return False
    return True
