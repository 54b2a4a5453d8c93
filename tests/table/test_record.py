"""A table record's stored form: exact round trips, older records still readable, its size."""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import zlib

import pytest

from paiju.games.engine import IllegalAction
from paiju.games.registry import game_spec
from paiju.table import record as record_module
from paiju.table.record import HandRecord, RecordCodec, TableRecord


def _record_in_a_hand(game: str, tier: str, players: int, moves: int) -> TableRecord:
    """A table that finished a hand (its view kept as ``last_hand``) and plays the next one."""
    rng = random.Random(5)
    spec = game_spec(game)
    record = TableRecord.open(f"{game}-{tier}-03", game, tier)
    for seat in range(players):
        record.sit(str(7_000 + seat), f"player {seat}", coins=80_000)
    for number in (1, 2):
        hand = spec.start_hand(record.rules, [80_000] * players, 0, rng.randbytes(32), None)
        for _ in range(600 if number == 1 else moves):
            if hand.result is not None:
                break
            if hand.to_act is None:
                hand.system_step()
                continue
            hand.apply(hand.to_act, rng.choice(hand.legal_actions(hand.to_act)))
        if number == 1:
            # As JSON has it: a view's tuples come back as lists, from either format.
            record.last_hand = {"hand_id": f"{record.table_id}-1", "seats": list(range(players)),
                                "state": json.loads(json.dumps(hand.view(None)))}
            record.hands_played = 1
        else:
            record.hand = HandRecord(f"{record.table_id}-2", list(range(players)), hand.to_bytes(), 2)
    return record


GAMES = [("zhajinhua", "free", 3, 6), ("hunzhan", "stake10", 4, 30), ("chaodipi", "yancheng-score", 4, 30)]


@pytest.mark.parametrize(("game", "tier", "players", "moves"), GAMES)
def test_a_record_reads_back_exactly(game: str, tier: str, players: int, moves: int) -> None:
    record = _record_in_a_hand(game, tier, players, moves)
    assert TableRecord.from_bytes(record.to_bytes()) == record


@pytest.mark.parametrize(("game", "tier", "players", "moves"), GAMES)
def test_the_stored_json_is_what_the_standard_library_writes_so_older_servers_read_it(
    game: str, tier: str, players: int, moves: int
) -> None:
    record = _record_in_a_hand(game, tier, players, moves)
    record.seats[0].name = "玩家 ☃ \"quoted\""  # type: ignore[union-attr]  # text that needs no escaping in UTF-8
    stored = record.to_bytes()
    unpacker = zlib.decompressobj(-15, zdict=record_module._RECORD_DICTIONARY)
    text = (unpacker.decompress(stored[1:]) + unpacker.flush()).partition(b"\n")[0]
    data = json.loads(text)
    assert text == json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


@pytest.mark.parametrize(("game", "tier", "players", "moves"), GAMES)
def test_records_written_one_after_another_are_each_what_a_fresh_deflater_writes(
    game: str, tier: str, players: int, moves: int
) -> None:
    # Records deflate with copies of one deflater primed with the dictionary: a copy must not
    # carry anything over from the records before it.
    first = _record_in_a_hand("zhajinhua", "free", 5, 9).to_bytes()
    record = _record_in_a_hand(game, tier, players, moves)
    stored = record.to_bytes()
    packer = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zdict=record_module._RECORD_DICTIONARY)
    unpacker = zlib.decompressobj(-15, zdict=record_module._RECORD_DICTIONARY)
    plain = unpacker.decompress(stored[1:]) + unpacker.flush()
    assert stored == b"\x01" + packer.compress(plain) + packer.flush()
    assert _record_in_a_hand("zhajinhua", "free", 5, 9).to_bytes() == first


def test_a_hand_blob_of_any_bytes_survives() -> None:
    record = TableRecord.open("t1", "zhajinhua", "free")
    record.hand = HandRecord("t1-1", [0, 2], b"\n\x00\xff{not json}\n\n", 1)
    assert TableRecord.from_bytes(record.to_bytes()).hand == record.hand


def test_a_record_written_before_the_dictionary_is_still_read() -> None:
    record = _record_in_a_hand("zhajinhua", "free", 3, 6)
    # What the previous format wrote: zlib'd JSON with the hand's bytes base64'd inside.
    fields = dataclasses.asdict(record)
    fields["hand"]["blob"] = base64.b64encode(record.hand.blob).decode()
    legacy = zlib.compress(json.dumps(fields, separators=(",", ":"), sort_keys=True).encode(), 6)
    assert TableRecord.from_bytes(legacy) == record


