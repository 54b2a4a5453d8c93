"""Presence is the truth of the live streams: connected players are never escaped, whatever
streams close, whatever Redis or the watchdog went through (fakeredis and the real Redis)."""

from __future__ import annotations

import uuid

import pytest
import redis

from paiju.watchdog.presence import (
    BEATS_PER_SCRIPT,
    EXPIRY_PUSHED_EVERY_MS,
    QUIET_AFTER_MS,
    STREAM_SCORED_EVERY_MS,
    STREAMS_KEPT_MS,
    PresenceBoard,
    StreamPresence,
)
from tests.watchdog.test_watchdog import observe_for, seat_players

BEAT_MS = 2_000
RECONNECT_MS = 90_000


def connected(tables, account, table_id="t1"):
    _, record = tables.load(table_id)
    return record.seats[record.seat_of(account)].connected


def live_for(replica, clock, ms, beat):
    """``ms`` of a running replica (a pass a second) while ``beat(now)`` runs every 2 s, as a
    process's stream hub beats, each just after a pass; the players disconnected meanwhile."""
    disconnected = 0
    for elapsed in range(0, ms, 1_000):
        disconnected += replica.run_once().disconnected
        if elapsed % BEAT_MS == 0:
            beat(clock.now)
        clock.now += 1_000
    return disconnected


