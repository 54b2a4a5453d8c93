"""A suspended account's login refused: the ``Wallet`` servicer as served, with ``Login`` checked
against the suspensions once the password is verified (a wrong password is answered as before,
so a suspension tells nothing to whoever does not know it).

The wallet's servicer is left as it is; the gate is put in front of it where the wallet's
process assembles its services (:meth:`paiju.platform.Platform.bindings`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import grpc

from paiju.admin.suspensions import Suspensions
from paiju.rpc.errors import abort
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
        if self._suspensions.is_suspended(int(session.account_id)):
            abort(context, grpc.StatusCode.PERMISSION_DENIED, "this account is suspended: ask the operators",
                  error_code=ACCOUNT_SUSPENDED)
        return session


def gate_logins(bindings: list[ServiceBinding], suspensions: Suspensions) -> list[ServiceBinding]:
    """``bindings`` with the ``Wallet`` service's logins gated."""
    return [replace(binding, servicer=LoginGate(binding.servicer, suspensions))
            if binding.name == "paiju.v1.Wallet" else binding for binding in bindings]
