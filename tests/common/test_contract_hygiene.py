"""The gRPC contract keeps buf's rules (``buf.yaml``, ``scripts/contract.py``, docs/contract.md):
STANDARD lint clean, and nothing in it breaks a client of the last released contract
(``protos/released.binpb``). The checks are shown to catch what they are for on copies of the
contract with a lint finding or a breaking change made in them.

buf is ``@bufbuild/buf`` from ``web/node_modules`` (``npm ci`` in ``web/``) or on PATH: without it
these tests are skipped, or fail under ``PAIJU_REQUIRE_SERVICES=1`` (``.ci/run`` installs it).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import missing_tool

ROOT = Path(__file__).resolve().parents[2]


def _load_contract() -> ModuleType:
    spec = importlib.util.spec_from_file_location("paiju_contract", ROOT / "scripts" / "contract.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


contract = _load_contract()


@pytest.fixture(scope="module")
def buf() -> str:
    found = contract.find_buf()
    if found is None:
        missing_tool("buf is not installed (npm ci in web/ installs @bufbuild/buf)")
    return found


@pytest.fixture
def copy_of_the_contract(tmp_path: Path) -> Path:
    """The contract and its buf.yaml under ``tmp_path``, to be changed by a test."""
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(ROOT / "protos" / "paiju", tmp_path / "protos" / "paiju")
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path.name} no longer has {old!r}: pick another edit"
    path.write_text(text.replace(old, new, 1))


def test_the_contract_is_lint_clean(buf: str) -> None:
    try:
        contract.lint(buf)
    except contract.ContractError as findings:
        pytest.fail(f"{findings}\n(docs/contract.md says how to name services, RPCs and messages)")


def test_nothing_breaks_a_client_of_the_released_contract(buf: str) -> None:
    try:
        contract.breaking(buf)
    except contract.ContractError as findings:
        pytest.fail(f"{findings}\n(docs/contract.md: add, never change or remove; or a new package version)")


def test_a_service_not_named_service_is_a_lint_finding(buf: str, copy_of_the_contract: Path) -> None:
    _edit(copy_of_the_contract / "protos" / "paiju" / "v1" / "watchdog.proto",
          "service WatchdogService {", "service Watchdog {")
    with pytest.raises(contract.ContractError, match='"Watchdog" should be suffixed with "Service"'):
        contract.lint(buf, root=copy_of_the_contract)


def test_a_removed_field_breaks_the_released_contract(buf: str, copy_of_the_contract: Path) -> None:
    _edit(copy_of_the_contract / "protos" / "paiju" / "v1" / "table.proto",
          "bool follow_view = 3;", "reserved 3;")
    with pytest.raises(contract.ContractError, match="follow_view"):
        contract.breaking(buf, root=copy_of_the_contract)


def test_a_release_is_what_later_changes_are_checked_against(buf: str, copy_of_the_contract: Path,
                                                            tmp_path: Path) -> None:
    released = tmp_path / "released.binpb"
    contract.snapshot(buf, released, root=copy_of_the_contract)
    contract.breaking(buf, released, root=copy_of_the_contract)  # the release against itself
    _edit(copy_of_the_contract / "protos" / "paiju" / "v1" / "lobby.proto",
          "service LobbyService {", "service RoomsService {")
    with pytest.raises(contract.ContractError, match="LobbyService"):
        contract.breaking(buf, released, root=copy_of_the_contract)
