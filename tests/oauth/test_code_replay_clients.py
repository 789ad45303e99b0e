"""A used authorization code replayed by ANOTHER client revokes its tokens too (SPEC A-3).

Issue 19 #5: replayed by its own client, a used code revoked the tokens issued
from it; replayed by any other registered client (registration is open, so
that is anyone), it was only refused, and the tokens of whoever holds the
leaked code lived on.
"""

from datetime import timedelta

import pytest
from django.db.models import F
from django.test import Client

from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import HashedGrant, TokenFamily
from apps.oauth.services import oauth_tokens_purge
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("purged", [False, True], ids=["code row kept", "after the purge"])
def test_a_used_code_replayed_by_another_client_revokes_the_family(assistant, connected, purged):
    second = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"]).json()
    if purged:
        HashedGrant.objects.update(expires=F("expires") - timedelta(hours=1))
        assert oauth_tokens_purge() and not HashedGrant.objects.exists()

    other = oauth_flow.registered(Client())
    response = oauth_flow.exchange(Client(), other, code=connected.code, verifier=connected.verifier)

    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    assert authenticate_bearer(second["access_token"]) is None
    assert oauth_flow.refresh(assistant, connected, second["refresh_token"]).status_code == 400
    family = TokenFamily.objects.get()
    assert family.revoked_at is not None and family.revoked_reason == "code_replay"


# A code not used yet, presented by the wrong client, is refused and issues nothing; it was not replayed,
# so nothing is revoked and its own client can still exchange it.
def test_an_unused_code_presented_by_another_client_is_refused(assistant, approved):
    other = oauth_flow.registered(Client())
    refused = oauth_flow.exchange(Client(), other, code=approved.code, verifier=approved.verifier)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
    assert not TokenFamily.objects.exists()
    assert oauth_flow.exchange(assistant, approved).status_code == 200


# Whoever replays it, the answer is the same bytes: it tells nothing about the code's owner.
def test_the_replay_answer_is_the_same_for_every_client(assistant, connected):
    own = oauth_flow.exchange(assistant, connected)
    other = oauth_flow.registered(Client())
    foreign = oauth_flow.exchange(Client(), other, code=connected.code, verifier=connected.verifier)
    never = oauth_flow.exchange(Client(), other, code="never-issued", verifier=connected.verifier)
    assert own.status_code == foreign.status_code == never.status_code == 400
    assert own.content == foreign.content == never.content
