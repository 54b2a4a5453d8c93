# ruff: noqa
from paiju.proto.v1 import hand_parts_pb2 as _hand_parts_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChaodipiView(_message.Message):
    __slots__ = ("game", "variant", "seat", "phase", "flag_hand", "level", "match", "first_receiver", "deal", "dealt", "commitment", "banker", "declarations", "trump", "trump_known", "kitty_holder", "kitty", "kitty_turned", "kitty_taken", "asked", "multiples", "to_act", "turn_number", "pending_system_step", "trick", "previous_trick", "tricks_played", "attacker_points", "players", "legal_actions", "more_plays", "result", "reveal")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    FLAG_HAND_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    FIRST_RECEIVER_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    BANKER_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    TRUMP_KNOWN_FIELD_NUMBER: _ClassVar[int]
    KITTY_HOLDER_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    KITTY_TURNED_FIELD_NUMBER: _ClassVar[int]
    KITTY_TAKEN_FIELD_NUMBER: _ClassVar[int]
    ASKED_FIELD_NUMBER: _ClassVar[int]
    MULTIPLES_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    TURN_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PENDING_SYSTEM_STEP_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    ATTACKER_POINTS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    MORE_PLAYS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    game: str
    variant: str
    seat: int
    phase: str
    flag_hand: bool
    level: str
    match: ChaodipiMatch
    first_receiver: int
    deal: int
    dealt: int
    commitment: str
    banker: int
    declarations: _containers.RepeatedCompositeFieldContainer[ChaodipiDeclaration]
    trump: str
    trump_known: bool
    kitty_holder: int
    kitty: str
    kitty_turned: str
    kitty_taken: str
    asked: int
    multiples: _containers.RepeatedScalarFieldContainer[int]
    to_act: int
    turn_number: int
    pending_system_step: _hand_parts_pb2.SystemStep
    trick: _containers.RepeatedCompositeFieldContainer[_hand_parts_pb2.SeatCards]
    previous_trick: _containers.RepeatedCompositeFieldContainer[_hand_parts_pb2.SeatCards]
    tricks_played: int
    attacker_points: ChaodipiPoints
    players: _containers.RepeatedCompositeFieldContainer[ChaodipiPlayer]
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    more_plays: bool
    result: ChaodipiResult
    reveal: _hand_parts_pb2.HandReveal
    def __init__(self, game: _Optional[str] = ..., variant: _Optional[str] = ..., seat: _Optional[int] = ..., phase: _Optional[str] = ..., flag_hand: _Optional[bool] = ..., level: _Optional[str] = ..., match: _Optional[_Union[ChaodipiMatch, _Mapping]] = ..., first_receiver: _Optional[int] = ..., deal: _Optional[int] = ..., dealt: _Optional[int] = ..., commitment: _Optional[str] = ..., banker: _Optional[int] = ..., declarations: _Optional[_Iterable[_Union[ChaodipiDeclaration, _Mapping]]] = ..., trump: _Optional[str] = ..., trump_known: _Optional[bool] = ..., kitty_holder: _Optional[int] = ..., kitty: _Optional[str] = ..., kitty_turned: _Optional[str] = ..., kitty_taken: _Optional[str] = ..., asked: _Optional[int] = ..., multiples: _Optional[_Iterable[int]] = ..., to_act: _Optional[int] = ..., turn_number: _Optional[int] = ..., pending_system_step: _Optional[_Union[_hand_parts_pb2.SystemStep, _Mapping]] = ..., trick: _Optional[_Iterable[_Union[_hand_parts_pb2.SeatCards, _Mapping]]] = ..., previous_trick: _Optional[_Iterable[_Union[_hand_parts_pb2.SeatCards, _Mapping]]] = ..., tricks_played: _Optional[int] = ..., attacker_points: _Optional[_Union[ChaodipiPoints, _Mapping]] = ..., players: _Optional[_Iterable[_Union[ChaodipiPlayer, _Mapping]]] = ..., legal_actions: _Optional[_Iterable[str]] = ..., more_plays: _Optional[bool] = ..., result: _Optional[_Union[ChaodipiResult, _Mapping]] = ..., reveal: _Optional[_Union[_hand_parts_pb2.HandReveal, _Mapping]] = ...) -> None: ...

