"""Shared test set-up: the soak switch (see ``volume.py``), access to the real servers of this
machine, and guards that keep the suite's outcome independent of how long it runs and where.

Tests of real servers run whenever the server is reachable and say plainly when they are
skipped; with ``PAIJU_REQUIRE_SERVICES=1`` (as ``.ci/run`` sets) an unreachable server fails.

No session token may be issued while the suite is collected (at import time, in a
``parametrize`` list): it would start expiring long before its test runs. And a run must
leave nothing new in the repository's root (a default ``paiju.sqlite3``, say). Hypothesis
runs without its per-example deadline.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
from hypothesis import HealthCheck, settings

from tests import volume
from tests.guards import new_entries_in, root_entries, tokens_refused

pytest_plugins = ["pytester"]  # tests of the guards run pytest on files they write

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/test"
ROOT_BEFORE = pytest.StashKey[frozenset[str]]()

# Hypothesis's own clock checks (200 ms an example, slow data generation) fail a test when the
# machine is busy, not when the code is wrong: every property here runs without them.
settings.register_profile("paiju", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("paiju")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true",
                     help="the soak run (make soak): full volumes, and the long soak tests")


def pytest_configure(config: pytest.Config) -> None:
    volume.SOAK = bool(config.getoption("--soak"))


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[object]:
    with tokens_refused("a token issued while the tests are collected expires while the suite "
                        "runs: issue it in the test, or in a function-scoped fixture"):
        return (yield)


def pytest_sessionstart(session: pytest.Session) -> None:
    session.stash[ROOT_BEFORE] = root_entries(session.config.rootpath)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    left = new_entries_in(session.config.rootpath, session.stash[ROOT_BEFORE])
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"the tests left {', '.join(left)} in {session.config.rootpath}: use tmp_path"
        if reporter is not None:
            reporter.write_line(f"FAILED {message}", red=True, bold=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--soak"):
        return
    skip = pytest.mark.skip(reason="soak test: run with `make soak`")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)


def _reachable(url: str) -> bool:
    parsed = urlparse(url)
    host, port = parsed.hostname or "127.0.0.1", parsed.port
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise RuntimeError(f"tests only ever target loopback addresses, not {host}")
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def missing_tool(message: str) -> None:
    """A tool a test needs is not installed: skip, or fail where ``.ci/run`` promised it."""
    if os.environ.get("PAIJU_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{message}, and PAIJU_REQUIRE_SERVICES=1 makes it mandatory (.ci/run installs it)")
    pytest.skip(message)


def require_server(name: str, url: str) -> str:
    """The URL if the server answers; otherwise skip, or fail when servers are mandatory."""
    if _reachable(url):
        return url
    message = f"{name} is not reachable at {url}"
    if os.environ.get("PAIJU_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{message}, and PAIJU_REQUIRE_SERVICES=1 makes it mandatory")
    pytest.skip(f"SKIPPED real-server test: {message}")


@pytest.fixture(scope="session")
def redis_url() -> str:
    return require_server("Redis", os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))


@pytest.fixture(scope="session")
def database_url() -> str:
    return require_server("PostgreSQL", os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
