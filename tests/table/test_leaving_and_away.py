"""Leaving a hand on purpose, and players who went away between hands (both Redis backends)."""

from __future__ import annotations

import pytest

from paiju.games.engine import IllegalAction
from paiju.table.deadline_names import READY_KICK_DEADLINE, START_DEADLINE
from tests.table.test_tables import seated_table


def test_standing_mid_hand_names_the_real_way_out(tables, wallet):
    accounts = seated_table(tables, wallet, count=2)
    for account in accounts:
        tables.ready("t1", account)
    with pytest.raises(IllegalAction) as refused:
        tables.stand("t1", accounts[0])
    assert refused.value.code == "in_hand"
    assert "accept_escape" in refused.value.reason and "escape=True" in refused.value.reason
    assert "through the table" not in refused.value.reason


def test_standing_with_accept_escape_mid_hand_is_an_escape(tables, wallet):
    accounts = seated_table(tables, wallet, count=3)
    for account in accounts:
        tables.ready("t1", account)
    outcome = tables.stand("t1", accounts[0], accept_escape=True)
    assert "escaped" in [event.type for event in outcome.events]
    _, record = tables.load("t1")
    assert record.hand is not None and record.seats[0].leaving  # 炸金花 plays on without them
    with pytest.raises(IllegalAction) as again:
        tables.stand("t1", accounts[0], accept_escape=True)
    assert again.value.code == "already_left"


def test_a_ready_player_who_disconnects_is_not_dealt_in(tables, wallet, clock):
    accounts = seated_table(tables, wallet, count=3)
    tables.ready("t1", accounts[0])
    tables.disconnect("t1", accounts[0], clock.now)
    _, record = tables.load("t1")
    assert record.seats[0].ready is False  # the start pressed before going is withdrawn
    tables.ready("t1", accounts[1])
    outcome = tables.ready("t1", accounts[2])
    assert "hand_seats" not in [event.type for event in outcome.events]
    assert tables.load("t1")[1].hand is None
    # The ready rules apply to the away player: the others are ready, so the kick is running.
    kick = tables.deadline("t1", READY_KICK_DEADLINE)
    assert kick is not None and kick.due_ms == clock.now + tables.timers.ready_kick_ms


def test_an_away_player_who_is_ready_still_holds_up_the_start(tables, wallet, clock):
    accounts = seated_table(tables, wallet, count=2)
    tables.disconnect("t1", accounts[0], clock.now)
    tables.ready("t1", accounts[0])  # pressed through the lobby without any live stream
    outcome = tables.ready("t1", accounts[1])
    assert "hand_seats" not in [event.type for event in outcome.events]
    assert tables.deadline("t1", START_DEADLINE) is None
    tables.reconnect("t1", accounts[0])  # back: the start may go ahead
    assert tables.deadline("t1", START_DEADLINE) is not None


@pytest.mark.parametrize(("game", "tier"), [("hunzhan", "stake10"), ("chaodipi", "yangzhou-fortune10")])
def test_standing_with_accept_escape_leaves_a_trick_game_by_its_escape_rules(tables, wallet, game, tier):
    tables.open("t4", game, tier)
    accounts = [str(wallet.register(f"{game}{i}", "secret password")) for i in range(4)]
    for account in accounts:
        tables.sit("t4", account, account)
    for account in accounts:
        tables.ready("t4", account)
    assert tables.load("t4")[1].hand is not None
    outcome = tables.stand("t4", accounts[2], accept_escape=True)
    # An escape ends a four-player hand at once, settled by the game; the escaper's seat goes with it.
    assert {"escaped", "hand_settled", "stood"} <= {event.type for event in outcome.events}
    _, record = tables.load("t4")
    assert record.hand is None and record.seats[2] is None