def test_a_damaged_record_is_refused_plainly() -> None:
    stored = _record_in_a_hand("zhajinhua", "free", 3, 6).to_bytes()
    for damaged in (stored[: len(stored) // 2], b"\x01garbage", b"", b"\x02" + stored[1:]):
        with pytest.raises(ValueError, match="corrupt table record"):
            TableRecord.from_bytes(damaged)


@pytest.mark.parametrize(("game", "tier", "players", "moves"), GAMES)
def test_a_record_in_a_hand_stays_small(game: str, tier: str, players: int, moves: int) -> None:
    record = _record_in_a_hand(game, tier, players, moves)
    # Zlib'd without the dictionary these are 1.4 to 2.4 KB; the high-entropy parts (two seeds,
    # two card orders, a commitment) alone take ~250 bytes.
    assert len(record.to_bytes()) <= 700


def test_a_seated_player_sitting_again_mid_hand_was_told_nobody_may_enter() -> None:
    # Found by the fault soak: a client back from an outage sits again to make sure of its seat;
    # told "nobody may enter now" instead of "already seated", it retried until the hand ended.
    record = _record_in_a_hand("zhajinhua", "free", 3, 2)
    with pytest.raises(IllegalAction) as seated:
        record.verify_sit("7001", coins=80_000)
    assert seated.value.code == "already_seated"
    assert record.verify_sit("9999", coins=80_000) not in record.hand.seats  # a free seat: see below


def test_bug_sitting_down_while_a_hand_was_played_was_refused_so_a_busy_table_was_a_race() -> None:
    # Bot tables end a hand every second or so, and "+" failed 2 times in 5 ("a hand is being
    # played here: nobody may enter now"). A newcomer now takes a free seat mid-hand and is dealt
    # in from the next hand, not this one.
    record = _record_in_a_hand("zhajinhua", "free", 3, 2)
    in_hand = list(record.hand.seats)
    seat = record.sit("9999", "newcomer", 80_000)
    assert seat not in in_hand and record.seats[seat].account == "9999"
    assert list(record.hand.seats) == in_hand and record.hand.hand_seat(seat) is None
    assert record.ready_kick_candidate() is None, "nobody is hurried while a hand is on"


@pytest.mark.parametrize(("game", "tier", "players", "moves"), GAMES)
def test_what_the_codec_wrote_reads_back_as_the_stored_bytes_would(game: str, tier: str, players: int, moves: int) -> None:
    codec = RecordCodec()
    record = _record_in_a_hand(game, tier, players, moves)
    stored = codec.encode("t1", record)
    assert stored == record.to_bytes()
    assert codec.decode("t1", stored) == TableRecord.from_bytes(stored) == record


def test_the_codec_reads_a_state_written_elsewhere_from_its_bytes() -> None:
    codec = RecordCodec()
    mine = _record_in_a_hand("zhajinhua", "free", 3, 6)
    codec.encode("t1", mine)
    theirs = _record_in_a_hand("zhajinhua", "free", 3, 6)  # another process's next commit
    theirs.seats[1].ready = not theirs.seats[1].ready  # type: ignore[union-attr]
    assert codec.decode("t1", theirs.to_bytes()) == theirs != mine
    with pytest.raises(ValueError, match="corrupt table record"):
        codec.decode("t1", b"\x01garbage")


def test_a_record_the_codec_handed_out_may_be_changed_without_changing_the_next_one() -> None:
    codec = RecordCodec()
    stored = codec.encode("t1", _record_in_a_hand("hunzhan", "stake10", 4, 30))
    first = codec.decode("t1", stored)
    first.seats[0].name = "changed by the caller"  # type: ignore[union-attr]
    first.hands_played += 5
    assert codec.decode("t1", stored) == TableRecord.from_bytes(stored) != first


def test_the_codec_remembers_at_most_so_many_tables() -> None:
    codec = RecordCodec(tables_remembered=2)
    record = TableRecord.open("t1", "zhajinhua", "free")
    for table_id in ("t1", "t2", "t3"):
        codec.encode(table_id, record)
    assert len(codec._written) == 1
    assert codec.decode("t1", record.to_bytes()) == record
