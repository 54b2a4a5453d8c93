"""Sessions that age well, over real gRPC: a password change ends the account's other sessions
and hands the caller a fresh one; a live session is refreshed."""

from __future__ import annotations

import secrets

import grpc
import pytest
import redis

from paiju.client.sdk import PaijuClient, PaijuError
from paiju.common.auth import TokenSigner
from tests.e2e.conftest import SECRET

PASSWORD = "a long enough password"
NEW_PASSWORD = "another long password"


@pytest.fixture
def player(deployment):
    client = PaijuClient.connect(deployment.address, f"s{secrets.token_hex(4)}", PASSWORD, register=True)
    yield client
    client.close()


def test_changing_the_password_ends_the_other_sessions_and_keeps_the_callers(deployment, player):
    other = PaijuClient.connect(deployment.address, player.username, PASSWORD)
    try:
        assert other.balance().available == player.balance().available
        player.change_password(PASSWORD, NEW_PASSWORD)

        with pytest.raises(PaijuError) as ended:
            other.balance()
        assert (ended.value.status, ended.value.error_code) == (grpc.StatusCode.UNAUTHENTICATED, "password_changed")
        assert "password" in ended.value.reason
        assert player.balance().account_id == player.account_id  # the fresh token the reply carried
        with pytest.raises(PaijuError) as old:
            PaijuClient.connect(deployment.address, player.username, PASSWORD)
        assert old.value.status == grpc.StatusCode.UNAUTHENTICATED
        again = PaijuClient.connect(deployment.address, player.username, NEW_PASSWORD)
        assert again.balance().account_id == player.account_id
        again.close()
    finally:
        other.close()


def test_a_wrong_old_password_changes_nothing(deployment, player):
    with pytest.raises(PaijuError) as refused:
        player.change_password("not the password", NEW_PASSWORD)
    assert (refused.value.status, refused.value.error_code) == (grpc.StatusCode.PERMISSION_DENIED, "wrong_password")
    assert player.balance().account_id == player.account_id
    PaijuClient.connect(deployment.address, player.username, PASSWORD).close()


@pytest.mark.parametrize("new_password", ["short", PASSWORD])
def test_a_new_password_is_checked_like_a_registrations(deployment, player, new_password):
    with pytest.raises(PaijuError) as refused:
        player.change_password(PASSWORD, new_password)
    assert refused.value.status == grpc.StatusCode.INVALID_ARGUMENT
    PaijuClient.connect(deployment.address, player.username, PASSWORD).close()


def test_refreshing_a_session_gives_a_new_token_for_the_same_account_and_role(deployment, player):
    signer = TokenSigner(SECRET.encode())
    before = signer.verify(player.token)
    session = player.refresh()
    after = signer.verify(session.token)
    assert (after.account_id, after.username, after.role) == (before.account_id, before.username, before.role)
    assert after.expires_at >= before.expires_at
    assert after.issued_at_ms >= before.issued_at_ms
    assert session.expires_at.seconds == after.expires_at
    assert player.balance().account_id == player.account_id


def test_an_expired_token_cannot_be_refreshed(deployment, player):
    expired = TokenSigner(SECRET.encode(), clock=lambda: 1_000_000.0).issue(player.account_id, player.username, ttl=60)
    stale = PaijuClient.from_session(deployment.address, expired, player.account_id, player.username)
    try:
        with pytest.raises(PaijuError) as refused:
            stale.refresh()
        assert refused.value.status == grpc.StatusCode.UNAUTHENTICATED
    finally:
        stale.close()


def test_a_password_change_outlives_a_redis_that_lost_its_stamp(deployment, player):
    # The stamp that ends the other sessions lived only in Redis: a Redis that lost its data
    # let every session the change had ended back in, for the rest of their lifetime.
    if deployment.shape != "real":
        pytest.skip("the embedded platform keeps its stamps in its own process: nothing to lose")
    player.change_password(PASSWORD, NEW_PASSWORD)
    settings = deployment.platform.settings
    client = redis.Redis.from_url(settings.redis_url)
    key = f"{settings.redis_prefix}:sessions-after:{player.account_id}"
    stamp = client.get(key)
    assert stamp is not None
    client.delete(key)  # Redis restarted without its data
    deployment.platform._restore_session_stamps()  # what the ledger's process does every minute
    assert client.get(key) == stamp and 0 < client.ttl(key) <= settings.session_ttl_seconds + 60
