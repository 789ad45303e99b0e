"""SQL statements per MCP call do not grow with the profile: 1 against 10,000 shared facts, every tool.

The assistant path is served on every conversation turn (docs/performance.md),
so each tool and resource read must cost the same number of statements
whatever the size of the person's profile. Data is written with
``bulk_create`` (facts, shares and their search projection rows). A new tool
fails ``test_every_tool_is_counted`` until it has a case here.
"""

from __future__ import annotations

import pytest
from django.db import connection as db_connection
from django.test.utils import CaptureQueriesContext

from apps.common import clock
from apps.consent.services import connection_authorize
from apps.mcp_server import catalog
from apps.memory.models import Category
from apps.retrieval.models import SearchProjection
from apps.retrieval.registry import indexed_type
from apps.retrieval.searchable import USER_PROFILE
from tests.mcp_server.conftest import bulk_share, fact_reads
from tests.mcp_server.rpc import call, post, rpc

pytestmark = pytest.mark.django_db

SMALL, LARGE = 1, 10_000
SCOPES = ("profile:read", "profile:propose", "profile:correct", "context:search",
          "memory:episode:read", "memory:calendar:read", "memory:todo:read", "memory:voice_memo:read",
          "memory:contact:read")

# Arguments of each tool; ``version`` is filled in from the profile's overview.
CASES = {
    "get_user_context": {},
    "read_user_context_page": {"offset": 0, "version": None},
    "search_user_context": {"query": "label"},  # every fact matches: the ranking reads them all
    "propose_memory": {"op": "add", "category": "preferences", "label": "Favourite tea",
                       "value": "Green tea without sugar", "evidence": "Said so today"},
    "memory_list": {"resource": "todo"},
    "memory_search": {"query": "label"},
    "memory_read": {"ref": "todo:1"},
}
RESOURCES = ("summary", "page")


def _profile(owner, application, count: int) -> str:
    """A connection with ``count`` shared facts and their search rows."""
    connection = connection_authorize(user=owner, application=application, scopes=set(SCOPES),
                                      categories=set(Category.shareable()))
    now = clock.now()
    facts = bulk_share(connection, owner, count)
    declared = indexed_type(USER_PROFILE)
    SearchProjection.objects.bulk_create(
        SearchProjection(resource_type=USER_PROFILE, record_id=fact.pk, owner_id=owner.pk, field=path, text=text,
                         updated_at=now)
        for fact in facts for path, text in declared.rows(fact).items()
    )
    if db_connection.vendor == "postgresql":  # planner statistics, as autovacuum keeps them after a bulk load
        with db_connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return connection


@pytest.fixture
def profiles(user, other_user, application, issue_token, frozen_clock):
    """(token, version of its visible set) for a profile of SMALL and one of LARGE shared facts.

    The clock stands still, so both connections were last used "just now" when counted: building the
    large profile on a loaded machine can take longer than the last-used resolution of a connection.
    """
    result = {}
    for size, owner in ((SMALL, user), (LARGE, other_user)):
        _profile(owner, application, size)
        token = issue_token(" ".join(SCOPES), owner=owner)
        overview = post(call("get_user_context"), token).json()["result"]["structuredContent"]
        assert len(overview["facts"]) == min(size, 50)
        result[size] = (token, overview["version"])
    return result


def _statements(message: dict, token: str) -> tuple[list[str], dict]:
    with CaptureQueriesContext(db_connection) as captured:
        response = post(message, token)
    assert response.status_code == 200, response.content
    return [query["sql"] for query in captured.captured_queries], response.json()


def test_every_tool_is_counted():
    assert set(catalog.TOOLS) == set(CASES)


def _tool_counts(tool: str, profiles: dict) -> dict[int, list[str]]:
    counts = {}
    for size, (token, version) in profiles.items():
        arguments = {key: version if value is None else value for key, value in CASES[tool].items()}
        statements, answer = _statements(call(tool, arguments), token)
        result = answer["result"]
        if tool in ("get_user_context", "read_user_context_page", "search_user_context", "propose_memory"):
            assert result["isError"] is False, (tool, result)
        counts[size] = statements
    return counts


def _resource_counts(resource: str, profiles: dict) -> dict[int, list[str]]:
    counts = {}
    for size, (token, version) in profiles.items():
        uri = "lifeos://profile/summary" if resource == "summary" else f"lifeos://profile/page/{version}/0"
        statements, answer = _statements(rpc("resources/read", {"uri": uri}), token)
        assert "result" in answer, (resource, answer)
        counts[size] = statements
    return counts


# One pair of profiles for every tool and resource: building 10,000 shared facts is the test's whole cost.
# propose_memory runs last, so the suggestion it leaves cannot change what the others read.
def test_statements_do_not_grow_with_the_profile(profiles):
    measured = {name: _tool_counts(name, profiles) for name in sorted(CASES, key=lambda name: name == "propose_memory")}
    measured |= {f"resource {name}": _resource_counts(name, profiles) for name in RESOURCES}
    grown = [
        f"{name}: {len(counts[SMALL])} statements with {SMALL} fact, {len(counts[LARGE])} with {LARGE}:\n"
        + "\n".join(counts[LARGE])
        for name, counts in measured.items() if len(counts[SMALL]) != len(counts[LARGE])
    ]
    assert not grown, "\n\n".join(grown)

    # The visible set is read with one statement, whatever its size (SPEC C-1).
    token, _ = profiles[LARGE]
    statements, _ = _statements(call("get_user_context"), token)
    assert len(fact_reads(statements)) == 1, fact_reads(statements)
