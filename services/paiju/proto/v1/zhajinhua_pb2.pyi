# ruff: noqa
from paiju.proto.v1 import hand_parts_pb2 as _hand_parts_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ZhajinhuaView(_message.Message):
    __slots__ = ("game", "seat", "dealer", "ante", "ante_rule", "stake", "max_stake", "pot", "pot_cap", "to_act", "compare_allowed", "commitment", "players", "legal_actions", "call_amount", "result", "reveal")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ANTE_FIELD_NUMBER: _ClassVar[int]
    ANTE_RULE_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    MAX_STAKE_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    POT_CAP_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    COMPARE_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CALL_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    game: str
    seat: int
    dealer: int
    ante: int
    ante_rule: ZhajinhuaAnteRule
    stake: int
    max_stake: int
    pot: int
    pot_cap: int
    to_act: int
    compare_allowed: bool
    commitment: str
    players: _containers.RepeatedCompositeFieldContainer[ZhajinhuaPlayer]
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    call_amount: int
    result: ZhajinhuaResult
    reveal: ZhajinhuaReveal
    def __init__(self, game: _Optional[str] = ..., seat: _Optional[int] = ..., dealer: _Optional[int] = ..., ante: _Optional[int] = ..., ante_rule: _Optional[_Union[ZhajinhuaAnteRule, _Mapping]] = ..., stake: _Optional[int] = ..., max_stake: _Optional[int] = ..., pot: _Optional[int] = ..., pot_cap: _Optional[int] = ..., to_act: _Optional[int] = ..., compare_allowed: _Optional[bool] = ..., commitment: _Optional[str] = ..., players: _Optional[_Iterable[_Union[ZhajinhuaPlayer, _Mapping]]] = ..., legal_actions: _Optional[_Iterable[str]] = ..., call_amount: _Optional[int] = ..., result: _Optional[_Union[ZhajinhuaResult, _Mapping]] = ..., reveal: _Optional[_Union[ZhajinhuaReveal, _Mapping]] = ...) -> None: ...

class ZhajinhuaAnteRule(_message.Message):
    __slots__ = ("fewest_coins", "from_coins")
    FEWEST_COINS_FIELD_NUMBER: _ClassVar[int]
    FROM_COINS_FIELD_NUMBER: _ClassVar[int]
    fewest_coins: int
    from_coins: int
    def __init__(self, fewest_coins: _Optional[int] = ..., from_coins: _Optional[int] = ...) -> None: ...

