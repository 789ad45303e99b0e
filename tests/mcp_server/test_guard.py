"""The repeated-failure guard (SPEC M-9)."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import pytest
from django.db import OperationalError

from apps.common.cache import RedisCache
from apps.mcp_server import catalog
from apps.mcp_server.guard import QUIET_PERIOD, FailureGuard
from tests.mcp_server.conftest import make_fact, share
from tests.mcp_server.rpc import call, post, tool_result

pytestmark = pytest.mark.django_db

STALE = "0" * 64


def page(token, offset=0, version=STALE, **extra):
    return tool_result(post(call("read_user_context_page", {"offset": offset, "version": version, **extra}), token))


@pytest.fixture
def spy(monkeypatch):
    """Wrap a catalog handler to count how often it really runs."""

    def _spy(name, behaviour=None):
        spec = catalog.TOOLS[name]
        runs = []

        def handler(grant, arguments):
            runs.append(arguments)
            return (behaviour or spec.handler)(grant, arguments)

        monkeypatch.setitem(catalog.TOOLS, name, replace(spec, handler=handler))
        return runs

    return _spy


# SPEC M-9: the 4th identical failing call is refused without running.
def test_fourth_identical_failure_is_not_executed(shared_profile, spy):
    _, _, token = shared_profile
    runs = spy("read_user_context_page")
    assert [page(token)["code"] for _ in range(3)] == ["version_conflict"] * 3
    refused = page(token)
    assert refused["code"] == "repeated_failure"
    assert "read_user_context_page" in refused["message"]
    assert len(runs) == 3
    # Key order does not make arguments different (canonicalized), nor does 0.0 for 0 (the same integer).
    for arguments in ({"version": STALE, "offset": 0}, {"offset": 0.0, "version": STALE}):
        assert tool_result(post(call("read_user_context_page", arguments), token))["code"] == "repeated_failure"
    assert len(runs) == 3


# SPEC M-9: an argument left out and the same argument given at its default are one call, so
# spelling the default out (or leaving it out again) does not start a fresh count.
def test_a_default_spelled_out_is_the_same_call(user, connect, issue_token, spy):
    connect(("profile:read", "context:search"))
    token = issue_token(("profile:read", "context:search"))
    runs = spy("search_user_context")
    spellings = [{"query": " "}, {"query": " ", "offset": 0}, {"query": " ", "limit": 10},
                 {"query": " ", "offset": 0, "limit": 10}]
    codes = [tool_result(post(call("search_user_context", arguments), token))["code"] for arguments in spellings]
    assert codes == ["invalid_argument"] * 3 + ["repeated_failure"]
    assert len(runs) == 3


# SPEC M-9: an id given as an integer or as a string of its digits names the same fact: one call.
def test_an_id_as_digits_or_integer_is_the_same_call(user, connect, issue_token, spy):
    scopes = ("profile:read", "profile:correct")
    connect(scopes)
    token = issue_token(scopes)
    runs = spy("propose_memory")
    spellings = ["999", 999, "0999", 999.0]
    codes = [tool_result(post(call("propose_memory", {"op": "archive", "target_fact_id": target}), token))["code"]
             for target in spellings]
    assert codes == ["not_found"] * 3 + ["repeated_failure"]
    assert len(runs) == 3
    huge = tool_result(post(call("propose_memory", {"op": "archive", "target_fact_id": "9" * 5000}), token))
    assert huge["code"] == "invalid_argument"


# SPEC M-9: different arguments are judged afresh.
def test_different_arguments_are_judged_afresh(shared_profile):
    _, _, token = shared_profile
    for _ in range(3):
        page(token)
    assert page(token)["code"] == "repeated_failure"
    assert page(token, offset=1)["code"] == "version_conflict"
    assert tool_result(post(call("get_user_context"), token))["facts"]


# SPEC M-9: invalid arguments are failures too.
def test_invalid_arguments_count(shared_profile):
    _, _, token = shared_profile
    assert [page(token, offset=-1)["code"] for _ in range(3)] == ["invalid_argument"] * 3
    assert page(token, offset=-1)["code"] == "repeated_failure"


# SPEC M-9: a success with the same arguments resets the count.
def test_success_resets_the_count(user, connect, issue_token):
    connection = connect()
    first, second = make_fact(user, 1), make_fact(user, 2)
    share(connection, [first])
    token = issue_token()
    old_version = tool_result(post(call("get_user_context"), token))["version"]
    share(connection, [first, second])
    assert [page(token, version=old_version)["code"] for _ in range(2)] == ["version_conflict"] * 2
    share(connection, [first])  # the old version is current again: the same call succeeds
    assert page(token, version=old_version)["facts"]
    share(connection, [first, second])
    codes = [page(token, version=old_version)["code"] for _ in range(4)]
    assert codes == ["version_conflict"] * 3 + ["repeated_failure"]


# SPEC M-9: the count belongs to one connection.
def test_counts_are_per_connection(shared_profile, other_user, application, issue_token):
    from apps.consent.services import connection_authorize

    _, _, token = shared_profile
    for _ in range(3):
        page(token)
    connection_authorize(user=other_user, application=application, scopes={"profile:read"}, categories={"basic"})
    other_token = issue_token(owner=other_user)
    assert page(other_token)["code"] == "version_conflict"


# SPEC M-9: the count is forgotten after a quiet hour.
def test_forgotten_after_quiet_period(shared_profile, monkeypatch):
    from django.core.cache.backends import locmem

    _, _, token = shared_profile
    for _ in range(3):
        page(token)
    assert page(token)["code"] == "repeated_failure"
    later = time.time() + QUIET_PERIOD + 1
    monkeypatch.setattr(locmem.time, "time", lambda: later)
    assert page(token)["code"] == "version_conflict"


# A server-side outage answers unavailable; it is not the assistant's failure and does not block it.
def test_unavailable_does_not_count(shared_profile, spy):
    _, _, token = shared_profile

    def outage(grant, arguments):
        raise OperationalError("database is down")

    runs = spy("get_user_context", outage)
    codes = [tool_result(post(call("get_user_context"), token))["code"] for _ in range(4)]
    assert codes == ["unavailable"] * 4 and len(runs) == 4


# SPEC M-9, O-3: with Redis, every worker (here: two independent cache clients) shares the count,
# and the quiet period is the key's expiry.
@pytest.mark.skipif(not os.environ.get("TEST_REDIS_URL"), reason="needs the Redis that tests.run starts")
def test_count_shared_through_redis():
    url = os.environ["TEST_REDIS_URL"]
    worker_a = FailureGuard(RedisCache(url, {"KEY_PREFIX": "guard-test"}))
    worker_b = FailureGuard(RedisCache(url, {"KEY_PREFIX": "guard-test"}))
    key = FailureGuard.key(connection_id=1, tool="read_user_context_page", arguments={"offset": 0})
    worker_a.succeeded(key)
    assert [worker_a.failed(key), worker_b.failed(key), worker_a.failed(key)] == [1, 2, 3]
    assert worker_b.blocked(key)
    ttl = worker_a.cache._cache.get_client(key).ttl(worker_a.cache.make_and_validate_key(key))
    assert QUIET_PERIOD - 5 < ttl <= QUIET_PERIOD
    worker_b.succeeded(key)
    assert not worker_a.blocked(key)


# SPEC M-9, O-3: with Redis unreachable the guard fails open — calls are served, the count is
# skipped (and resumes when Redis returns) — instead of every tool call failing.
def test_unreachable_cache_lets_calls_through(caplog):
    from tests.services import free_port

    down = FailureGuard(RedisCache(f"redis://127.0.0.1:{free_port()}/0", {}))
    key = FailureGuard.key(connection_id=1, tool="get_user_context", arguments={})
    assert down.blocked(key) is False
    assert down.failed(key) == 0
    assert down.succeeded(key) is None
    assert "cache unavailable" in caplog.text
