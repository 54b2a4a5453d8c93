"""The house's bots: tables of bots that play each game through the public API, and bots that
keep a person company in the room after theirs.

``paiju serve --bots N`` runs them in the all-in-one server (signed in by its own wallet,
:func:`house_sign_in`) and shows their one live line (:class:`LiveLine`);
``paiju bots ADDRESS`` runs them as a role of their own (a deployment's ``paiju-bots``), signing
in through the door as any player does, under names and passwords that stay the same from one
start to the next, so a restarted role plays on with the same accounts instead of making new ones.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import logging
import random
import secrets
import threading
import time
from collections.abc import Callable

import grpc

from paiju.client.bots import BOTS
from paiju.client.play import BotStats, play_bot
from paiju.client.sdk import PaijuClient, PaijuError
from paiju.lifecycle import shutdown_on_signals
from paiju.platform import Platform
from paiju.wallet.errors import DuplicateUsername

log = logging.getLogger(__name__)


# (game, tier, bots per table, the bots seated in turn)
BOT_TABLES = (
    ("zhajinhua", "free", 3, ("sensible", "sensible", "random")),
    ("hunzhan", "stake10", 4, ("trick",)),
    ("chaodipi", "yangzhou-fortune10", 4, ("trick",)),
)


# (game, tier, bots) of the room after the bots' own tables where bots keep a person company: one
# seat is left free, and the bots press start only once someone who is not one of them has.
COMPANY_TABLES = (
    ("zhajinhua", "free", 2),
    ("hunzhan", "stake10", 3),
    ("chaodipi", "yangzhou-fortune10", 3),
)


def rooms_for_bots(tables: int) -> int:
    """Rooms per tier that ``tables`` bot tables need: theirs and the company room after them."""
    return tables + 1 if tables else 0


SignIn = Callable[[str, str], PaijuClient]
"""How a bot gets its session: ``sign_in(name, password)``, making the account the first time."""


PasswordFor = Callable[[str], str]
"""A bot's password from its name."""


def fresh_password(name: str) -> str:
    """A password of this start's own: the bots of ``paiju serve --bots`` have names of their own."""
    return secrets.token_hex(16)


def house_password(secret: bytes) -> PasswordFor:
    """The same password for a name at every start (keyed by the platform's secret), so that the
    house role's bots log back in to their accounts after a restart.

    >>> same = house_password(b"s" * 16)
    >>> same("house-hun-0") == house_password(b"s" * 16)("house-hun-0") != same("house-hun-1")
    True
    """

    def password_for(name: str) -> str:
        return hmac.new(secret, f"house-bot:{name}".encode(), hashlib.sha256).hexdigest()[:32]

    return password_for


def login_sign_in(address: str, **transport: object) -> SignIn:
    """A bot signs in as any player does: registers, or logs in once its name is taken (by an
    earlier start, or an earlier answer lost). ``transport``: as for :class:`PaijuClient`."""

    def sign_in(name: str, password: str) -> PaijuClient:
        try:
            # A connection of its own, as a player's device has (and server processes each take some).
            return PaijuClient.connect(address, name, password, register=True, own_connection=True, **transport)
        except PaijuError as error:
            if error.status != grpc.StatusCode.ALREADY_EXISTS:
                raise
        return PaijuClient.connect(address, name, password, own_connection=True, **transport)

    return sign_in


def house_sign_in(platform: Platform, address: str) -> SignIn:
    """The house's bots sign in without the login door when the wallet is in this process: the
    account is made here and the session issued here. They come from the same address as a
    person playing on this machine, and a login door that takes a couple of logins at a time
    from one address would otherwise keep that person waiting behind a dozen bots."""
    wallet = platform.wallet
    if wallet is None:
        return login_sign_in(address)
    ttl = platform.settings.session_ttl_seconds

    def sign_in(name: str, password: str) -> PaijuClient:
        account = wallet.account_id(name)
        if account is None:
            try:
                account = wallet.register(name, password)
            except DuplicateUsername:
                account = wallet.account_id(name)
        token = platform.signer.issue(str(account), name, ttl=ttl)
        return PaijuClient.from_session(address, token, str(account), name, own_connection=True)

    return sign_in


def start_bots(address: str, tables: int, stop: threading.Event, sign_in: SignIn | None = None, *,
               prefix: str | None = None, password_for: PasswordFor = fresh_password,
               company: bool | None = None) -> dict[str, list[BotStats]]:
    """``tables`` tables of bots for every game in :data:`BOT_TABLES`, and a company room per
    game (:data:`COMPANY_TABLES`; by default only with bot tables); the bot tables' live figures.
    ``sign_in`` is how each bot gets its session (a login, by default); the bots' names begin
    with ``prefix`` (one of this start's own by default)."""
    stats: dict[str, list[BotStats]] = {}
    prefix = prefix or f"bot-{secrets.token_hex(3)}"
    sign_in = sign_in or login_sign_in(address)
    if tables if company is None else company:
        start_company(sign_in, f"{prefix}-company", tables + 1, stop, password_for)
    for game, tier, per_table, kinds in BOT_TABLES:
        bots = itertools.cycle(kinds)
        for table in range(tables):
            room = f"{game}-{tier}-{table + 1:02d}"
            for seat in range(per_table):
                stat = BotStats()
                stats.setdefault(game, []).append(stat)
                name = f"{prefix}-{game[:3]}{table}-{seat}"
                thread = threading.Thread(
                    target=_bot_forever, args=(sign_in, name, password_for(name), game, tier, room, BOTS[next(bots)], stat, stop),
                    daemon=True,
                )
                thread.start()
    return stats


