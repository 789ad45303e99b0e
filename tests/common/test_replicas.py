"""Reads that tolerate lag go to a streaming replica; a person's own pages read the primary (SPEC O-4).

The tests marked ``replica`` run in tests/run.py's replica pass: a throwaway primary and a real
streaming replica of it (``pg_basebackup -R``), configured as deployed (``DATABASE_REPLICA_URLS``).
Replication is asynchronous, so a test either waits until the replica has replayed the primary's
last write (``replayed``) or pauses replay to make the replica visibly behind (``replay_paused``).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connections, transaction
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_application_model, set_token_value

from apps.common import clock
from apps.common.replicas import lag_tolerated, replica_lag, tolerant_alias
from apps.consent.services import access_event_record, connection_authorize
from apps.memory.models import Category, Fact
from tests.agents.builders import agent_token, make_agent
from tests.consent.test_pages_facts import edit_data
from tests.consent.test_pages_support import client_for
from tests.mcp_server.conftest import make_fact, share
from tests.mcp_server.rpc import call, post, tool_result


def _alias() -> str:
    return settings.DATABASE_REPLICAS[0]


def replayed(timeout: float = 20.0) -> None:
    """Wait until the replica has replayed everything the primary has written so far."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_insert_lsn()")  # not _lsn(): with synchronous_commit off that one
        # is where WAL was written out, which may still be before the last commit
        target = cursor.fetchone()[0]
    deadline = time.monotonic() + timeout
    with connections[_alias()].cursor() as cursor:
        while True:
            cursor.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [target])
            if cursor.fetchone()[0]:
                return
            assert time.monotonic() < deadline, "the replica did not catch up"
            time.sleep(0.05)


@contextlib.contextmanager
def replay_paused():
    """The replica keeps receiving the primary's changes but applies none until the block ends."""
    replayed()
    with connections[_alias()].cursor() as cursor:
        cursor.execute("SELECT pg_wal_replay_pause()")
    try:
        yield
    finally:
        with connections[_alias()].cursor() as cursor:
            cursor.execute("SELECT pg_wal_replay_resume()")
        replayed()


def _connected(user):
    """An assistant connected with profile:read over every shareable category, and an access token of it."""
    application = get_application_model().objects.create(
        name="Test assistant", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9999/callback")
    connection = connection_authorize(user=user, application=application, scopes={"profile:read"},
                                      categories=set(Category.shareable()))
    raw = secrets.token_urlsafe(32)
    token = get_access_token_model()(user=user, application=application, scope="profile:read",
                                     expires=clock.now() + timedelta(minutes=10),
                                     resource=[settings.MCP_RESOURCE_URL])
    set_token_value(token, raw)
    token.save()
    return connection, raw


def _state() -> dict:
    """What each database holds, for a failure's message: in recovery, the facts' ids, replay paused."""
    found = {}
    for alias in ("default", _alias()):
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT pg_is_in_recovery(), (SELECT array_agg(id) FROM memory_fact),"
                           " CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END")
            found[alias] = cursor.fetchone()
    return found


def _in_recovery(alias: str) -> bool:
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery()")
        return cursor.fetchone()[0]


# --- without a replica: nothing changes (both databases) -------------------------------------------------

@pytest.mark.django_db
def test_without_a_replica_every_read_is_the_primarys():  # SPEC O-4
    if settings.DATABASE_REPLICAS:
        pytest.skip("a replica is configured in this pass")
    assert settings.DATABASE_ROUTERS == []
    assert "apps.common.replicas.AdminListsOnReplicas" not in settings.MIDDLEWARE
    assert list(connections.settings) == ["default"]
    assert tolerant_alias() == "default"
    with lag_tolerated() as alias:
        assert alias == "default"
        assert Fact.objects.all().db == "default"


# --- a primary and a streaming replica ---------------------------------------------------------------------

@pytest.mark.replica
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True, databases="__all__")
def test_reads_that_tolerate_lag_are_served_by_the_replica():  # SPEC O-4
    assert _in_recovery(_alias()) and not _in_recovery("default")
    assert Fact.objects.all().db == "default"  # outside a block: the primary
    with lag_tolerated() as alias:
        assert alias == _alias()
        assert Fact.objects.all().db == alias
        with transaction.atomic():  # inside a transaction on the primary, its own writes must be seen
            assert Fact.objects.all().db == "default"
            assert tolerant_alias() == "default"
    with transaction.atomic():
        with lag_tolerated() as alias:
            assert alias == "default"


