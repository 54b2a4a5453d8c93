"""The wallet's gRPC servicers: thin layers over :class:`paiju.wallet.Wallet`.

``WalletService`` serves players (register, log in, change the password, refresh a session, balance,
history, leaderboards, levels);
``WalletInternalService`` serves the table engine (holds before a hand, releasing an abandoned hand).
Every refusal of the domain becomes the status code that ``wallet.proto`` documents, with a
sentence for people and a stable word in the ``paiju-error-code`` trailer::

    wallet = open_wallet(settings)
    board = Leaderboard(redis_client)
    running = start_from_settings(settings, wallet_bindings(settings, wallet, board, levels=game_levels()),
                                  port=settings.wallet_port)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import NoReturn, TypeVar

import grpc
import sqlalchemy as sa
from google.protobuf.timestamp_pb2 import Timestamp

from paiju.common.auth import Caller, TokenSigner
from paiju.common.config import Settings
from paiju.games.levels import Levels
from paiju.games.registry import game_names
from paiju.proto.v1 import wallet_pb2, wallet_pb2_grpc
from paiju.quoting import quoted
from paiju.rpc.errors import abort
from paiju.rpc.interceptor import current_caller
from paiju.rpc.server import ServiceBinding, settings_session_stamps
from paiju.rpc.sessions import PASSWORD_CHANGED, SessionStamps, stamp_lifetime_seconds
from paiju.wallet import hands_api
from paiju.wallet.accounts import PasswordChangedMeanwhile, WrongPassword
from paiju.wallet.errors import (
    CoinsChanged,
    DuplicateUsername,
    HandAlreadySettled,
    HoldConflict,
    InsufficientFunds,
    SchemaError,
    UnknownAccount,
    WalletError,
)
from paiju.wallet.leaderboard import Leaderboard
from paiju.wallet.model import Coins, Entry, Reason
from paiju.wallet.passwords import PasswordHasher
from paiju.wallet.store import Wallet

SessionReply = TypeVar("SessionReply", wallet_pb2.RegisterResponse, wallet_pb2.LoginResponse,
                       wallet_pb2.ChangePasswordResponse, wallet_pb2.RefreshSessionResponse)
"""The four answers that open a session: each RPC has its own message, all with the same fields."""

SCORE_BOARD_SUFFIX = ":score"
"""``Leaderboard(game="chaodipi:score")``: the board of score-channel points instead of coins.
The games are those of :func:`paiju.games.registry.game_names`; a leaderboard of any other is
NOT_FOUND."""
HISTORY_DEFAULT, HISTORY_MAX = 50, 200
LEADERBOARD_DEFAULT, LEADERBOARD_MAX = 20, 100

_ENTRY_REASONS: dict[Reason, int] = {
    Reason.STAKE: wallet_pb2.ENTRY_REASON_HAND_SETTLEMENT,
    Reason.POT: wallet_pb2.ENTRY_REASON_HAND_SETTLEMENT,
    Reason.BONUS: wallet_pb2.ENTRY_REASON_BONUS,
    Reason.FEE: wallet_pb2.ENTRY_REASON_FEE,
    Reason.ESCAPE_PENALTY: wallet_pb2.ENTRY_REASON_ESCAPE_PENALTY,
    Reason.GRANT: wallet_pb2.ENTRY_REASON_GRANT,
    Reason.TRANSFER: wallet_pb2.ENTRY_REASON_TRANSFER,
}


def open_wallet(settings: Settings) -> Wallet:
    """The ledger of ``settings.database_url`` at this release's schema (migrated, or waited
    for: ``PAIJU_MIGRATE``), granting ``settings.starting_grant``."""
    wallet = Wallet(settings.database_url, starting_grant=settings.starting_grant,
                    password_hasher=PasswordHasher(n=2**settings.password_cost, concurrency=settings.hashing_threads))
    wallet.prepare_schema(settings.migrate, settings.schema_wait_seconds)
    return wallet


def wallet_bindings(
    settings: Settings, wallet: Wallet, leaderboard: Leaderboard, *, levels: Mapping[str, Levels]
) -> list[ServiceBinding]:
    """Both wallet services, ready for :func:`paiju.rpc.server.start_server`; ``levels`` the
    ladder of each game that keeps levels, by name (:func:`paiju.platform.game_levels`)."""
    signer = TokenSigner(settings.secret, previous=settings.previous_secrets)
    return [
        ServiceBinding(
            "paiju.v1.WalletService",
            WalletServicer(
                wallet,
                leaderboard,
                levels=levels,
                signer=signer,
                session_ttl=settings.session_ttl_seconds,
                page_secret=settings.secret,
                sessions=settings_session_stamps(settings),
            ),
            wallet_pb2_grpc.add_WalletServiceServicer_to_server,
        ),
        ServiceBinding(
            "paiju.v1.WalletInternalService",
            WalletInternalServicer(wallet),
            wallet_pb2_grpc.add_WalletInternalServiceServicer_to_server,
        ),
    ]


# -- refusals -----------------------------------------------------------------------------------

class SessionsUnreachable(WalletError):
    """The other sessions of an account could not be ended (their stamp store is out of reach)."""


_REFUSALS: tuple[tuple[type[Exception], grpc.StatusCode, str], ...] = (
    (WrongPassword, grpc.StatusCode.PERMISSION_DENIED, "wrong_password"),
    # The other change ended this session too (its stamp is later than this session's token).
    (PasswordChangedMeanwhile, grpc.StatusCode.UNAUTHENTICATED, PASSWORD_CHANGED),
    (SessionsUnreachable, grpc.StatusCode.UNAVAILABLE, "sessions_unavailable"),
    (DuplicateUsername, grpc.StatusCode.ALREADY_EXISTS, "username_taken"),
    (UnknownAccount, grpc.StatusCode.NOT_FOUND, "unknown_account"),
    (InsufficientFunds, grpc.StatusCode.FAILED_PRECONDITION, "insufficient_funds"),
    (CoinsChanged, grpc.StatusCode.FAILED_PRECONDITION, "coins_changed"),
    (HoldConflict, grpc.StatusCode.ALREADY_EXISTS, "hold_conflict"),
    (HandAlreadySettled, grpc.StatusCode.FAILED_PRECONDITION, "hand_settled"),
    (SchemaError, grpc.StatusCode.UNAVAILABLE, "schema_out_of_date"),
    (WalletError, grpc.StatusCode.FAILED_PRECONDITION, "refused"),
    (ValueError, grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument"),
    (TypeError, grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument"),
    (sa.exc.OperationalError, grpc.StatusCode.UNAVAILABLE, "ledger_unavailable"),
)


@contextmanager
def _answering(context: grpc.ServicerContext) -> Iterator[None]:
    """End the RPC with the documented status code when the wallet refuses."""
    try:
        yield
    except tuple(kind for kind, _, _ in _REFUSALS) as error:
        for kind, code, word in _REFUSALS:
            if isinstance(error, kind):
                message = str(error)
                if isinstance(error, sa.exc.OperationalError):
                    message = "the ledger is unavailable; try again"
                abort(context, code, message, error_code=word)


def _account_of(caller: Caller, context: grpc.ServicerContext) -> int:
    """The ledger id of the caller's account (a session of another kind is refused)."""
    account = _ledger_id(caller.account_id)
    if account is None:
        abort(
            context,
            grpc.StatusCode.UNAUTHENTICATED,
            "this session does not act for a player's account",
            error_code="no_account",
        )
    return account


