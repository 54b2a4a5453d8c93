"""The operator's service against whole platforms on loopback: the end-to-end tests' deployments
(embedded and real), an operator's token, and a stub of ``paiju.v1.AdminService`` that presents it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from paiju.common.auth import Role, TokenSigner
from paiju.proto.v1 import admin_pb2_grpc
from paiju.rpc.interceptor import bearer_metadata
from tests.e2e.conftest import SECRET, deployment  # noqa: F401 - the e2e tests' platforms, shared
from tests.patience import PATIENCE_SECONDS

OPERATOR = "night-shift"


class Admin:
    """``paiju.v1.AdminService`` at a deployment, each call carrying ``token``."""

    def __init__(self, channel: grpc.Channel, token: str) -> None:
        self._stub = admin_pb2_grpc.AdminServiceStub(channel)
        self.token = token

    def __getattr__(self, rpc: str) -> Any:
        method = getattr(self._stub, rpc)
        return lambda request: method(request, metadata=bearer_metadata(self.token), timeout=PATIENCE_SECONDS)


@pytest.fixture
def operator_token() -> str:
    return TokenSigner(SECRET.encode()).issue(f"operator:{OPERATOR}", OPERATOR, 600, Role.OPERATOR)


@pytest.fixture
def admin(deployment, operator_token: str) -> Iterator[Admin]:  # noqa: F811 - the fixture imported above
    with grpc.insecure_channel(deployment.address) as channel:
        yield Admin(channel, operator_token)
