"""The wallet's schema, built by an ordered list of steps, each applied once and recorded.

``migrate`` applies the steps a database has not seen, in order, in one transaction. On
PostgreSQL it first takes a transaction-scoped advisory lock, so two processes starting at once
take turns and the second finds nothing left to do; on SQLite ``BEGIN IMMEDIATE`` does the same.

A step never changes once released: later changes are new steps. That is why the first step
spells out its tables here instead of reusing :mod:`paiju.wallet.tables` (which follows the
latest step).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from paiju.wallet.database import Database
from paiju.wallet.errors import SchemaError
from paiju.wallet.model import Reason
from paiju.wallet.validation import username_skeleton

HOUSE_USERNAME = "house"
# Any fixed 64-bit number: it names the wallet's lock among the database's advisory locks.
ADVISORY_LOCK_KEY = 0x7061_696A_7577_6C74


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: ``version`` orders it, ``apply`` runs inside the transaction."""

    version: int
    name: str
    apply: Callable[[Connection], None]


def _create_ledger_tables(conn: Connection) -> None:
    entry_id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    reasons = ", ".join(f"'{reason.value}'" for reason in Reason)
    step = sa.MetaData()
    sa.Table(
        "wallet_accounts",
        step,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("username_key", sa.String(128), nullable=False),
        sa.Column("password_hash", sa.String(200)),
        sa.Column("is_house", sa.Boolean, nullable=False),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("username_key", name="wallet_accounts_username_unique"),
        sa.CheckConstraint("balance >= 0", name="wallet_accounts_balance_not_negative"),
    )
    sa.Table(
        "wallet_entries",
        step,
        sa.Column("id", entry_id, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.String(20), nullable=False),
        sa.Column("idempotency_key", sa.String(200), nullable=False),
        sa.Column("hand_id", sa.String(64)),
        sa.Column("game", sa.String(32)),
        sa.Column("detail", sa.String(100)),
        sa.Column("balance_after", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("idempotency_key", name="wallet_entries_key_unique"),
        sa.CheckConstraint(f"reason IN ({reasons})", name="wallet_entries_known_reason"),
        sa.Index("wallet_entries_by_account", "account_id", "id"),
        sa.Index("wallet_entries_by_game", "game", "account_id"),
        sa.Index("wallet_entries_by_hand", "hand_id"),
    )
    sa.Table(
        "wallet_holds",
        step,
        sa.Column("hand_id", sa.String(64), primary_key=True),
        sa.Column(
            "account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True
        ),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("amount >= 0", name="wallet_holds_amount_not_negative"),
        sa.Index("wallet_holds_by_account", "account_id"),
    )
    sa.Table(
        "wallet_hands",
        step,
        sa.Column("hand_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=False),
    )
    sa.Table(
        "wallet_settlements",
        step,
        sa.Column(
            "hand_id", sa.String(64), sa.ForeignKey("wallet_hands.hand_id"), primary_key=True
        ),
        sa.Column(
            "account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True
        ),
        sa.Column("net", sa.BigInteger, nullable=False),
    )
    step.create_all(conn)


def _create_house_account(conn: Connection) -> None:
    conn.execute(
        sa.text(
            "INSERT INTO wallet_accounts"
            " (username, username_key, password_hash, is_house, balance, created_at)"
            " VALUES (:username, :username, NULL, :is_house, 0, :now)"
        ),
        {"username": HOUSE_USERNAME, "is_house": True, "now": datetime.now(UTC)},
    )


def _create_score_table(conn: Connection) -> None:
    # Score points (积分) of hands in score channels: no coins, no balance floor, one row per
    # (hand, account) so that a repeated delivery records nothing twice.
    step = sa.MetaData()
    sa.Table("wallet_accounts", step, sa.Column("id", sa.Integer, primary_key=True))
    sa.Table(
        "wallet_scores",
        step,
        sa.Column("hand_id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("points", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    step.tables["wallet_scores"].create(conn)


def _add_username_skeletons(conn: Connection) -> None:
    # What each name looks like, unique from now on. Of existing accounts that already look
    # alike, the oldest keeps the skeleton and the others none: they still log in by their
    # exact name, and nobody new can take a name like theirs.
    conn.execute(sa.text("ALTER TABLE wallet_accounts ADD COLUMN username_skeleton VARCHAR(128)"))
    taken: set[str] = set()
    for account, username in conn.execute(sa.text("SELECT id, username FROM wallet_accounts ORDER BY id")).all():
        skeleton = username_skeleton(username)
        if skeleton in taken:
            continue
        taken.add(skeleton)
        conn.execute(sa.text("UPDATE wallet_accounts SET username_skeleton = :skeleton WHERE id = :id"),
                     {"skeleton": skeleton, "id": account})
    conn.execute(sa.text(
        "CREATE UNIQUE INDEX wallet_accounts_username_skeleton_unique ON wallet_accounts (username_skeleton)"
    ))


def _create_hand_records(conn: Connection) -> None:
    # Finished hands for their players' history (replays); pruned after the retention period.
    step = sa.MetaData()
    sa.Table("wallet_accounts", step, sa.Column("id", sa.Integer, primary_key=True))
    records = sa.Table(
        "wallet_hand_records",
        step,
        sa.Column("hand_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("record", sa.Text, nullable=False),
    )
    players = sa.Table(
        "wallet_hand_players",
        step,
        sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True),
        sa.Column("hand_id", sa.String(64), sa.ForeignKey("wallet_hand_records.hand_id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("net", sa.BigInteger, nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
    )
    records.create(conn)
    players.create(conn)


def _create_operator_tables(conn: Connection) -> None:
    # What operators did (appended to, listed, never changed: triggers refuse an UPDATE or a
    # DELETE, whatever code asks), and which accounts they suspended.
    step = sa.MetaData()
    sa.Table("wallet_accounts", step, sa.Column("id", sa.Integer, primary_key=True))
    audit = sa.Table(
        "wallet_audit_log",
        step,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("operator", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("result", sa.String(500), nullable=False),
    )
    suspensions = sa.Table(
        "wallet_suspensions",
        step,
        sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("operator", sa.String(64), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
    )
    audit.create(conn)
    suspensions.create(conn)
    refusal = "the audit log is only appended to"
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text(
            "CREATE FUNCTION wallet_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{refusal}'; END $$"
        ))
        conn.execute(sa.text(
            "CREATE TRIGGER wallet_audit_log_append_only BEFORE UPDATE OR DELETE ON wallet_audit_log "
            "FOR EACH ROW EXECUTE FUNCTION wallet_audit_log_append_only()"
        ))
    else:
        for change in ("UPDATE", "DELETE"):
            conn.execute(sa.text(
                f"CREATE TRIGGER wallet_audit_log_no_{change.lower()} BEFORE {change} ON wallet_audit_log "
                f"BEGIN SELECT RAISE(ABORT, '{refusal}'); END"
            ))


def _add_session_stamps(conn: Connection) -> None:
    # When each account's sessions last began again (a password change ended the others): the
    # services read it from Redis, which may lose it; from here it is given back.
    conn.execute(sa.text("ALTER TABLE wallet_accounts ADD COLUMN sessions_valid_after_ms BIGINT"))
    # Asked every minute for the few stamps still alive: an index, not a scan of every account.
    conn.execute(sa.text("CREATE INDEX wallet_accounts_by_sessions_valid_after "
                         "ON wallet_accounts (sessions_valid_after_ms)"))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "ledger tables", _create_ledger_tables),
    Migration(2, "house account", _create_house_account),
    Migration(3, "score points", _create_score_table),
    Migration(4, "username skeletons", _add_username_skeletons),
    Migration(5, "hand records", _create_hand_records),
    Migration(6, "operator tables", _create_operator_tables),
    Migration(7, "session stamps", _add_session_stamps),
)
"""Every step, oldest first; append new ones, never edit released ones."""

_version_table = sa.Table(
    "wallet_schema_version",
    sa.MetaData(),
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
)


def migrate(database: Database, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[int]:
    """Apply the steps the database lacks; the versions applied by this call, oldest first.

    Safe to call any number of times, from several processes at once.
    """
    with database.write() as conn:
        if database.is_postgres:
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(ADVISORY_LOCK_KEY)))
        _version_table.create(conn, checkfirst=True)
        applied = set(conn.execute(sa.select(_version_table.c.version)).scalars())
        known = {migration.version for migration in migrations}
        if unknown := applied - known:
            raise SchemaError(
                f"the database has schema versions {sorted(unknown)} that this code does not "
                "know: it was migrated by a newer release"
            )
        done: list[int] = []
        for migration in sorted(migrations, key=lambda step: step.version):
            if migration.version in applied:
                continue
            migration.apply(conn)
            conn.execute(
                _version_table.insert().values(
                    version=migration.version, name=migration.name, applied_at=datetime.now(UTC)
                )
            )
            done.append(migration.version)
        return done


def current_version(database: Database) -> int:
    """The highest applied step, 0 for a database never migrated."""
    with database.read() as conn:
        if not sa.inspect(conn).has_table(_version_table.name):
            return 0
        return conn.execute(sa.select(sa.func.max(_version_table.c.version))).scalar_one() or 0


def latest_version(migrations: tuple[Migration, ...] = MIGRATIONS) -> int:
    """The schema version this code expects: its newest step."""
    return max(migration.version for migration in migrations)


def wait_for_schema(
    database: Database,
    seconds: float,
    *,
    migrations: tuple[Migration, ...] = MIGRATIONS,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    pause: float = 1.0,
) -> int:
    """Wait, up to ``seconds``, until the database is at this code's schema (``paiju migrate``,
    run once per release, puts it there); its version then.

    A process deployed beside others waits rather than migrating itself, so that only the one
    migration Job changes the schema. :class:`SchemaError` when the time runs out, and at once
    for a database that a newer release has migrated, or that cannot be reached at all.
    """
    wanted = latest_version(migrations)
    deadline = clock() + seconds
    while True:
        found = current_version(database)
        if found > wanted:
            raise SchemaError(f"the database is at schema {found}, newer than this release's {wanted}: "
                              "run the newer release, or restore the database")
        if found == wanted:
            return found
        if clock() >= deadline:
            raise SchemaError(f"the database is at schema {found} and this release needs {wanted}: "
                              f"run `paiju migrate` (waited {seconds:.0f} s for it)")
        sleep(pause)