MAX_LEDGER_ID = 2**31 - 1
"""The largest account id the ledger's 32-bit id column holds: a larger one names no account
(asking the database for it would fail with its own error text)."""


def _ledger_id(account_id: str) -> int | None:
    """The integer id behind an API account id, or ``None`` if it cannot be one.

    >>> _ledger_id("42"), _ledger_id("service:table"), _ledger_id(""), _ledger_id("2147483648")
    (42, None, None, None)
    """
    if account_id.isascii() and account_id.isdigit() and len(account_id) <= 18:
        number = int(account_id)
        return number if number <= MAX_LEDGER_ID else None
    return None


def _timestamp(seconds: int | None = None, *, of: Entry | None = None) -> Timestamp:
    stamp = Timestamp()
    if of is not None:
        stamp.FromDatetime(of.created_at)
    elif seconds is not None:
        stamp.FromSeconds(seconds)
    return stamp


# -- history pages --------------------------------------------------------------------------


class PageTokens:
    """History page tokens: where the next page starts, signed so only this service's are
    taken, and bound to the account and game filter they were issued for.

    >>> pages = PageTokens(b"a secret of at least sixteen bytes")
    >>> token = pages.issue(7, "zhajinhua", before=1234)
    >>> pages.read(token, 7, "zhajinhua"), pages.read(token, 8, "zhajinhua")
    (1234, None)
    """

    def __init__(self, secret: bytes) -> None:
        self._key = hmac.new(secret, b"paiju wallet history pages", hashlib.sha256).digest()

    def issue(self, account: int, game: str, before: int) -> str:
        """The token of the page of ``account``'s entries (of ``game``) older than ``before``."""
        return f"{before}.{self._signature(account, game, before)}"

    def read(self, token: str, account: int, game: str) -> int | None:
        """The entry id a token says to continue before; ``None`` if this service did not issue
        it for this account and filter."""
        before_text, _, signature = token.partition(".")
        before = _ledger_id(before_text)
        if before is None or not signature:
            return None
        expected = self._signature(account, game, before)
        return before if hmac.compare_digest(expected, signature) else None

    def _signature(self, account: int, game: str, before: int) -> str:
        signed = f"{account}\x00{game}\x00{before}".encode()
        digest = hmac.new(self._key, signed, hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


# -- the servicers ----------------------------------------------------------------------------


class WalletServicer(wallet_pb2_grpc.WalletServiceServicer):
    """``paiju.v1.WalletService``: accounts, sessions and what a player may read about coins."""

    def __init__(
        self,
        wallet: Wallet,
        leaderboard: Leaderboard,
        *,
        levels: Mapping[str, Levels],
        signer: TokenSigner,
        session_ttl: int,
        page_secret: bytes,
        sessions: SessionStamps | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``sessions``: where a password change ends the account's other sessions (``None``:
        nowhere, for tests of other RPCs); ``clock`` the time of such a change (Unix seconds)."""
        self.wallet = wallet
        self.sessions = sessions
        self.clock = clock
        self.leaderboard = leaderboard
        self.levels = dict(levels)
        self.signer = signer
        self.session_ttl = session_ttl
        self.pages = PageTokens(page_secret)
        self._usernames: dict[int, str] = {}

    def Register(
        self, request: wallet_pb2.RegisterRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.RegisterResponse:
        with _answering(context):
            account = self.wallet.register(request.username, request.password)
            return self._session(wallet_pb2.RegisterResponse, account)

    def Login(
        self, request: wallet_pb2.LoginRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.LoginResponse:
        if not request.username or not request.password:
            abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "a login needs a username and a password",
                error_code="invalid_argument",
            )
        with _answering(context):
            account = self.wallet.verify_password(request.username, request.password)
            if account is None:
                abort(
                    context,
                    grpc.StatusCode.UNAUTHENTICATED,
                    "wrong username or password",
                    error_code="bad_credentials",
                )
            return self._session(wallet_pb2.LoginResponse, account)

    def ChangePassword(
        self, request: wallet_pb2.ChangePasswordRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.ChangePasswordResponse:
        account = _account_of(current_caller(), context)
        if not request.old_password or not request.new_password:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a password change needs the old and the new password",
                  error_code="invalid_argument")
        # Tokens issued up to this millisecond end; the caller's new one is issued just after it.
        valid_after_ms = math.floor(self.clock() * 1000) + 1
        with _answering(context):
            self.wallet.change_password(account, request.old_password, request.new_password,
                                        before_storing=lambda: self._end_sessions(account, valid_after_ms),
                                        sessions_valid_after_ms=valid_after_ms)
            return self._session(wallet_pb2.ChangePasswordResponse, account, issued_at_ms=valid_after_ms)

    def RefreshSession(
        self, request: wallet_pb2.RefreshSessionRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.RefreshSessionResponse:
        caller = current_caller()  # the interceptor refused an expired or ended session already
        token = self.signer.issue(caller.account_id, caller.username, ttl=self.session_ttl, role=caller.role)
        return self._session_reply(wallet_pb2.RefreshSessionResponse, token)

    def _end_sessions(self, account: int, valid_after_ms: int) -> None:
        if self.sessions is None:
            return
        try:
            # The stamp is needed only while a token issued before it may still be alive.
            self.sessions.end_sessions_before(str(account), valid_after_ms,
                                              lifetime_seconds=stamp_lifetime_seconds(self.session_ttl))
        except Exception as error:
            raise SessionsUnreachable("the other sessions cannot be ended now; the password is unchanged, "
                                      "try again") from error

    def GetBalance(
        self, request: wallet_pb2.GetBalanceRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.GetBalanceResponse:
        account = _account_of(current_caller(), context)
        with _answering(context):
            try:
                balance = _balance(self.wallet, account)
                return wallet_pb2.GetBalanceResponse(account_id=balance.account_id, available=balance.available,
                                                     held=balance.held, total=balance.total)
            except UnknownAccount:
                abort(
                    context,
                    grpc.StatusCode.UNAUTHENTICATED,
                    "this session's account does not exist",
                    error_code="no_account",
                )

    def History(
        self, request: wallet_pb2.HistoryRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.HistoryResponse:
        account = _account_of(current_caller(), context)
        if not 0 <= request.limit <= HISTORY_MAX:
            abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"a history page has 1 to {HISTORY_MAX} entries (0 for {HISTORY_DEFAULT}), "
                f"not {request.limit}",
                error_code="invalid_argument",
            )
        limit = request.limit or HISTORY_DEFAULT
        before = None
        if request.page_token:
            before = self.pages.read(request.page_token, account, request.game)
            if before is None:
                abort(
                    context,
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "the page token was not issued by this service for this history",
                    error_code="bad_page_token",
                )
        with _answering(context):
            found = self.wallet.history(account, limit + 1, before, request.game or None)
        page = found[:limit]
        reply = wallet_pb2.HistoryResponse(entries=[_ledger_entry(entry) for entry in page])
        if len(found) > limit:
            reply.next_page_token = self.pages.issue(account, request.game, page[-1].id)
        return reply

    def Leaderboard(
        self, request: wallet_pb2.LeaderboardRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.LeaderboardResponse:
        account = _account_of(current_caller(), context)
        games = game_names()
        if request.game.endswith(SCORE_BOARD_SUFFIX) and request.game.removesuffix(SCORE_BOARD_SUFFIX) in games:
            return self._score_board(request, account, context)
        if request.game not in games:
            abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"no game {quoted(request.game)}; the games are {', '.join(games)}",
                error_code="unknown_game",
            )
        if not 0 <= request.limit <= LEADERBOARD_MAX:
            abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"a leaderboard shows 1 to {LEADERBOARD_MAX} rows (0 for {LEADERBOARD_DEFAULT}), "
                f"not {request.limit}",
                error_code="invalid_argument",
            )
        with _answering(context):
            self.leaderboard.ensure(request.game, self.wallet)
            best = self.leaderboard.top(request.game, request.limit or LEADERBOARD_DEFAULT)
            rows: list[wallet_pb2.LeaderboardRow] = []
            for place, (member, net) in enumerate(best, start=1):
                rank = rows[-1].rank if rows and rows[-1].value == net else place
                rows.append(self._row(rank, member, net))
            reply = wallet_pb2.LeaderboardResponse(game=request.game, rows=rows)
            standing = self.leaderboard.standing(request.game, account)
            if standing is not None:
                reply.own.CopyFrom(self._row(standing[0], account, standing[1]))
            return reply

    def _score_board(
        self, request: wallet_pb2.LeaderboardRequest, account: int, context: grpc.ServicerContext
    ) -> wallet_pb2.LeaderboardResponse:
        """``<game>:score``: the score channels' points (积分), summed from their entries."""
        game = request.game.removesuffix(SCORE_BOARD_SUFFIX)
        if not 0 <= request.limit <= LEADERBOARD_MAX:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT,
                  f"a leaderboard shows 1 to {LEADERBOARD_MAX} rows (0 for {LEADERBOARD_DEFAULT})",
                  error_code="invalid_argument")
        with _answering(context):
            best = self.wallet.score_top(game, request.limit or LEADERBOARD_DEFAULT)
            rows: list[wallet_pb2.LeaderboardRow] = []
            for place, row in enumerate(best, start=1):
                rank = rows[-1].rank if rows and rows[-1].value == row.net else place
                rows.append(self._row(rank, row.account, row.net))
            reply = wallet_pb2.LeaderboardResponse(game=request.game, rows=rows)
            mine = next((r for r in rows if r.account_id == str(account)), None)
            if mine is not None:
                reply.own.CopyFrom(mine)
            return reply

    def Hands(self, request: wallet_pb2.HandsRequest, context: grpc.ServicerContext) -> wallet_pb2.HandsResponse:
        account = _account_of(current_caller(), context)
        with _answering(context):
            return hands_api.hands(self.wallet, account, request, context)

    def ReplayHand(
        self, request: wallet_pb2.ReplayHandRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.ReplayHandResponse:
        account = _account_of(current_caller(), context)
        with _answering(context):
            return hands_api.replay_hand(self.wallet, account, request, context)

    def Level(
        self, request: wallet_pb2.LevelRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.LevelResponse:
        caller = current_caller()
        levels = self.levels.get(request.game)
        if levels is None:
            kept = "is not kept yet" if request.game in game_names() else "does not exist"
            abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"no levels of {quoted(request.game)}: such a game {kept}; levels are kept for "
                f"{', '.join(sorted(self.levels)) or 'no game'}",
                error_code="no_levels",
            )
        if request.account_id:
            account = _ledger_id(request.account_id)
        else:
            account = _account_of(caller, context)
        if account is None:
            _no_account(context, request.account_id)
        with _answering(context):
            coins = self.wallet.balance(account)
        level = levels.read(coins)
        return wallet_pb2.LevelResponse(
            game=request.game,
            account_id=str(account),
            level=level.level,
            title=level.title,
            value=coins,
            next_level_at=level.next_at,
            max_level=levels.top,
        )

    def _session(self, reply: type[SessionReply], account: int, issued_at_ms: int | None = None) -> SessionReply:
        token = self.signer.issue(str(account), self._username(account), ttl=self.session_ttl,
                                  issued_at_ms=issued_at_ms)
        return self._session_reply(reply, token)

    def _session_reply(self, reply: type[SessionReply], token: str) -> SessionReply:
        session = self.signer.verify(token)
        return reply(
            token=token,
            account_id=session.account_id,
            username=session.username,
            expires_at=_timestamp(session.expires_at),
        )

    def _username(self, account: int) -> str:
        # Usernames never change, so a name read once stays right.
        name = self._usernames.get(account)
        if name is None:
            name = self.wallet.username(account)
            if len(self._usernames) > 100_000:
                self._usernames.clear()
            self._usernames[account] = name
        return name

    def _row(self, rank: int, account: int, net: int) -> wallet_pb2.LeaderboardRow:
        return wallet_pb2.LeaderboardRow(
            rank=rank, account_id=str(account), username=self._username(account), value=net
        )


class WalletInternalServicer(wallet_pb2_grpc.WalletInternalServiceServicer):
    """``paiju.v1.WalletInternalService``: holds for the table engine (service tokens only)."""

    def __init__(self, wallet: Wallet) -> None:
        self.wallet = wallet

    def HoldForHand(
        self, request: wallet_pb2.HoldForHandRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.HoldForHandResponse:
        if not request.hand_id:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a hold names its hand",
                  error_code="invalid_argument")
        if not request.holds:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a hand holds at least one account",
                  error_code="invalid_argument")
        with _answering(context):
            amounts: list[tuple[int, int]] = []
            expected: dict[int, int] = {}
            for hold in request.holds:
                account = _ledger_id(hold.account_id)
                if hold.amount < 0:
                    raise ValueError(f"the hold of account {hold.account_id} is below zero")
                if account is None:
                    _no_account(context, hold.account_id)
                amounts.append((account, hold.amount))
                if hold.HasField("expected_available"):
                    expected[account] = hold.expected_available
            held = self.wallet.hold_hand_with_coins(request.hand_id, amounts, expected or None)
            return wallet_pb2.HoldForHandResponse(
                holds=list(request.holds),
                balances=[_wire_balance(account, held.coins[account]) for account, _ in amounts],
            )

    def ReleaseHand(
        self, request: wallet_pb2.ReleaseHandRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.ReleaseHandResponse:
        if not request.hand_id:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "a release names its hand",
                  error_code="invalid_argument")
        with _answering(context):
            return wallet_pb2.ReleaseHandResponse(released=self.wallet.release(request.hand_id))


    def GetBalances(
        self, request: wallet_pb2.GetBalancesRequest, context: grpc.ServicerContext
    ) -> wallet_pb2.GetBalancesResponse:
        if not 1 <= len(request.account_ids) <= 100:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "ask for 1 to 100 accounts",
                  error_code="invalid_argument")
        with _answering(context):
            accounts = []
            for account_id in request.account_ids:
                account = _ledger_id(account_id)
                if account is None:
                    _no_account(context, account_id)
                accounts.append(account)
            return wallet_pb2.GetBalancesResponse(balances=_balances(self.wallet, accounts))


