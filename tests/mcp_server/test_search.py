"""search_user_context (SPEC S-1, S-2, M-2, M-6, M-11, C-8)."""

from __future__ import annotations

import pytest
from django.db import connection as db_connection

from apps.consent.models import AccessEvent
from tests.mcp_server.conftest import EVIDENCE, make_fact, share
from tests.mcp_server.rpc import call, post, rpc, tool_result

SEARCH_SCOPES = ("profile:read", "context:search")


@pytest.fixture
def searchable(user, connect, issue_token):
    connection = connect(scopes=SEARCH_SCOPES)
    coffee = make_fact(user, 1, category="preferences", label="Coffee", value="Flat white, no sugar")
    tea = make_fact(user, 2, category="preferences", label="茶", value="喜欢喝乌龙茶")
    make_fact(user, 3, category="preferences", label="Unshared coffee", value="Espresso at night")
    share(connection, [coffee, tea])
    return connection, coffee, tea, issue_token(" ".join(SEARCH_SCOPES))


def search(token, **arguments):
    return tool_result(post(call("search_user_context", arguments), token))


# SPEC S-1, C-1: only visible facts match; the answer says it is only the matches.
def test_matches_only_visible_facts(searchable):
    connection, coffee, _, token = searchable
    result = search(token, query="coffee")
    assert [fact["id"] for fact in result["facts"]] == [str(coffee.id)]
    assert set(result["facts"][0]) == {"id", "category", "label", "value", "updated_at"}
    assert "not the whole profile" in result["message"]
    assert len(result["version"]) == 64
    assert (result["offset"], result["has_more"], result["window_exhausted"]) == (0, False, False)


# SPEC S-3: Chinese text matches too.
def test_chinese_query(searchable):
    _, _, tea, token = searchable
    assert [fact["id"] for fact in search(token, query="乌龙")["facts"]] == [str(tea.id)]


# SPEC C-8, S-1: evidence never takes part in matching.
def test_evidence_is_not_searched(searchable):
    _, _, _, token = searchable
    assert search(token, query=EVIDENCE)["facts"] == []


# SPEC S-1, A-5, A-8: search needs context:search and profile:read.
def test_search_needs_both_scopes(user, connect, issue_token):
    connect(scopes=SEARCH_SCOPES)
    reader = issue_token("profile:read")
    listed = {tool["name"] for tool in post(rpc("tools/list"), reader).json()["result"]["tools"]}
    assert "search_user_context" not in listed
    response = post(call("search_user_context", {"query": "coffee"}), reader)
    assert response.status_code == 403
    assert 'scope="context:search"' in response["WWW-Authenticate"]


# SPEC M-2, M-8: the limits of the arguments, named.
@pytest.mark.parametrize(
    "arguments,field",
    [
        ({"query": "x" * 201}, "'query' is too long: at most 200"),
        ({"query": ""}, "'query' is too short"),
        ({"query": "coffee", "limit": 11}, "'limit' is too large: at most 10"),
        ({"query": "coffee", "limit": 0}, "'limit' is too small: at least 1"),
        ({"query": "coffee", "offset": 10_001}, "'offset' is too large: at most 10000"),
        ({"query": "coffee", "everything": True}, "unknown field 'everything'"),
    ],
)
def test_invalid_arguments(searchable, arguments, field):
    _, _, _, token = searchable
    result = search(token, **arguments)
    assert result["code"] == "invalid_argument" and field in result["message"]


# SPEC M-4, M-7: a search carries the version of the whole visible set, the overview's, and it moves
# with the set like the overview's does.
def test_search_version_is_the_overview_version(searchable):
    connection, coffee, tea, token = searchable
    overview = tool_result(post(call("get_user_context"), token))
    assert search(token, query="coffee")["version"] == overview["version"]
    assert search(token, query="nothing-matches-this")["version"] == overview["version"]
    share(connection, [coffee])
    assert search(token, query="coffee")["version"] != overview["version"]


# SPEC M-2, C-1: matches are shown in rank order as the same read that gave the version shows them;
# a match no longer visible by then is left out.
def test_matches_are_read_with_the_version(searchable, monkeypatch):
    from apps.consent.selectors import profile as search_module

    connection, coffee, tea, token = searchable
    unshared = make_fact(connection.user, 7, label="Coffee beans", value="Unshared coffee")
    monkeypatch.setattr(search_module, "search_visible_matches",
                        lambda **kwargs: _matches_of([tea, unshared, coffee]))
    result = search(token, query="coffee")
    assert [fact["id"] for fact in result["facts"]] == [str(tea.id), str(coffee.id)]
    assert result["facts"][0] == {"id": str(tea.id), "category": "preferences", "label": "茶",
                                  "value": "喜欢喝乌龙茶", "updated_at": result["facts"][0]["updated_at"]}
    event = AccessEvent.objects.get(connection=connection)
    assert event.facts == [[tea.id, tea.version], [coffee.id, coffee.version]]


# SPEC M-11: the facts a search sent are recorded.
def test_search_records_access_event(searchable):
    connection, coffee, _, token = searchable
    search(token, query="coffee")
    event = AccessEvent.objects.get(connection=connection)
    assert (event.tool, event.facts) == ("search_user_context", [[coffee.id, coffee.version]])


