"""Publishes the image ``make image`` built and pins the prod overlay to it by digest.

    .venv/bin/python scripts/release.py REPOSITORY [--image paiju:latest] [--tag TAG]

``REPOSITORY`` is where the cluster pulls from (``registry.example.com/paiju``). The image is
pushed there as ``REPOSITORY:TAG`` (the commit by default); the registry's answer is the manifest's
digest, and ``k8s/overlays/prod/kustomization.yaml`` is rewritten to name the image by it
(``newName`` and ``digest``). A tag can be moved to another image; a digest cannot, so a
rollout, a rollback and every node's pull all get exactly the image that was tested. Commit the
change: the overlay in git is what runs. (``make release`` first takes the gRPC contract as
released, ``scripts/contract.py release``: commit ``protos/released.binpb`` with the overlay.)

Docker when its daemon answers, else Podman (with the project's settings for this kind of host).
A registry on loopback is spoken to without TLS, as Docker does.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROD = ROOT / "k8s" / "overlays" / "prod" / "kustomization.yaml"
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def engine() -> list[str]:
    if shutil.which("docker") and subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0:
        return ["docker"]
    if not shutil.which("podman"):
        raise SystemExit("release: no container engine (install Docker, or Podman and runc)")
    os.environ.setdefault("CONTAINERS_CONF", str(ROOT / "deploy" / "podman" / "containers.conf"))
    return ["podman"]


def on_loopback(repository: str) -> bool:
    host = repository.split("/", 1)[0].rsplit(":", 1)[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def push(image: str, repository: str, tag: str) -> str:
    """``image`` pushed as ``repository:tag``; the digest of the manifest the registry holds."""
    command = engine()
    target = f"{repository}:{tag}"
    if command[0] == "docker":
        subprocess.run([*command, "tag", image, target], check=True)
        subprocess.run([*command, "push", target], check=True)
        inspected = subprocess.run([*command, "image", "inspect", "--format", "{{join .RepoDigests \"\\n\"}}", target],
                                   check=True, capture_output=True, text=True).stdout
        digests = [line.split("@", 1)[1] for line in inspected.splitlines() if line.startswith(f"{repository}@")]
        if not digests:
            raise SystemExit(f"release: the registry gave no digest for {target}")
        return digests[0]
    with tempfile.TemporaryDirectory() as folder:
        digest_file = Path(folder) / "digest"
        subprocess.run([*command, "push", f"--tls-verify={str(not on_loopback(repository)).lower()}",
                        "--digestfile", str(digest_file), image, f"docker://{target}"], check=True)
        digest = digest_file.read_text().strip()
    if not DIGEST.fullmatch(digest):
        raise SystemExit(f"release: the registry answered {digest!r}, not a digest")
    return digest


def pin(kustomization: Path, repository: str, digest: str) -> None:
    """The ``paiju`` entry of ``images:`` rewritten to ``repository@digest``; every other line kept."""
    if not DIGEST.fullmatch(digest):
        raise ValueError(f"not a sha256 digest: {digest!r}")
    lines = kustomization.read_text().splitlines(keepends=True)
    try:
        start = next(i for i, line in enumerate(lines) if re.fullmatch(r"\s*- name: paiju\s*", line))
    except StopIteration:
        raise SystemExit(f"release: {kustomization} has no images entry named paiju") from None
    indent = lines[start].index("-") + 2
    end = start + 1
    while end < len(lines) and lines[end].startswith(" " * indent) and not lines[end].lstrip().startswith("- "):
        end += 1
    pinned = [f"{' ' * indent}newName: {repository}\n", f"{' ' * indent}digest: {digest}\n"]
    kustomization.write_text("".join([*lines[:start + 1], *pinned, *lines[end:]]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("repository", help="where the cluster pulls the image from, e.g. registry.example.com/paiju")
    parser.add_argument("--image", default="paiju:latest", help="the local image to publish (default paiju:latest)")
    parser.add_argument("--tag", default=None, help="the tag it is pushed under (default: the commit)")
    parser.add_argument("--overlay", type=Path, default=PROD, help="the kustomization to pin (default: prod's)")
    args = parser.parse_args(argv)
    tag = args.tag or subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                                     text=True, check=False).stdout.strip() or "dev"
    print(f"release: pushing {args.image} to {args.repository}:{tag} …", file=sys.stderr)
    digest = push(args.image, args.repository, tag)
    pin(args.overlay, args.repository, digest)
    print(f"release: {args.overlay} now runs {args.repository}@{digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