class ChaodipiMatch(_message.Message):
    __slots__ = ("levels", "banker", "repeat", "flag_hand")
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    BANKER_FIELD_NUMBER: _ClassVar[int]
    REPEAT_FIELD_NUMBER: _ClassVar[int]
    FLAG_HAND_FIELD_NUMBER: _ClassVar[int]
    levels: _containers.RepeatedCompositeFieldContainer[ChaodipiTeamLevel]
    banker: int
    repeat: int
    flag_hand: bool
    def __init__(self, levels: _Optional[_Iterable[_Union[ChaodipiTeamLevel, _Mapping]]] = ..., banker: _Optional[int] = ..., repeat: _Optional[int] = ..., flag_hand: _Optional[bool] = ...) -> None: ...

class ChaodipiTeamLevel(_message.Message):
    __slots__ = ("lap", "rank")
    LAP_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    lap: int
    rank: str
    def __init__(self, lap: _Optional[int] = ..., rank: _Optional[str] = ...) -> None: ...

class ChaodipiDeclaration(_message.Message):
    __slots__ = ("seat", "stage", "index", "kind", "cards", "trump", "effective")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    stage: str
    index: int
    kind: str
    cards: str
    trump: _hand_parts_pb2.NullableString
    effective: bool
    def __init__(self, seat: _Optional[int] = ..., stage: _Optional[str] = ..., index: _Optional[int] = ..., kind: _Optional[str] = ..., cards: _Optional[str] = ..., trump: _Optional[_Union[_hand_parts_pb2.NullableString, _Mapping]] = ..., effective: _Optional[bool] = ...) -> None: ...

class ChaodipiPoints(_message.Message):
    __slots__ = ("tricks", "dig", "red_fives", "failed_throws", "failed_robs", "total", "counted")
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    DIG_FIELD_NUMBER: _ClassVar[int]
    RED_FIVES_FIELD_NUMBER: _ClassVar[int]
    FAILED_THROWS_FIELD_NUMBER: _ClassVar[int]
    FAILED_ROBS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    COUNTED_FIELD_NUMBER: _ClassVar[int]
    tricks: int
    dig: int
    red_fives: int
    failed_throws: int
    failed_robs: int
    total: int
    counted: int
    def __init__(self, tricks: _Optional[int] = ..., dig: _Optional[int] = ..., red_fives: _Optional[int] = ..., failed_throws: _Optional[int] = ..., failed_robs: _Optional[int] = ..., total: _Optional[int] = ..., counted: _Optional[int] = ...) -> None: ...

class ChaodipiPlayer(_message.Message):
    __slots__ = ("seat", "cards", "card_count", "point_cards", "strikes", "side")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    CARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    POINT_CARDS_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: str
    card_count: int
    point_cards: str
    strikes: int
    side: str
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[str] = ..., card_count: _Optional[int] = ..., point_cards: _Optional[str] = ..., strikes: _Optional[int] = ..., side: _Optional[str] = ...) -> None: ...

class ChaodipiResult(_message.Message):
    __slots__ = ("coins", "lines", "fee", "scores", "winners", "details")
    COINS_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    coins: _containers.RepeatedScalarFieldContainer[int]
    lines: _containers.RepeatedCompositeFieldContainer[_hand_parts_pb2.SettlementLine]
    fee: int
    scores: _hand_parts_pb2.ScoreList
    winners: _containers.RepeatedScalarFieldContainer[int]
    details: ChaodipiResultDetails
    def __init__(self, coins: _Optional[_Iterable[int]] = ..., lines: _Optional[_Iterable[_Union[_hand_parts_pb2.SettlementLine, _Mapping]]] = ..., fee: _Optional[int] = ..., scores: _Optional[_Union[_hand_parts_pb2.ScoreList, _Mapping]] = ..., winners: _Optional[_Iterable[int]] = ..., details: _Optional[_Union[ChaodipiResultDetails, _Mapping]] = ...) -> None: ...

