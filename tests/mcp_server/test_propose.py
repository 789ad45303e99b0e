"""propose_memory (SPEC P-1 … P-4, P-7, A-8, M-8)."""

from __future__ import annotations

import pytest

from apps.consent.models import Proposal
from apps.consent.services import proposal_confirm, proposal_ignore
from tests.mcp_server.conftest import make_fact, share
from tests.mcp_server.rpc import call, post, rpc, tool_result

ALL = ("profile:read", "profile:propose", "profile:correct")
ADD = {"op": "add", "category": "preferences", "label": "Tea", "value": "Oolong in the afternoon",
       "evidence": "said so on Monday"}


@pytest.fixture
def proposer(user, connect, issue_token):
    connection = connect(scopes=ALL, categories=("basic", "preferences"))
    fact = make_fact(user, 1, category="preferences")
    share(connection, [fact])
    return connection, fact, issue_token(" ".join(ALL))


def propose(token, **arguments):
    return tool_result(post(call("propose_memory", arguments), token))


# SPEC P-4, P-7: a new proposal is pending, the same one answers the same id, nothing becomes visible.
def test_add_is_pending_and_deduplicated(proposer):
    connection, _, token = proposer
    first = propose(token, **ADD)
    assert first == {"id": first["id"], "status": "pending"}
    assert propose(token, **ADD)["id"] == first["id"]
    assert Proposal.objects.filter(connection=connection).count() == 1
    overview = tool_result(post(call("get_user_context"), token))
    assert "Oolong" not in str(overview)


# SPEC C-8, P-4: an identical proposal the person already decided answers duplicate_processed in
# the same words whatever the decision: one confirmed but not shared must not tell the assistant
# that the fact now exists in the profile.
def test_a_handled_proposal_does_not_tell_the_persons_decision(proposer, user):
    _, _, token = proposer
    kept = {**ADD, "label": "Tea kept"}
    dropped = {**ADD, "label": "Tea dropped"}
    proposal_confirm(proposal=Proposal.objects.get(pk=propose(token, **kept)["id"]), user=user,
                     share_with_connection=False)
    proposal_ignore(proposal=Proposal.objects.get(pk=propose(token, **dropped)["id"]), user=user)
    answers = [propose(token, **arguments) for arguments in (kept, dropped)]
    assert [answer["code"] for answer in answers] == ["duplicate_processed"] * 2
    assert answers[0]["message"] == answers[1]["message"]
    assert not any(word in answers[0]["message"] for word in ("confirmed", "ignored"))


# SPEC P-1: update/archive need a fact this connection can see.
def test_update_needs_a_visible_target(proposer, user):
    _, fact, token = proposer
    assert propose(token, op="update", target_fact_id=str(fact.id), value="Green tea")["status"] == "pending"
    hidden = make_fact(user, 2, category="preferences")
    assert propose(token, op="archive", target_fact_id=hidden.id)["code"] == "not_found"


# SPEC P-2, P-3, M-8: each refusal with its code; invalid_argument names the field and the limit.
@pytest.mark.parametrize(
    "changes,code,words",
    [
        ({"label": "x" * 41}, "invalid_argument", "'label' is too long: at most 40"),
        ({"value": "x" * 301}, "invalid_argument", "'value' is too long: at most 300"),
        ({"evidence": "line one\nline two"}, "invalid_argument", "'evidence'"),
        ({"mood": "happy"}, "invalid_argument", "unknown field 'mood'"),
        ({"op": "merge"}, "invalid_argument", "'op' must be one of"),
        ({"category": "health"}, "category_not_allowed", "health"),
        ({"value": "my password is hunter2-Secret!"}, "secret_detected", "value"),
        ({"value": "the wifi password is sunflower"}, "secret_detected", "value"),
        ({"value": "OpenAI key sk-abc123def456ghi789"}, "secret_detected", "value"),
        ({"value": "User: hi\nAssistant: hello\nUser: remember this\nAssistant: ok"}, "conversation_refused", "value"),
    ],
)
def test_refusals(proposer, changes, code, words):
    _, _, token = proposer
    result = propose(token, **{**ADD, **changes})
    assert result["code"] == code, result
    assert words in result["message"]


# SPEC A-8, P-3: the op's scope is checked before dispatch.
def test_op_scope(user, connect, issue_token):
    connect(scopes=ALL)
    token = issue_token("profile:read profile:propose")
    listed = {tool["name"] for tool in post(rpc("tools/list"), token).json()["result"]["tools"]}
    assert "propose_memory" in listed
    response = post(call("propose_memory", {"op": "archive", "target_fact_id": "1"}), token)
    assert response.status_code == 403
    assert 'scope="profile:correct"' in response["WWW-Authenticate"]
    assert post(call("propose_memory", ADD), token).status_code == 200


# SPEC M-2: the SDK client validates the result against the published output schema.
def test_propose_through_sdk(mcp, proposer):
    _, _, token = proposer
    result = mcp(token).call("propose_memory", ADD)
    assert not result.is_error and result.structured_content["status"] == "pending"