@pytest.mark.replica
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True, databases="__all__")
def test_a_persons_own_write_is_on_their_next_page_while_the_agents_read_lags(user):  # SPEC O-4, R-2
    fact = make_fact(user, label="Tea", value="Green tea")
    policy = make_agent()
    agent = Client(HTTP_AUTHORIZATION=f"Bearer {agent_token(policy)}")
    started = agent.post("/internal/runs", json.dumps({"thread_id": "t", "user": user.pk}),
                         content_type="application/json")
    assert started.status_code == 201, started.content
    run = started.json()["run_id"]
    browser = client_for(user)

    def agent_reads() -> str:
        body = json.dumps({"thread_id": "t", "ref": f"user_profile:{fact.pk}"})
        answer = agent.post(f"/internal/runs/{run}/read", body, content_type="application/json")
        assert answer.status_code == 200, answer.content
        return answer.json()["data"]["value"]

    replayed()
    assert agent_reads() == "Green tea"
    with replay_paused():
        response = browser.post(f"/me/facts/{fact.pk}/edit/", edit_data(fact, value="Oolong"), follow=True)
        assert response.status_code == 200
        # The person's next page shows the write at once: their pages read the primary.
        assert "Oolong" in browser.get("/me/facts/").content.decode()
        # The agent's read is served by the replica, which has not applied it yet.
        assert agent_reads() == "Green tea"
    assert agent_reads() == "Oolong"  # replayed: the replica has it now


@pytest.mark.replica
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True, databases="__all__")
def test_the_access_history_lags_while_the_persons_sharing_does_not(user):  # SPEC O-4, D-8
    connection, _ = _connected(user)
    facts = [make_fact(user, i) for i in range(2)]
    share(connection, facts)
    browser = client_for(user)
    page = f"/me/assistants/{connection.pk}/"
    replayed()
    with replay_paused():
        access_event_record(connection=connection, tool="get_user_context",
                            facts=[(facts[0].pk, facts[0].version)], refs=())
        response = browser.post(f"/me/assistants/{connection.pk}/shares/", {"share": [facts[1].pk]}, follow=True)
        assert response.status_code == 200, response.content
        body = browser.get(page).content.decode()
        # Sharing is a consent decision: the page shows it as just saved (primary) ...
        assert f'value="{facts[1].pk}" id="share-box-{facts[1].pk}" checked' in body
        assert f'value="{facts[0].pk}" id="share-box-{facts[0].pk}">' in body
        # ... while the history of what assistants were sent is the replica's, behind by one call, on the
        # page and in the download alike.
        assert "get_user_context" not in body
        assert _exported_history(browser) == []
    assert "get_user_context" in browser.get(page).content.decode()
    assert [event["tool"] for event in _exported_history(browser)] == ["get_user_context"]


def _exported_history(browser) -> list:
    [assistant] = json.loads(browser.get("/me/export/").content)["assistants"]
    return assistant["access_history"]


@pytest.mark.replica
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True, databases="__all__")
def test_the_assistant_path_reads_the_primary_unless_a_bounded_lag_is_allowed(  # SPEC O-4, C-1
        user, settings):
    connection, token = _connected(user)
    fact = make_fact(user, label="Tea", value="Green tea")
    share(connection, [fact])

    def overview_value() -> str:
        facts = tool_result(post(call("get_user_context"), token))["facts"]
        assert len(facts) == 1, facts
        return facts[0]["value"]

    replayed()
    with replay_paused():
        Fact.objects.filter(pk=fact.pk).update(value="Oolong")  # the person's edit, as the primary has it
        settings.REPLICA_MAX_LAG_SECONDS = None  # the default: the primary
        assert overview_value() == "Oolong"
        settings.REPLICA_MAX_LAG_SECONDS = 3600  # a replica at most an hour behind may answer
        assert replica_lag(_alias()) is not None and replica_lag(_alias()) < 3600
        assert overview_value() == "Green tea"
        time.sleep(1.2)
        settings.REPLICA_MAX_LAG_SECONDS = 1  # further behind than the bound: the primary answers
        assert replica_lag(_alias()) > 1
        assert overview_value() == "Oolong"
    settings.REPLICA_MAX_LAG_SECONDS = 0
    assert replica_lag(_alias()) == 0  # replayed everything it received
    assert overview_value() == "Oolong"


@pytest.mark.replica
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True, databases="__all__")
def test_the_admins_lists_read_the_replica_and_its_other_pages_the_primary(user, admin_client):  # SPEC O-4, AD-1
    fact = make_fact(user, label="Tea", value="Green tea")
    replayed()
    with replay_paused():
        newer = make_fact(user, 1, label="Coffee", value="Flat white")
        listing = admin_client.get("/admin/memory/fact/")
        assert listing.status_code == 200
        assert f"/admin/memory/fact/{fact.pk}/change/" in listing.content.decode(), _state()
        assert f"/admin/memory/fact/{newer.pk}/change/" not in listing.content.decode()  # not replayed yet
        assert admin_client.get(f"/admin/memory/fact/{newer.pk}/change/").status_code == 200  # the primary
    assert f"/admin/memory/fact/{newer.pk}/change/" in admin_client.get("/admin/memory/fact/").content.decode()
