"""The one state-machine shape every game shares (``spec/engine-api.md``).

A game's ``Game`` (a :class:`BaseGame`) starts hands (``new_hand``) and loads them
(``Game.load``); a hand (a :class:`BaseHand`) answers every step of :class:`HandState`:
``to_act``, ``legal_actions(seat)``, ``apply(seat, action)``, ``pending_system_step`` and
``system_step()``, ``timeout()``, ``leave(seat)``, ``max_loss(seat)``, ``view(seat)``,
``result``, and serialises exactly with ``to_bytes``. Services drive every game through this
shape and nothing else, so they hold no game rules and look for no optional steps.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import (
    Any,
    ClassVar,
    Generic,
    Protocol,
    Self,
    TypeVar,
    cast,
    runtime_checkable,
)

import orjson

from paiju.cards import Card

PUBLIC: None = None
"""The ``visible_to`` of an event every seat and every spectator may see."""


class IllegalAction(ValueError):
    """An action the rules do not allow now. The state it was tried on is unchanged.

    ``reason`` is a sentence for the player; ``code`` a stable word for programs.
    """

    def __init__(self, reason: str, code: str = "illegal") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code

    @property
    def malformed(self) -> bool:
        """Whether the input could never be right (text that is no action, a seat the table
        does not have), rather than not allowed in this state.

        >>> IllegalAction("no seat 9", "bad_seat").malformed, IllegalAction("wait", "not_your_turn").malformed
        (True, False)
        """
        return self.code in MALFORMED_CODES


MALFORMED_CODES = frozenset({"malformed", "bad_seat"})
"""The :class:`IllegalAction` codes of input that could never be right."""


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in a hand, and who may see it.

    ``visible_to`` is ``None`` for a public event, otherwise the seats that may see it.

    >>> Event("looked", {"seat": 1}).visible(3)
    True
    >>> Event("cards", {"seat": 1, "cards": "AS KS QS"}, visible_to=(1,)).visible(None)
    False
    """

    type: str
    data: Mapping[str, Any]
    visible_to: tuple[int, ...] | None = PUBLIC

    def visible(self, seat: int | None) -> bool:
        """Whether ``seat`` (``None``: a spectator) may see this event."""
        return self.visible_to is None or (seat is not None and seat in self.visible_to)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}