def test_closing_one_of_two_streams_leaves_the_player_connected(world):
    tables, board, replica, clock, wallet = world
    [player, other] = seat_players(tables, wallet, 2, ready=False)
    elsewhere = PresenceBoard(tables.store.client, board.prefix)  # another server process
    replica.run_once()
    board.beat("t1", player, clock.now, "stream-here")
    elsewhere.beat("t1", player, clock.now, "stream-elsewhere")
    assert board.closed("t1", player, clock.now, "stream-here") is False  # another stream lives
    beats = StreamPresence(elsewhere, tables.reconnect)
    assert live_for(replica, clock, 3 * RECONNECT_MS // 2, lambda now: beats.beat([("t1", player, "stream-elsewhere")], now)) == 0
    assert connected(tables, player)
    assert tables.view("t1", other)["table"]["seats"][tables.view("t1", player)["seat"]] is not None


def test_closing_the_last_stream_disconnects_at_once(world):
    tables, board, replica, clock, wallet = world
    [player, _] = seat_players(tables, wallet, 2, ready=False)
    replica.run_once()
    board.beat("t1", player, clock.now, "a")
    board.beat("t1", player, clock.now, "b")
    assert board.closed("t1", player, clock.now, "a") is False
    assert board.closed("t1", player, clock.now, "b") is True
    assert replica.run_once().disconnected == 1
    assert not connected(tables, player)


def test_a_stream_that_outlived_a_redis_outage_keeps_its_seat(world, monkeypatch):
    tables, board, replica, clock, wallet = world
    [player, _] = seat_players(tables, wallet, 2, ready=False)
    beats = StreamPresence(board, tables.reconnect)
    assert live_for(replica, clock, 4_000, lambda now: beats.beat([("t1", player, "s")], now)) == 0

    def redis_is_down(*_, **__):
        raise redis.ConnectionError("Redis is loading the dataset in memory")

    with monkeypatch.context() as outage:  # 30 s: no beat lands, every watchdog pass fails
        outage.setattr(replica.store, "due_deadlines", redis_is_down)
        for _ in range(30):
            clock.now += 1_000
            with pytest.raises(redis.ConnectionError):
                replica.run_once()
    # Back: the watchdog's first pass comes before the stream's first beat.
    assert live_for(replica, clock, 3 * RECONNECT_MS // 2, lambda now: beats.beat([("t1", player, "s")], now)) == 0
    assert connected(tables, player)


def test_a_watchdog_back_from_an_outage_waits_the_quiet_time_before_calling_anyone_silent(world):
    tables, board, replica, clock, wallet = world
    [player, gone] = seat_players(tables, wallet, 2, ready=False)
    board.beat("t1", player, clock.now, "s")
    board.beat("t1", gone, clock.now, "s")
    clock.now += 5 * QUIET_AFTER_MS  # the watchdog was away; the player's beats were lost with Redis
    beats = StreamPresence(board, tables.reconnect)
    assert replica.run_once().disconnected == 0
    # The live stream beats again; the other player's never does: only they are disconnected.
    assert live_for(replica, clock, 2 * QUIET_AFTER_MS, lambda now: beats.beat([("t1", player, "s")], now)) == 1
    assert connected(tables, player)
    assert not connected(tables, gone)


def test_a_live_streams_beats_resuming_mark_its_player_back_before_the_window_closes(world):
    tables, board, replica, clock, wallet = world
    [player, _] = seat_players(tables, wallet, 2, ready=False)
    replica.run_once()
    board.beat("t1", player, clock.now, "s")
    # The stream's process lost Redis while the watchdog did not: it sees silence.
    assert observe_for(replica, clock, QUIET_AFTER_MS) == 1
    assert not connected(tables, player)
    beats = StreamPresence(board, tables.reconnect)
    assert live_for(replica, clock, 3 * RECONNECT_MS // 2, lambda now: beats.beat([("t1", player, "s")], now)) == 0
    assert connected(tables, player)
    assert tables.view("t1", player)["seat"] is not None


def test_a_beat_between_the_sweep_and_the_disconnection_still_marks_the_player_back(world):
    tables, board, replica, clock, wallet = world
    [player, _] = seat_players(tables, wallet, 2, ready=False)
    beats = StreamPresence(board, tables.reconnect)
    owner = replica.owner
    disconnect = owner.disconnect

    def beaten_meanwhile(table_id, account, since_ms):
        beats.beat([(table_id, account, "s")], clock.now)  # lands after the claim, before the commit
        return disconnect(table_id, account, since_ms)

    owner.disconnect = beaten_meanwhile
    replica.run_once()
    board.beat("t1", player, clock.now, "s")
    board.closed("t1", player, clock.now, "s")  # say the stream was the last: then a new one beats
    assert replica.run_once().disconnected == 1
    assert not connected(tables, player)
    for beat in (1, 2):  # the stream's next score (every other beat) finds the player missing
        beats.beat([("t1", player, "s")], clock.now + beat * BEAT_MS)
    assert connected(tables, player)


def test_a_hub_with_more_streams_than_one_beat_script_takes_beats_every_one(client):
    prefix = f"many-beats-{uuid.uuid4().hex[:8]}"
    board = PresenceBoard(client, prefix=prefix)
    try:
        _beat_more_than_one_script(board)
    finally:
        for key in client.scan_iter(f"{prefix}:*"):
            client.delete(key)


def _beat_more_than_one_script(board: PresenceBoard) -> None:
    streams = [(f"t{n % 7}", str(1_000 + n), f"stream-{n}") for n in range(2 * BEATS_PER_SCRIPT + 31)]
    board.beat(*streams[5][:2], now_ms=500, stream=streams[5][2])  # one already present
    now = 500 + STREAM_SCORED_EVERY_MS  # its next score is due
    back = board.beat_many(streams, now_ms=now)
    assert len(back) == len(streams) - 1  # every other player was missing: all are told of
    assert (streams[5][0], streams[5][1]) not in back
    assert all(board.last_beat(table_id, account) == now for table_id, account, _ in streams)
    assert all(board.streams(table_id, account) == 1 for table_id, account, _ in streams)


def test_one_beat_of_two_streams_of_a_missing_player_tells_of_them_once_and_takes_them_out_of_closed(client):
    prefix = f"two-streams-{uuid.uuid4().hex[:8]}"
    board = PresenceBoard(client, prefix=prefix)
    try:
        board.beat("t1", "a", now_ms=1_000, stream="s1")
        assert board.closed("t1", "a", now_ms=2_000, stream="s1")  # the last stream closed: in the closed set
        back = board.beat_many([("t1", "a", "s2"), ("t1", "b", "s3"), ("t1", "b", "s4")], now_ms=3_000)
        assert back == [("t1", "b")]  # a was still on the board (closed, not yet swept); b was new
        assert board.claim_silent(now_ms=3_000) == []  # a's beat took it out of the closed set
        assert board.streams("t1", "b") == 2 and board.last_beat("t1", "b") == 3_000
        board.beat_many([("t1", "a", "s2")], now_ms=2_500)  # a late beat never moves a player back
        assert board.last_beat("t1", "a") == 3_000
    finally:
        for key in client.scan_iter(f"{prefix}:*"):
            client.delete(key)


def test_a_stream_set_s_expiry_is_pushed_on_within_fourteen_seconds_and_whenever_the_set_may_be_new(client):
    """A PEXPIRE at every beat was one Redis command in nine of a played table's; the set must
    still never run out while one of its streams beats (Redis's clock is not the test's: the
    set's time left is lowered by hand where time would have passed)."""
    prefix = f"expiry-{uuid.uuid4().hex[:8]}"
    board = PresenceBoard(client, prefix=prefix)
    key = f"{prefix}:{{presence}}:streams:t1\x1fa"
    try:
        board.beat("t1", "a", now_ms=0, stream="s1")
        assert STREAMS_KEPT_MS - 1_000 < client.pttl(key) <= STREAMS_KEPT_MS
        client.pexpire(key, 5_000)  # as if most of its life had passed
        now = 0
        while client.pttl(key) <= 5_000:
            now += BEAT_MS
            assert now <= EXPIRY_PUSHED_EVERY_MS + STREAM_SCORED_EVERY_MS + BEAT_MS, "the expiry was not pushed on"
            board.beat("t1", "a", now_ms=now, stream="s1")
        assert now >= EXPIRY_PUSHED_EVERY_MS  # the beats before set no expiry
        # The longest gap between two pushes (the bound above) is within the set's life, with a
        # missed push to spare.
        assert STREAMS_KEPT_MS >= 2 * (EXPIRY_PUSHED_EVERY_MS + STREAM_SCORED_EVERY_MS + BEAT_MS)
        client.pexpire(key, 5_000)
        board.beat("t1", "a", now_ms=now + 1, stream="s2")  # a new stream in the set
        assert client.pttl(key) > STREAMS_KEPT_MS - 1_000
        client.delete(key)  # Redis lost it (a restart without its data)
        board.beat("t1", "a", now_ms=now + STREAM_SCORED_EVERY_MS, stream="s1")
        assert board.streams("t1", "a") == 1
        assert client.pttl(key) > STREAMS_KEPT_MS - 1_000  # made again, with its expiry
        elsewhere = PresenceBoard(client, prefix=prefix)  # another process: its own first beat pushes
        client.pexpire(key, 5_000)
        elsewhere.beat("t1", "a", now_ms=now + STREAM_SCORED_EVERY_MS + 1, stream="s1")
        assert client.pttl(key) > STREAMS_KEPT_MS - 1_000
    finally:
        for found in client.scan_iter(f"{prefix}:*"):
            client.delete(found)


def test_a_stream_s_score_is_written_every_other_beat_and_a_sibling_s_close_still_finds_it_alive(client):
    """The stream set's scores say which of a player's streams live when one closes; written
    every other beat, a live stream's is never older than the quiet time there."""
    prefix = f"scores-{uuid.uuid4().hex[:8]}"
    here, elsewhere = PresenceBoard(client, prefix=prefix), PresenceBoard(client, prefix=prefix)
    key = f"{prefix}:{{presence}}:streams:t1\x1fa"
    try:
        here.beat("t1", "a", now_ms=0, stream="closing")
        written = []
        for now in range(0, 5 * QUIET_AFTER_MS + BEAT_MS, BEAT_MS):  # the other stream beats on, as a hub does
            elsewhere.beat("t1", "a", now_ms=now, stream="living")
            score = int(client.zscore(key, "living"))
            assert now - score <= STREAM_SCORED_EVERY_MS + BEAT_MS < QUIET_AFTER_MS
            written.append(score == now)
            assert here.last_beat("t1", "a") == score  # the board with it
        assert written == ([True, False] * len(written))[:len(written)]  # every other beat
        assert not written[-1]
        closing_at = now + BEAT_MS - 1  # the living stream's score is at its oldest here
        assert here.closed("t1", "a", now_ms=closing_at, stream="closing") is False  # another stream lives
        assert here.claim_silent(now_ms=closing_at) == []
    finally:
        for found in client.scan_iter(f"{prefix}:*"):
            client.delete(found)
