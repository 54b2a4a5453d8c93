"""Session tokens: round trip, expiry on the clock's word, and refusal of anything altered."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.common.auth import (
    BadSignatureError,
    Caller,
    ExpiredTokenError,
    MalformedTokenError,
    Role,
    TokenError,
    TokenSigner,
    _signature,
    key_id,
)
from tests.volume import volume

SECRET = b"paiju test secret, 32 bytes long"
NOW = 1_800_000_000.0


class ManualClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def signer_at(now: float = NOW, secret: bytes = SECRET) -> tuple[TokenSigner, ManualClock]:
    clock = ManualClock(now)
    return TokenSigner(secret, clock=clock), clock


def test_a_token_stands_for_the_account_it_was_issued_to() -> None:
    signer, _ = signer_at()
    token = signer.issue("acct-7", "王小明", ttl=300)
    assert signer.verify(token) == Caller("acct-7", "王小明", Role.PLAYER, int(NOW) + 300, int(NOW) * 1000)


def test_roles_survive_the_round_trip() -> None:
    signer, _ = signer_at()
    operator = signer.verify(signer.issue("op-1", "ops", ttl=60, role=Role.OPERATOR))
    service = signer.verify(signer.issue_service_token("lobby", ttl=60))
    assert (operator.role, operator.is_service) == (Role.OPERATOR, False)
    assert (service.account_id, service.username, service.is_service) == (
        "service:lobby",
        "lobby",
        True,
    )


def test_a_token_is_accepted_until_its_last_second_and_refused_from_expiry_on() -> None:
    signer, clock = signer_at()
    token = signer.issue("acct-7", "lihua", ttl=90)
    clock.now = NOW + 89.999
    assert signer.verify(token).account_id == "acct-7"
    clock.now = NOW + 90
    with pytest.raises(ExpiredTokenError, match="expired"):
        signer.verify(token)
    clock.now = NOW + 10_000
    with pytest.raises(ExpiredTokenError):
        signer.verify(token)


def test_a_token_signed_with_another_secret_has_a_bad_signature() -> None:
    theirs, _ = signer_at(secret=b"somebody else's secret, not ours")
    ours, _ = signer_at()
    with pytest.raises(BadSignatureError):
        ours.verify(theirs.issue("acct-7", "lihua", ttl=60))


def test_extending_the_expiry_in_the_payload_breaks_the_signature() -> None:
    signer, clock = signer_at()
    version, kid, payload, signature = signer.issue("acct-7", "lihua", ttl=60).split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["exp"] += 10**6
    forged_payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    clock.now = NOW + 120
    with pytest.raises(BadSignatureError):
        signer.verify(f"{version}.{kid}.{forged_payload}.{signature}")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Bearer",
        "v1",
        "v1.",
        "v1..",
        "v1.abc",
        "v2.abc.def",
        "v1.abc.def.ghi",
        "v1.a+b.c/d",
        "v1.é.x",
    ],
)
def test_text_that_is_no_token_is_malformed(text: str) -> None:
    signer, _ = signer_at()
    with pytest.raises(MalformedTokenError):
        signer.verify(text)


def test_a_correctly_signed_payload_that_is_not_our_claims_is_malformed() -> None:
    signer, _ = signer_at()
    for claims in (
        b"[1, 2]",
        b"not json",
        json.dumps({"sub": "", "name": "x", "role": "player", "exp": 1}).encode(),
    ):
        payload = base64.urlsafe_b64encode(claims).rstrip(b"=").decode()
        signed = f"v2.{key_id(SECRET)}.{payload}"
        token = f"{signed}.{_signature(SECRET, signed)}"
        with pytest.raises(MalformedTokenError):
            signer.verify(token)


def test_rotating_the_secret_keeps_the_tokens_the_old_one_signed_until_they_expire() -> None:
    old, clock = signer_at()
    issued_before = old.issue("acct-7", "lihua", ttl=60)
    new_secret = b"the next secret, also 32 bytes.."
    rotated = TokenSigner(new_secret, previous=(SECRET,), clock=clock)
    assert rotated.verify(issued_before).account_id == "acct-7"
    issued_after = rotated.issue("acct-8", "wang", ttl=60)
    assert issued_after.split(".")[1] == key_id(new_secret) != issued_before.split(".")[1]
    with pytest.raises(BadSignatureError, match="a key this server does not hold"):
        old.verify(issued_after)  # a replica not yet given the new secret
    forgotten = TokenSigner(new_secret, clock=clock)  # the old secret dropped after its tokens expired
    with pytest.raises(BadSignatureError):
        forgotten.verify(issued_before)
    clock.now = NOW + 60
    with pytest.raises(ExpiredTokenError):
        rotated.verify(issued_before)


def test_a_token_issued_before_tokens_named_their_key_still_verifies() -> None:
    signer, _ = signer_at()
    payload = base64.urlsafe_b64encode(
        json.dumps({"sub": "acct-7", "name": "lihua", "role": "player", "exp": int(NOW) + 60}).encode()).rstrip(b"=").decode()
    signed = f"v1.{payload}"
    assert signer.verify(f"{signed}.{_signature(SECRET, signed)}").account_id == "acct-7"
    with pytest.raises(BadSignatureError):
        signer.verify(f"{signed}.{_signature(b'another secret of 16+ bytes', signed)}")


@pytest.mark.parametrize(
    ("account_id", "ttl"), [("", 60), ("acct", 0), ("acct", -5), ("acct", True), ("acct", 1.5)]
)
def test_issuing_refuses_nonsense(account_id: str, ttl: int) -> None:
    signer, _ = signer_at()
    with pytest.raises(ValueError):
        signer.issue(account_id, "name", ttl=ttl)


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        TokenSigner(b"too short")


TOKEN_CHARS = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")


@settings(max_examples=volume(suite=100, soak=300), deadline=None)
@given(
    account_id=st.text(min_size=1, max_size=30),
    username=st.text(max_size=30),
    position=st.integers(min_value=0),
    replacement=TOKEN_CHARS,
)
def test_changing_any_one_character_of_a_token_gets_it_refused(
    account_id: str, username: str, position: int, replacement: str
) -> None:
    signer, _ = signer_at()
    token = signer.issue(account_id, username, ttl=600)
    assert signer.verify(token).account_id == account_id
    index = position % len(token)
    if token[index] == replacement:
        replacement = "A" if replacement != "A" else "B"
    tampered = token[:index] + replacement + token[index + 1 :]
    with pytest.raises(TokenError):
        signer.verify(tampered)


@settings(max_examples=volume(suite=100, soak=200), deadline=None)
@given(position=st.integers(min_value=0), extra=TOKEN_CHARS, delete=st.booleans())
def test_inserting_or_deleting_a_character_gets_a_token_refused(
    position: int, extra: str, delete: bool
) -> None:
    signer, _ = signer_at()
    token = signer.issue("acct-7", "lihua", ttl=600)
    index = position % len(token)
    altered = (
        token[:index] + token[index + 1 :] if delete else token[:index] + extra + token[index:]
    )
    with pytest.raises(TokenError):
        signer.verify(altered)


@settings(max_examples=volume(suite=100, soak=300), deadline=None)
@given(text=st.text(max_size=200) | st.text(TOKEN_CHARS, max_size=200))
def test_arbitrary_text_is_refused_with_a_token_error_and_never_a_crash(text: str) -> None:
    signer, _ = signer_at()
    with pytest.raises(TokenError):
        signer.verify(text)


def test_a_token_says_to_the_millisecond_when_it_was_issued() -> None:
    signer, _ = signer_at(NOW + 0.1234)
    assert signer.verify(signer.issue("acct-7", "lihua", ttl=60)).issued_at_ms == int(NOW) * 1000 + 123
    stamped = signer.issue("acct-7", "lihua", ttl=60, issued_at_ms=int(NOW) * 1000 + 500)
    assert signer.verify(stamped).issued_at_ms == int(NOW) * 1000 + 500


def test_a_token_issued_before_tokens_carried_iat_verifies_without_one() -> None:
    signer, _ = signer_at()
    claims = {"sub": "acct-7", "name": "lihua", "role": "player", "exp": int(NOW) + 60}
    assert signer.verify(signed_claims(claims)) == Caller("acct-7", "lihua", Role.PLAYER, int(NOW) + 60, None)


@pytest.mark.parametrize("iat", ["yesterday", True, [1], {"ms": 1}])
def test_an_iat_that_is_no_time_is_malformed(iat: object) -> None:
    signer, _ = signer_at()
    claims = {"sub": "acct-7", "name": "lihua", "role": "player", "exp": int(NOW) + 60, "iat": iat}
    with pytest.raises(MalformedTokenError):
        signer.verify(signed_claims(claims))


def signed_claims(claims: dict[str, object]) -> str:
    """A v2 token of ``claims`` signed with the test secret: what an older or a foreign issuer wrote."""
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    signed = f"v2.{key_id(SECRET)}.{payload}"
    return f"{signed}.{_signature(SECRET, signed)}"