class ChaodipiResultDetails(_message.Message):
    __slots__ = ("how", "points", "winner", "name", "score", "scores", "levels_gained", "match_winner", "heaven_and_earth", "jack_to_bottom", "last_trick", "multiple", "base_stake", "reason", "escaper", "void", "variant", "level", "trump", "banker", "robs", "multiples", "declarations", "kitty", "match", "next_first_receiver")
    HOW_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    LEVELS_GAINED_FIELD_NUMBER: _ClassVar[int]
    MATCH_WINNER_FIELD_NUMBER: _ClassVar[int]
    HEAVEN_AND_EARTH_FIELD_NUMBER: _ClassVar[int]
    JACK_TO_BOTTOM_FIELD_NUMBER: _ClassVar[int]
    LAST_TRICK_FIELD_NUMBER: _ClassVar[int]
    MULTIPLE_FIELD_NUMBER: _ClassVar[int]
    BASE_STAKE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ESCAPER_FIELD_NUMBER: _ClassVar[int]
    VOID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    BANKER_FIELD_NUMBER: _ClassVar[int]
    ROBS_FIELD_NUMBER: _ClassVar[int]
    MULTIPLES_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIRST_RECEIVER_FIELD_NUMBER: _ClassVar[int]
    how: str
    points: ChaodipiPoints
    winner: str
    name: _hand_parts_pb2.NullableString
    score: int
    scores: _hand_parts_pb2.ScoreList
    levels_gained: int
    match_winner: _hand_parts_pb2.NullableInt32
    heaven_and_earth: _hand_parts_pb2.NullableString
    jack_to_bottom: bool
    last_trick: ChaodipiLastTrick
    multiple: int
    base_stake: int
    reason: str
    escaper: int
    void: bool
    variant: str
    level: str
    trump: str
    banker: int
    robs: int
    multiples: _containers.RepeatedScalarFieldContainer[int]
    declarations: _containers.RepeatedCompositeFieldContainer[ChaodipiDeclaration]
    kitty: str
    match: ChaodipiMatch
    next_first_receiver: int
    def __init__(self, how: _Optional[str] = ..., points: _Optional[_Union[ChaodipiPoints, _Mapping]] = ..., winner: _Optional[str] = ..., name: _Optional[_Union[_hand_parts_pb2.NullableString, _Mapping]] = ..., score: _Optional[int] = ..., scores: _Optional[_Union[_hand_parts_pb2.ScoreList, _Mapping]] = ..., levels_gained: _Optional[int] = ..., match_winner: _Optional[_Union[_hand_parts_pb2.NullableInt32, _Mapping]] = ..., heaven_and_earth: _Optional[_Union[_hand_parts_pb2.NullableString, _Mapping]] = ..., jack_to_bottom: _Optional[bool] = ..., last_trick: _Optional[_Union[ChaodipiLastTrick, _Mapping]] = ..., multiple: _Optional[int] = ..., base_stake: _Optional[int] = ..., reason: _Optional[str] = ..., escaper: _Optional[int] = ..., void: _Optional[bool] = ..., variant: _Optional[str] = ..., level: _Optional[str] = ..., trump: _Optional[str] = ..., banker: _Optional[int] = ..., robs: _Optional[int] = ..., multiples: _Optional[_Iterable[int]] = ..., declarations: _Optional[_Iterable[_Union[ChaodipiDeclaration, _Mapping]]] = ..., kitty: _Optional[str] = ..., match: _Optional[_Union[ChaodipiMatch, _Mapping]] = ..., next_first_receiver: _Optional[int] = ...) -> None: ...

class ChaodipiLastTrick(_message.Message):
    __slots__ = ("winner", "play")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    winner: int
    play: str
    def __init__(self, winner: _Optional[int] = ..., play: _Optional[str] = ...) -> None: ...

