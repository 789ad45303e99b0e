"""A request crosses into the MCP server once, admitted in one place (docs/mcp.md "What happens to a request").

Counted on the real functions, each wrapped to count and then run: the body's parse
(``admission.parse``) and the scope check of a call (``catalog.ScopeRule.missing``).
"""

from __future__ import annotations

import dataclasses

import pytest

from apps.consent import scopes
from apps.mcp_server import admission, catalog
from tests.mcp_server.conftest import make_fact, share
from tests.mcp_server.rpc import call, post, rpc, tool_result

pytestmark = pytest.mark.django_db

SEARCHING = (scopes.PROFILE_READ, scopes.CONTEXT_SEARCH)


@pytest.fixture
def searching(user, connect, issue_token) -> str:
    """A token of a connection that may read and search, with three shared facts."""
    connection = connect(scopes=SEARCHING)
    share(connection, [make_fact(user, i) for i in range(3)])
    return issue_token(SEARCHING)


@pytest.fixture
def counted(monkeypatch):
    seen: dict[str, list] = {"parses": [], "scope_checks": []}
    parse, missing = admission.parse, catalog.ScopeRule.missing

    def counting_parse(body):
        seen["parses"].append(body)
        return parse(body)

    def counting_missing(self, granted, arguments):
        seen["scope_checks"].append(self)
        return missing(self, granted, arguments)

    monkeypatch.setattr(admission, "parse", counting_parse)
    monkeypatch.setattr(catalog.ScopeRule, "missing", counting_missing)
    return seen


# SPEC A-8, M-9, M-10: one parse of the body and one scope check per call, whatever the call.
@pytest.mark.parametrize("message,checks", [
    (call("get_user_context"), 1),
    (call("search_user_context", {"query": "Label"}), 1),
    (call("read_user_context_page", {"offset": 0, "version": "0" * 64}), 1),  # a tool error is still one of each
    (rpc("resources/read", {"uri": "lifeos://profile/summary"}), 1),
    (rpc("tools/list"), 0),  # listing filters by the scopes; it checks no call
], ids=["overview", "search", "stale-page", "resource", "list"])
def test_one_parse_and_one_scope_check_per_request(message, checks, counted, searching):
    response = post(message, searching)
    assert response.status_code == 200 and "error" not in response.json()
    assert len(counted["parses"]) == 1
    assert len(counted["scope_checks"]) == checks


# SPEC A-8: a call the scopes refuse is refused from the same one parse and one check (HTTP 403).
def test_a_refused_call_is_parsed_and_checked_once(counted, connect, issue_token):
    connect(scopes=(scopes.PROFILE_READ,))
    response = post(call("search_user_context", {"query": "x"}, request_id=7), issue_token(SEARCHING))
    assert response.status_code == 403 and response.json()["id"] == 7
    assert len(counted["parses"]) == 1 and len(counted["scope_checks"]) == 1


# SPEC M-8, M-9: the arguments a tool runs with are the ones admission parsed and validated; arguments the
# schema refuses are answered from admission without running the tool.
def test_the_tool_runs_on_the_admitted_arguments(counted, searching, monkeypatch):
    ran = []
    spec = catalog.tool("search_user_context")
    assert spec is not None

    def handler(grant, arguments):
        ran.append(arguments)
        return spec.handler(grant, arguments)

    monkeypatch.setitem(catalog.TOOLS, spec.name, dataclasses.replace(spec, handler=handler))
    token = searching
    assert tool_result(post(call("search_user_context", {"query": "Label", "limit": 2.0}), token))["facts"]
    assert ran == [{"query": "Label", "limit": 2}]  # 2.0 is the integer 2 (admission's canonical form)
    refused = tool_result(post(call("search_user_context", {"query": "Label", "limit": 99}), token))
    assert refused["code"] == "invalid_argument" and len(ran) == 1
