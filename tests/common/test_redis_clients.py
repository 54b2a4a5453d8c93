"""The registered scripts' calls: by SHA, loaded again when Redis lost them (a restart)."""

from __future__ import annotations

import secrets

import fakeredis
import pytest
import redis

from paiju.common.redis_clients import RegisteredScript, queue_script

SOURCE = "return redis.call('INCRBY', KEYS[1], ARGV[1])"


@pytest.fixture(params=["real", "embedded"])
def any_client(request: pytest.FixtureRequest) -> redis.Redis:
    """A real Redis (skipped when none answers, as real-server tests are) or the embedded one."""
    if request.param == "embedded":
        return fakeredis.FakeRedis(server=fakeredis.FakeServer())
    return redis.Redis.from_url(request.getfixturevalue("redis_url"))


def test_a_script_redis_lost_is_sent_whole_once_and_the_call_answers(any_client: redis.Redis) -> None:
    client = any_client
    key = f"test-scripts:{secrets.token_hex(4)}"
    script = RegisteredScript(client, SOURCE)
    try:
        client.script_flush()
        assert script(keys=[key], args=[2]) == 2  # NOSCRIPT: loaded, then called
        assert client.script_exists(script.sha) == [True]
        assert script(keys=[key], args=[3]) == 5  # by SHA alone now
        client.script_flush()
        assert script(keys=[key], args=[1]) == 6  # lost again (a restart): loaded again
    finally:
        client.delete(key)


def test_a_script_queued_in_a_pipeline_answers_even_after_redis_lost_it(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    key = f"test-scripts:{secrets.token_hex(4)}"
    script = RegisteredScript(client, SOURCE)
    try:
        client.script_flush()
        pipe = client.pipeline(transaction=False)
        first, second = queue_script(pipe, script, [key], [4]), queue_script(pipe, script, [key], [1])
        replies = pipe.execute(raise_on_error=False)
        # Both came back NOSCRIPT; each is made again alone, in order.
        assert [first(replies[0]), second(replies[1])] == [4, 5]
        assert client.get(key) == b"5"
    finally:
        client.delete(key)


def test_a_script_s_other_errors_are_raised(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    script = RegisteredScript(client, "return redis.error_reply('NOT_ALLOWED seat taken')")
    with pytest.raises(redis.ResponseError, match="seat taken"):
        script(keys=[], args=[])
