"""`paiju serve --processes N`: N copies of the server on one port, supervised by one process."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator

import pytest

from paiju.client.sdk import PaijuClient
from paiju.common.config import ConfigError, Settings
from paiju.server_processes import check_processes
from tests.e2e.served import stop, wait_until_serving
from tests.patience import PATIENCE_SECONDS, START_SECONDS, wait_until


def test_more_than_one_process_needs_a_real_redis() -> None:
    with pytest.raises(ConfigError, match="REDIS_URL"):
        check_processes(Settings.from_env({}), 2)


def test_more_than_one_process_needs_a_ledger_they_can_share() -> None:
    settings = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6379/0", "DATABASE_URL": "sqlite://"})
    with pytest.raises(ConfigError, match="ledger the processes share"):
        check_processes(settings, 2)


def test_one_process_needs_nothing_more_and_none_is_refused() -> None:
    check_processes(Settings.from_env({}), 1)
    with pytest.raises(ConfigError, match="at least 1"):
        check_processes(Settings.from_env({}), 0)


def test_the_command_refuses_processes_without_redis_and_says_why(tmp_path) -> None:
    environment = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3"}
    environment.pop("REDIS_URL", None)
    done = subprocess.run([sys.executable, "-m", "paiju.cli", "serve", "--processes", "2"], check=False, env=environment,
                          capture_output=True, text=True, timeout=START_SECONDS)
    assert done.returncode == 2
    assert "needs REDIS_URL" in done.stderr


def free_ports(count: int) -> int:
    """The first of ``count`` consecutive free loopback ports."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = probe.getsockname()[1]
        if first + count > 65_535:
            continue
        try:
            for offset in range(1, count):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", first + offset))
        except OSError:
            continue
        return first
    raise RuntimeError("no run of free ports")


def rpcs_served(metrics_port: int, method: str) -> float:
    """How many ``method`` calls the copy with ``metrics_port`` finished, from its Prometheus page."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=PATIENCE_SECONDS) as page:
        text = page.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("paiju_rpc_duration_seconds_count") and f'method="{method}"' in line)


def children(pid: int) -> list[int]:
    """The server copies ``pid`` started (not multiprocessing's resource tracker)."""
    with open(f"/proc/{pid}/task/{pid}/children") as listed:
        pids = [int(child) for child in listed.read().split()]
    copies = []
    for child in pids:
        try:
            with open(f"/proc/{child}/cmdline", "rb") as cmdline:
                if b"spawn_main" in cmdline.read():
                    copies.append(child)
        except OSError:
            continue  # gone meanwhile
    return copies


@pytest.fixture
def two_copies(tmp_path, redis_url: str) -> Iterator[tuple[subprocess.Popen[bytes], str, int]]:
    port, metrics = free_ports(1), free_ports(2)
    environment = {**os.environ, "PAIJU_PORT": str(port), "PAIJU_METRICS_PORT": str(metrics), "PAIJU_WEB_PORT": "0",
                   "REDIS_URL": redis_url, "PAIJU_REDIS_PREFIX": f"procs-{secrets.token_hex(4)}",
                   "DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3", "PAIJU_SHUTDOWN_GRACE_SECONDS": "3"}
    environment.pop("PAIJU_SECRET", None)  # one made up at start, which every copy must share
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        process = subprocess.Popen([sys.executable, "-m", "paiju.cli", "serve", "--processes", "2", "--rooms", "1"],
                                   env=environment, stdout=log, stderr=subprocess.STDOUT)
    address = f"127.0.0.1:{port}"
    wait_until_serving(process, address, log_path, ready=lambda: len(children(process.pid)) >= 2)
    yield process, address, metrics
    stop(process)


def test_both_copies_serve_players_and_honour_each_others_tokens(two_copies) -> None:
    process, address, metrics = two_copies
    # Register and Login on one connection, every later call on another: across 16 players some
    # tokens made by one copy are checked by the other (they share the secret made at start).
    players = [PaijuClient.connect(address, f"player-{n}", "a long password", register=True, own_connection=True)
               for n in range(16)]
    try:
        for player in players:
            assert player.balance().available > 0
        served = [rpcs_served(metrics, "GetBalance"), rpcs_served(metrics + 1, "GetBalance")]
        assert sum(served) == 16 and min(served) > 0, served
        first, second = players[0], players[1]
        first.sit("zhajinhua-free-01")
        second.sit("zhajinhua-free-01")
        room = next(room for room in first.rooms("zhajinhua", "free") if room.room_id == "zhajinhua-free-01")
        assert {seat.account_id for seat in room.seats} >= {first.account_id, second.account_id}
    finally:
        for player in players:
            player.close()
    copies = children(process.pid)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=PATIENCE_SECONDS) == 0
    assert not any(os.path.exists(f"/proc/{pid}") and _alive(pid) for pid in copies)


