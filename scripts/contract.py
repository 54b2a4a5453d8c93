"""The gRPC contract's checks and its release snapshot, with buf (``buf.yaml`` at the root).

    .venv/bin/python scripts/contract.py check      # buf lint, and buf breaking against the release
    .venv/bin/python scripts/contract.py release    # check, then take protos/paiju/v1 as released

``check`` fails on any lint finding (buf's STANDARD rules) and on any change that breaks a client
generated from the last released contract (buf's FILE rules), which is the image
``protos/released.binpb``. ``release`` runs the same checks, then writes the image of the
contract as it is now over that file: commit it with the release (``make release`` does this
first). See docs/contract.md.

buf comes from ``web/node_modules`` (``@bufbuild/buf``, installed by ``npm ci`` in ``web/``), or
from PATH, or from the ``BUF`` environment variable.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEASED = ROOT / "protos" / "released.binpb"
"""The last released contract, as a buf image (no comments: they never break a client)."""
NPM_BUF = ROOT / "web" / "node_modules" / ".bin" / "buf"


class ContractError(RuntimeError):
    """buf found something wrong with the contract (its findings are the message)."""


def find_buf() -> str | None:
    """The buf to run: ``$BUF``, the one ``npm ci`` put in web/node_modules, or one on PATH."""
    if os.environ.get("BUF"):
        return os.environ["BUF"]
    if NPM_BUF.exists():
        return str(NPM_BUF)
    return shutil.which("buf")


def _buf(buf: str, *args: str, root: Path) -> None:
    done = subprocess.run([buf, *args], cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ContractError(f"buf {args[0]}: {(done.stdout + done.stderr).strip() or f'exit {done.returncode}'}")


def lint(buf: str, root: Path = ROOT) -> None:
    """buf's STANDARD lint over the contract under ``root``; ContractError with the findings."""
    _buf(buf, "lint", root=root)


def breaking(buf: str, against: Path = RELEASED, root: Path = ROOT) -> None:
    """No change under ``root`` that breaks a client of the contract released as ``against``."""
    if not against.exists():
        raise ContractError(f"no released contract at {against}: take one with `scripts/contract.py release`")
    _buf(buf, "breaking", "--against", str(against), root=root)


def snapshot(buf: str, out: Path = RELEASED, root: Path = ROOT) -> None:
    """The contract under ``root`` written to ``out`` as a buf image, without source comments."""
    _buf(buf, "build", "--exclude-source-info", "-o", str(out), root=root)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("action", choices=("check", "release"))
    parser.add_argument("--against", type=Path, default=RELEASED, help="the released image (default: %(default)s)")
    args = parser.parse_args(argv)
    buf = find_buf()
    if buf is None:
        print("contract: no buf: run `npm ci` in web/, or put buf on PATH (or in BUF)", file=sys.stderr)
        return 2
    try:
        lint(buf)
        if args.against.exists() or args.action == "check":
            breaking(buf, args.against)
        if args.action == "release":
            snapshot(buf, args.against)
            print(f"contract: {args.against} is now the released contract: commit it")
    except ContractError as error:
        print(f"contract: {error}", file=sys.stderr)
        return 1
    if args.action == "check":
        print("contract: lint clean, nothing breaks the released contract")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
