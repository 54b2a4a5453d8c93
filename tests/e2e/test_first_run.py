"""What a new user does first, as the README says it: connect, quick match, play a whole hand
against the bots, leave; and what `paiju serve` shows them."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from paiju.client.sdk import PaijuClient, PaijuError
from paiju.serve import connect_hint
from tests.e2e.test_serve_process import serving

README = Path(__file__).resolve().parents[2] / "README.md"
SNIPPET_SECONDS = 300
"""A generous bound on the README's hand against the bots (it takes seconds when idle)."""


def readme_snippet() -> str:
    """The README's Python block that plays against the server."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    return next(block for block in blocks if "PaijuClient" in block)


def test_the_readme_snippet_plays_a_whole_hand_against_the_bots_as_written(tmp_path):
    snippet = readme_snippet()
    assert '"127.0.0.1:50051"' in snippet
    # Rooms 02 and 03 stay empty: quick match must still seat the player beside the bots of 01.
    with serving(tmp_path, "--bots", "1", "--rooms", "3") as (_, address, log):
        ran = subprocess.run([sys.executable, "-c", snippet.replace("127.0.0.1:50051", address)],
                             check=False, capture_output=True, text=True, timeout=SNIPPET_SECONDS)
        assert ran.returncode == 0, ran.stderr[-3000:] + log.read_text()[-2000:]
    assert re.search(r"hand over, my coins: -?\d+", ran.stdout), ran.stdout


def test_interrupting_the_server_with_bots_in_its_first_seconds_prints_no_tracebacks(tmp_path):
    with serving(tmp_path, "--bots", "2", "--rooms", "2") as (process, _, log):
        process.send_signal(signal.SIGINT)  # the bots are still registering and sitting down
        assert process.wait(timeout=60) == 0
    text = log.read_text()
    assert "shutting down" in text
    assert "Traceback" not in text, text[-3000:]


def test_connect_with_a_wrong_password_says_so_not_that_the_name_is_taken(tmp_path):
    with serving(tmp_path, "--rooms", "1") as (_, address, _):
        PaijuClient.connect(address, "ann", "a long password", register=True).close()
        with pytest.raises(PaijuError) as refused:
            PaijuClient.connect(address, "ann", "not her password")
        assert refused.value.status == grpc.StatusCode.UNAUTHENTICATED
        assert "wrong" in refused.value.reason and "password" in refused.value.reason
        assert "taken" not in refused.value.reason
        with pytest.raises(PaijuError) as taken:  # registering is asked for, never guessed
            PaijuClient.connect(address, "ann", "a long password", register=True)
        assert taken.value.status == grpc.StatusCode.ALREADY_EXISTS


def test_the_sdk_leaves_a_hand_with_stand_escape(tmp_path):
    with serving(tmp_path, "--rooms", "1") as (_, address, _):
        ann, bo = (PaijuClient.connect(address, name, "a long password", register=True) for name in ("ann", "bo"))
        room = "zhajinhua-free-01"
        for player in (ann, bo):
            player.sit(room)
        ann.ready(room)
        assert bo.ready(room)  # the hand starts
        with pytest.raises(PaijuError) as refused:
            ann.stand(room)
        assert "escape=True" in refused.value.reason
        assert ann.stand(room, escape=True) is True
        # Two players: the escape folds ann's hand, bo wins it and ann's seat is given up.
        view = bo.view(room)
        assert view["hand"] is None and view["table"]["seats"][0] is None
        ann.close()
        bo.close()


def test_only_a_port_where_a_player_can_log_in_and_play_gets_a_connect_hint():
    assert connect_hint(["wallet", "lobby", "table", "watchdog"], "127.0.0.1:1") is not None
    assert "register=True" in connect_hint(["wallet", "lobby", "table", "watchdog"], "127.0.0.1:1")
    for alone in ("wallet", "lobby", "table", "watchdog"):
        assert connect_hint([alone], "127.0.0.1:1") is None
