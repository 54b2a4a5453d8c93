"""Cards, their two-character notation, decks, seeded shuffles and shuffle commitments.

A card is written rank then suit: ranks ``2 3 4 5 6 7 8 9 T J Q K A``, suits ``S H C D``;
jokers are ``SJ`` (small) and ``BJ`` (big). A hand is cards separated by spaces.

>>> format_cards(parse_cards("AS KD 5H BJ"))
'AS KD 5H BJ'
>>> parse_cards("AS 1H")
Traceback (most recent call last):
...
ValueError: bad card '1H' in 'AS 1H': write rank (23456789TJQKA) then suit (SHCD), or SJ/BJ

A :class:`Card` is a small ``int`` (``(rank - 2) * 4 + suit index``; 52 and 53 for the jokers),
so cards hash, sort and compare as cheaply as numbers. With two decks the two copies of a card
are the same value, as the notation says.

Shuffles are deterministic from a seed on every platform: a Fisher-Yates shuffle whose random
numbers come from SHA-256 in counter mode (:func:`shuffled`), never from :mod:`random`.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterable, Sequence

from paiju.quoting import quoted

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "SHCD"
SMALL_JOKER_CODE = 52
BIG_JOKER_CODE = 53


class Card(int):
    """One card. Build cards with :func:`parse_card`/:func:`parse_cards` or :data:`ALL_CARDS`.

    >>> card = parse_card("TH")
    >>> card.rank, card.suit, str(card)
    (10, 'H', 'TH')
    >>> parse_card("BJ").is_joker
    True
    """

    __slots__ = ()

    @property
    def rank(self) -> int:
        """2..14 (T=10, J=11, Q=12, K=13, A=14); jokers: 15 small, 16 big."""
        if self >= SMALL_JOKER_CODE:
            return 15 + (self - SMALL_JOKER_CODE)
        return self // 4 + 2

    @property
    def suit(self) -> str | None:
        """``"S" | "H" | "C" | "D"``; ``None`` for a joker."""
        if self >= SMALL_JOKER_CODE:
            return None
        return SUIT_CHARS[self % 4]

    @property
    def is_joker(self) -> bool:
        return self >= SMALL_JOKER_CODE

    def __str__(self) -> str:
        return _TEXT_OF_CODE[self]

    def __repr__(self) -> str:
        return f"Card('{_TEXT_OF_CODE[self]}')"


def _text_of(code: int) -> str:
    if code == SMALL_JOKER_CODE:
        return "SJ"
    if code == BIG_JOKER_CODE:
        return "BJ"
    return RANK_CHARS[code // 4] + SUIT_CHARS[code % 4]


_TEXT_OF_CODE: tuple[str, ...] = tuple(_text_of(code) for code in range(54))
ALL_CARDS: tuple[Card, ...] = tuple(Card(code) for code in range(54))
"""Every distinct card, in code order: 2S 2H 2C 2D 3S … AD SJ BJ."""
_CARD_OF_TEXT: dict[str, Card] = {str(card): card for card in ALL_CARDS}


def card_of(rank: int, suit: str) -> Card:
    """The card of a rank (2..14) and suit letter.

    >>> str(card_of(14, "S"))
    'AS'
    """
    if not 2 <= rank <= 14 or suit not in SUIT_CHARS or len(suit) != 1:
        raise ValueError(f"no card of rank {rank!r} and suit {suit!r}")
    return ALL_CARDS[(rank - 2) * 4 + SUIT_CHARS.index(suit)]


def parse_card(token: str) -> Card:
    """One card from its two-character notation; raises ``ValueError`` naming the token."""
    card = _CARD_OF_TEXT.get(token)
    if card is None:
        raise ValueError(
            f"bad card {quoted(token)}: write rank ({RANK_CHARS}) then suit ({SUIT_CHARS}), or SJ/BJ"
        )
    return card


def parse_cards(text: str | Iterable[str | Card]) -> list[Card]:
    """Cards from notation text (``"AS KD"``) or from an iterable of tokens or cards.

    >>> parse_cards("5H 5H")
    [Card('5H'), Card('5H')]
    >>> parse_cards("")
    []
    """
    if isinstance(text, str):
        cards = []
        for token in text.split():
            card = _CARD_OF_TEXT.get(token)
            if card is None:
                raise ValueError(
                    f"bad card {quoted(token)} in {quoted(text)}: write rank ({RANK_CHARS}) then suit "
                    f"({SUIT_CHARS}), or SJ/BJ"
                )
            cards.append(card)
        return cards
    return [item if isinstance(item, Card) else parse_card(item) for item in text]


def format_cards(cards: Iterable[Card]) -> str:
    """The notation of some cards, separated by single spaces."""
    return " ".join(_TEXT_OF_CODE[card] for card in cards)


# --- decks -------------------------------------------------------------------------------------

def standard_deck() -> list[Card]:
    """One 52-card deck without jokers, in code order (炸金花)."""
    return list(ALL_CARDS[:52])


def double_deck_with_jokers() -> list[Card]:
    """Two full decks with their four jokers: 108 cards (炒地皮)."""
    return list(ALL_CARDS) * 2


def double_deck_without_346() -> list[Card]:
    """Two decks with jokers, every 3, 4 and 6 removed: 84 cards (混战)."""
    return [card for card in ALL_CARDS if card.rank not in (3, 4, 6)] * 2


def stacked_deck(top: str | Sequence[Card], deck: Sequence[Card] | None = None) -> list[Card]:
    """A fixed order: the ``top`` cards first, then the rest of ``deck`` (default: 52 cards).

    >>> format_cards(stacked_deck("AS KS")[:4])
    'AS KS 2S 2H'
    """
    rest = list(standard_deck() if deck is None else deck)
    top_cards = parse_cards(top) if isinstance(top, str) else list(top)
    for card in top_cards:
        if card not in rest:
            raise ValueError(f"{card} is not in the deck (or not that many times)")
        rest.remove(card)
    return top_cards + rest


# --- seeded shuffles and commitments ----------------------------------------------------------

_FOUR_WORDS = struct.Struct(">4Q")


class _Sha256Stream:
    """Unbiased integers below a bound, from SHA-256(seed ‖ counter as 8 big-endian bytes)."""

    __slots__ = ("_counter", "_pool", "_seed")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._pool: list[int] = []

    def _next_word(self) -> int:
        if not self._pool:
            block = hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            # Four 64-bit words per block, consumed first to last (hence reversed for pop()).
            self._pool = list(_FOUR_WORDS.unpack(block))[::-1]
        return self._pool.pop()

    def below(self, bound: int) -> int:
        # Rejection sampling keeps every value equally likely, unlike a bare modulo.
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            word = self._next_word()
            if word < limit:
                return word % bound


def shuffled(deck: Sequence[Card], seed: bytes) -> list[Card]:
    """The deck in the order fixed by ``seed``, the same on every platform and Python version.

    Fisher-Yates from the last position down: for ``i = n-1 .. 1`` swap position ``i`` with
    ``j = below(i + 1)``, where ``below(k)`` takes the next 64-bit big-endian word ``w`` of the
    stream ``SHA-256(seed ‖ counter)`` (counter 0, 1, …, eight big-endian bytes; each digest
    gives four words in order) and returns ``w mod k``, skipping words ``>= 2**64 - 2**64 mod k``.

    >>> format_cards(shuffled(parse_cards("AS KS QS JS"), b"seed"))
    'JS QS AS KS'
    """
    if not isinstance(seed, (bytes, bytearray)):
        raise TypeError(f"a shuffle seed is bytes, not {type(seed).__name__}")
    order = list(deck)
    stream = _Sha256Stream(bytes(seed))
    for i in range(len(order) - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def commitment(seed: bytes, order: Sequence[Card]) -> str:
    """``SHA-256(seed ‖ order)`` in hex, the order written in card notation (ASCII).

    Published when a hand starts; at the end the seed and order are revealed and anyone can
    check both this digest and that ``shuffled(deck, seed)`` gives the order.
    """
    return hashlib.sha256(bytes(seed) + format_cards(order).encode("ascii")).hexdigest()


def verify_commitment(digest: str, seed: bytes, order: Sequence[Card]) -> bool:
    """Whether a published commitment matches the revealed seed and order."""
    return hmac.compare_digest(digest, commitment(seed, order))
