"""The read tools through the official SDK client, in both protocol modes (SPEC M-1, M-2, C-1 … C-8)."""

from __future__ import annotations

import json

import pytest
from mcp.shared.exceptions import MCPError

from apps.consent.services import connection_narrow, connection_revoke
from apps.memory.services import fact_archive, fact_update
from tests.mcp_server.conftest import EVIDENCE, make_fact, share


def overview(client) -> dict:
    result = client.call("get_user_context")
    assert not result.is_error, result.structured_content
    return result.structured_content


def ids(result: dict) -> set[str]:
    return {fact["id"] for fact in result["facts"]}


# SPEC M-1: both protocol eras are served (2026-07-28 by discovery, 2025-11-25 by initialize).
def test_protocol_negotiation(mcp, shared_profile, mode):
    _, _, token = shared_profile
    version = mcp(token).protocol_version()
    assert version == ("2026-07-28" if mode == "auto" else "2025-11-25")


# SPEC M-2: the overview's shape; ids are strings; a complete set says so.
def test_overview_shape(mcp, shared_profile):
    _, facts, token = shared_profile
    result = overview(mcp(token))
    assert [fact["id"] for fact in result["facts"]] == [str(fact.id) for fact in facts]
    assert set(result["facts"][0]) == {"id", "category", "label", "value", "updated_at"}
    assert len(result["version"]) == 64 and int(result["version"], 16) >= 0
    assert result["offset"] == 0
    assert (result["has_more"], result["next_offset"], result["next_uri"]) == (False, None, None)
    assert result["summary"]["fact_count"] == 3
    assert result["updated_at"] == max(fact["updated_at"] for fact in result["facts"])


# SPEC M-8: the text content carries the same JSON as the structured content.
def test_text_content_mirrors_structured_content(mcp, shared_profile):
    _, _, token = shared_profile
    result = mcp(token).call("get_user_context")
    assert json.loads(result.content[0].text) == result.structured_content


# SPEC C-8: evidence, and anything else than the visible facts, never reaches the assistant.
def test_evidence_never_sent(mcp, shared_profile, user):
    connection, _, token = shared_profile
    make_fact(user, 99, label="Unshared", value="NOT-SHARED-VALUE")
    client = mcp(token)
    result = client.call("get_user_context")
    page = client.call("read_user_context_page", {"offset": 1, "version": result.structured_content["version"]})
    resource = client.read("lifeos://profile/summary")
    for payload in (result.model_dump_json(), page.model_dump_json(), json.dumps(resource)):
        assert EVIDENCE not in payload
        assert "NOT-SHARED-VALUE" not in payload


# SPEC C-3: granting categories shares nothing by itself; C-1: sharing makes a fact visible.
def test_categories_share_nothing_until_facts_are_shared(mcp, user, connect, issue_token):
    connection = connect()
    fact = make_fact(user)
    client = mcp(issue_token())
    assert overview(client)["facts"] == []
    share(connection, [fact])
    assert ids(overview(client)) == {str(fact.id)}


# SPEC C-1: guesses, sensitive, archived facts and other owners' facts are not visible even if shared before.
def test_only_visible_facts(mcp, shared_profile, user):
    connection, facts, token = shared_profile
    fact_update(fact=facts[0], certainty="guess")
    fact_update(fact=facts[1], sensitive=True)
    fact_archive(fact=facts[2])
    assert overview(mcp(token))["facts"] == []


# SPEC C-2, M-4: an edit hides the fact (its share was for the old version) and changes the version.
def test_edit_hides_fact_and_changes_version(mcp, shared_profile):
    connection, facts, token = shared_profile
    client = mcp(token)
    before = overview(client)
    fact_update(fact=facts[0], value="Changed value")
    after = overview(client)
    assert str(facts[0].id) not in ids(after)
    assert after["version"] != before["version"]
    share(connection, facts)  # the user confirms the new version
    again = overview(client)
    assert any(fact["value"] == "Changed value" for fact in again["facts"])


# SPEC C-6: narrowing categories takes effect on the very next request.
def test_narrowed_category_is_gone_on_next_request(mcp, user, connect, issue_token):
    connection = connect()
    basic, goal = make_fact(user, 1, category="basic"), make_fact(user, 2, category="goals")
    share(connection, [basic, goal])
    client = mcp(issue_token())
    assert ids(overview(client)) == {str(basic.id), str(goal.id)}
    connection_narrow(connection=connection, categories={"basic"})
    assert ids(overview(client)) == {str(basic.id)}


# SPEC C-6, M-2: removing profile:read from the connection hides the read tools from a token that has it.
def test_narrowed_scope_hides_tools(mcp, connect, issue_token):
    connection = connect(scopes=("profile:read", "profile:propose"))
    token = issue_token("profile:read profile:propose")
    client = mcp(token)
    assert {"get_user_context", "read_user_context_page"} <= set(client.tool_names())
    connection_narrow(connection=connection, scopes={"profile:propose"})
    assert not {"get_user_context", "read_user_context_page"} & set(client.tool_names())
    with pytest.raises(MCPError) as refused:
        client.call("get_user_context")
    assert "profile:read" in refused.value.message


# SPEC C-6: the token's own scopes bound it too (token ∩ connection).
def test_token_scopes_bound_the_tools(mcp, connect, issue_token):
    connect(scopes=("profile:read", "profile:propose"))
    assert "get_user_context" not in mcp(issue_token("profile:propose")).tool_names()


# SPEC C-7: revocation stops access on the next request.
def test_revoked_connection_is_refused_at_once(mcp, shared_profile):
    connection, _, token = shared_profile
    client = mcp(token)
    overview(client)
    connection_revoke(connection=connection)
    with pytest.raises(MCPError) as refused:
        client.call("get_user_context")
    assert "invalid" in refused.value.message


# SPEC C-7: a person whose account staff deactivated has no assistant reading their memory, from the next
# request on; nothing of the connection is destroyed (it is live again if the account is).
def test_a_deactivated_persons_assistants_are_refused_at_once(mcp, shared_profile):
    connection, _, token = shared_profile
    client = mcp(token)
    overview(client)
    person = connection.user
    person.is_active = False
    person.save(update_fields=["is_active"])
    with pytest.raises(MCPError) as refused:
        client.call("get_user_context")
    assert "invalid" in refused.value.message
    # SPEC A-11: reactivation revives no token; the assistant must be authorized again.
    person.is_active = True
    person.save(update_fields=["is_active"])
    with pytest.raises(MCPError) as still_refused:
        client.call("get_user_context")
    assert "invalid" in still_refused.value.message


# SPEC M-3: the summary resource has the same content as get_user_context; the page template is listed.
def test_resources(mcp, shared_profile):
    _, _, token = shared_profile
    client = mcp(token)
    resources, templates = client.resources()
    assert resources == ["lifeos://profile/summary"]
    assert templates == ["lifeos://profile/page/{version}/{offset}"]
    assert client.read("lifeos://profile/summary") == overview(client)


# SPEC M-3: without profile:read nothing is listed, and reading is refused.
def test_resources_need_profile_read(mcp, connect, issue_token):
    connect(scopes=("profile:read", "profile:propose"))
    client = mcp(issue_token("profile:propose"))
    assert client.resources() == ([], [])
    with pytest.raises(MCPError):
        client.read("lifeos://profile/summary")


# SPEC M-8: an unknown tool is a protocol error, not a tool result.
def test_unknown_tool_is_a_protocol_error(mcp, shared_profile):
    _, _, token = shared_profile
    with pytest.raises(MCPError) as error:
        mcp(token).call("export_everything")
    assert "unknown tool" in error.value.message