class ZhajinhuaPlayer(_message.Message):
    __slots__ = ("seat", "coins", "paid", "status", "seen", "acted", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    PAID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEEN_FIELD_NUMBER: _ClassVar[int]
    ACTED_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    coins: int
    paid: int
    status: str
    seen: bool
    acted: bool
    cards: str
    def __init__(self, seat: _Optional[int] = ..., coins: _Optional[int] = ..., paid: _Optional[int] = ..., status: _Optional[str] = ..., seen: _Optional[bool] = ..., acted: _Optional[bool] = ..., cards: _Optional[str] = ...) -> None: ...

class ZhajinhuaResult(_message.Message):
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
    details: ZhajinhuaResultDetails
    def __init__(self, coins: _Optional[_Iterable[int]] = ..., lines: _Optional[_Iterable[_Union[_hand_parts_pb2.SettlementLine, _Mapping]]] = ..., fee: _Optional[int] = ..., scores: _Optional[_Union[_hand_parts_pb2.ScoreList, _Mapping]] = ..., winners: _Optional[_Iterable[int]] = ..., details: _Optional[_Union[ZhajinhuaResultDetails, _Mapping]] = ...) -> None: ...

class ZhajinhuaResultDetails(_message.Message):
    __slots__ = ("how", "pot", "bonus_per_payer", "ante")
    HOW_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    BONUS_PER_PAYER_FIELD_NUMBER: _ClassVar[int]
    ANTE_FIELD_NUMBER: _ClassVar[int]
    how: str
    pot: int
    bonus_per_payer: int
    ante: int
    def __init__(self, how: _Optional[str] = ..., pot: _Optional[int] = ..., bonus_per_payer: _Optional[int] = ..., ante: _Optional[int] = ...) -> None: ...

class ZhajinhuaReveal(_message.Message):
    __slots__ = ("seed", "order")
    SEED_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    seed: str
    order: str
    def __init__(self, seed: _Optional[str] = ..., order: _Optional[str] = ...) -> None: ...

class ZhajinhuaEvent(_message.Message):
    __slots__ = ("hand_started", "cards", "looked", "turn", "called", "raised", "folded", "compared", "compare_result", "opened", "system_open", "hand_over", "reveal")
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    LOOKED_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    CALLED_FIELD_NUMBER: _ClassVar[int]
    RAISED_FIELD_NUMBER: _ClassVar[int]
    FOLDED_FIELD_NUMBER: _ClassVar[int]
    COMPARED_FIELD_NUMBER: _ClassVar[int]
    COMPARE_RESULT_FIELD_NUMBER: _ClassVar[int]
    OPENED_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_OPEN_FIELD_NUMBER: _ClassVar[int]
    HAND_OVER_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    hand_started: ZhajinhuaHandStarted
    cards: _hand_parts_pb2.SeatCards
    looked: _hand_parts_pb2.SeatEvent
    turn: ZhajinhuaTurn
    called: ZhajinhuaBet
    raised: ZhajinhuaBet
    folded: ZhajinhuaFolded
    compared: ZhajinhuaCompared
    compare_result: ZhajinhuaCompareResult
    opened: ZhajinhuaOpened
    system_open: ZhajinhuaSystemOpen
    hand_over: ZhajinhuaHandOver
    reveal: ZhajinhuaRevealEvent
    def __init__(self, hand_started: _Optional[_Union[ZhajinhuaHandStarted, _Mapping]] = ..., cards: _Optional[_Union[_hand_parts_pb2.SeatCards, _Mapping]] = ..., looked: _Optional[_Union[_hand_parts_pb2.SeatEvent, _Mapping]] = ..., turn: _Optional[_Union[ZhajinhuaTurn, _Mapping]] = ..., called: _Optional[_Union[ZhajinhuaBet, _Mapping]] = ..., raised: _Optional[_Union[ZhajinhuaBet, _Mapping]] = ..., folded: _Optional[_Union[ZhajinhuaFolded, _Mapping]] = ..., compared: _Optional[_Union[ZhajinhuaCompared, _Mapping]] = ..., compare_result: _Optional[_Union[ZhajinhuaCompareResult, _Mapping]] = ..., opened: _Optional[_Union[ZhajinhuaOpened, _Mapping]] = ..., system_open: _Optional[_Union[ZhajinhuaSystemOpen, _Mapping]] = ..., hand_over: _Optional[_Union[ZhajinhuaHandOver, _Mapping]] = ..., reveal: _Optional[_Union[ZhajinhuaRevealEvent, _Mapping]] = ...) -> None: ...

class ZhajinhuaHandStarted(_message.Message):
    __slots__ = ("ante", "coins", "commitment", "dealer", "pot", "pot_cap")
    ANTE_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    POT_CAP_FIELD_NUMBER: _ClassVar[int]
    ante: int
    coins: _containers.RepeatedScalarFieldContainer[int]
    commitment: str
    dealer: int
    pot: int
    pot_cap: int
    def __init__(self, ante: _Optional[int] = ..., coins: _Optional[_Iterable[int]] = ..., commitment: _Optional[str] = ..., dealer: _Optional[int] = ..., pot: _Optional[int] = ..., pot_cap: _Optional[int] = ...) -> None: ...

class ZhajinhuaTurn(_message.Message):
    __slots__ = ("seat", "stake", "call_amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    CALL_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    stake: int
    call_amount: int
    def __init__(self, seat: _Optional[int] = ..., stake: _Optional[int] = ..., call_amount: _Optional[int] = ...) -> None: ...

class ZhajinhuaBet(_message.Message):
    __slots__ = ("seat", "amount", "stake", "pot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    stake: int
    pot: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ..., stake: _Optional[int] = ..., pot: _Optional[int] = ...) -> None: ...

class ZhajinhuaFolded(_message.Message):
    __slots__ = ("seat", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: str
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class ZhajinhuaCompared(_message.Message):
    __slots__ = ("seat", "target", "loser", "cards")
    class CardsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    LOSER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    target: int
    loser: int
    cards: _containers.ScalarMap[int, str]
    def __init__(self, seat: _Optional[int] = ..., target: _Optional[int] = ..., loser: _Optional[int] = ..., cards: _Optional[_Mapping[int, str]] = ...) -> None: ...

class ZhajinhuaCompareResult(_message.Message):
    __slots__ = ("seat", "target", "loser", "amount", "pot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    LOSER_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    target: int
    loser: int
    amount: int
    pot: int
    def __init__(self, seat: _Optional[int] = ..., target: _Optional[int] = ..., loser: _Optional[int] = ..., amount: _Optional[int] = ..., pot: _Optional[int] = ...) -> None: ...

class ZhajinhuaOpened(_message.Message):
    __slots__ = ("seat", "amount", "loser", "cards", "pot")
    class CardsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    LOSER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    loser: int
    cards: _containers.ScalarMap[int, str]
    pot: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ..., loser: _Optional[int] = ..., cards: _Optional[_Mapping[int, str]] = ..., pot: _Optional[int] = ...) -> None: ...

class ZhajinhuaSystemOpen(_message.Message):
    __slots__ = ("cards", "duels", "order", "pot")
    class CardsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DUELS_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.ScalarMap[int, str]
    duels: _containers.RepeatedCompositeFieldContainer[ZhajinhuaDuel]
    order: _containers.RepeatedScalarFieldContainer[int]
    pot: int
    def __init__(self, cards: _Optional[_Mapping[int, str]] = ..., duels: _Optional[_Iterable[_Union[ZhajinhuaDuel, _Mapping]]] = ..., order: _Optional[_Iterable[int]] = ..., pot: _Optional[int] = ...) -> None: ...

class ZhajinhuaDuel(_message.Message):
    __slots__ = ("challenger", "champion", "loser")
    CHALLENGER_FIELD_NUMBER: _ClassVar[int]
    CHAMPION_FIELD_NUMBER: _ClassVar[int]
    LOSER_FIELD_NUMBER: _ClassVar[int]
    challenger: int
    champion: int
    loser: int
    def __init__(self, challenger: _Optional[int] = ..., champion: _Optional[int] = ..., loser: _Optional[int] = ...) -> None: ...

class ZhajinhuaHandOver(_message.Message):
    __slots__ = ("winner", "winner_cards", "how", "pot", "bonus", "coins", "fee")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    WINNER_CARDS_FIELD_NUMBER: _ClassVar[int]
    HOW_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    COINS_FIELD_NUMBER: _ClassVar[int]
    FEE_FIELD_NUMBER: _ClassVar[int]
    winner: int
    winner_cards: str
    how: str
    pot: int
    bonus: int
    coins: _containers.RepeatedScalarFieldContainer[int]
    fee: int
    def __init__(self, winner: _Optional[int] = ..., winner_cards: _Optional[str] = ..., how: _Optional[str] = ..., pot: _Optional[int] = ..., bonus: _Optional[int] = ..., coins: _Optional[_Iterable[int]] = ..., fee: _Optional[int] = ...) -> None: ...

class ZhajinhuaRevealEvent(_message.Message):
    __slots__ = ("seed", "order", "commitment")
    SEED_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    seed: str
    order: str
    commitment: str
    def __init__(self, seed: _Optional[str] = ..., order: _Optional[str] = ..., commitment: _Optional[str] = ...) -> None: ...
