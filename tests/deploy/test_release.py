"""A release pins the prod overlay to the image it pushed, by digest (``scripts/release.py``).

Pushed to a registry of the test's own on loopback (Debian's ``docker-registry``), then pulled
back by the digest the overlay names: the very image that was built comes back.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import missing_tool

ROOT = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("PAIJU_IMAGE", "paiju:latest")
REGISTRY = "/usr/bin/docker-registry"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


release = _load(ROOT / "scripts" / "release.py", "paiju_release")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[str]:
    """A registry on loopback, its storage in ``tmp_path``; its address."""
    if not Path(REGISTRY).exists():
        missing_tool("no registry to push to (apt-get install docker-registry)")
    if not (shutil.which("podman") or shutil.which("docker")):
        missing_tool("no container engine (apt-get install podman runc)")
    command = release.engine()
    if subprocess.run([*command, "image", "inspect", IMAGE], capture_output=True, check=False).returncode != 0:
        missing_tool(f"the image {IMAGE} is not built (make image)")
    port = _free_port()
    config = tmp_path / "registry.yml"
    config.write_text(f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {tmp_path / 'data'}\n"
                      f"http:\n  addr: 127.0.0.1:{port}\n")
    server = subprocess.Popen([REGISTRY, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)


def test_a_release_pins_the_prod_overlay_to_the_pushed_image_by_digest(registry: str, tmp_path: Path) -> None:
    k8s = tmp_path / "k8s"
    shutil.copytree(ROOT / "k8s", k8s)
    overlay = k8s / "overlays" / "prod" / "kustomization.yaml"
    repository = f"{registry}/paiju"
    assert release.main([repository, "--image", IMAGE, "--tag", "test", "--overlay", str(overlay)]) == 0
    rendered = subprocess.run(["kubectl", "kustomize", str(overlay.parent)], check=True, capture_output=True, text=True).stdout
    images = {line.split("image:", 1)[1].strip() for line in rendered.splitlines() if "image:" in line and "paiju" in line}
    (pinned,) = images
    assert pinned.startswith(f"{repository}@sha256:") and release.DIGEST.fullmatch(pinned.split("@")[1])
    command = release.engine()
    subprocess.run([*command, "rmi", "--force", f"{repository}:test"], capture_output=True, check=False)
    pull = [*command, "pull", "-q", *(["--tls-verify=false"] if command[0] == "podman" else []), pinned]
    pulled = subprocess.run(pull, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    built = subprocess.run([*command, "image", "inspect", IMAGE, "--format", "{{.Id}}"], check=True,
                           capture_output=True, text=True).stdout.strip()
    assert pulled.removeprefix("sha256:") == built.removeprefix("sha256:"), "the digest names the image built"


def test_pinning_rewrites_only_the_paiju_entry(tmp_path: Path) -> None:
    kustomization = tmp_path / "kustomization.yaml"
    kustomization.write_text("# a comment kept\nimages:\n  - name: paiju\n    newName: old/paiju\n    newTag: \"0.1.0\"\n"
                             "  - name: other\n    newTag: v2\nreplicas: []\n")
    digest = "sha256:" + "ab" * 32
    release.pin(kustomization, "registry.example.com/paiju", digest)
    assert kustomization.read_text() == (
        "# a comment kept\nimages:\n  - name: paiju\n    newName: registry.example.com/paiju\n"
        f"    digest: {digest}\n  - name: other\n    newTag: v2\nreplicas: []\n")
    with pytest.raises(ValueError):
        release.pin(kustomization, "registry.example.com/paiju", "sha256:short")
