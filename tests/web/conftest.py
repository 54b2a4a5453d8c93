"""A real `paiju serve` with bots and its web port, and Chromium driven by selenium. A test that
needs settings of its own (a short turn timer) starts a server of its own with `paiju_serve`.

The server runs on real Redis and PostgreSQL when they answer on loopback (a key prefix and a
schema of this run), else on its embedded defaults. Chromium is Debian's ``/usr/bin/chromium``
through ``chromedriver``; without them (or selenium) the browser tests say so and skip, and
``PAIJU_REQUIRE_SERVICES=1`` turns that skip into a failure. Screenshots of every screen go to
``PAIJU_TEST_ARTIFACTS`` (default ``paiju-test-artifacts`` in the system's temporary folder,
outside the checkout, which a test run must leave as it found it).
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from paiju.client.sdk import PaijuClient, PaijuError
from tests.conftest import DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, _reachable

ARTIFACTS = Path(os.environ.get("PAIJU_TEST_ARTIFACTS") or Path(tempfile.gettempdir()) / "paiju-test-artifacts")
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
BOT_TABLES = 1
"""`paiju serve --bots 1`: the bots' own room is number 01, the room where bots wait for a person 02."""


ROOMS = 5
"""Rooms per tier: the bots' (01), the company room (02), and rooms of the tests' own (03 to 05;
the last is test_screens.py's)."""


def company_room(game: str, tier: str) -> str:
    return f"{game}-{tier}-{BOT_TABLES + 1:02d}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(what: str, condition: Callable[[], Any], timeout: float = 60.0, pause: float = 0.2) -> Any:
    """The first truthy answer of ``condition`` (exceptions count as not yet), or fail naming
    ``what``. The bound is generous: it only stops a test that would otherwise hang."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            answer = condition()
            if answer:
                return answer
        except Exception as error:  # noqa: BLE001 - a page still changing
            last = error
        time.sleep(pause)
    pytest.fail(f"timed out waiting for {what}" + (f" (last error: {last})" if last else ""))


def move_whenever_asked(players: list[PaijuClient], room: str, move: str, stop: threading.Event) -> None:
    """SDK players beside the browser who make ``move`` ("fold", "call") at every turn of theirs
    where it is legal, until ``stop``: the target of a thread of its own."""
    while not stop.is_set():
        for player in players:
            try:
                view = player.view(room)
                hand = view["hand"]
                if hand and move in hand["state"].get("legal_actions", []):
                    player.act(room, move, view["version"])
            except PaijuError:
                continue
        time.sleep(0.1)


def _need_browser() -> None:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).exists()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if missing:
        message = f"the browser tests need {', '.join(missing)} (apt-get install chromium chromium-driver)"
        if os.environ.get("PAIJU_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{message}, and PAIJU_REQUIRE_SERVICES=1 makes it mandatory")
        pytest.skip(f"SKIPPED browser test: {message}")


@dataclass
class WebServer:
    url: str
    log: Path | None
    grpc: str | None = None
    """The server's gRPC address, for players on the SDK beside the browser (None: not known)."""

    def need_grpc(self) -> str:
        if self.grpc is None:
            pytest.skip("SKIPPED: PAIJU_WEB_TEST_URL names a server whose gRPC address is not known")
        return self.grpc


@pytest.fixture(scope="session")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """`paiju serve --bots 1` on free ports; ``PAIJU_WEB_TEST_URL`` points the tests at one
    already running instead (started with ``--bots 1``)."""
    _need_browser()
    if os.environ.get("PAIJU_WEB_TEST_URL"):
        yield WebServer(os.environ["PAIJU_WEB_TEST_URL"], None)
        return
    with paiju_serve(tmp_path_factory.mktemp("web-serve"), {}, bots=BOT_TABLES) as server:
        yield server


