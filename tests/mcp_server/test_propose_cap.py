"""propose_memory beyond the pending cap answers the tool error ``too_many_pending`` (SPEC P-8, M-8)."""

from __future__ import annotations

import pytest

from apps.common.errors import TOOL_ERROR_CODES
from apps.consent.models import Proposal
from apps.consent.services import proposal_ignore
from tests.mcp_server.rpc import call, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(user, connect, issue_token, settings):
    settings.PROPOSAL_PENDING_LIMIT = 3
    connect(scopes=("profile:read", "profile:propose"), categories=("preferences",))
    return issue_token("profile:read profile:propose")


def propose(token, i):
    arguments = {"op": "add", "category": "preferences", "label": f"Tea {i}", "value": f"Cup {i}"}
    response = post(call("propose_memory", arguments), token)
    assert response.status_code == 200, response.content
    return response.json()["result"]


def test_too_many_pending(token, user):
    assert "too_many_pending" in TOOL_ERROR_CODES
    for i in range(3):
        assert propose(token, i)["isError"] is False
    refused = propose(token, 3)
    assert refused["isError"] is True
    assert refused["structuredContent"]["code"] == "too_many_pending"
    assert "3" in refused["structuredContent"]["message"]
    proposal_ignore(proposal=Proposal.objects.first(), user=user)
    assert propose(token, 3)["isError"] is False
