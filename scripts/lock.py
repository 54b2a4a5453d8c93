"""Writes ``deploy/requirements.lock``: the image's dependencies at exact versions, with hashes.

Two builds of one commit then install the same files (``pip install --require-hashes``). The
lock holds what ``pyproject.toml``'s ``dependencies`` resolve to — the server's, not the
``embedded`` emulation's nor the tests' — and the tools that build Paiju, for CPython 3.11 on Linux x86_64, the image's
platform. Its first line records a digest of those dependencies, so a test can tell when the
lock is older than ``pyproject.toml``.

Run after changing the dependencies: ``.venv/bin/python scripts/lock.py`` (it asks the package
index, as any install does).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "deploy" / "requirements.lock"
DIGEST_PREFIX = "# dependencies digest: "
BUILD_TOOLS = ("setuptools>=68", "wheel")
"""Locked too, so that Paiju itself builds in the image without reaching the package index."""
OLDER_PYTHON = ("async-timeout>=4.0.3",)
"""What the dependencies need on a Python before 3.11.3 (redis-py's markers), as on Debian
bookworm's 3.11.2: the lock is resolved by this Python, which may be newer."""


def server_dependencies(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """What the image installs: the client's dependencies and the ``server`` extra's."""
    project = tomllib.loads(pyproject.read_text())["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["server"]]


def dependencies_digest(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """A digest of what the image installs, in the order written."""
    dependencies = server_dependencies(pyproject)
    return hashlib.sha256("\n".join([*dependencies, *BUILD_TOOLS, *OLDER_PYTHON]).encode()).hexdigest()[:16]


def locked_digest(lock: Path = LOCK) -> str | None:
    """The digest the lock was made from, ``None`` if it has none."""
    for line in lock.read_text().splitlines():
        if line.startswith(DIGEST_PREFIX):
            return line.removeprefix(DIGEST_PREFIX).strip()
    return None


def resolve() -> list[tuple[str, str, str]]:
    """(name, version, sha256) of every package the dependencies resolve to, by name."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        print("resolving the dependencies of pyproject.toml …", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
             "--only-binary", ":all:", "--report", str(report), f"{ROOT}[server]", *BUILD_TOOLS, *OLDER_PYTHON],
            check=True,
        )
        installed = json.loads(report.read_text())["install"]
    found = []
    for item in installed:
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        if name == "paiju":
            continue
        hashes = item["download_info"].get("archive_info", {}).get("hashes", {})
        if "sha256" not in hashes:
            raise SystemExit(f"{name} {version} came without a sha256: it cannot be locked")
        found.append((name, version, hashes["sha256"]))
    return sorted(found, key=lambda entry: entry[0].lower())


def lock_text(entries: list[tuple[str, str, str]], digest: str) -> str:
    lines = [
        "# The image's dependencies, exactly (pip install --require-hashes -r deploy/requirements.lock).",
        "# Made by scripts/lock.py from pyproject.toml for CPython 3.11 on Linux x86_64; do not edit.",
        f"{DIGEST_PREFIX}{digest}",
    ]
    for name, version, sha256 in entries:
        lines.append(f"{name}=={version} \\\n    --hash=sha256:{sha256}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--output", type=Path, default=LOCK)
    args = parser.parse_args()
    entries = resolve()
    args.output.write_text(lock_text(entries, dependencies_digest()))
    print(f"{args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}: "
          f"{len(entries)} packages locked", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