def test_when_a_copy_dies_the_others_stop_and_the_status_says_so(two_copies) -> None:
    process, _, _ = two_copies
    victim, survivor = children(process.pid)
    os.kill(victim, signal.SIGKILL)
    assert process.wait(timeout=PATIENCE_SECONDS) == 1
    assert not _alive(survivor)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_bot_tables_play_across_the_copies_and_a_signal_stops_them_all(tmp_path, redis_url: str) -> None:
    port = free_ports(1)
    environment = {**os.environ, "PAIJU_PORT": str(port), "PAIJU_METRICS_PORT": "0", "PAIJU_WEB_PORT": "0", "REDIS_URL": redis_url,
                   "PAIJU_REDIS_PREFIX": f"procbots-{secrets.token_hex(4)}",
                   "DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3", "PAIJU_SHUTDOWN_GRACE_SECONDS": "3"}
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "paiju.cli", "serve", "--processes", "2", "--bots", "1", "--rooms", "1"],
            env=environment, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until("a hand to finish", lambda: process.poll() is not None
                   or re.search(r"zhajinhua [1-9][\d,]* hands", log_path.read_text()),
                   seconds=START_SECONDS + PATIENCE_SECONDS, explain=lambda: log_path.read_text()[-3000:])
        assert process.poll() is None, log_path.read_text()[-3000:]
        copies = children(process.pid)
        assert len(copies) == 2
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=PATIENCE_SECONDS) == 0, log_path.read_text()[-3000:]
        assert not any(_alive(pid) for pid in copies)
    finally:
        stop(process)


def test_bug_the_copies_logged_nothing_at_info_and_their_warnings_were_not_json(tmp_path, redis_url: str) -> None:
    # A copy is spawned, so it started without the supervisor's logging: `--log-level INFO` and
    # JSON lines reached only the supervisor, which serves no table. Every hand's end, logged by
    # the copy that served it, was dropped.
    port = free_ports(1)
    environment = {**os.environ, "PAIJU_PORT": str(port), "PAIJU_METRICS_PORT": "0", "PAIJU_WEB_PORT": "0",
                   "REDIS_URL": redis_url, "PAIJU_REDIS_PREFIX": f"proclogs-{secrets.token_hex(4)}",
                   "DATABASE_URL": f"sqlite:///{tmp_path}/ledger.sqlite3", "PAIJU_SHUTDOWN_GRACE_SECONDS": "3"}
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "paiju.cli", "serve", "--processes", "2", "--bots", "1", "--rooms", "1",
             "--log-level", "INFO"], env=environment, stdout=subprocess.DEVNULL, stderr=log)

    def hand_ends() -> list[dict[str, str]]:
        lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
        return [line for line in lines if line.get("logger") == "paiju.table.hand_life" and "ended" in line["message"]]

    try:
        wait_until("a copy to log a hand's end", lambda: process.poll() is not None or hand_ends(),
                   seconds=START_SECONDS + PATIENCE_SECONDS, explain=lambda: log_path.read_text()[-3000:])
        assert process.poll() is None, log_path.read_text()[-3000:]
        ended = hand_ends()[0]
        assert ended["level"] == "INFO" and ended["table_id"].startswith("zhajinhua-")
        copies = children(process.pid)
        process.send_signal(signal.SIGTERM)  # killed, the supervisor would leave its copies serving
        assert process.wait(timeout=PATIENCE_SECONDS) == 0, log_path.read_text()[-3000:]
        assert not any(_alive(pid) for pid in copies)
    finally:
        stop(process)