def _no_account(context: grpc.ServicerContext, account_id: str) -> NoReturn:
    abort(context, grpc.StatusCode.NOT_FOUND, f"no account {quoted(account_id)}",
          error_code="unknown_account")


def _balance(wallet: Wallet, account: int) -> wallet_pb2.Balance:
    return _balances(wallet, [account])[0]


def _balances(wallet: Wallet, accounts: list[int]) -> list[wallet_pb2.Balance]:
    """The wire balances of ``accounts``, in their order, read in one query."""
    coins = wallet.coins_many(accounts)
    return [_wire_balance(account, coins[account]) for account in accounts]


def _wire_balance(account: int, coins: Coins) -> wallet_pb2.Balance:
    return wallet_pb2.Balance(account_id=str(account), available=coins.available, held=coins.held,
                              total=coins.total)


def _ledger_entry(entry: Entry) -> wallet_pb2.LedgerEntry:
    detail = entry.detail or ""
    if not detail and entry.reason in (Reason.STAKE, Reason.POT):
        detail = entry.reason.value  # both are "hand settlement" on the wire; say which
    return wallet_pb2.LedgerEntry(
        entry_id=str(entry.id),
        amount=entry.amount,
        reason=_ENTRY_REASONS[entry.reason],
        detail=detail,
        hand_id=entry.hand_id or "",
        game=entry.game or "",
        balance_after=entry.balance_after,
        created_at=_timestamp(of=entry),
    )
