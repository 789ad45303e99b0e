"""What was sent is recorded, and reading costs the same queries however many facts there are (SPEC M-11, D-8)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.common import clock
from apps.consent.models import AccessEvent, Connection
from tests.mcp_server.conftest import bulk_share, fact_reads, make_fact, share
from tests.mcp_server.rpc import call, post, rpc, tool_result

pytestmark = pytest.mark.django_db


def events(connection) -> list[tuple[str, list]]:
    return [(e.tool, e.facts) for e in AccessEvent.objects.filter(connection=connection).order_by("id")]


# SPEC M-8: an offset of 2.0 is the integer 2 (JSON Schema), for every tool that pages.
@pytest.mark.parametrize("offset", [2, 2.0])
def test_paging_by_a_number_without_a_fraction(user, connect, issue_token, offset):
    scopes = ("profile:read", "context:search")
    facts = [make_fact(user, index) for index in range(3)]
    share(connect(scopes), facts)
    token = issue_token(scopes)
    version = tool_result(post(call("get_user_context"), token))["version"]
    page = tool_result(post(call("read_user_context_page", {"offset": offset, "version": version}), token))
    assert [fact["id"] for fact in page["facts"]] == [str(facts[2].id)]
    search = tool_result(post(call("search_user_context", {"query": facts[0].label, "offset": offset}), token))
    assert "code" not in search


# SPEC M-11: each result carrying facts records exactly the facts (id, version) it carried.
def test_tool_results_record_access_events(shared_profile):
    connection, facts, token = shared_profile
    result = tool_result(post(call("get_user_context"), token))
    tool_result(post(call("read_user_context_page", {"offset": 2, "version": result["version"]}), token))
    assert events(connection) == [
        ("get_user_context", [[f.id, f.version] for f in facts]),
        ("read_user_context_page", [[facts[2].id, facts[2].version]]),
    ]


# SPEC M-11: resource reads that carry facts are recorded too.
def test_resource_reads_record_access_events(shared_profile):
    connection, facts, token = shared_profile
    response = post(rpc("resources/read", {"uri": "lifeos://profile/summary"}), token)
    assert response.status_code == 200
    assert events(connection) == [("resource:profile/summary", [[f.id, f.version] for f in facts])]


# SPEC M-11: nothing sent, nothing recorded (an empty profile, a failed call).
def test_no_event_without_facts(user, connect, issue_token):
    connection = connect()
    token = issue_token()
    tool_result(post(call("get_user_context"), token))
    tool_result(post(call("read_user_context_page", {"offset": 0, "version": "0" * 64}), token))
    assert events(connection) == []


# SPEC D-3: a call marks the connection as used.
def test_call_touches_connection(shared_profile, frozen_clock):
    connection, _, token = shared_profile
    tool_result(post(call("get_user_context"), token))
    assert Connection.objects.get(pk=connection.pk).last_used_at == clock.now()
    clock.advance(timedelta(minutes=5))
    tool_result(post(call("get_user_context"), token))
    assert Connection.objects.get(pk=connection.pk).last_used_at == clock.now()


def _queries_for_overview(token) -> list[str]:
    with CaptureQueriesContext(db_connection) as captured:
        result = tool_result(post(call("get_user_context"), token))
    assert not result.get("code"), result
    return [query["sql"] for query in captured.captured_queries]


# One visible-facts query per call: the query count does not grow with the number of facts.
def test_query_count_does_not_grow(user, other_user, application, connect, issue_token):
    from apps.consent.services import connection_authorize

    small = connect()
    bulk_share(small, user, 1)
    big = connection_authorize(user=other_user, application=application, scopes={"profile:read"},
                               categories={"preferences"})
    bulk_share(big, other_user, 2000)
    small_token, big_token = issue_token(), issue_token(owner=other_user)
    # The first read of a set also computes its version (SPEC M-4): one more statement, whatever its size.
    few, many = _queries_for_overview(small_token), _queries_for_overview(big_token)
    assert len(few) == len(many)
    assert len(fact_reads(many)) == 2
    few, many = _queries_for_overview(small_token), _queries_for_overview(big_token)
    assert len(few) == len(many)
    assert len(fact_reads(many)) == 1