@contextmanager
def paiju_serve(folder: Path, settings: dict[str, str], bots: int) -> Iterator[WebServer]:
    """`paiju serve --bots N` on free ports with ``settings`` (environment variables) over the
    tests' own, its log in ``folder``; stopped, and its Redis keys and schema dropped, at the end."""
    run = secrets.token_hex(4)
    web_port, grpc_port = free_port(), free_port()
    environment = {**os.environ, "PAIJU_PORT": str(grpc_port), "PAIJU_WEB_PORT": str(web_port),
                   "PAIJU_METRICS_PORT": "0", "PAIJU_SECRET": f"web test secret {run}",
                   "PAIJU_RELAY_SECONDS": "0.2", "PAIJU_SHUTDOWN_GRACE_SECONDS": "2", **settings}
    redis_url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    database_url = os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)
    schema = None
    if _reachable(redis_url) and _reachable(database_url):
        schema = f"web_{run}"
        engine = sa.create_engine(database_url)
        with engine.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        environment["REDIS_URL"] = redis_url
        environment["PAIJU_REDIS_PREFIX"] = f"web-{run}"
        environment["DATABASE_URL"] = sa.make_url(database_url).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    else:
        environment.pop("REDIS_URL", None)
        environment["DATABASE_URL"] = f"sqlite:///{folder / 'ledger.sqlite3'}"
    log = folder / "serve.log"
    with log.open("w") as output:
        process = subprocess.Popen([sys.executable, "-m", "paiju.cli", "serve", "--bots", str(bots), "--rooms", str(ROOMS)],
                                   env=environment, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{web_port}/"

    def page_served() -> bool:
        if process.poll() is not None:
            pytest.fail("paiju serve ended:\n" + log.read_text()[-3000:])
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status == 200 and b'id="app"' in answer.read()

    try:
        wait_until("the web client to be served", page_served, timeout=90, pause=0.5)
        yield WebServer(url, log, f"127.0.0.1:{grpc_port}")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if schema is not None:
            import redis

            client = redis.Redis.from_url(redis_url)
            stale = list(client.scan_iter(match=f"web-{run}:*", count=1000))
            if stale:
                client.delete(*stale)
            with sa.create_engine(database_url).begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


def spki_hash(certificate: Path) -> str:
    """The base64 SHA-256 of a certificate's public key, as Chromium names a key it is told to trust."""
    public = subprocess.run(["openssl", "x509", "-pubkey", "-noout", "-in", str(certificate)],
                            check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public, check=True,
                         capture_output=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


class Browsers:
    """Chromium windows for one test, each with a fresh profile; all closed at the end."""

    def __init__(self, trusted_certificate: Path | None = None) -> None:
        """``trusted_certificate``: a server certificate (PEM) the windows accept although no
        root they know signed it (a test server's self-signed one), and no other."""
        self.drivers: list[Any] = []
        self.profiles: list[str] = []
        self.flags = [f"--ignore-certificate-errors-spki-list={spki_hash(trusted_certificate)}"] if trusted_certificate else []

    def open(self, width: int = 1280, height: int = 720) -> Any:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        profile = tempfile.mkdtemp(prefix="paiju-chromium-")
        self.profiles.append(profile)
        for flag in (*CHROMIUM_FLAGS, *self.flags, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # for the failure report
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700})
        self.drivers.append(driver)
        return driver

    def report_failure(self, test: str, folder: Path) -> str:
        """What each window showed when ``test`` failed: a screenshot kept in ``folder``, and the
        page's text and console, returned for the test's report."""
        lines = []
        for number, driver in enumerate(self.drivers):
            try:
                shot = folder / f"failed-{test}-{number}.png"
                driver.save_screenshot(str(shot))
                text = driver.execute_script("return document.body.innerText")
                console = [f"{entry['level']} {entry['message']}" for entry in driver.get_log("browser")]
            except Exception as error:  # noqa: BLE001 - a window that is gone tells nothing more
                lines.append(f"window {number}: could not be read ({error})")
                continue
            lines += [f"window {number} ({driver.current_url}), screenshot {shot}:", text[-2000:],
                      "console:", *console[-30:]]
        return "\n".join(lines)

    def close(self) -> None:
        for driver in self.drivers:
            driver.quit()
        for profile in self.profiles:
            shutil.rmtree(profile, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[_CALL_FAILED] = report.failed


_CALL_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def browsers(request: pytest.FixtureRequest) -> Iterator[Browsers]:
    _need_browser()
    opened = Browsers()
    yield opened
    try:
        if request.node.stash.get(_CALL_FAILED, False):
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            print(opened.report_failure(request.node.name.replace("/", "_"), ARTIFACTS))
    finally:
        opened.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
