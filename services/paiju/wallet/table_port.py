"""The table's view of the wallet: direct calls in one process, or the wallet service over gRPC.

Account ids are text on the wire and in table records, integers in the ledger.
"""

from __future__ import annotations

import grpc

from paiju.games.engine import IllegalAction
from paiju.proto.v1 import wallet_pb2, wallet_pb2_grpc
from paiju.rpc.errors import ERROR_CODE_KEY, trailer
from paiju.table.ports import CoinsChanged
from paiju.wallet import InsufficientFunds, Wallet
from paiju.wallet import errors as ledger_errors


class DirectWallet:
    """:class:`~paiju.table.ports.WalletPort` over a :class:`~paiju.wallet.Wallet`."""

    def __init__(self, wallet: Wallet) -> None:
        self.wallet = wallet

    def available(self, account: str) -> int:
        return self.wallet.available(int(account))

    def available_many(self, accounts: list[str]) -> list[int]:
        coins = self.wallet.available_many(int(account) for account in accounts)
        return [coins[int(account)] for account in accounts]

    def hold_hand(self, hand_id: str, amounts: dict[str, int], expected: dict[str, int] | None = None) -> None:
        try:
            self.wallet.hold_hand(
                hand_id, {int(account): amount for account, amount in amounts.items()},
                None if expected is None else {int(account): coins for account, coins in expected.items()},
            )
        except ledger_errors.CoinsChanged as error:
            raise CoinsChanged(str(error)) from None
        except InsufficientFunds as error:
            # The hand cannot start: a player's coins changed since they sat down.
            raise IllegalAction(str(error), "cannot_hold") from None

    def release(self, hand_id: str) -> int:
        return self.wallet.release(hand_id)


class RemoteWallet:
    """:class:`~paiju.table.ports.WalletPort` over the wallet service (``WalletInternalService``), for
    table and lobby services deployed apart from it. Calls carry a ``service`` token."""

    def __init__(self, channel: grpc.Channel, game: str = "zhajinhua", timeout: float = 5.0) -> None:
        self._stub = wallet_pb2_grpc.WalletInternalServiceStub(channel)
        self._game = game
        self._timeout = timeout

    def available(self, account: str) -> int:
        return self.available_many([account])[0]

    def available_many(self, accounts: list[str]) -> list[int]:
        request = wallet_pb2.GetBalancesRequest(account_ids=accounts)
        return [balance.available for balance in self._stub.GetBalances(request, timeout=self._timeout).balances]

    def hold_hand(self, hand_id: str, amounts: dict[str, int], expected: dict[str, int] | None = None) -> None:
        expected = expected or {}
        holds = [wallet_pb2.Hold(account_id=account, amount=amount, expected_available=expected.get(account))
                 for account, amount in amounts.items()]
        request = wallet_pb2.HoldForHandRequest(hand_id=hand_id, game=self._game, holds=holds)
        try:
            self._stub.HoldForHand(request, timeout=self._timeout)
        except grpc.RpcError as error:
            if trailer(error, ERROR_CODE_KEY) == "coins_changed":
                raise CoinsChanged(error.details()) from None  # type: ignore[attr-defined]
            if error.code() == grpc.StatusCode.FAILED_PRECONDITION:  # type: ignore[attr-defined]
                raise IllegalAction(error.details(), "cannot_hold") from None  # type: ignore[attr-defined]
            raise

    def release(self, hand_id: str) -> int:
        return self._stub.ReleaseHand(wallet_pb2.ReleaseHandRequest(hand_id=hand_id), timeout=self._timeout).released
