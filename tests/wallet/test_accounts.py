"""Registering accounts, passwords, usernames and the house."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sqlalchemy as sa

from paiju.wallet import DuplicateUsername, PasswordHasher, Reason, Wallet
from paiju.wallet.accounts import PasswordChangedMeanwhile, WrongPassword
from paiju.wallet.errors import UnknownAccount

from .helpers import row_count


def test_a_new_account_gets_the_starting_grant_as_a_keyed_entry(wallet: Wallet) -> None:
    account = wallet.register("alice", "password-123")
    assert wallet.balance(account) == 20_000
    [entry] = wallet.history(account)
    assert (entry.account, entry.amount, entry.reason) == (account, 20_000, Reason.GRANT)
    assert entry.idempotency_key == f"grant:signup:{account}"
    assert entry.balance_after == 20_000


def test_the_starting_grant_is_a_setting(open_wallet: Callable[..., Wallet]) -> None:
    generous = open_wallet(starting_grant=1_234)
    generous.migrate()
    assert generous.balance(generous.register("bob", "password-123")) == 1_234
    stingy = open_wallet(starting_grant=0)
    account = stingy.register("carol", "password-123")
    assert stingy.balance(account) == 0
    assert stingy.history(account) == []
    with pytest.raises(ValueError, match="cannot be negative"):
        open_wallet(starting_grant=-1)


def test_verify_password(wallet: Wallet) -> None:
    alice = wallet.register("Alice", "correct horse")
    bob = wallet.register("bob", "battery staple")
    assert wallet.verify_password("Alice", "correct horse") == alice
    assert wallet.verify_password("alice", "correct horse") == alice  # names ignore case
    assert wallet.verify_password("Alice", "Correct horse") is None  # passwords do not
    assert wallet.verify_password("Alice", "battery staple") is None
    assert wallet.verify_password("bob", "battery staple") == bob
    assert wallet.verify_password("nobody", "correct horse") is None
    assert wallet.verify_password("", "x") is None
    assert wallet.verify_password("Alice", "") is None


def test_hashes_are_scrypt_with_parameters_and_a_random_salt(wallet: Wallet) -> None:
    wallet.register("alice", "same password")
    wallet.register("bob", "same password")
    with wallet.database.engine.connect() as conn:
        stored = conn.execute(
            sa.text("SELECT password_hash FROM wallet_accounts WHERE password_hash IS NOT NULL")
        ).scalars().all()
    assert len(stored) == 2 and stored[0] != stored[1]
    for value in stored:
        scheme, n, r, p, _salt, _digest = value.split("$")
        assert (scheme, n, r, p) == ("scrypt", "16", "8", "1")
        assert "same password" not in value


def test_the_default_hash_cost_verifies(open_wallet: Callable[..., Wallet]) -> None:
    real = open_wallet(password_hasher=PasswordHasher())
    real.migrate()
    account = real.register("alice", "a real password")
    assert real.verify_password("alice", "a real password") == account
    assert real.verify_password("alice", "a wrong password") is None


def test_a_hash_made_with_other_parameters_still_verifies() -> None:
    stored = PasswordHasher(n=2**5, r=4, p=2).hash("secret")
    assert PasswordHasher().verify("secret", stored)
    assert not PasswordHasher().verify("secret!", stored)
    assert not PasswordHasher().verify("secret", "scrypt$not$a$hash")
    assert not PasswordHasher().verify("secret", "bcrypt$1$2$3$4$5")


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("", "1 to 32 characters, got 0"),
        ("x" * 33, "1 to 32 characters, got 33"),
        (" alice", "start or end with a space"),
        ("alice ", "start or end with a space"),
        ("al\nice", "control"),
        ("al\u200bice", "control or invisible"),
    ],
)
def test_bad_usernames_are_refused_with_a_clear_value_error(
    wallet: Wallet, username: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        wallet.register(username, "password-123")
    assert row_count(wallet, "wallet_accounts") == 1  # the house only


def test_usernames_of_one_and_thirty_two_characters_and_chinese_ones_are_fine(
    wallet: Wallet,
) -> None:
    for name in ("a", "y" * 32, "小明", "牌局高手 2"):
        account = wallet.register(name, "password-123")
        assert wallet.username(account) == name
        assert wallet.account_id(name) == account


def test_a_username_that_is_not_text_is_a_type_error(wallet: Wallet) -> None:
    with pytest.raises(TypeError, match="a username is a string"):
        wallet.register(42, "password-123")  # type: ignore[arg-type]


def test_a_short_password_is_refused(wallet: Wallet) -> None:
    with pytest.raises(ValueError, match="8 to 1024 characters"):
        wallet.register("alice", "short")
    assert wallet.account_id("alice") is None


def test_a_taken_username_raises_duplicate_username(wallet: Wallet) -> None:
    first = wallet.register("alice", "password-123")
    for again in ("alice", "ALICE", "Alice"):
        with pytest.raises(DuplicateUsername) as raised:
            wallet.register(again, "another password")
        assert raised.value.username == again
    assert wallet.verify_password("alice", "password-123") == first
    assert wallet.total_coins() == 20_000  # no second grant


def test_the_house_exists_holds_nothing_and_cannot_log_in(wallet: Wallet) -> None:
    house = wallet.house
    assert wallet.username(house) == "house"
    assert wallet.balance(house) == 0
    assert wallet.verify_password("house", "") is None
    assert wallet.verify_password("house", "anything at all") is None
    with pytest.raises(DuplicateUsername):
        wallet.register("house", "password-123")


def test_a_login_stores_a_password_hashed_at_a_cost_raised_since_at_the_new_cost(tmp_path) -> None:
    from paiju.wallet import PasswordHasher, Wallet

    url = f"sqlite:///{tmp_path}/rehash.sqlite3"
    before = Wallet(url, password_hasher=PasswordHasher(n=2**4))
    before.migrate()
    account = before.register("ann", "a good password")
    before.close()
    raised = Wallet(url, password_hasher=PasswordHasher(n=2**5))
    try:
        with raised.database.read() as conn:
            old = conn.execute(sa.text("SELECT password_hash FROM wallet_accounts WHERE id = :a"), {"a": account}).scalar()
        assert old.startswith("scrypt$16$")
        assert raised.verify_password("ann", "wrong password") is None
        with raised.database.read() as conn:
            assert conn.execute(sa.text("SELECT password_hash FROM wallet_accounts WHERE id = :a"), {"a": account}).scalar() == old
        assert raised.verify_password("ann", "a good password") == account
        with raised.database.read() as conn:
            new = conn.execute(sa.text("SELECT password_hash FROM wallet_accounts WHERE id = :a"), {"a": account}).scalar()
        assert new.startswith("scrypt$32$") and new != old
        assert raised.verify_password("ann", "a good password") == account  # the new hash verifies
    finally:
        raised.close()


def test_changing_the_password_takes_the_old_one_and_a_registrations_new_one(wallet: Wallet) -> None:
    account = wallet.register("dora", "password-123")
    ended: list[str] = []
    wallet.change_password(account, "password-123", "password-456", before_storing=lambda: ended.append("sessions"))
    assert ended == ["sessions"]
    assert wallet.verify_password("dora", "password-456") == account
    assert wallet.verify_password("dora", "password-123") is None


def test_a_password_change_keeps_when_the_other_sessions_ended_in_the_ledger(wallet: Wallet) -> None:
    # Redis, where the services read it, may lose it: the ledger's copy gives it back.
    account = wallet.register("dana", "password-123")
    other = wallet.register("dirk", "password-123")
    wallet.change_password(account, "password-123", "password-456", sessions_valid_after_ms=5_000)
    wallet.change_password(other, "password-123", "password-456")  # a caller that ends no session
    assert wallet.session_stamps_after(4_999) == [(account, 5_000)]
    assert wallet.session_stamps_after(5_000) == []
    assert wallet.verify_password("dana", "password-456") == account  # a login (and any rehash) keeps it
    wallet.change_password(account, "password-456", "password-789", sessions_valid_after_ms=9_000)
    assert wallet.session_stamps_after(0) == [(account, 9_000)]


@pytest.mark.parametrize(("old", "new", "refusal"), [
    ("wrong-password", "password-456", WrongPassword),
    ("password-123", "short", ValueError),
    ("password-123", "password-123", ValueError),
    ("", "password-456", ValueError),
])
def test_a_refused_password_change_changes_nothing(wallet: Wallet, old: str, new: str, refusal: type) -> None:
    account = wallet.register("erin", "password-123")
    ended: list[str] = []
    with pytest.raises(refusal):
        wallet.change_password(account, old, new, before_storing=lambda: ended.append("sessions"))
    assert ended == []
    assert wallet.verify_password("erin", "password-123") == account


def test_when_the_sessions_cannot_be_ended_the_password_stays(wallet: Wallet) -> None:
    account = wallet.register("fay", "password-123")

    def unreachable() -> None:
        raise ConnectionError("Redis is down")

    with pytest.raises(ConnectionError):
        wallet.change_password(account, "password-123", "password-456", before_storing=unreachable)
    assert wallet.verify_password("fay", "password-123") == account


def test_a_password_changed_meanwhile_is_not_overwritten(wallet: Wallet) -> None:
    account = wallet.register("gus", "password-123")
    # Another call changes the password between this one's check of the old one and its write.
    meanwhile = lambda: wallet.change_password(account, "password-123", "password-789")
    with pytest.raises(PasswordChangedMeanwhile):
        wallet.change_password(account, "password-123", "password-456", before_storing=meanwhile)
    assert wallet.verify_password("gus", "password-789") == account


def test_the_house_has_no_password_to_change(wallet: Wallet) -> None:
    with pytest.raises(UnknownAccount):
        wallet.change_password(wallet.house, "password-123", "password-456")