# SPEC S-1: paging through matches with next_offset reaches each match once.
def test_paging_matches(user, connect, issue_token):
    connection = connect(scopes=SEARCH_SCOPES)
    facts = [make_fact(user, i, label=f"Hobby {i}", value=f"Likes hiking trip {i}") for i in range(13)]
    share(connection, facts)
    token = issue_token(" ".join(SEARCH_SCOPES))
    first = search(token, query="hiking", limit=10)
    assert len(first["facts"]) == 10 and first["has_more"] and first["next_offset"] == 10
    second = search(token, query="hiking", limit=10, offset=10)
    assert len(second["facts"]) == 3 and not second["has_more"] and second["next_offset"] is None
    ids = [fact["id"] for fact in first["facts"] + second["facts"]]
    assert sorted(ids, key=int) == [str(fact.id) for fact in facts]


# SPEC S-1, C-1: the visibility rule a search embeds is compiled once, not built as a queryset on each call
# (2–4 ms of the call's CPU). The answer still follows the rule.
def test_a_search_builds_no_visibility_queryset(searchable, monkeypatch):
    from apps.consent.selectors import visibility

    _, coffee, _, token = searchable
    search(token, query="coffee")  # compiles the statement
    built = []
    rule = visibility.visible_query
    monkeypatch.setattr(visibility, "visible_query", lambda *args: built.append(args) or rule(*args))
    assert [fact["id"] for fact in search(token, query="coffee")["facts"]] == [str(coffee.id)]
    assert built == []


# SPEC M-2: the SDK client validates the result against the published output schema.
def test_search_through_sdk(mcp, searchable):
    _, coffee, _, token = searchable
    result = mcp(token).call("search_user_context", {"query": "coffee", "limit": 5})
    assert not result.is_error
    assert [fact["id"] for fact in result.structured_content["facts"]] == [str(coffee.id)]


def _matches_of(facts, **fields):
    from apps.retrieval.selectors import SearchMatches

    values = {"offset": 0, "next_offset": None, "has_more": False, "window_exhausted": False}
    return SearchMatches(ids=tuple(fact.id for fact in facts), **{**values, **fields})


# SPEC S-2: when the match window is used up, the answer says so and asks to narrow the query.
def test_window_exhausted_says_narrow(searchable, monkeypatch):
    from apps.consent.selectors import profile as search_module

    _, coffee, _, token = searchable
    page = _matches_of([coffee], offset=9_999, has_more=True, window_exhausted=True)
    monkeypatch.setattr(search_module, "search_visible_matches", lambda **kwargs: page)
    result = search(token, query="coffee", offset=9_999)
    assert result["window_exhausted"] is True and result["next_offset"] is None
    assert "narrow the query" in result["message"]


# SPEC M-6: a search page is cut to 16,384 bytes; next_offset continues right after what was sent.
def test_search_page_fits_the_byte_budget(user, connect, issue_token, monkeypatch):
    import json

    from apps.consent.selectors import profile as search_module

    connection = connect(scopes=SEARCH_SCOPES)
    heavy = [make_fact(user, i, label="\u0001" * 40, value="\u0001" * 300) for i in range(10)]
    share(connection, heavy)
    monkeypatch.setattr(search_module, "search_visible_matches", lambda **kwargs: _matches_of(heavy, offset=20))
    result = search(issue_token(" ".join(SEARCH_SCOPES)), query="x", offset=20)
    kept = len(result["facts"])
    assert 0 < kept < 10
    assert len(json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode()) <= 16_384
    assert (result["has_more"], result["next_offset"]) == (True, 20 + kept)


# SPEC S-2: at the real 10,000 edge (no patched window) — 10,005 shared matches, built in bulk
# and indexed by the projection rebuild — the last page of the window says it is exhausted.
def test_window_exhausted_at_the_real_10000_edge(user, connect, issue_token):
    from apps.common import clock
    from apps.consent.models import FactShare
    from apps.memory.models import Fact
    from apps.retrieval.services import projection_rebuild

    connection = connect(scopes=SEARCH_SCOPES)
    now = clock.now()
    facts = Fact.objects.bulk_create(
        Fact(owner=user, category="habits", label=f"Walk {n}", value="evening walk by the river",
             created_at=now, updated_at=now)
        for n in range(10_005)
    )
    FactShare.objects.bulk_create(
        FactShare(connection=connection, fact=fact, fact_version=1, shared_at=now) for fact in facts
    )
    projection_rebuild()
    if db_connection.vendor == "postgresql":  # planner statistics, as autovacuum keeps them after a bulk load
        with db_connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    token = issue_token(" ".join(SEARCH_SCOPES))
    last = search(token, query="river", offset=9_990, limit=10)
    assert (len(last["facts"]), last["window_exhausted"], last["has_more"], last["next_offset"]) == (
        10, True, True, None)
    before = search(token, query="river", offset=9_980, limit=10)
    assert (before["window_exhausted"], before["next_offset"]) == (False, 9_990)
