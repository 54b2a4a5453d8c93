"""Checks of the arguments callers pass in: a bad value raises ``ValueError`` saying why, a
value of the wrong type ``TypeError``.

>>> check_username("小明")
'小明'
>>> check_username("")
Traceback (most recent call last):
...
ValueError: a username has 1 to 32 characters, got 0
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from functools import cache

from confusable_homoglyphs.confusables import confusables_data

from paiju.wallet.model import SETTLEMENT_REASONS, Line, Reason

USERNAME_MAX = 32
PASSWORD_MIN = 8
PASSWORD_MAX = 1024
DETAIL_MAX = 100
HAND_ID_MAX = 64
GAME_MAX = 32
KEY_MAX = 200


def check_username(username: object) -> str:
    """The username in NFKC form (fullwidth and mathematical letters become plain ones), if it
    has 1–32 characters, no control characters and no space at either end.

    >>> check_username("ａｌｉｃｅ"), check_username("𝐚𝐥𝐢𝐜𝐞")
    ('alice', 'alice')
    """
    if not isinstance(username, str):
        raise TypeError(f"a username is a string, got {type(username).__name__}")
    username = unicodedata.normalize("NFKC", username)
    if not 1 <= len(username) <= USERNAME_MAX:
        raise ValueError(f"a username has 1 to {USERNAME_MAX} characters, got {len(username)}")
    if username != username.strip():
        raise ValueError("a username may not start or end with a space")
    if any(unicodedata.category(char).startswith("C") for char in username):
        raise ValueError("a username may not contain control or invisible characters")
    return username


def username_key(username: str) -> str:
    """What makes two usernames the same: case does not count.

    >>> username_key("Alice") == username_key("ALICE")
    True
    """
    return username.casefold()


def username_skeleton(username: str) -> str:
    """What a username looks like: two names with one skeleton could be taken for each other,
    so only one account may have it.

    The name is NFKC-normalised, loses its combining marks (``é`` looks enough like ``e``), and
    each character becomes the plainest of the characters the Unicode confusables data (UTS #39,
    through ``confusable_homoglyphs``) says it looks like, in capitals and in small letters.

    >>> username_skeleton("alice") == username_skeleton("аlice")  # a Cyrillic а
    True
    >>> username_skeleton("ALICE") == username_skeleton("a\u0301lice") == username_skeleton("𝐚lice")
    True
    >>> username_skeleton("小明") == username_skeleton("小朋")
    False
    """
    plain = unicodedata.normalize("NFKC", username)
    bare = "".join(c for c in unicodedata.normalize("NFD", plain) if not unicodedata.combining(c))
    # In capitals first (case does not count, and a capital I looks like a small l), then in
    # small letters (an m looks like rn).
    capitals = "".join(_prototype(char) for char in bare.upper())
    return "".join(_prototype(char) for char in capitals.casefold())


@cache
def _prototype(char: str) -> str:
    """The character the confusables data groups ``char`` under: the data lists, for each
    character, what it may be taken for, and the group's prototype (``l`` for ``I``, ``1``,
    ``|`` …) is the member that lists the most. Ties go to ASCII, then to a character NFKC
    leaves alone, then to the lowest code point."""
    looks_like = [char, *(glyph["c"] for glyph in confusables_data.get(char, ()))]
    return min(looks_like, key=lambda c: (-len(confusables_data.get(c, ())), not c.isascii(),
                                          unicodedata.normalize("NFKC", c) != c, len(c), c))


def check_password(password: object, shortest: int = 1) -> str:
    """The password, if it is a string of ``shortest`` to 1024 characters."""
    if not isinstance(password, str):
        raise TypeError(f"a password is a string, got {type(password).__name__}")
    if not shortest <= len(password) <= PASSWORD_MAX:
        raise ValueError(
            f"a password has {shortest} to {PASSWORD_MAX} characters, got {len(password)}"
        )
    return password


def check_new_password(password: object) -> str:
    """A password chosen at registration: at least 8 characters."""
    return check_password(password, PASSWORD_MIN)


def check_int(value: object, what: str) -> int:
    """``value`` if it is an ``int`` (``bool`` is refused: ``True`` coins is a bug)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} is a whole number, got {value!r}")
    return value


def check_not_negative(value: object, what: str) -> int:
    """``value`` if it is an ``int`` of zero or more."""
    number = check_int(value, what)
    if number < 0:
        raise ValueError(f"{what} cannot be below zero, got {number}")
    return number


def check_positive(value: object, what: str) -> int:
    """``value`` if it is an ``int`` above zero."""
    number = check_int(value, what)
    if number <= 0:
        raise ValueError(f"{what} must be above zero, got {number}")
    return number