LINE_REASONS = frozenset({"stake", "pot", "bonus", "fee", "escape_penalty"})
"""The words a settlement line may give as its reason, the ledger's own vocabulary: ``stake``
(coins lost in the hand), ``pot`` (coins won), ``bonus``, ``fee`` (paid to the house),
``escape_penalty``. A game maps its own terms onto these so that every hand can be booked."""


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """One reason a seat's coins changed in a hand (``amount`` negative when paid)."""

    seat: int
    amount: int
    reason: str

    def __post_init__(self) -> None:
        if self.reason not in LINE_REASONS:
            raise ValueError(f"a settlement line's reason is one of {sorted(LINE_REASONS)}, not {self.reason!r}")


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a finished hand does to each seat: the coin changes and why.

    ``coins[seat]`` is the net change; the ``lines`` of one seat sum to it; ``fee`` goes to the
    house, so ``sum(coins) + fee == 0``. ``scores`` is for games that keep score points.
    """

    coins: tuple[int, ...]
    lines: tuple[LedgerLine, ...]
    fee: int = 0
    scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if sum(self.coins) + self.fee != 0:
            raise AssertionError(f"coins not conserved: {self.coins} with fee {self.fee}")
        for seat, net in enumerate(self.coins):
            lines_total = sum(line.amount for line in self.lines if line.seat == seat)
            if lines_total != net:
                raise AssertionError(f"seat {seat}: lines sum to {lines_total}, net is {net}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "coins": list(self.coins),
            "lines": [[line.seat, line.amount, line.reason] for line in self.lines],
            "fee": self.fee,
            "scores": None if self.scores is None else list(self.scores),
            "winners": list(self.winners),
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settlement:
        return cls(
            coins=tuple(data["coins"]),
            lines=tuple(LedgerLine(seat, amount, reason) for seat, amount, reason in data["lines"]),
            fee=data["fee"],
            scores=None if data["scores"] is None else tuple(data["scores"]),
            winners=tuple(data["winners"]),
            details=data["details"],
        )


SystemStep = tuple[str, float]
"""A system step the engine waits for: its name (``"deal"``, ``"close_declaring"``) and how
many seconds after the wait began the table should take it (:attr:`HandState.pending_system_step`)."""


@runtime_checkable
class HandState(Protocol):
    """A hand in progress, the same shape for every game: every step the table takes is named
    here, so that it needs no introspection (:class:`BaseHand` gives the documented defaults).

    Players' moves: :meth:`legal_actions`, :meth:`verify_action`, :meth:`apply`. The clock's:
    :attr:`pending_system_step` and :meth:`system_step` (a paced deal), :meth:`timeout` (the
    seat to act ran out of time). A seat's escape: :meth:`leave`. What the table shows and
    keeps: :attr:`opening_events`, :meth:`view`, :attr:`result`, :meth:`start_record`,
    :meth:`to_bytes`.
    """

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is, or ``None`` when no one's (a paced deal, the hand over)."""
        ...

    @property
    def result(self) -> Settlement | None:
        """``None`` until the hand is over; then its settlement."""
        ...

    @property
    def is_over(self) -> bool:
        """Whether the hand has ended (then :attr:`result` is its settlement)."""
        ...

    @property
    def turn_number(self) -> int:
        """Counts the turns begun in the hand: a new turn, even of the same seat, counts again
        (the table restarts the turn timer on it; a look that does not end a turn does not)."""
        ...

    @property
    def opening_events(self) -> Sequence[Event]:
        """The events of the hand's start (antes, the first turn, the deal's commitment)."""
        ...

    @property
    def pending_system_step(self) -> SystemStep | None:
        """The step the engine waits for from the clock, and after how many seconds; ``None``
        when it waits for none (a game without system steps always answers ``None``)."""
        ...

    @property
    def system_wait_key(self) -> Hashable | None:
        """What the wait for :attr:`pending_system_step` was begun for: the table restarts its
        timer when a move changes this key, and not otherwise (``None``: no such wait)."""
        ...

    def legal_actions(self, seat: int) -> list[Any]:
        """The actions ``seat`` may take now (a game may leave some out, e.g. 炒地皮's throws)."""
        ...

    def verify_action(self, seat: int, action: Any) -> None:
        """Raise :class:`IllegalAction` (the rule's reason) unless ``seat`` may take ``action``
        now, without listing every legal action; no change either way."""
        ...

    def options_key(self, seat: int) -> str:
        """A key that changes whenever what ``seat`` may do changes (cheap: no listing of plays)."""
        ...

    def apply(self, seat: int, action: Any) -> list[Event]:
        """Validate and take ``seat``'s move: its events, or :class:`IllegalAction` and no change."""
        ...

    def system_step(self) -> list[Event]:
        """Take :attr:`pending_system_step` (:class:`IllegalAction` ``no_system_step`` if none)."""
        ...

    def timeout(self) -> list[Event]:
        """The seat to act ran out of time: the game's timeout move."""
        ...

    def leave(self, seat: int) -> list[Event]:
        """A seat leaves (escapes) the hand, whether or not it is its turn."""
        ...

    def max_loss(self, seat: int) -> int:
        """The most ``seat`` can lose in this hand: what the wallet holds when it starts."""
        ...

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may see now, JSON-ready."""
        ...

    def start_record(self) -> dict[str, Any] | None:
        """What the hand started from and its move log, all a replay needs
        (:func:`paiju.games.replays.replay_start`); ``None`` for a hand that keeps none."""
        ...

    def to_bytes(self) -> bytes:
        """The exact state, for the game's ``Game.load``."""
        ...


def options_digest(*parts: Any) -> str:
    """A short, stable digest of what a seat may do (see :meth:`CheckedActions.options_key`)."""
    return hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()


class CheckedActions:
    """``verify_action`` and ``can_act`` for a hand that has ``_verify(seat, action)`` and
    names its action type in ``ACTION`` (with ``coerce`` from text): the pokerkit habit's
    question and its reason for any action, judged without listing the legal ones."""

    ACTION: ClassVar[Any]

    def _verify(self, seat: int, action: Any) -> None:
        raise NotImplementedError

    def verify_action(self, seat: int, action: Any) -> None:
        """Raise :class:`IllegalAction` with the rule's reason unless ``seat`` may take
        ``action`` (an action or its text) now; the state is unchanged either way."""
        self._verify(seat, self.ACTION.coerce(action))

    def can_act(self, seat: int, action: Any) -> bool:
        """Whether ``seat`` may take ``action`` now (:meth:`verify_action` as a question)."""
        try:
            self.verify_action(seat, action)
        except IllegalAction:
            return False
        return True

    def can(self, seat: int, action: Any) -> bool:
        """:meth:`can_act` by its older name."""
        return self.can_act(seat, action)


