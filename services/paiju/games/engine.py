"""The one state-machine shape every game shares (``spec/engine-api.md``).

A game's ``Game`` starts hands (``new_hand``) and loads them (``Game.load``); a hand's state
answers ``to_act``, ``legal_actions(seat)``, ``apply(seat, action)``, ``view(seat)`` and
``result``, and serialises exactly with ``to_bytes``. Services drive every game through this
shape and nothing else, so they hold no game rules.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self, runtime_checkable

import orjson

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


@runtime_checkable
class HandState(Protocol):
    """A hand in progress, the same shape for every game."""

    @property
    def to_act(self) -> int | None: ...

    @property
    def result(self) -> Settlement | None: ...

    @property
    def turn_number(self) -> int:
        """Counts the turns begun in the hand: a new turn, even of the same seat, counts again
        (the table restarts the turn timer on it; a look that does not end a turn does not)."""
        ...

    def legal_actions(self, seat: int) -> list[Any]: ...

    def verify_action(self, seat: int, action: Any) -> None:
        """Raise :class:`IllegalAction` (the rule's reason) unless ``seat`` may take ``action``
        now, without listing every legal action; no change either way."""
        ...

    def options_key(self, seat: int) -> str:
        """A key that changes whenever what ``seat`` may do changes (cheap: no listing of plays)."""
        ...

    def apply(self, seat: int, action: Any) -> list[Event]: ...

    def timeout(self) -> list[Event]:
        """The seat to act ran out of time: the game's timeout move."""
        ...

    def leave(self, seat: int) -> list[Event]:
        """A seat leaves (escapes) the hand, whether or not it is its turn."""
        ...

    def max_loss(self, seat: int) -> int:
        """The most ``seat`` can lose in this hand: what the wallet holds when it starts."""
        ...

    def view(self, seat: int | None) -> dict[str, Any]: ...

    def to_bytes(self) -> bytes: ...


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

    def options_key(self, seat: int) -> str:
        """What ``seat`` may do now, as a short key that changes whenever that does: its legal
        actions and, on its turn, the turn itself (a new turn is a new decision, even with the
        same options). The table refuses a move made on an older view only when this changed
        since (another seat's look does not)."""
        turn = self.turn_number if self.to_act == seat else None  # type: ignore[attr-defined]
        return options_digest(turn, [str(action) for action in self.legal_actions(seat)])  # type: ignore[attr-defined]


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
