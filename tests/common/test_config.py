"""Settings from the environment: documented defaults, explicit values, clear refusals."""

from __future__ import annotations

import pytest

from paiju.common.config import DEFAULT_DATABASE_URL, ConfigError, Settings


def test_with_nothing_set_the_services_run_embedded_with_the_documented_defaults() -> None:
    settings = Settings.from_env({})
    assert settings.redis_url is None and settings.uses_embedded_redis
    assert settings.database_url == DEFAULT_DATABASE_URL and settings.uses_embedded_database
    assert settings.secret_is_ephemeral and len(settings.secret) == 32
    assert (settings.bind_host, settings.port) == ("127.0.0.1", 50051)
    assert (settings.turn_seconds, settings.reconnect_seconds, settings.ready_kick_seconds) == (
        20,
        90,
        20,
    )
    assert settings.starting_grant == 20_000
    assert settings.call_timeout_seconds == 5


def test_an_unset_secret_is_random_per_process() -> None:
    assert Settings.from_env({}).secret != Settings.from_env({}).secret


def test_explicit_values_are_read() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://127.0.0.1:6379/3",
            "DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/test",
            "PAIJU_SECRET": "sixteen bytes or more",
            "PAIJU_BIND_HOST": "0.0.0.0",
            "PAIJU_TABLE_PORT": "7000",
            "PAIJU_TURN_SECONDS": "15",
            "PAIJU_STARTING_GRANT": "50_000",
            "PAIJU_WALLET_TARGET": "wallet:50052",
            "PAIJU_CALL_TIMEOUT_SECONDS": "12",
        }
    )
    assert settings.call_timeout_seconds == 12
    assert settings.redis_url == "redis://127.0.0.1:6379/3" and not settings.uses_embedded_redis
    assert not settings.uses_embedded_database
    assert settings.secret == b"sixteen bytes or more" and not settings.secret_is_ephemeral
    assert (settings.bind_host, settings.table_port, settings.turn_seconds) == ("0.0.0.0", 7000, 15)
    assert (settings.starting_grant, settings.wallet_target) == (50_000, "wallet:50052")


def test_empty_variables_count_as_unset() -> None:
    settings = Settings.from_env({"REDIS_URL": "", "PAIJU_TURN_SECONDS": "  "})
    assert settings.uses_embedded_redis and settings.turn_seconds == 20


@pytest.mark.parametrize(
    ("name", "value", "complaint"),
    [
        ("PAIJU_TURN_SECONDS", "twenty", "whole number"),
        ("PAIJU_TURN_SECONDS", "0", "at least 1"),
        ("PAIJU_CALL_TIMEOUT_SECONDS", "0", "at least 1"),
        ("PAIJU_STARTING_GRANT", "-1", "at least 0"),
        ("PAIJU_PORT", "70000", "0..65535"),
        ("PAIJU_SECRET", "short", "16 bytes"),
    ],
)
def test_bad_values_are_refused_naming_the_variable(name: str, value: str, complaint: str) -> None:
    with pytest.raises(ConfigError, match=complaint) as refusal:
        Settings.from_env({name: value})
    assert name in str(refusal.value)


def test_the_secret_never_shows_in_a_repr() -> None:
    settings = Settings.from_env(
        {"PAIJU_SECRET": "hunter2hunter2hunter2", "DATABASE_URL": "postgresql://u:pw@db/x"}
    )
    assert "hunter2" not in repr(settings) and "pw@" not in repr(settings)


def test_a_service_deployed_apart_waits_for_the_wallet_as_long_as_the_settings_say() -> None:
    from paiju.platform import build

    platform = build(Settings.from_env({"PAIJU_CALL_TIMEOUT_SECONDS": "12"}), rooms_per_tier=1,
                     services=("lobby", "table"))
    try:
        assert platform.tables.wallet._timeout == 12  # type: ignore[attr-defined]
    finally:
        platform.close()


def test_previous_secrets_are_read_and_each_must_be_long_enough() -> None:
    settings = Settings.from_env({"PAIJU_SECRET": "the secret of today, long enough",
                                  "PAIJU_PREVIOUS_SECRETS": "the secret of last month , ,the one before it"})
    assert settings.previous_secrets == (b"the secret of last month", b"the one before it")
    assert Settings.from_env({"PAIJU_SECRET": "the secret of today, long enough"}).previous_secrets == ()
    with pytest.raises(ConfigError, match="PAIJU_PREVIOUS_SECRETS"):
        Settings.from_env({"PAIJU_SECRET": "the secret of today, long enough", "PAIJU_PREVIOUS_SECRETS": "short"})