class SerialisedState:
    """Exact serialisation for states that reduce to plain JSON data.

    A subclass names its game in ``GAME`` and implements ``to_data``/``from_data``; the bytes
    are canonical JSON, so equal states give equal bytes.
    """

    GAME: ClassVar[str]
    FORMAT: ClassVar[int] = 1

    def to_data(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        raise NotImplementedError

    def to_bytes(self) -> bytes:
        envelope = {"game": self.GAME, "format": self.FORMAT, "state": self.to_data()}
        # Byte for byte what json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        # writes for a hand's data (checked over the playouts of every game), several times faster:
        # a hand is encoded on every move.
        return orjson.dumps(envelope, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)

    @classmethod
    def from_bytes(cls, blob: bytes) -> Self:
        try:
            envelope = orjson.loads(blob)
        except ValueError as error:  # orjson's decode error is one, bad UTF-8 included
            raise ValueError(f"not a serialised {cls.GAME} hand: {error}") from None
        if not isinstance(envelope, dict) or envelope.get("game") != cls.GAME:
            found = envelope.get("game") if isinstance(envelope, dict) else type(envelope).__name__
            raise ValueError(f"not a serialised {cls.GAME} hand (found {found!r})")
        if envelope.get("format") != cls.FORMAT:
            raise ValueError(
                f"{cls.GAME} hand in format {envelope.get('format')!r}; this build reads {cls.FORMAT}"
            )
        return cls.from_data(envelope["state"])

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.to_data() == other.to_data()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]


class BaseHand(CheckedActions, SerialisedState, abc.ABC):
    """The base of every game's ``Hand``: the :class:`HandState` contract, its checked actions
    and exact serialisation, and the documented defaults of the steps a game may not need.

    A game implements ``legal_actions``, ``_verify``, ``apply``, ``timeout``, ``leave``,
    ``max_loss``, ``view``, ``to_data``/``from_data`` and ``start_record``, and keeps the
    attributes ``to_act``, ``turn_number``, ``result`` and ``opening_events``. The defaults:
    no system steps (:attr:`pending_system_step` is ``None``, :meth:`system_step` refuses),
    no system wait (:attr:`system_wait_key` is ``None``), a hand is over once it has a result,
    and :meth:`options_key` digests the legal actions and the turn.
    """

    to_act: int | None
    turn_number: int
    result: Settlement | None
    opening_events: Sequence[Event] = ()

    @property
    def is_over(self) -> bool:
        """Whether the hand has ended (then :attr:`result` is its settlement)."""
        return self.result is not None

    @property
    def pending_system_step(self) -> SystemStep | None:
        """Default: the game has no system steps, so the table never waits for one."""
        return None

    @property
    def system_wait_key(self) -> Hashable | None:
        """Default: no system wait to restart."""
        return None

    def system_step(self) -> list[Event]:
        """Take :attr:`pending_system_step`; by default there is none to take."""
        raise IllegalAction("no system step is due", "no_system_step")

    def options_key(self, seat: int) -> str:
        """What ``seat`` may do now, as a short key that changes whenever that does: its legal
        actions and, on its turn, the turn itself (a new turn is a new decision, even with the
        same options). The table refuses a move made on an older view only when this changed
        since (another seat's look does not)."""
        turn = self.turn_number if self.to_act == seat else None
        return options_digest(turn, [str(action) for action in self.legal_actions(seat)])

    @abc.abstractmethod
    def legal_actions(self, seat: int) -> list[Any]:
        """The actions ``seat`` may take now."""

    @abc.abstractmethod
    def apply(self, seat: int, action: Any) -> list[Event]:
        """Validate and take ``seat``'s move: its events, or :class:`IllegalAction` and no change."""

    @abc.abstractmethod
    def timeout(self) -> list[Event]:
        """The seat to act ran out of time: the game's timeout move."""

    @abc.abstractmethod
    def leave(self, seat: int) -> list[Event]:
        """A seat leaves (escapes) the hand, whether or not it is its turn."""

    @abc.abstractmethod
    def max_loss(self, seat: int) -> int:
        """The most ``seat`` can lose in this hand: what the wallet holds when it starts."""

    @abc.abstractmethod
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may see now, JSON-ready."""

    @abc.abstractmethod
    def start_record(self) -> dict[str, Any] | None:
        """What the hand started from and its move log (see :func:`recorded_start`)."""


def recorded_start(
    rules: Mapping[str, Any],
    coins: Sequence[int],
    dealer: int,
    seed: bytes,
    history: Iterable[Sequence[Any]],
    match: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A hand's :meth:`~HandState.start_record`: its rules (as data), coins, dealer (the first
    receiver in the trick games), seed (hex), move log and, for 炒地皮, the match it carried in.

    >>> recorded_start({"ante": 10}, (100, 100), 1, b"\x01", [(1, "fold")])
    {'rules': {'ante': 10}, 'coins': [100, 100], 'dealer': 1, 'seed': '01', 'history': [[1, 'fold']]}
    """
    start: dict[str, Any] = {"rules": rules, "coins": list(coins), "dealer": dealer, "seed": seed.hex(),
                             "history": [list(entry) for entry in history]}
    if match is not None:
        start["match"] = match
    return start