def start_company(sign_in: SignIn, prefix: str, number: int, stop: threading.Event,
                  password_for: PasswordFor = fresh_password) -> None:
    """Bots in room ``number`` of each company tier, waiting for a person to press start."""

    def someone_else_pressed_start(view: dict) -> bool:
        return any(s is not None and s["ready"] and not s["name"].startswith(prefix) for s in view["table"]["seats"])

    for game, tier, count in COMPANY_TABLES:
        kind = "sensible" if game == "zhajinhua" else "trick"
        for seat in range(count):
            name = f"{prefix}-{game[:3]}-{seat}"
            thread = threading.Thread(
                target=_bot_forever,
                args=(sign_in, name, password_for(name), game, tier, f"{game}-{tier}-{number:02d}", BOTS[kind],
                      BotStats(), stop),
                kwargs={"press_start_when": someone_else_pressed_start},
                daemon=True,
            )
            thread.start()


def _bot_forever(sign_in, name, password, game, tier, room, bot, stat, stop, press_start_when=None) -> None:  # type: ignore[no-untyped-def]
    """A bot that keeps playing; when stood up (broke) it takes its seat again later, and when its
    session runs out it signs in again.

    What befalls it goes to the log, not the terminal, where the live line is drawn; a server
    shutting down (even in its first seconds) ends it quietly.
    """
    rng = random.Random()
    client = None
    try:
        while not stop.is_set():
            try:
                if client is None:
                    client = sign_in(name, password)
                play_bot(client, game, tier, bot, hands=10**9, stop=stop, rng=rng, room_id=room, stats=stat,
                         press_start_when=press_start_when)
            except PaijuError as error:
                if stop.is_set():
                    return
                log.info("bot %s: %s", name, error.reason)
                if error.error_code == "not_enough_coins":
                    return  # broke: this bot has played its last hand
                if error.status == grpc.StatusCode.UNAUTHENTICATED and client is not None:
                    client.close()
                    client = None
            except (grpc.RpcError, ValueError) as error:  # ValueError: grpc's "Channel closed!"
                if stop.is_set():
                    return
                log.info("bot %s: %s", name, error)
            stop.wait(2.0)
    finally:
        if client is not None:
            client.close()


HOUSE_PREFIX = "house"


def serve_house(address: str, secret: bytes, *, tables: int = 0, plaintext: bool = False,
                stop: threading.Event | None = None) -> int:
    """``paiju bots``: the house's bots through the door at ``address`` until SIGTERM or SIGINT
    (or ``stop``), then the exit status. The company room is ``tables + 1`` of each company tier.

    One replica only: two would sign in as the same bots and take each other's seats."""
    if stop is None:
        stop = shutdown_on_signals()
    transport = {"tls": False} if plaintext else {}
    start_bots(address, tables, stop, login_sign_in(address, **transport), prefix=HOUSE_PREFIX,
               password_for=house_password(secret), company=True)
    company = ", ".join(f"{game}-{tier}-{tables + 1:02d}" for game, tier, _ in COMPANY_TABLES)
    log.info("house bots through %s: %d table(s) of their own per game; company in %s", address, tables, company)
    stop.wait()
    log.info("house bots: stopping")
    return 0


class LiveLine:
    """The bots' one live line, redrawn each second: hands, actions/s, the 炸金花 top three."""

    def __init__(self, platform, stats: dict[str, list[BotStats]], out) -> None:  # type: ignore[no-untyped-def]
        self.platform, self.stats, self.out = platform, stats, out
        self.started, self.last_actions = time.monotonic(), 0

    def show(self) -> None:
        if not self.stats:
            return
        actions = sum(s.actions for game_stats in self.stats.values() for s in game_stats)
        line = _live_line(self.platform, self.stats, actions - self.last_actions, time.monotonic() - self.started)
        self.last_actions = actions
        if self.out is print:
            print(line, end="", flush=True)
        else:
            self.out(line)


def _live_line(platform, stats, actions_per_second, elapsed) -> str:  # type: ignore[no-untyped-def]
    per_table = {game: count for game, _, count, _ in BOT_TABLES}
    hands = " · ".join(
        f"{game} {sum(s.hands for s in game_stats) // per_table[game]:,} hands" for game, game_stats in stats.items()
    )
    platform.leaderboard.ensure("zhajinhua", platform.wallet)
    leaders = ", ".join(
        f"{platform.wallet.username(account)} {net:+,}" for account, net in platform.leaderboard.top("zhajinhua", 3)
    ) or "-"
    return f"\r{hands} · {actions_per_second:,} actions/s · {elapsed:,.0f} s · 炸金花 top: {leaders}".ljust(110)
