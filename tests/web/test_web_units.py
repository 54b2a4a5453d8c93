"""The web client's own unit tests (``web/src/*.test.ts``): each bundled by esbuild and run by
``node --test``. Without Node or ``web/node_modules`` they say so and skip, as the bundle test does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"
ESBUILD = WEB / "node_modules" / ".bin" / "esbuild"
UNIT_TESTS = sorted((WEB / "src").glob("*.test.ts"))

pytestmark = pytest.mark.skipif(shutil.which("node") is None or not ESBUILD.exists(),
                                reason="the web client's unit tests need Node and `npm ci` in web/")


@pytest.mark.parametrize("source", UNIT_TESTS, ids=[path.name for path in UNIT_TESTS])
def test_web_unit(source: Path, tmp_path: Path) -> None:
    bundle = tmp_path / (source.stem + ".mjs")
    built = subprocess.run([str(ESBUILD), str(source), "--bundle", "--platform=node", "--format=esm",
                            f"--outfile={bundle}", "--log-level=warning"], capture_output=True, text=True, timeout=120, check=False)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run(["node", "--test", str(bundle)], capture_output=True, text=True, timeout=120, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_there_are_web_unit_tests() -> None:
    assert UNIT_TESTS, "web/src/*.test.ts: none found"


def test_the_web_client_type_checks() -> None:
    checked = subprocess.run([str(WEB / "node_modules" / ".bin" / "tsc"), "--noEmit", "-p", str(WEB)],
                             capture_output=True, text=True, timeout=300, check=False)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-1000:]
