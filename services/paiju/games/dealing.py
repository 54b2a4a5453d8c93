"""Dealing, one implementation for every game: a hand's start checked, its deck order (shuffled
from the seed or fixed for a test), the seeds of redeals, decks stacked to deal chosen hands,
and the paced deal with a declaring window that 混战 and 炒地皮 share (:class:`PacedDealHand`).

Nothing here reads a clock or global randomness: shuffles come from the hand's seed, and the
table's clock drives the paced deal through :attr:`PacedDealHand.pending_system_step`.

>>> from paiju.cards import format_cards
>>> format_cards(round_robin(parse_hands(["AS AH", "2S 2H", "3S 3H"]), first_receiver=1))
'2S 3S AS 2H 3H AH'
>>> redeal_seed("hunzhan", b"seed", 0)
b'seed'
"""

from __future__ import annotations

import abc
import hashlib
from bisect import insort
from collections.abc import Sequence
from typing import Any, ClassVar

from paiju.cards import Card, commitment, format_cards, parse_cards, shuffled
from paiju.games.engine import BaseHand, Event, SystemStep, require

SYSTEM = -1
"""The ``seat`` of system steps (dealing, closing the declaring window) in a move log."""

DEALING, DECLARING = "dealing", "declaring"
"""The values of the two phases of a paced deal: a game's ``Phase`` enum names them so (its
members equal these strings), and :class:`PacedDealHand` knows its phases by them."""


def check_coins(coins: Sequence[int]) -> None:
    """ValueError unless every seat's coins are a whole number of at least 0."""
    if any(not isinstance(amount, int) or isinstance(amount, bool) or amount < 0 for amount in coins):
        raise ValueError(f"coins are whole numbers of at least 0, not {list(coins)}")


def check_seat(seat: object, seats: int, role: str) -> None:
    """ValueError unless ``seat`` (the ``role``: "the dealer", "the first receiver") is a seat.

    >>> check_seat(4, 4, "the first receiver")
    Traceback (most recent call last):
    ...
    ValueError: the first receiver is a seat 0..3, not 4
    """
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
        raise ValueError(f"{role} is a seat 0..{seats - 1}, not {seat!r}")


def check_seed(seed: object) -> None:
    """ValueError unless ``seed`` is non-empty bytes (the shuffle commitment needs one)."""
    if not isinstance(seed, (bytes, bytearray)) or not seed:
        raise ValueError("a hand needs a non-empty seed (bytes) for its shuffle commitment")


def deck_order(deck: Sequence[Card] | str | None, full_deck: list[Card], seed: bytes, refusal: str) -> list[Card]:
    """The order a hand deals: ``deck`` as given (tests, replays) if it holds exactly the
    cards of ``full_deck`` (ValueError ``refusal`` otherwise), else ``full_deck`` shuffled by
    ``seed``."""
    if deck is None:
        return shuffled(full_deck, bytes(seed))
    order = parse_cards(deck) if isinstance(deck, str) else list(deck)
    if sorted(order) != sorted(full_deck):
        raise ValueError(refusal)
    return order


def checked_deal_order(
    coins: Sequence[int],
    dealer: object,
    seed: object,
    deck: Sequence[Card] | str | None,
    full_deck: list[Card],
    *,
    dealer_role: str,
    deck_refusal: str,
) -> list[Card]:
    """A new hand's start checked (coins, the ``dealer_role`` seat, the seed; ValueError
    saying what is wrong) and its deck order (:func:`deck_order`)."""
    check_coins(coins)
    check_seat(dealer, len(coins), dealer_role)
    check_seed(seed)
    return deck_order(deck, full_deck, seed, deck_refusal)  # type: ignore[arg-type]


def redeal_seed(game: str, seed: bytes, deal: int) -> bytes:
    """The shuffle seed of the ``deal``-th deal of a ``game`` hand: 0 is the hand's own seed;
    a redeal's is derived from it and the deal's number, so it is as committed as the first."""
    if deal == 0:
        return bytes(seed)
    salt = b"paiju/" + game.encode() + b"/redeal/"
    return hashlib.sha256(salt + deal.to_bytes(4, "big") + bytes(seed)).digest()


def parse_hands(hands: Sequence[str | Sequence[Card]]) -> list[list[Card]]:
    """Each hand as a list of cards, from its text or its cards."""
    return [parse_cards(hand) if isinstance(hand, str) else list(hand) for hand in hands]


