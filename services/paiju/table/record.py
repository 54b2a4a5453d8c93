"""A table's record: its seats, who is ready, and the hand in play (one Redis key per table).

The record is what the lobby and the table service change together with one compare-and-set,
so sitting, readiness and the start of a hand can never disagree. It knows seat rules common
to every game (``spec/platform.md``: rooms, sitting, ready); the game's own rules stay in the
engine, reached through :mod:`paiju.games.registry`.

>>> table = TableRecord.open("t1", "zhajinhua", "free")
>>> table.sit("a1", "Ann", coins=5_000); table.sit("b2", "Bo", coins=5_000, seat=3)
0
3
>>> table.state, table.ready("a1"), table.ready("b2"), table.can_start()
('waiting', False, True, True)
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

import orjson

from paiju.games.engine import require
from paiju.games.registry import GameSpec, game_spec

IDLE, WAITING, PLAYING = "idle", "waiting", "playing"

_DICTIONARY_FORMAT = b"\x01"
"""First byte of a record deflated against ``_RECORD_DICTIONARY`` (zlib's own start with 0x78)."""

# Typical records of each game (a hand in play, the last hand's view), their seeds and all but
# one card order left out: deflate finds a record's common parts here. Stored records need these
# exact bytes to be read: never edit it; a better dictionary comes with a new format byte.
_RECORD_DICTIONARY = (
    b'{"carry":null,"game":"chaodipi","hand":{"hand_id":"chaodipi-yancheng-fortune100-07-42-8badf0'
    b'0d","number":42,"seats":[0,1,2,3]},"hands_played":41,"last_hand":{"hand_id":"chaodipi-yanche'
    b'ng-fortune100-07-41-5c0ffee5","seats":[0,1,2,3],"state":{"asked":null,"attacker_points":{"co'
    b'unted":0,"dig":0,"failed_robs":0,"failed_throws":0,"red_fives":0,"total":0,"tricks":0},"bank'
    b'er":null,"commitment":"","deal":5,"dealt":95,"declarations":[],"first_receiver":0,"flag_hand'
    b'":false,"game":"chaodipi","kitty":null,"kitty_holder":null,"kitty_taken":null,"kitty_turned"'
    b':null,"legal_actions":[],"level":"2","match":{"banker":null,"flag_hand":false,"levels":[[1,"'
    b'2"],[1,"2"]],"repeat":0},"more_plays":false,"multiples":[1,1,1,1],"pending_system_step":["de'
    b'al",0.25],"phase":"dealing","players":[{"card_count":24,"cards":null,"point_cards":"","seat"'
    b':0,"side":null,"strikes":0},{"card_count":24,"cards":null,"point_cards":"","seat":1,"side":n'
    b'ull,"strikes":0},{"card_count":24,"cards":null,"point_cards":"","seat":2,"side":null,"strike'
    b's":0},{"card_count":23,"cards":null,"point_cards":"","seat":3,"side":null,"strikes":0}],"pre'
    b'vious_trick":[],"result":null,"reveal":null,"seat":null,"to_act":null,"trick":[],"tricks_pla'
    b'yed":0,"trump":null,"trump_known":false,"turn_number":0,"variant":"yancheng"}},"last_winner"'
    b':null,"rules":{"base_stake":100,"channel":"fortune_normal","variant":"yancheng"},"seating_st'
    b'amp":0,"seats":[{"account":"1000","away_stamp":null,"coins":50000,"connected":true,"leaving"'
    b':false,"name":"Player 0","ready":false,"strikes":0,"turn_left_ms":null},{"account":"1037","a'
    b'way_stamp":null,"coins":50000,"connected":true,"leaving":false,"name":"Player 1","ready":fal'
    b'se,"strikes":0,"turn_left_ms":null},{"account":"1074","away_stamp":null,"coins":50000,"conne'
    b'cted":true,"leaving":false,"name":"Player 2","ready":false,"strikes":0,"turn_left_ms":null},'
    b'{"account":"1111","away_stamp":null,"coins":50000,"connected":true,"leaving":false,"name":"P'
    b'layer 3","ready":false,"strikes":0,"turn_left_ms":null}],"stamps":312,"system_stamp":0,"tabl'
    b'e_id":"chaodipi-yancheng-fortune100-07","tier":"yancheng-fortune100","turn_ms":null,"turn_st'
    b'amp":312}\n'
    b'{"format":1,"game":"chaodipi","state":{"asked":null,"banker":null,"cards_played":0,"coins":['
    b'50000,50000,50000,50000],"dealt":30,"declarations":[],"failed_throws":[],"first_receiver":0,'
    b'"forced_fives":[],"hands":[],"history":[[-1,"system"],[-1,"system"],[-1,"system"],[-1,"syste'
    b'm"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,'
    b'"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"'
    b'],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"s'
    b'ystem"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"]]'
    b',"kitty":"5S 7H 2C TD JD AD 4D 4S","kitty_holder":null,"kitty_received":"","kitty_turned":fa'
    b'lse,"match":{"banker":null,"flag_hand":false,"levels":[[1,"2"],[1,"2"]],"repeat":0},"multipl'
    b'es":[1,1,1,1],"orders":[],"passes":0,"phase":"dealing","point_cards":["","","",""],"result":'
    b'null,"revealed":false,"rules":{"base_stake":100,"channel":"fortune_normal","deal_interval":0'
    b'.25,"declare_window":5.0,"timeouts_to_escape":4,"turn_seconds":20,"variant":{"ace_high_tract'
    b'or":true,"ace_low_tractor":true,"ace_wraps_tractor":false,"blind_declaring":true,"declaratio'
    b'n_order":["clubs_pair","diamonds_pair","spades_pair","hearts_pair","small_joker_pair","big_j'
    b'oker_pair","red_five_pair","look_back"],"dig_pair_multiplier":4,"dig_single_multiplier":2,"e'
    b'scape_penalty":15,"failed_rob_points":80,"flag_hand":false,"flag_hand_size":27,"flag_hand_ta'
    b'ke_bank_at":100,"hand_size":25,"heaven_and_earth_exact":true,"heaven_and_earth_guard":true,"'
    b'heaven_and_earth_score":16,"jack_to_bottom":false,"joker_tractor":true,"kitty_size":8,"laps"'
    b':3,"level_pair_in_plain_tractor":false,"level_step":40,"look_back":true,"must_play_ranks":[]'
    b',"name":"yancheng","plain_hearts_five_ten_king":true,"plain_tractor_skips_level":false,"red_'
    b'five_bonuses":true,"red_five_pair_in_tractor":false,"red_five_points":50,"take_bank_at":80,"'
    b'throw_penalty_per_card":10,"trump_five_ten_king_forces":true}},"seed":"","strikes":[0,0,0,0]'
    b',"to_act":null,"trick":[],"tricks":[],"trump":null,"turn_number":0}}\n'
    b'{"carry":null,"game":"hunzhan","hand":{"hand_id":"hunzhan-stake10-07-42-8badf00d","number":4'
    b'2,"seats":[0,1,2,3]},"hands_played":41,"last_hand":{"hand_id":"hunzhan-stake10-07-41-5c0ffee'
    b'5","seats":[0,1,2,3],"state":{"commitment":"","deal":7,"dealt":5,"declaration":null,"declara'
    b'tions":[],"declarer":null,"first_receiver":0,"game":"hunzhan","last_trick_winner":null,"lega'
    b'l_actions":[],"no_trump":false,"pending_system_step":["deal",0.25],"phase":"dealing","player'
    b's":[{"card_count":2,"cards":null,"point_cards":"","points":0,"seat":0,"strikes":0,"tricks_wo'
    b'n":0},{"card_count":1,"cards":null,"point_cards":"","points":0,"seat":1,"strikes":0,"tricks_'
    b'won":0},{"card_count":1,"cards":null,"point_cards":"","points":0,"seat":2,"strikes":0,"trick'
    b's_won":0},{"card_count":1,"cards":null,"point_cards":"","points":0,"seat":3,"strikes":0,"tri'
    b'cks_won":0}],"previous_trick":[],"result":null,"reveal":null,"seat":null,"to_act":null,"tric'
    b'k":[],"trump":null,"turn_number":0}},"last_winner":null,"rules":{"coins_per_5":10},"seating_'
    b'stamp":0,"seats":[{"account":"1000","away_stamp":null,"coins":50000,"connected":true,"leavin'
    b'g":false,"name":"Player 0","ready":false,"strikes":0,"turn_left_ms":null},{"account":"1037",'
    b'"away_stamp":null,"coins":50000,"connected":true,"leaving":false,"name":"Player 1","ready":f'
    b'alse,"strikes":0,"turn_left_ms":null},{"account":"1074","away_stamp":null,"coins":50000,"con'
    b'nected":true,"leaving":false,"name":"Player 2","ready":false,"strikes":0,"turn_left_ms":null'
    b'},{"account":"1111","away_stamp":null,"coins":50000,"connected":true,"leaving":false,"name":'
    b'"Player 3","ready":false,"strikes":0,"turn_left_ms":null}],"stamps":312,"system_stamp":0,"ta'
    b'ble_id":"hunzhan-stake10-07","tier":"stake10","turn_ms":null,"turn_stamp":312}\n'
    b'{"format":1,"game":"hunzhan","state":{"coins":[50000,50000,50000,50000],"dealt":30,"declarat'
    b'ions":[],"declarer":null,"first_receiver":0,"hands":[],"history":[[-1,"system"],[-1,"system"'
    b'],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"s'
    b'ystem"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],'
    b'[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"sys'
    b'tem"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-1,"system"],[-'
    b'1,"system"],[-1,"system"]],"last_trick_winner":null,"orders":[],"phase":"dealing","point_car'
    b'ds":["","","",""],"previous_trick":[],"result":null,"rules":{"coins_per_5":10,"deal_interval'
    b'":0.25,"declare_window":5.0,"fee_rate":0.02,"timeouts_to_escape":4,"turn_seconds":20},"seed"'
    b':"","strikes":[0,0,0,0],"to_act":null,"trick":[],"tricks_won":[0,0,0,0],"trump":null,"turn_n'
    b'umber":0}}\n'
    b'{"carry":null,"game":"zhajinhua","hand":{"hand_id":"zhajinhua-free-07-42-8badf00d","number":'
    b'42,"seats":[0,1,2]},"hands_played":41,"last_hand":{"hand_id":"zhajinhua-free-07-41-5c0ffee5"'
    b',"seats":[0,1,2],"state":{"ante":100,"call_amount":null,"commitment":"","compare_allowed":fa'
    b'lse,"dealer":0,"game":"zhajinhua","legal_actions":[],"max_stake":1000,"players":[{"acted":fa'
    b'lse,"cards":"4C TS 2H","coins":49900,"paid":100,"seat":0,"seen":false,"status":"folded"},{"a'
    b'cted":true,"cards":"AH JH 8C","coins":49100,"paid":900,"seat":1,"seen":true,"status":"folded'
    b'"},{"acted":true,"cards":"6D 3H QH","coins":47900,"paid":2100,"seat":2,"seen":true,"status":'
    b'"playing"}],"pot":3100,"pot_cap":10000,"result":{"coins":[-100,-900,1000],"details":{"ante":'
    b'100,"bonus_per_payer":0,"how":"last_player","pot":3100},"fee":0,"lines":[[0,-100,"stake"],[1'
    b',-900,"stake"],[2,-2100,"stake"],[2,3100,"pot"]],"scores":null,"winners":[2]},"reveal":{"ord'
    b'er":"4C AH 6D TS JH 3H 2H 8C QH 3D 6S JD 7H 2S QS TD 4D 9D TH AC 8S JS 9H TC 7S KH 5S AS 6C '
    b'7D QC 4H KD 4S 5H 9S 7C 8H 8D 2C QD 9C 5D KC AD 6H 3S JC 5C 3C KS 2D","seed":""},"seat":null'
    b',"stake":1000,"to_act":null}},"last_winner":null,"rules":{},"seating_stamp":0,"seats":[{"acc'
    b'ount":"1000","away_stamp":null,"coins":50000,"connected":true,"leaving":false,"name":"Player'
    b' 0","ready":false,"strikes":0,"turn_left_ms":null},{"account":"1037","away_stamp":null,"coin'
    b's":50000,"connected":true,"leaving":false,"name":"Player 1","ready":false,"strikes":0,"turn_'
    b'left_ms":null},{"account":"1074","away_stamp":null,"coins":50000,"connected":true,"leaving":'
    b'false,"name":"Player 2","ready":false,"strikes":0,"turn_left_ms":null},null,null],"stamps":3'
    b'12,"system_stamp":0,"table_id":"zhajinhua-free-07","tier":"free","turn_ms":null,"turn_stamp"'
    b':312}\n'
    b'{"format":1,"game":"zhajinhua","state":{"acted":[true,true,true],"ante":100,"beat_aaa":[fals'
    b'e,false,false],"coins":[50000,50000,50000],"dealer":0,"history":[[1,"raise 600"],[2,"look"],'
    b'[2,"raise 1000"],[0,"look"],[0,"call"],[1,"compare 2"],[2,"call"],[0,"open"]],"known_by":[[]'
    b',[2],[1]],"order":"","paid":[6100,1700,4100],"result":{"coins":[-6100,-1700,7800],"details":'
    b'{"ante":100,"bonus_per_payer":0,"how":"open","pot":11900},"fee":0,"lines":[[0,-6100,"stake"]'
    b',[1,-1700,"stake"],[2,-4100,"stake"],[2,11900,"pot"]],"scores":null,"winners":[2]},"rules":{'
    b'"ante":null,"fee_permille":0,"max_stake_antes":10,"pot_cap_antes":100,"special_235":"beats_a'
    b'aa"},"seed":"","seen":[true,true,true],"shown_to_all":[true,false,true],"stake":1000,"status'
    b'":["lost","lost","playing"],"to_act":null,"turn_number":6}}'
)
RECORD_MEMORY_LEVEL = 5
"""zlib's ``memLevel`` for records: a copy of the deflater copies its hash table and its pending
buffer, which level 8 (the default) makes 64 KB each and level 5 8 KB each. On records of all
three games played by bots, level 5 deflates in 55 µs instead of 87-89 (one write per action);
the records come out the same size (28 bytes more over 2,958 records, 3 at most for one)."""

_PRIMED_PACKER = zlib.compressobj(6, zlib.DEFLATED, -15, RECORD_MEMORY_LEVEL, zdict=_RECORD_DICTIONARY)
"""A deflater with the dictionary already loaded: each record deflates with a copy of it, which
writes the same bytes as a new one and spares loading 9 KB of dictionary per write (30 → 18 µs
of a record's write, which every action makes)."""


@dataclass(slots=True)
class SeatRecord:
    account: str
    name: str
    coins: int
    """Coins as the table last knew them (at sitting, then after each settlement)."""
    ready: bool = False
    connected: bool = True
    away_stamp: int | None = None
    """While disconnected: the stamp of this disconnection, which its reconnect deadline carries."""
    turn_left_ms: int | None = None
    """A suspended turn timer's time left (games that wait for a disconnected player)."""
    leaving: bool = False
    """Escaped mid-hand: stood up when the hand ends."""
    strikes: int = 0
    """Consecutive turn timeouts (trick games: the 4th is an escape)."""
    options_key: str | None = None
    """In a hand: the engine's key of what this seat may do (``options_key``) as last committed."""
    options_since: int | None = None
    """The table version from which ``options_key`` has held: a move made on a view at least
    this recent is not stale, whatever else moved since (``None``: refuse any older view)."""


@dataclass(slots=True)
class HandRecord:
    hand_id: str
    seats: list[int]
    """The table seat of each hand seat, in hand order (hand seat i plays at seats[i])."""
    blob: bytes
    number: int
    held: bool = True
    """Whether the wallet holds coins for this hand (a score channel's hands hold none): a hand
    that ends without a settlement then has its holds released."""

    def hand_seat(self, table_seat: int) -> int | None:
        return self.seats.index(table_seat) if table_seat in self.seats else None


def new_hand_id(table_id: str, number: int, token: str) -> str:
    """The id of hand ``number`` of a table; ``token`` tells apart tries to start it.

    >>> new_hand_id("zhajinhua-free-03", 7, "5c0ffee5")
    'zhajinhua-free-03-7-5c0ffee5'
    """
    return f"{table_id}-{number}-{token}"


def hand_place(hand_id: str) -> tuple[str, int] | None:
    """The table and the hand number of an id :func:`new_hand_id` made; ``None`` for another id.

    >>> hand_place("zhajinhua-free-03-7-5c0ffee5"), hand_place("hand-1")
    (('zhajinhua-free-03', 7), None)
    """
    table_id, _, rest = hand_id.rpartition("-")
    table_id, _, number = table_id.rpartition("-")
    if not (table_id and number.isascii() and number.isdigit() and rest):
        return None
    return table_id, int(number)


@dataclass(slots=True)
class TableRecord:
    table_id: str
    game: str
    tier: str
    seats: list[SeatRecord | None]
    rules: dict[str, Any] = field(default_factory=dict)
    hand: HandRecord | None = None
    hands_played: int = 0
    last_winner: str | None = None
    """The account that won the last hand: the next dealer (炸金花) while it stays seated."""
    last_hand: dict[str, Any] | None = None
    """The public view of the last finished hand: its settlement table and its reveal."""
    stamps: int = 0
    """Source of stamps: each deadline carries the stamp of the state it was set for, and its
    expiry is a no-op once that state has moved on (see :mod:`paiju.table.tables`)."""
    turn_stamp: int = 0
    seating_stamp: int = 0
    carry: dict[str, Any] | None = None
    """What the last hand left for the next one at the same seats (炒地皮: the match), with
    the accounts it holds for (``carry["accounts"]``); another line-up starts afresh."""
    system_stamp: int = 0
    """The stamp of the engine's pending system step (混战: the next card, the end of declaring)."""
    turn_ms: int | None = None
    """This table's turn time; ``None``: the platform's default (``PAIJU_TURN_SECONDS``)."""

    def next_stamp(self) -> int:
        self.stamps += 1
        return self.stamps

    @classmethod
    def open(cls, table_id: str, game: str, tier: str, rules: dict[str, Any] | None = None) -> TableRecord:
        spec = game_spec(game)
        merged = {**spec.tier_rules(spec.tier(tier)), **(rules or {})}
        return cls(table_id, game, tier, [None] * spec.max_players, merged)

    @property
    def spec(self) -> GameSpec:
        return game_spec(self.game)

    # --- what the lobby shows -----------------------------------------------------------

    @property
    def state(self) -> str:
        """``idle`` (nobody seated), ``waiting`` or ``playing`` (a hand is on)."""
        if self.hand is not None:
            return PLAYING
        return WAITING if self.seated() else IDLE

    def seated(self) -> list[int]:
        return [seat for seat, taken in enumerate(self.seats) if taken is not None]

    def seat_of(self, account: str) -> int | None:
        for seat, taken in enumerate(self.seats):
            if taken is not None and taken.account == account:
                return seat
        return None

    def summary(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "game": self.game,
            "tier": self.tier,
            "state": self.state,
            "seats": [
                None if s is None
                else {"account": s.account, "name": s.name, "ready": s.ready, "coins": s.coins, "connected": s.connected}
                for s in self.seats
            ],
        }

    # --- sit, stand, ready ----------------------------------------------------------------

    def verify_sit(self, account: str, coins: int, seat: int | None = None) -> int:
        """The seat ``account`` would take; raises IllegalAction with the reason otherwise."""
        # A player coming back to their own seat mid-hand (a client reconnecting) must hear that
        # they sit here, not that nobody may enter: the first answer lets them play on.
        require(self.seat_of(account) is None, "you are already seated at this table", "already_seated")
        # A free seat may be taken while a hand is played: the newcomer watches it and is dealt in
        # from the next one, as in any card room (refusing made sitting at a busy table a race).
        self.verify_coins(coins, "sit")
        if seat is None:
            free = [s for s, taken in enumerate(self.seats) if taken is None]
            require(bool(free), "every seat is taken", "table_full")
            return free[0]
        require(
            isinstance(seat, int) and 0 <= seat < len(self.seats),
            f"this table has seats 0..{len(self.seats) - 1}, not {seat!r}",
            "bad_seat",
        )
        require(self.seats[seat] is None, f"seat {seat} is taken", "seat_taken")
        return seat

    def can_afford(self, coins: int) -> bool:
        """Whether ``coins`` reach the tier's minimum (what :meth:`verify_coins` checks)."""
        return coins >= self.spec.tier(self.tier).min_coins

    def verify_coins(self, coins: int, doing: str) -> None:
        """Raise IllegalAction (``not_enough_coins``) if ``coins`` are below the tier's minimum."""
        tier = self.spec.tier(self.tier)
        require(
            self.can_afford(coins),
            f"this {tier.title} room needs {tier.min_coins:,} coins to {doing}; you hold {coins:,}",
            "not_enough_coins",
        )

    def sit(self, account: str, name: str, coins: int, seat: int | None = None) -> int:
        seat = self.verify_sit(account, coins, seat)
        self.seats[seat] = SeatRecord(account, name, coins)
        return seat

    def verify_stand(self, account: str) -> int:
        seat = self.seat_of(account)
        require(seat is not None, "you are not seated at this table", "not_seated")
        require(
            self.hand is None or self.hand.hand_seat(seat) is None,  # type: ignore[arg-type]
            "you are in the hand being played: leaving now is an escape; stand with accept_escape "
            "set (SDK: stand(room, escape=True))",
            "in_hand",
        )
        return seat  # type: ignore[return-value]

    def stand(self, account: str) -> int:
        seat = self.verify_stand(account)
        self.seats[seat] = None
        return seat

    def ready(self, account: str) -> bool:
        """Mark ``account`` ready; True when this makes the table ready to start a hand. (Whether
        the player's coins still reach the tier's minimum is the caller's to ask the ledger.)"""
        seat = self.seat_of(account)
        require(seat is not None, "you are not seated at this table", "not_seated")
        require(self.hand is None, "a hand is already being played", "table_playing")
        self.seats[seat].ready = True  # type: ignore[union-attr]
        return self.can_start()

    def seated_accounts(self) -> list[str]:
        """The accounts of the seated players, in seat order (as :meth:`seated`)."""
        return [self.seats[seat].account for seat in self.seated()]  # type: ignore[union-attr]

    def can_start(self) -> bool:
        """Every seated player is ready and connected (an away player is not dealt in), and
        their number is legal for the game."""
        seated = self.seated()
        spec = self.spec
        return (
            self.hand is None
            and spec.min_players <= len(seated) <= spec.max_players
            and all(self.seats[s].ready and self.seats[s].connected for s in seated)  # type: ignore[union-attr]
        )

    def ready_kick_candidate(self) -> int | None:
        """The one seat that is not ready while enough others are to start without it.

        It is stood up if it does not press start within the ready-kick time (platform.md).
        """
        if self.hand is not None:
            return None
        seated = self.seated()
        # An away player holds up the start like one who has not pressed start.
        waiting = [s for s in seated if not (self.seats[s].ready and self.seats[s].connected)]  # type: ignore[union-attr]
        ready_count = len(seated) - len(waiting)
        spec = self.spec
        needed = spec.max_players - 1 if spec.min_players == spec.max_players else spec.min_players
        if len(waiting) == 1 and ready_count >= needed:
            return waiting[0]
        return None

    # --- serialisation --------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """The stored form: a format byte, then the record's JSON and, after a newline, the
        hand's own bytes, deflated against a dictionary of typical records.

        Most of a record is the same from table to table (field names, rules, seat layout), so
        deflating against a preset dictionary leaves mainly what is particular to this table
        (~550 bytes for a 炸金花 table in a hand, against ~1,450 zlib'd without one). The hand's
        bytes go as they are, not base64'd inside the JSON, which would hide their repetition.
        (Deflating keeps the stored state about a fifth of its size; its calls into zlib let go
        of the interpreter, which is why :class:`RecordCodec` spares reads of them.)
        """
        return _deflated(self.plain_bytes())

    def plain_bytes(self) -> bytes:
        """The stored form before deflating: the record's JSON, a newline, the hand's bytes."""
        # Shallow field reads: asdict() would deep-copy the last hand's view on every write.
        data = _fields_of(self)
        data["seats"] = [None if seat is None else _fields_of(seat) for seat in self.seats]
        hand_blob = b""
        if self.hand is not None:
            data["hand"] = {"hand_id": self.hand.hand_id, "seats": self.hand.seats, "number": self.hand.number}
            if not self.hand.held:  # written only when it differs from the default
                data["hand"]["held"] = False
            hand_blob = self.hand.blob
        # Compact, keys sorted, UTF-8: byte for byte what json.dumps(separators=(",", ":"),
        # sort_keys=True, ensure_ascii=False) writes, five times faster. It holds no raw newline,
        # so the first one ends it.
        text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
        return text + b"\n" + hand_blob

    @classmethod
    def from_bytes(cls, blob: bytes) -> TableRecord:
        try:
            if blob[:1] == _DICTIONARY_FORMAT:
                return cls._parsed(_inflated(blob))
            # Written before the dictionary: zlib'd JSON, the hand's bytes base64'd in it.
            data = json.loads(zlib.decompress(blob))
            hand = data.pop("hand")
            if hand is not None:
                hand = HandRecord(**{**hand, "blob": base64.b64decode(hand["blob"])})
            return cls._of(data, hand)
        except (zlib.error, ValueError, TypeError, KeyError) as error:
            raise ValueError(f"corrupt table record: {error!r}") from None

    @classmethod
    def from_plain(cls, plain: bytes) -> TableRecord:
        """The record of :meth:`plain_bytes`."""
        try:
            return cls._parsed(plain)
        except (ValueError, TypeError, KeyError) as error:
            raise ValueError(f"corrupt table record: {error!r}") from None

    @classmethod
    def _parsed(cls, plain: bytes) -> TableRecord:
        text, _, hand_blob = plain.partition(b"\n")
        data = orjson.loads(text)
        hand = data.pop("hand")
        return cls._of(data, None if hand is None else HandRecord(**hand, blob=hand_blob))

    @classmethod
    def _of(cls, data: dict[str, Any], hand: HandRecord | None) -> TableRecord:
        seats = [None if s is None else SeatRecord(**s) for s in data.pop("seats")]
        return cls(seats=seats, hand=hand, **data)


class RecordCodec:
    """Records to their stored form and back, remembering per table the last record written
    in plain: reading back what this process wrote (the next action at a table it serves) parses
    it without inflating it again.

    Deflating is a pure function, so a stored form equal to the one remembered is that plain
    record whether or not its commit went through. The remembered forms are immutable bytes:
    nothing a caller changes in a record it was given reaches them.

    >>> codec = RecordCodec()
    >>> record = TableRecord.open("t1", "zhajinhua", "free")
    >>> stored = codec.encode("t1", record)
    >>> codec.decode("t1", stored) == record == TableRecord.from_bytes(stored)
    True
    """

    def __init__(self, tables_remembered: int = 20_000) -> None:
        self._written: dict[str, tuple[bytes, bytes]] = {}
        self._most = tables_remembered

    def encode(self, table_id: str, record: TableRecord) -> bytes:
        plain = record.plain_bytes()
        stored = _deflated(plain)
        if len(self._written) >= self._most and table_id not in self._written:
            self._written.clear()
        self._written[table_id] = (stored, plain)
        return stored

    def decode(self, table_id: str, stored: bytes) -> TableRecord:
        written = self._written.get(table_id)
        if written is not None and written[0] == stored:
            return TableRecord.from_plain(written[1])
        return TableRecord.from_bytes(stored)


def _deflated(plain: bytes) -> bytes:
    packer = _PRIMED_PACKER.copy()
    return _DICTIONARY_FORMAT + packer.compress(plain) + packer.flush()


def _inflated(blob: bytes) -> bytes:
    # One call into zlib, not two (no flush): each lets go of the interpreter, and with another
    # thread runnable the loop's thread then waits for it back.
    unpacker = zlib.decompressobj(-15, zdict=_RECORD_DICTIONARY)
    plain = unpacker.decompress(blob[1:])
    if not unpacker.eof:
        raise ValueError("the deflated record stops short")
    return plain


def _fields_of(instance: Any) -> dict[str, Any]:
    return {name: getattr(instance, name) for name in _field_names(type(instance))}


@cache
def _field_names(record_class: type) -> tuple[str, ...]:
    """A record class's field names, once: ``dataclasses.fields`` builds them on every call."""
    return tuple(f.name for f in fields(record_class))
