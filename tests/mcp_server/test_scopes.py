"""Scope checks that depend on the arguments, as propose_memory's op does (SPEC A-8, P-3, C-6).

A stand-in tool with the same rule keeps these tests about the /mcp view's
check alone, whatever the proposal service answers.
"""

from __future__ import annotations

import pytest

from apps.consent.services import connection_narrow
from apps.mcp_server import catalog
from apps.mcp_server.tools.answer import Answer
from tests.mcp_server.rpc import call, post, rpc

PROPOSE = catalog.PROPOSE


@pytest.mark.parametrize(
    "granted,op,missing",
    [
        ({"profile:propose"}, "add", []),
        ({"profile:propose"}, "update", ["profile:correct"]),
        ({"profile:propose"}, "archive", ["profile:correct"]),
        ({"profile:correct"}, "update", []),
        ({"profile:correct"}, "add", ["profile:propose"]),
        ({"profile:propose"}, "bogus", []),  # left to the schema check: invalid_argument
        ({"profile:read"}, "bogus", ["profile:propose", "profile:correct"]),
        ({"profile:read"}, None, ["profile:propose", "profile:correct"]),
    ],
)
def test_rule_by_argument(granted, op, missing):
    arguments = {} if op is None else {"op": op}
    assert PROPOSE.missing(frozenset(granted), arguments) == missing


def test_listed_when_any_op_is_allowed():
    assert PROPOSE.listed_for(frozenset({"profile:propose"}))
    assert PROPOSE.listed_for(frozenset({"profile:correct"}))
    assert not PROPOSE.listed_for(frozenset({"profile:read", "context:search"}))


@pytest.fixture
def propose_tool(monkeypatch):
    spec = catalog.ToolSpec(
        name="propose_memory",
        title="stand-in",
        description="stand-in with the scope rule of SPEC P-3",
        input_schema={
            "type": "object",
            "properties": {"op": {"type": "string", "enum": ["add", "update", "archive"]}},
            "required": ["op"],
            "additionalProperties": False,
        },
        output_schema={"type": "object", "properties": {"status": {"type": "string"}},
                       "additionalProperties": False},
        scopes=PROPOSE,
        handler=lambda grant, arguments: Answer({"status": "pending"}),
        read_only=False,
    )
    monkeypatch.setitem(catalog.TOOLS, spec.name, spec)
    return spec


def _status_and_challenge(token, op):
    response = post(call("propose_memory", {"op": op}), token)
    return response.status_code, response.get("WWW-Authenticate", "")


# SPEC A-8: the op decides the scope; a missing one is HTTP 403 naming it, before anything runs.
@pytest.mark.django_db
def test_op_scope_is_checked_before_dispatch(propose_tool, connect, issue_token):
    connect(scopes=("profile:read", "profile:propose", "profile:correct"))
    proposer = issue_token("profile:read profile:propose")
    assert _status_and_challenge(proposer, "add")[0] == 200
    status, challenge = _status_and_challenge(proposer, "update")
    assert status == 403
    assert 'error="insufficient_scope"' in challenge and 'scope="profile:correct"' in challenge
    corrector = issue_token("profile:correct")
    status, challenge = _status_and_challenge(corrector, "add")
    assert status == 403 and 'scope="profile:propose"' in challenge
    assert _status_and_challenge(corrector, "archive")[0] == 200


# SPEC C-6: narrowing the connection removes the op at once, even for a token that holds the scope.
@pytest.mark.django_db
def test_narrowed_connection_loses_the_op(propose_tool, connect, issue_token):
    connection = connect(scopes=("profile:read", "profile:propose", "profile:correct"))
    token = issue_token("profile:read profile:propose profile:correct")
    assert _status_and_challenge(token, "update")[0] == 200
    connection_narrow(connection=connection, scopes={"profile:read", "profile:propose"})
    assert _status_and_challenge(token, "update")[0] == 403
    listed = post(rpc("tools/list"), token).json()["result"]["tools"]
    assert "propose_memory" in {tool["name"] for tool in listed}  # add is still allowed
