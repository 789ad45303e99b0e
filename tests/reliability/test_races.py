"""Races that need real concurrency (PostgreSQL: row locks, READ COMMITTED snapshots).

Not repeated here: concurrent identical proposals and confirm-vs-edit
(tests/consent/test_proposals_races.py), one code exchanged twice
(tests/oauth/test_replay.py). Each thread uses its own database connection,
closed when the thread ends (``run_threads``).
"""

from __future__ import annotations

import threading
import time

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from apps.consent import scopes
from apps.consent.models import Connection
from apps.consent.services import connection_revoke, shares_set
from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import TokenFamily
from tests.consent.test_proposals_races import run_threads
from tests.mcp_server.conftest import make_fact
from tests.mcp_server.rpc import call, post
from tests.oauth import flow as oauth_flow
from tests.oauth.conftest import approved, assistant, browser, connected  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

THREADS = 8


def refresh_all_at_once(flow, refresh_tokens: list[str]) -> list:
    """Each refresh token presented by its own client on its own thread, all released together."""
    barrier = threading.Barrier(len(refresh_tokens))

    def one(token):
        def go():
            barrier.wait()
            return oauth_flow.refresh(Client(), flow, token)
        return go

    return run_threads(*[one(token) for token in refresh_tokens])


def live_refresh_tokens() -> int:
    return get_refresh_token_model().objects.filter(revoked=None).count()


# SPEC A-3: one refresh token presented eight times at once by its client (every request found the access
# token expired together): concurrency is not theft — each gets a working pair and the family survives.
def test_concurrent_refreshes_of_one_token_all_get_a_pair(connected):  # noqa: F811 - the fixture
    token = connected.tokens[0]["refresh_token"]
    responses = refresh_all_at_once(connected, [token] * THREADS)
    assert [r.status_code for r in responses] == [200] * THREADS, [r.content for r in responses]
    pairs = [r.json() for r in responses]
    assert len({pair["refresh_token"] for pair in pairs}) == THREADS
    assert all(authenticate_bearer(pair["access_token"]) is not None for pair in pairs)
    assert live_refresh_tokens() == THREADS
    assert get_refresh_token_model().objects.values("token_family").distinct().count() == 1
    assert TokenFamily.objects.get().revoked_at is None


# SPEC A-3: a replay of a rotated token racing refreshes of the current one: afterwards the whole
# family is dead — nothing the racing refreshes issued survives.
def test_replay_under_contention_kills_the_whole_family(connected):  # noqa: F811 - the fixture
    first = connected.tokens[0]
    second = oauth_flow.refresh(Client(), connected, first["refresh_token"]).json()
    with oauth_flow.past_the_grace_window():  # the first token is a replay now, not a concurrent refresh
        responses = refresh_all_at_once(connected, [first["refresh_token"]] * 3 + [second["refresh_token"]] * 5)
    issued = [r.json() for r in responses if r.status_code == 200]
    assert live_refresh_tokens() == 0
    for pair in [second, *issued]:
        assert authenticate_bearer(pair["access_token"]) is None
        assert oauth_flow.refresh(Client(), connected, pair["refresh_token"]).status_code == 400
    assert not get_access_token_model().objects.filter(user__isnull=False).exists()
    assert TokenFamily.objects.get().revoked_reason == "refresh_replay"


@pytest.fixture
def reader(user, connect, issue_token):
    """A connection with every scope, ten shareable facts, and a token."""
    connection = connect(scopes=scopes.ALL)
    facts = [make_fact(user, i) for i in range(10)]
    return connection, facts, issue_token(scopes.ALL)


def observed_ids(token) -> tuple[int, frozenset[str]]:
    response = post(call("get_user_context"), token)
    if response.status_code != 200:
        return response.status_code, frozenset()
    content = response.json()["result"]["structuredContent"]
    return 200, frozenset(fact["id"] for fact in content["facts"])


# SPEC D-4, M-4: while the person switches between two share sets, a reader of get_user_context sees
# either the whole old set or the whole new one, never a half-saved mixture.
def test_share_changes_during_reads_are_all_or_nothing(reader):
    connection, facts, token = reader
    before = {fact.id for fact in facts[:5]}
    after = {fact.id for fact in facts[3:]}  # overlapping: some stay, some go, some come
    shares_set(connection=connection, fact_ids=before)
    stop = threading.Event()
    seen: list[frozenset[str]] = []

    def switch():
        try:
            for turn in range(30):
                shares_set(connection=Connection.objects.get(pk=connection.pk),
                           fact_ids=after if turn % 2 == 0 else before)
                time.sleep(0.002)
        finally:
            stop.set()

    def read():
        while not stop.is_set():
            status, ids = observed_ids(token)
            assert status == 200
            seen.append(ids)

    run_threads(switch, read, read, read)
    allowed = {frozenset(map(str, before)), frozenset(map(str, after))}
    mixtures = [ids for ids in seen if ids not in allowed]
    assert len(seen) >= 10
    assert not mixtures, f"{len(mixtures)} of {len(seen)} reads saw a half-saved share set, e.g. {sorted(mixtures[0])}"


# SPEC C-7: a burst of calls while the person revokes: once the revocation has committed, no call
# that starts later is served.
def test_no_call_succeeds_after_revocation_commits(reader):
    connection, facts, token = reader
    shares_set(connection=connection, fact_ids={fact.id for fact in facts})
    revoked_at: list[float] = []
    calls: list[tuple[float, int]] = []  # (started, status)
    lock = threading.Lock()
    start = threading.Barrier(THREADS + 1)

    def hammer():
        start.wait()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            started = time.monotonic()
            status, ids = observed_ids(token)
            with lock:
                calls.append((started, status))
            if status == 200:
                # Admitted just before the revocation committed: all of the facts or (read after it) none.
                assert len(ids) in (len(facts), 0), len(ids)
            elif revoked_at and started > revoked_at[0] + 0.5:
                return

    def revoke():
        start.wait()
        time.sleep(0.3)
        connection_revoke(connection=Connection.objects.get(pk=connection.pk))  # commits on return
        revoked_at.append(time.monotonic())

    run_threads(revoke, *[hammer] * THREADS)
    assert revoked_at
    before = [status for started, status in calls if started < revoked_at[0]]
    after = [status for started, status in calls if started > revoked_at[0]]
    assert 200 in before, "the burst was served before the revocation"
    assert after, "calls were made after the revocation"
    assert set(after) == {401}, f"served after revocation: {after.count(200)} of {len(after)}"
