"""Shared test set-up: the soak switch and access to the real servers of this machine.

Tests of real servers run whenever the server is reachable and say plainly when they are
skipped; with ``PAIJU_REQUIRE_SERVICES=1`` (as ``.ci/run`` sets) an unreachable server fails.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

import pytest

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/test"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true", help="run the long soak tests (make soak)")


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
