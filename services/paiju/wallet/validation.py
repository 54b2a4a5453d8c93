"""Checks of the arguments callers pass in: a bad one raises ``ValueError`` saying why.

>>> check_username("小明")
'小明'
>>> check_username("")
Traceback (most recent call last):
...
ValueError: a username has 1 to 32 characters, got 0
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from paiju.wallet.model import SETTLEMENT_REASONS, Line, Reason

USERNAME_MAX = 32
PASSWORD_MAX = 1024
HAND_ID_MAX = 64
GAME_MAX = 32
KEY_MAX = 200


def check_username(username: object) -> str:
    """The username in NFC form, if it has 1–32 characters, no control characters and no
    space at either end."""
    if not isinstance(username, str):
        raise ValueError(f"a username is a string, got {type(username).__name__}")
    username = unicodedata.normalize("NFC", username)
    if not 1 <= len(username) <= USERNAME_MAX:
        raise ValueError(f"a username has 1 to {USERNAME_MAX} characters, got {len(username)}")
    if username != username.strip():
        raise ValueError("a username may not start or end with a space")
    if any(unicodedata.category(char).startswith("C") for char in username):
        raise ValueError("a username may not contain control or invisible characters")
    return username


def check_password(password: object) -> str:
    """The password, if it is a string of 1 to 1024 characters."""
    if not isinstance(password, str):
        raise ValueError(f"a password is a string, got {type(password).__name__}")
    if not 1 <= len(password) <= PASSWORD_MAX:
        raise ValueError(f"a password has 1 to {PASSWORD_MAX} characters, got {len(password)}")
    return password


def check_int(value: object, what: str) -> int:
    """``value`` if it is an ``int`` (``bool`` is refused: ``True`` coins is a bug)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} is a whole number, got {value!r}")
    return value


def check_positive(value: object, what: str) -> int:
    """``value`` if it is an ``int`` above zero."""
    number = check_int(value, what)
    if number <= 0:
        raise ValueError(f"{what} must be above zero, got {number}")
    return number


def check_text(value: object, what: str, longest: int) -> str:
    """``value`` if it is a non-empty string of at most ``longest`` characters."""
    if not isinstance(value, str):
        raise ValueError(f"{what} is a string, got {type(value).__name__}")
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
    reason)`` triples.

    >>> check_lines([(1, -10, "stake"), (2, 10, "pot")])[1]
    Line(account=2, amount=10, reason=<Reason.POT: 'pot'>)
    """
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise ValueError("settlement lines are a list of (account, amount, reason)")
    checked: list[Line] = []
    for number, line in enumerate(lines, start=1):
        if isinstance(line, Line):
            account, amount, reason = line.account, line.amount, line.reason
        elif isinstance(line, (tuple, list)) and len(line) == 3:
            account, amount, reason = line
        else:
            raise ValueError(f"settlement line {number} is not (account, amount, reason): {line!r}")
        checked.append(
            Line(
                check_int(account, f"the account of line {number}"),
                check_int(amount, f"the amount of line {number}"),
                check_reason(reason, SETTLEMENT_REASONS),
            )
        )
    if not checked:
        raise ValueError("a settlement has at least one line")
    return tuple(checked)
