"""The committed web client is what its sources build to now.

``make run`` serves ``services/paiju/web/static`` without Node, so the bundle is committed like the
Python stubs; these tests regenerate the TypeScript messages from the protos and rebuild the
bundle into a temporary directory and fail when the committed files differ (``cd web && npm run
gen && npm run build``, then commit). Without Node or ``web/node_modules`` (``npm ci`` in
``web/``) they say so and skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
WEB = REPO_ROOT / "web"
STATIC = REPO_ROOT / "services" / "paiju" / "web" / "static"
GENERATED = WEB / "src" / "gen"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (WEB / "node_modules" / ".bin" / "esbuild").exists(),
    reason="the web client's build needs Node and `npm ci` in web/",
)


def files_under(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def differing(fresh: dict[str, bytes], committed: dict[str, bytes]) -> list[str]:
    return sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))


def run_node(script: str, out: Path) -> None:
    result = subprocess.run(
        ["node", str(WEB / "scripts" / script), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHON": sys.executable},
    )
    assert result.returncode == 0, result.stderr


def test_the_committed_typescript_messages_are_what_the_protos_make_now(tmp_path: Path) -> None:
    run_node("gen.mjs", tmp_path)
    stale = differing(files_under(tmp_path), files_under(GENERATED))
    assert not stale, f"web/src/gen out of date: {stale}; run `cd web && npm run gen` and commit"


def test_the_committed_bundle_is_what_the_sources_build_now(tmp_path: Path) -> None:
    run_node("build.mjs", tmp_path)
    fresh = files_under(tmp_path)
    assert {"index.html", "app.js", "app.css"} <= fresh.keys()
    stale = differing(fresh, files_under(STATIC))
    assert not stale, f"services/paiju/web/static out of date: {stale}; run `cd web && npm run build` and commit"
