"""The root conftest's guards: no token issued while tests are collected, nothing left in the
repository's root, no hypothesis deadline, and the volume switch between the suite and the
soak run."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from paiju.common.auth import TokenSigner
from tests import volume
from tests.guards import TokenAtCollectionError, new_entries_in, root_entries, tokens_refused

SECRET = b"the guard test secret, 32 bytes.."


def test_a_token_issued_while_tests_are_collected_is_refused_with_the_reason() -> None:
    signer = TokenSigner(SECRET)
    with tokens_refused("issue it in the test"), pytest.raises(TokenAtCollectionError, match="in the test"):
        signer.issue("acct-1", "lihua", ttl=600)
    assert signer.verify(signer.issue("acct-1", "lihua", ttl=600)).account_id == "acct-1"


def test_a_module_level_token_fails_its_collection(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("from tests.conftest import pytest_collection  # noqa: F401")
    pytester.makepyfile(test_aged="""
        from paiju.common.auth import TokenSigner
        TOKEN = TokenSigner(b"a secret of at least sixteen bytes").issue("acct-1", "lihua", ttl=600)

        def test_uses_it():
            assert TOKEN
        """)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*TokenAtCollectionError: a token issued while the tests are collected*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_a_new_file_in_the_root_is_reported_and_tool_caches_are_not(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("here before")
    before = root_entries(tmp_path)
    (tmp_path / ".hypothesis").mkdir()
    (tmp_path / ".pytest_cache").mkdir()
    (tmp_path / "paiju.sqlite3").write_bytes(b"")
    assert new_entries_in(tmp_path, before) == ["paiju.sqlite3"]


def test_the_suite_runs_a_share_of_the_soak_volume(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(volume, "SOAK", False)
    assert volume.volume(suite=40, soak=400) == 40
    monkeypatch.setattr(volume, "SOAK", True)
    assert volume.volume(suite=40, soak=400) == 400
    with pytest.raises(ValueError, match="positive share"):
        volume.volume(suite=500, soak=400)


def test_properties_run_without_hypothesis_clock_checks() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