HandT = TypeVar("HandT", bound=BaseHand)


class BaseGame(Generic[HandT]):
    """A game's ``Game``: starts hands under one set of rules, replays and loads them.

    A game names its rule options in ``RULES`` and its hand in ``HAND``, whose classmethod
    ``start(rules, coins, dealer, seed, deck, **carried)`` deals a new hand.
    """

    RULES: ClassVar[type[Any]]
    HAND: ClassVar[type[BaseHand]]

    def __init__(self, rules: Any = None) -> None:
        self.rules = rules if rules is not None else self.RULES()

    def new_hand(
        self, coins: Sequence[int], dealer: int, seed: bytes, deck: Sequence[Card] | str | None = None,
    ) -> HandT:
        """A new hand: ``dealer`` deals (the first receiver in the trick games); ``deck`` fixes
        the order (tests, replays), otherwise ``seed`` shuffles. Its start: ``opening_events``."""
        return cast(HandT, self.HAND.start(self.rules, coins, dealer, seed, deck))  # type: ignore[attr-defined]

    def replay(
        self,
        coins: Sequence[int],
        dealer: int,
        seed: bytes,
        history: Sequence[tuple[int, str]],
        deck: Sequence[Card] | str | None = None,
        **carried: Any,
    ) -> HandT:
        """The hand rebuilt from its start and its move log (``hand.history``), exactly;
        ``carried``: what the game's ``new_hand`` takes besides (炒地皮: ``match``)."""
        return replay_moves(self.new_hand(coins, dealer, seed, deck, **carried), history)

    @classmethod
    def load(cls, blob: bytes) -> HandT:
        """The hand that ``to_bytes`` wrote, exactly."""
        return cast(HandT, cls.HAND.from_bytes(blob))


def replay_moves(hand: Any, history: Iterable[tuple[int, str]]) -> Any:
    """Apply a move log (``hand.history``) to a freshly started hand; the hand.

    A log holds player moves as their text, and the words ``timeout``, ``leave`` and
    ``system`` for what the table did on a player's behalf or on the clock.
    """
    for seat, move in history:
        if move == "system":
            hand.system_step()
        elif move == "timeout":
            hand.timeout()
        elif move == "leave":
            hand.leave(seat)
        else:
            hand.apply(seat, move)
    return hand


def rule_options(cls: type[Any], data: Mapping[str, Any], game: str) -> Any:
    """A rule-options dataclass from a mapping, refusing unknown names with the game's name."""
    unknown = set(data) - set(cls.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown {game} rule options: {sorted(unknown)}")
    return cls(**data)


MAX_ACTION_CHARS = 256
"""The longest action text any game reads: a whole hand of cards written out fits several times;
anything longer is refused before it is parsed, so no reason can quote a megabyte of cards."""


def verify_action_text(text: object) -> str:
    """``text`` if it can be an action's text form, else :class:`IllegalAction` (``malformed``).

    >>> verify_action_text("raise 300")
    'raise 300'
    >>> verify_action_text("play " + "5H " * 200)
    Traceback (most recent call last):
    ...
    paiju.games.engine.IllegalAction: an action is at most 256 characters, not 605
    """
    if not isinstance(text, str):
        raise IllegalAction(f"an action is an Action or its text, not {type(text).__name__}", "malformed")
    if len(text) > MAX_ACTION_CHARS:
        raise IllegalAction(f"an action is at most {MAX_ACTION_CHARS} characters, not {len(text)}", "malformed")
    return text


MAX_NUMBER_DIGITS = 18
"""The longest whole number an action may write: more than any stake or seat, well inside
Python's limit on converting digits (a 5,000-digit number raises there instead)."""


def whole_number(word: str) -> int | None:
    """The whole number ``word`` writes in ASCII digits (at most :data:`MAX_NUMBER_DIGITS`),
    or ``None``: no sign, no other digits, nothing else.

    >>> whole_number("300"), whole_number("--5"), whole_number("-1"), whole_number("٣")
    (300, None, None, None)
    >>> whole_number("9" * 5000) is None
    True
    """
    if 0 < len(word) <= MAX_NUMBER_DIGITS and word.isascii() and word.isdigit():
        return int(word)
    return None


def require(condition: bool, reason: str, code: str = "illegal") -> None:
    """Raise :class:`IllegalAction` with ``reason`` unless ``condition`` holds."""
    if not condition:
        raise IllegalAction(reason, code)
