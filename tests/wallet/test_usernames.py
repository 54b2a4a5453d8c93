"""Look-alike usernames (issue 13, item 12): a name that looks like a taken one is taken, on
SQLite and PostgreSQL, for accounts made before the rule as well."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from paiju.wallet import DuplicateUsername, Wallet
from paiju.wallet.migrations import MIGRATIONS, migrate

from .conftest import FAST_HASHER
from .helpers import execute_raw

LOOK_ALIKES = {
    "cyrillic a": "\u0430lice",
    "fullwidth": "ａｌｉｃｅ",
    "mathematical bold": "𝐚𝐥𝐢𝐜𝐞",
    "combining marks": "ali\u0307ce\u0301",
    "capital i for l": "aIice",
}


@pytest.mark.parametrize("look_alike", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_a_look_alike_username_cannot_register_beside_the_original(wallet: Wallet, look_alike: str) -> None:
    wallet.register("alice", "password-123")
    with pytest.raises(DuplicateUsername):
        wallet.register(look_alike, "password-456")


@pytest.mark.parametrize("look_alike", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_the_original_cannot_register_beside_a_look_alike_taken_first(wallet: Wallet, look_alike: str) -> None:
    wallet.register(look_alike, "password-123")
    with pytest.raises(DuplicateUsername):
        wallet.register("alice", "password-456")


def test_a_fullwidth_name_is_stored_in_its_plain_form(wallet: Wallet) -> None:
    account = wallet.register("ＢＯＢ", "password-123")
    assert wallet.username(account) == "BOB"


def test_logging_in_with_a_look_alike_name_reaches_the_one_account_it_looks_like(wallet: Wallet) -> None:
    alice = wallet.register("alice", "password-123")
    assert wallet.verify_password("ａｌｉｃｅ", "password-123") == alice
    assert wallet.verify_password("\u0430lice", "password-123") == alice
    assert wallet.verify_password("\u0430lice", "password-456") is None


def test_names_that_only_look_different_still_register(wallet: Wallet) -> None:
    names = ["小明", "小朋", "alice", "alicia", "bob", "b0b2"]
    assert len({wallet.register(name, "password-123") for name in names}) == len(names)


def test_accounts_older_than_skeletons_keep_logging_in_and_block_new_look_alikes(
    open_wallet: Callable[..., Wallet],
) -> None:
    wallet = open_wallet()
    migrate(wallet.database, MIGRATIONS[:3])  # the schema before usernames had skeletons
    stored = FAST_HASHER.hash("password-123")
    for name in ["alice", "\u0430lice", "carol"]:  # two look-alikes, as the old rules allowed
        execute_raw(
            wallet,
            "INSERT INTO wallet_accounts (username, username_key, password_hash, is_house, balance, created_at)"
            " VALUES (:name, :key, :hash, :house, 0, :now)",
            name=name, key=name.casefold(), hash=stored, house=False, now=datetime.now(UTC),
        )
    assert wallet.migrate() == [step.version for step in MIGRATIONS[3:]]
    with wallet.database.engine.connect() as conn:
        skeletons = dict(conn.execute(sa.text("SELECT username, username_skeleton FROM wallet_accounts")).all())
    assert skeletons["alice"] == "allce" and skeletons["\u0430lice"] is None and skeletons["carol"]
    first, second = wallet.verify_password("alice", "password-123"), wallet.verify_password("\u0430lice", "password-123")
    assert first is not None and second is not None and first != second
    for look_alike in ["ａｌｉｃｅ", "caro1", "house"]:
        with pytest.raises(DuplicateUsername):
            wallet.register(look_alike, "password-123")