def check_text(value: object, what: str, longest: int) -> str:
    """``value`` if it is a non-empty string of at most ``longest`` characters."""
    if not isinstance(value, str):
        raise TypeError(f"{what} is a string, got {type(value).__name__}")
    if not 1 <= len(value) <= longest:
        raise ValueError(f"{what} has 1 to {longest} characters, got {len(value)}")
    return value


def check_hand_id(hand_id: object) -> str:
    """``hand_id`` if it is a string of 1 to 64 characters."""
    return check_text(hand_id, "a hand id", HAND_ID_MAX)


def check_game(game: object) -> str:
    """``game`` if it is a string of 1 to 32 characters."""
    return check_text(game, "a game name", GAME_MAX)


def check_key(key: object) -> str:
    """``key`` if it is a string of 1 to 200 characters."""
    return check_text(key, "an idempotency key", KEY_MAX)


def check_reason(reason: object, allowed: Iterable[Reason] = Reason) -> Reason:
    """``reason`` as a :class:`Reason`, if it is one of ``allowed``."""
    allowed = frozenset(allowed)
    try:
        parsed = Reason(reason)
    except ValueError:
        parsed = None
    if parsed is None or parsed not in allowed:
        names = ", ".join(sorted(allowed))
        raise ValueError(f"the reason {reason!r} is not one of: {names}")
    return parsed


def check_lines(lines: object) -> tuple[Line, ...]:
    """Settlement lines as :class:`Line` objects, from ``Line``s or ``(account, amount,
    reason)`` or ``(account, amount, reason, detail)`` tuples.

    >>> check_lines([(1, -10, "stake", "ante"), (2, 10, "pot")])[1]
    Line(account=2, amount=10, reason=<Reason.POT: 'pot'>, detail='')
    """
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise TypeError("settlement lines are a list of (account, amount, reason)")
    checked: list[Line] = []
    for number, line in enumerate(lines, start=1):
        if isinstance(line, Line):
            account, amount, reason, detail = line.account, line.amount, line.reason, line.detail
        elif isinstance(line, (tuple, list)) and len(line) in (3, 4):
            account, amount, reason, detail = (*line, "") if len(line) == 3 else line
        else:
            raise TypeError(f"settlement line {number} is not (account, amount, reason): {line!r}")
        checked.append(
            Line(
                check_int(account, f"the account of line {number}"),
                check_int(amount, f"the amount of line {number}"),
                check_reason(reason, SETTLEMENT_REASONS),
                check_detail(detail, number),
            )
        )
    if not checked:
        raise ValueError("a settlement has at least one line")
    return tuple(checked)


def check_detail(detail: object, number: int) -> str:
    """The detail of settlement line ``number``: a string of at most 100 characters."""
    if not isinstance(detail, str):
        raise TypeError(f"the detail of line {number} is a string, got {type(detail).__name__}")
    if len(detail) > DETAIL_MAX:
        raise ValueError(f"the detail of line {number} has at most {DETAIL_MAX} characters")
    return detail


def check_holds(amounts: object) -> dict[int, int]:
    """A hand's holds as account → coins, from a mapping or ``(account, amount)`` pairs; each
    account once, each amount zero or more.

    >>> check_holds([(3, 500), (4, 0)])
    {3: 500, 4: 0}
    """
    pairs = amounts.items() if isinstance(amounts, Mapping) else amounts
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise TypeError("holds are a mapping or a list of (account, amount)")
    checked: dict[int, int] = {}
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"a hold is (account, amount), got {pair!r}")
        account = check_int(pair[0], "an account id")
        if account in checked:
            raise ValueError(f"account {account} is held twice in one hand")
        checked[account] = check_not_negative(pair[1], f"the hold of account {account}")
    if not checked:
        raise ValueError("a hand holds the coins of at least one account")
    return checked


def check_expected_available(expected: object, holds: Mapping[int, int]) -> dict[int, int]:
    """The available coins a hand was dealt from, as account → coins, for accounts of its
    ``holds`` only.

    >>> check_expected_available({3: 20_000}, {3: 500, 4: 0})
    {3: 20000}
    """
    if not isinstance(expected, Mapping):
        raise TypeError("the expected available coins are a mapping of account to coins")
    checked: dict[int, int] = {}
    for account, coins in expected.items():
        account = check_int(account, "an account id")
        if account not in holds:
            raise ValueError(f"account {account} has an expected amount of coins but no hold in this hand")
        checked[account] = check_not_negative(coins, f"the expected available coins of account {account}")
    return checked
