"""The wallet's tables as the latest migration leaves them; queries are written against these.

The migrations in :mod:`paiju.wallet.migrations` create and change the real tables; a test
checks that the database they produce has exactly these columns.
"""

from __future__ import annotations

import sqlalchemy as sa

# SQLite only auto-numbers an INTEGER PRIMARY KEY, PostgreSQL should use 64 bits.
EntryId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

metadata = sa.MetaData()

schema_version = sa.Table(
    "wallet_schema_version",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
)

accounts = sa.Table(
    "wallet_accounts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("username", sa.String(32), nullable=False),
    # The case-folded username: names are unique, and found, regardless of case.
    sa.Column("username_key", sa.String(128), nullable=False, unique=True),
    # What the name looks like (validation.username_skeleton): no two accounts look alike.
    # Empty only for an account that looked like an older one when the column came (step 4).
    sa.Column("username_skeleton", sa.String(128), unique=True),
    sa.Column("password_hash", sa.String(200)),
    sa.Column("is_house", sa.Boolean, nullable=False),
    sa.Column("balance", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # Tokens of the account issued before this (Unix ms) no longer count (its password changed):
    # the ledger's copy of the stamp the services read in Redis (paiju.rpc.sessions).
    sa.Column("sessions_valid_after_ms", sa.BigInteger),
    sa.Index("wallet_accounts_by_sessions_valid_after", "sessions_valid_after_ms"),
)

entries = sa.Table(
    "wallet_entries",
    metadata,
    sa.Column("id", EntryId, primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("reason", sa.String(20), nullable=False),
    sa.Column("idempotency_key", sa.String(200), nullable=False, unique=True),
    sa.Column("hand_id", sa.String(64)),
    sa.Column("game", sa.String(32)),
    sa.Column("detail", sa.String(100)),
    sa.Column("balance_after", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

holds = sa.Table(
    "wallet_holds",
    metadata,
    sa.Column("hand_id", sa.String(64), primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

hands = sa.Table(
    "wallet_hands",
    metadata,
    sa.Column("hand_id", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("settled_at", sa.DateTime(timezone=True), nullable=False),
)

settlements = sa.Table(
    "wallet_settlements",
    metadata,
    sa.Column("hand_id", sa.String(64), sa.ForeignKey("wallet_hands.hand_id"), primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True),
    sa.Column("net", sa.BigInteger, nullable=False),
)

scores = sa.Table(
    "wallet_scores",
    metadata,
    sa.Column("hand_id", sa.String(64), primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("points", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
"""Score points (积分) per hand and account, for score channels; totals are their sums."""

hand_records = sa.Table(
    "wallet_hand_records",
    metadata,
    sa.Column("hand_id", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("table_id", sa.String(64), nullable=False),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False, index=True),
    sa.Column("record", sa.Text, nullable=False),
)
"""Each finished hand (JSON: tier, accounts, names, its start and move log), kept for the
retention period (``PAIJU_HAND_RETENTION_DAYS``) for its players' history and replays."""

hand_players = sa.Table(
    "wallet_hand_players",
    metadata,
    sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True),
    sa.Column("hand_id", sa.String(64), sa.ForeignKey("wallet_hand_records.hand_id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("net", sa.BigInteger, nullable=False),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
)
"""Who played each kept hand, in which hand seat, and their net coins: a player's hands, newest
first, are read by (account_id, ended_at)."""

audit_log = sa.Table(
    "wallet_audit_log",
    metadata,
    sa.Column("id", EntryId, primary_key=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("operator", sa.String(64), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("target", sa.String(200), nullable=False),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("result", sa.String(500), nullable=False),
)
"""Every action an operator took (:mod:`paiju.admin.audit`): appended to and listed, never
changed (the database refuses an UPDATE or a DELETE)."""

suspensions = sa.Table(
    "wallet_suspensions",
    metadata,
    sa.Column("account_id", sa.Integer, sa.ForeignKey("wallet_accounts.id"), primary_key=True),
    sa.Column("reason", sa.String(500), nullable=False),
    sa.Column("operator", sa.String(64), nullable=False),
    sa.Column("since", sa.DateTime(timezone=True), nullable=False),
)
"""The accounts an operator suspended (:mod:`paiju.admin.suspensions`): one row while suspended."""