class ChaodipiEvent(_message.Message):
    __slots__ = ("hand_started", "dealt", "card", "deal_done", "redeal", "declared", "declared_blind", "declaring_closed", "kitty_turned", "kitty_taken", "buried", "buried_cards", "robbed", "robbed_blind", "passed", "declarations_revealed", "play_started", "multiple", "turn", "throw_failed", "played", "trick_won", "timed_out", "escaped", "hand_over", "reveal")
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    DEAL_DONE_FIELD_NUMBER: _ClassVar[int]
    REDEAL_FIELD_NUMBER: _ClassVar[int]
    DECLARED_FIELD_NUMBER: _ClassVar[int]
    DECLARED_BLIND_FIELD_NUMBER: _ClassVar[int]
    DECLARING_CLOSED_FIELD_NUMBER: _ClassVar[int]
    KITTY_TURNED_FIELD_NUMBER: _ClassVar[int]
    KITTY_TAKEN_FIELD_NUMBER: _ClassVar[int]
    BURIED_FIELD_NUMBER: _ClassVar[int]
    BURIED_CARDS_FIELD_NUMBER: _ClassVar[int]
    ROBBED_FIELD_NUMBER: _ClassVar[int]
    ROBBED_BLIND_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_REVEALED_FIELD_NUMBER: _ClassVar[int]
    PLAY_STARTED_FIELD_NUMBER: _ClassVar[int]
    MULTIPLE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    THROW_FAILED_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    TRICK_WON_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    ESCAPED_FIELD_NUMBER: _ClassVar[int]
    HAND_OVER_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    hand_started: ChaodipiHandStarted
    dealt: _hand_parts_pb2.DealtEvent
    card: _hand_parts_pb2.CardEvent
    deal_done: ChaodipiDealDone
    redeal: _hand_parts_pb2.RedealEvent
    declared: ChaodipiDeclaration
    declared_blind: ChaodipiDeclaration
    declaring_closed: ChaodipiDeclaringClosed
    kitty_turned: ChaodipiKittyTurned
    kitty_taken: ChaodipiKitty
    buried: _hand_parts_pb2.SeatEvent
    buried_cards: ChaodipiKitty
    robbed: ChaodipiDeclaration
    robbed_blind: ChaodipiDeclaration
    passed: _hand_parts_pb2.SeatEvent
    declarations_revealed: ChaodipiDeclarationsRevealed
    play_started: ChaodipiPlayStarted
    multiple: ChaodipiMultiple
    turn: ChaodipiTurn
    throw_failed: ChaodipiThrowFailed
    played: _hand_parts_pb2.SeatCards
    trick_won: ChaodipiTrickWon
    timed_out: _hand_parts_pb2.TimedOutEvent
    escaped: ChaodipiEscaped
    hand_over: ChaodipiHandOver
    reveal: _hand_parts_pb2.HandReveal
    def __init__(self, hand_started: _Optional[_Union[ChaodipiHandStarted, _Mapping]] = ..., dealt: _Optional[_Union[_hand_parts_pb2.DealtEvent, _Mapping]] = ..., card: _Optional[_Union[_hand_parts_pb2.CardEvent, _Mapping]] = ..., deal_done: _Optional[_Union[ChaodipiDealDone, _Mapping]] = ..., redeal: _Optional[_Union[_hand_parts_pb2.RedealEvent, _Mapping]] = ..., declared: _Optional[_Union[ChaodipiDeclaration, _Mapping]] = ..., declared_blind: _Optional[_Union[ChaodipiDeclaration, _Mapping]] = ..., declaring_closed: _Optional[_Union[ChaodipiDeclaringClosed, _Mapping]] = ..., kitty_turned: _Optional[_Union[ChaodipiKittyTurned, _Mapping]] = ..., kitty_taken: _Optional[_Union[ChaodipiKitty, _Mapping]] = ..., buried: _Optional[_Union[_hand_parts_pb2.SeatEvent, _Mapping]] = ..., buried_cards: _Optional[_Union[ChaodipiKitty, _Mapping]] = ..., robbed: _Optional[_Union[ChaodipiDeclaration, _Mapping]] = ..., robbed_blind: _Optional[_Union[ChaodipiDeclaration, _Mapping]] = ..., passed: _Optional[_Union[_hand_parts_pb2.SeatEvent, _Mapping]] = ..., declarations_revealed: _Optional[_Union[ChaodipiDeclarationsRevealed, _Mapping]] = ..., play_started: _Optional[_Union[ChaodipiPlayStarted, _Mapping]] = ..., multiple: _Optional[_Union[ChaodipiMultiple, _Mapping]] = ..., turn: _Optional[_Union[ChaodipiTurn, _Mapping]] = ..., throw_failed: _Optional[_Union[ChaodipiThrowFailed, _Mapping]] = ..., played: _Optional[_Union[_hand_parts_pb2.SeatCards, _Mapping]] = ..., trick_won: _Optional[_Union[ChaodipiTrickWon, _Mapping]] = ..., timed_out: _Optional[_Union[_hand_parts_pb2.TimedOutEvent, _Mapping]] = ..., escaped: _Optional[_Union[ChaodipiEscaped, _Mapping]] = ..., hand_over: _Optional[_Union[ChaodipiHandOver, _Mapping]] = ..., reveal: _Optional[_Union[_hand_parts_pb2.HandReveal, _Mapping]] = ...) -> None: ...