def round_robin(hands: Sequence[Sequence[Card]], first_receiver: int) -> list[Card]:
    """The deck order that deals card ``k`` of ``hands[seat]`` as the ``k``-th card that seat
    receives, dealing one card a seat round the table from ``first_receiver`` (the dealer)."""
    count = len(hands)
    size = len(hands[0]) if hands else 0
    return [hands[(first_receiver + index) % count][index // count] for index in range(count * size)]


class PacedDealHand(BaseHand):
    """A hand dealt one card per system step, then held open for declarations (混战, 炒地皮).

    While dealing nobody is to act: the table calls :meth:`system_step` when
    :attr:`pending_system_step` says — ``("deal", deal_interval)`` one card per step, then
    ``("close_declaring", declare_window)`` once the window after the last card (or the last
    declaration, see the game's ``system_wait_key``) has passed. Closing with nothing declared
    may deal again (:meth:`_redeal`), from a seed derived from the hand's.

    A game keeps ``seed``, ``orders`` (one per deal), ``dealt``, ``hands``, ``phase``,
    ``first_receiver``, ``history`` and ``rules`` (with ``deal_interval`` and
    ``declare_window``), and implements the rest of its rules in the hooks below.
    """

    SEATS: ClassVar[int] = 4
    GAME: ClassVar[str]

    seed: bytes
    orders: list[tuple[Card, ...]]
    dealt: int
    hands: list[list[Card]]
    phase: Any
    first_receiver: int
    history: list[tuple[int, str]]
    rules: Any

    @property
    def order(self) -> tuple[Card, ...]:
        """The current deal's card order (secret until the hand is over)."""
        return self.orders[-1]

    @property
    def commitment(self) -> str:
        """The current deal's shuffle commitment."""
        deal = len(self.orders) - 1
        return commitment(redeal_seed(self.GAME, self.seed, deal), self.order)

    @property
    def pending_system_step(self) -> SystemStep | None:
        """``("deal", deal_interval)`` while cards remain; ``("close_declaring", declare_window)``
        once all are dealt (the table restarts that wait whenever ``system_wait_key`` changes);
        else ``None``."""
        if self.phase == DEALING:
            return ("deal", self.rules.deal_interval)
        if self.phase == DECLARING:
            return ("close_declaring", self.rules.declare_window)
        return None

    def receiver(self, index: int) -> int:
        """The seat that receives card ``index`` of a deal."""
        return (self.first_receiver + index) % self.SEATS

    def system_step(self) -> list[Event]:
        """Do :attr:`pending_system_step`: deal one card, or close the declaring window."""
        require(
            self.pending_system_step is not None,
            "no system step is due: the deal and declaring are over",
            "no_system_step",
        )
        self.history.append((SYSTEM, "system"))
        if self.phase == DEALING:
            return self._deal_next()
        return self._close_declaring()

    def deal_all(self) -> list[Event]:
        """Deal every remaining card at once (tests, bots, simulations)."""
        events: list[Event] = []
        while self.phase == DEALING:
            events += self.system_step()
        return events

    def _deal_next(self) -> list[Event]:
        index = self.dealt
        seat = self.receiver(index)
        card = self.order[index]
        insort(self.hands[seat], card)
        self.dealt += 1
        events = [
            Event("dealt", {"seat": seat, "count": self.dealt}),
            Event("card", {"seat": seat, "card": str(card)}, (seat,)),
        ]
        if self.dealt == self.deal_size:
            events += self._deal_done()
        return events

    def _redeal(self) -> list[Event]:
        """Nobody declared: deal again, a new shuffle from the next deal's seed."""
        deal = len(self.orders)
        self._new_deal(tuple(shuffled(self.full_deck(), redeal_seed(self.GAME, self.seed, deal))))
        return [Event("redeal", {"deal": deal, "commitment": self.commitment})]

    def _reveal(self) -> dict[str, Any]:
        """What the end of the hand shows everyone: every deal's seed and order, the hands left."""
        return {
            "deals": [
                {"seed": redeal_seed(self.GAME, self.seed, deal).hex(), "order": format_cards(order)}
                for deal, order in enumerate(self.orders)
            ],
            "hands": [format_cards(cards) for cards in self.hands],
        }

    @property
    @abc.abstractmethod
    def deal_size(self) -> int:
        """How many cards the players are dealt (the rest of the order is the kitty)."""

    @staticmethod
    @abc.abstractmethod
    def full_deck() -> list[Card]:
        """Every card the game deals with, each copy once."""

    @abc.abstractmethod
    def _new_deal(self, order: tuple[Card, ...]) -> None:
        """Start dealing ``order``: no card dealt yet, the phase ``dealing``."""

    @abc.abstractmethod
    def _deal_done(self) -> list[Event]:
        """The last card is dealt: what follows (the declaring window, or play at once)."""

    @abc.abstractmethod
    def _close_declaring(self) -> list[Event]:
        """The declaring window closed: trump settled, or a redeal."""
