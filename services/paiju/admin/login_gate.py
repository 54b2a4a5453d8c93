"""A suspended account's login refused: the ``WalletService`` servicer as served, with ``Login`` checked
against the suspensions once the password is verified (a wrong password is answered as before,
so a suspension tells nothing to whoever does not know it), and ``RefreshSession`` refused to a
suspended account's session.

The wallet's servicer is left as it is; the gate is put in front of it where the wallet's
process assembles its services (:meth:`paiju.platform.Platform.bindings`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import grpc

from paiju.admin.suspensions import Suspensions
from paiju.rpc.errors import abort
from paiju.rpc.interceptor import current_caller
from paiju.rpc.server import ServiceBinding
from paiju.table.suspended import ACCOUNT_SUSPENDED


class LoginGate:
    """The wallet servicer ``inner``, with a login of a suspended account refused PERMISSION_DENIED."""

    def __init__(self, inner: Any, suspensions: Suspensions) -> None:
        self._inner = inner
        self._suspensions = suspensions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def Login(self, request: Any, context: grpc.ServicerContext) -> Any:
        session = self._inner.Login(request, context)
        self._refuse_if_suspended(session.account_id, context)
        return session

    def RefreshSession(self, request: Any, context: grpc.ServicerContext) -> Any:
        """A live session of a suspended account is not made any longer."""
        self._refuse_if_suspended(current_caller().account_id, context)
        return self._inner.RefreshSession(request, context)

    def _refuse_if_suspended(self, account_id: str, context: grpc.ServicerContext) -> None:
        if account_id.isdigit() and self._suspensions.is_suspended(int(account_id)):
            abort(context, grpc.StatusCode.PERMISSION_DENIED, "this account is suspended: ask the operators",
                  error_code=ACCOUNT_SUSPENDED)


def gate_logins(bindings: list[ServiceBinding], suspensions: Suspensions) -> list[ServiceBinding]:
    """``bindings`` with the ``WalletService`` service's logins gated."""
    return [replace(binding, servicer=LoginGate(binding.servicer, suspensions))
            if binding.name == "paiju.v1.WalletService" else binding for binding in bindings]