class ChaodipiHandStarted(_message.Message):
    __slots__ = ("first_receiver", "commitment", "deal", "level", "banker", "flag_hand", "variant", "match")
    FIRST_RECEIVER_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    BANKER_FIELD_NUMBER: _ClassVar[int]
    FLAG_HAND_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    first_receiver: int
    commitment: str
    deal: int
    level: str
    banker: int
    flag_hand: bool
    variant: str
    match: ChaodipiMatch
    def __init__(self, first_receiver: _Optional[int] = ..., commitment: _Optional[str] = ..., deal: _Optional[int] = ..., level: _Optional[str] = ..., banker: _Optional[int] = ..., flag_hand: _Optional[bool] = ..., variant: _Optional[str] = ..., match: _Optional[_Union[ChaodipiMatch, _Mapping]] = ...) -> None: ...

class ChaodipiDealDone(_message.Message):
    __slots__ = ("declare_window", "flag_hand")
    DECLARE_WINDOW_FIELD_NUMBER: _ClassVar[int]
    FLAG_HAND_FIELD_NUMBER: _ClassVar[int]
    declare_window: float
    flag_hand: bool
    def __init__(self, declare_window: _Optional[float] = ..., flag_hand: _Optional[bool] = ...) -> None: ...

class ChaodipiDeclaringClosed(_message.Message):
    __slots__ = ("declared", "banker", "trump")
    DECLARED_FIELD_NUMBER: _ClassVar[int]
    BANKER_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    declared: bool
    banker: int
    trump: _hand_parts_pb2.NullableString
    def __init__(self, declared: _Optional[bool] = ..., banker: _Optional[int] = ..., trump: _Optional[_Union[_hand_parts_pb2.NullableString, _Mapping]] = ...) -> None: ...

class ChaodipiKittyTurned(_message.Message):
    __slots__ = ("kitty", "trump")
    KITTY_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    kitty: str
    trump: str
    def __init__(self, kitty: _Optional[str] = ..., trump: _Optional[str] = ...) -> None: ...

class ChaodipiKitty(_message.Message):
    __slots__ = ("seat", "kitty")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kitty: str
    def __init__(self, seat: _Optional[int] = ..., kitty: _Optional[str] = ...) -> None: ...

class ChaodipiDeclarationsRevealed(_message.Message):
    __slots__ = ("declarations", "trump")
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    declarations: _containers.RepeatedCompositeFieldContainer[ChaodipiDeclaration]
    trump: str
    def __init__(self, declarations: _Optional[_Iterable[_Union[ChaodipiDeclaration, _Mapping]]] = ..., trump: _Optional[str] = ...) -> None: ...

class ChaodipiPlayStarted(_message.Message):
    __slots__ = ("banker", "trump", "level", "multiples")
    BANKER_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    MULTIPLES_FIELD_NUMBER: _ClassVar[int]
    banker: int
    trump: str
    level: str
    multiples: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, banker: _Optional[int] = ..., trump: _Optional[str] = ..., level: _Optional[str] = ..., multiples: _Optional[_Iterable[int]] = ...) -> None: ...

class ChaodipiMultiple(_message.Message):
    __slots__ = ("seat", "multiple")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MULTIPLE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    multiple: int
    def __init__(self, seat: _Optional[int] = ..., multiple: _Optional[int] = ...) -> None: ...

class ChaodipiTurn(_message.Message):
    __slots__ = ("seat", "phase", "leader")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    phase: str
    leader: bool
    def __init__(self, seat: _Optional[int] = ..., phase: _Optional[str] = ..., leader: _Optional[bool] = ...) -> None: ...

class ChaodipiThrowFailed(_message.Message):
    __slots__ = ("seat", "attempted")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    attempted: str
    def __init__(self, seat: _Optional[int] = ..., attempted: _Optional[str] = ...) -> None: ...

class ChaodipiTrickWon(_message.Message):
    __slots__ = ("seat", "points", "attackers")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    ATTACKERS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    points: int
    attackers: int
    def __init__(self, seat: _Optional[int] = ..., points: _Optional[int] = ..., attackers: _Optional[int] = ...) -> None: ...

class ChaodipiEscaped(_message.Message):
    __slots__ = ("seat", "reason", "void")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VOID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: str
    void: bool
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[str] = ..., void: _Optional[bool] = ...) -> None: ...

class ChaodipiHandOver(_message.Message):
    __slots__ = ("coins", "details")
    COINS_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    coins: _containers.RepeatedScalarFieldContainer[int]
    details: ChaodipiResultDetails
    def __init__(self, coins: _Optional[_Iterable[int]] = ..., details: _Optional[_Union[ChaodipiResultDetails, _Mapping]] = ...) -> None: ...
