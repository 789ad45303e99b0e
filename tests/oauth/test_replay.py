"""Single-use codes, rotating refresh tokens, and what a replay costs the family (SPEC A-2, A-3)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.db.models import F
from django.test import Client
from oauth2_provider.models import get_refresh_token_model

from apps.common import clock
from apps.consent.models import Connection
from apps.consent.services import connection_revoke
from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import HashedGrant, TokenFamily
from apps.oauth.services import RevokedReason, oauth_tokens_purge
from apps.oauth.validators import AssistantOAuth2Validator
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

RefreshToken = get_refresh_token_model()


def live_tokens():
    return RefreshToken.objects.filter(revoked=None).count()


def past_the_grace_window():
    clock.advance(settings.OAUTH_REFRESH_GRACE + timedelta(seconds=1))


# SPEC A-3: replaying an already-rotated refresh token after the grace window revokes the newer access and
# refresh tokens, and the family records it for the person's security notice.
def test_refresh_replay_revokes_family_and_records_notice(frozen_clock, assistant, connected):
    first = connected.tokens[0]
    second = oauth_flow.refresh(assistant, connected, first["refresh_token"]).json()
    assert authenticate_bearer(second["access_token"]) is not None
    past_the_grace_window()

    response = oauth_flow.refresh(assistant, connected, first["refresh_token"])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert authenticate_bearer(second["access_token"]) is None
    assert live_tokens() == 0
    assert oauth_flow.refresh(assistant, connected, second["refresh_token"]).status_code == 400

    family = TokenFamily.objects.get()
    assert family.revoked_at is not None
    assert family.revoked_reason == "refresh_replay"


# SPEC A-3: a token several rotations old is recognised as well.
def test_replay_of_an_old_generation_revokes_family(frozen_clock, assistant, connected):
    tokens = [connected.tokens[0]]
    for _ in range(3):
        tokens.append(oauth_flow.refresh(assistant, connected, tokens[-1]["refresh_token"]).json())
    past_the_grace_window()
    assert oauth_flow.refresh(assistant, connected, tokens[0]["refresh_token"]).status_code == 400
    assert authenticate_bearer(tokens[-1]["access_token"]) is None
    assert live_tokens() == 0
    assert TokenFamily.objects.get().revoked_reason == "refresh_replay"


# SPEC A-3, C-7: a token the person revoked is refused, but that is no replay and raises no notice.
def test_token_revoked_by_the_person_is_no_replay(assistant, connected, user):
    connection_revoke(connection=Connection.objects.get(user=user))
    response = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"])
    assert response.status_code == 400
    family = TokenFamily.objects.get()
    assert family.revoked_reason == ""


# SPEC C-7, A-11: no token is issued for a deactivated account, by refresh or by exchanging a code issued
# before; its families are revoked, and that is no replay: no security notice.
def test_a_deactivated_account_gets_no_refreshed_tokens(assistant, connected, user):
    user.is_active = False
    user.save(update_fields=["is_active"])
    response = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"])
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    reason = TokenFamily.objects.get().revoked_reason
    assert reason == "account_deactivated" and reason not in RevokedReason.NOTICES


def test_a_deactivated_account_gets_no_tokens_for_a_code(assistant, approved, user):
    user.is_active = False
    user.save(update_fields=["is_active"])
    response = oauth_flow.exchange(assistant, approved)
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


# SPEC C-7, C-5: a code issued before the person revoked is dead too. Exchanged afterwards it would mint a
# family that — once the person connected the assistant again — read the profile with no new consent.
def test_a_code_outstanding_at_revocation_is_dead(assistant, browser, approved, user):
    connection_revoke(connection=Connection.objects.get(user=user))
    response = oauth_flow.exchange(assistant, approved)
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    again = oauth_flow.Flow(client_id=approved.client_id)
    oauth_flow.code_from(oauth_flow.approve(browser, again), again)
    assert oauth_flow.exchange(assistant, again).status_code == 200
    assert oauth_flow.exchange(assistant, approved).status_code == 400  # reconnecting revives nothing
    assert TokenFamily.objects.count() == 1


# SPEC C-7: a code exchange racing the revocation either ends before it (its tokens die with the rest) or
# finds the connection revoked and gets nothing: no token outlives the revocation.
def test_an_exchange_racing_the_revocation_gets_nothing(assistant, approved, user, monkeypatch):
    original = AssistantOAuth2Validator.validate_code

    def validate_then_the_person_revokes(self, client_id, code, client, request, *args, **kwargs):
        valid = original(self, client_id, code, client, request, *args, **kwargs)
        connection_revoke(connection=Connection.objects.get(user=user))  # between the checks and the write
        return valid

    monkeypatch.setattr(AssistantOAuth2Validator, "validate_code", validate_then_the_person_revokes)
    response = oauth_flow.exchange(assistant, approved)
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    assert live_tokens() == 0


# SPEC C-7: a refresh racing the revocation: nothing new is issued for a revoked connection, and it is
# not taken for a replay.
def test_a_refresh_racing_the_revocation_gets_nothing(assistant, connected, user, monkeypatch):
    original = AssistantOAuth2Validator.validate_refresh_token

    def validate_then_the_person_revokes(self, *args, **kwargs):
        valid = original(self, *args, **kwargs)
        connection_revoke(connection=Connection.objects.get(user=user))
        return valid

    monkeypatch.setattr(AssistantOAuth2Validator, "validate_refresh_token", validate_then_the_person_revokes)
    response = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"])
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    assert live_tokens() == 0
    assert authenticate_bearer(connected.tokens[0]["access_token"]) is None
    assert TokenFamily.objects.get().revoked_reason == ""  # the person revoked: no replay notice


# SPEC A-3: a replayed code is refused and every token issued from it is revoked; the code row is kept.
def test_code_replay_refused_and_tokens_revoked(assistant, connected):
    tokens = connected.tokens[0]
    second = oauth_flow.refresh(assistant, connected, tokens["refresh_token"]).json()

    response = oauth_flow.exchange(assistant, connected)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert authenticate_bearer(second["access_token"]) is None
    assert oauth_flow.refresh(assistant, connected, second["refresh_token"]).status_code == 400
    assert live_tokens() == 0
    family = TokenFamily.objects.get()
    assert family.revoked_reason == "code_replay"
    grant = HashedGrant.objects.get()
    assert grant.redeemed_at is not None and grant.token_family == family.family


# SPEC A-3: the code row goes with the hourly purge once expired, but its family remembers the code's
# hash: a replay after the purge is still refused and still revokes every token issued from it.
def test_code_replay_after_the_purge_still_revokes(assistant, connected):
    second = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"]).json()
    HashedGrant.objects.update(expires=F("expires") - timedelta(hours=1))
    assert oauth_tokens_purge()
    assert not HashedGrant.objects.exists()

    response = oauth_flow.exchange(assistant, connected)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert authenticate_bearer(second["access_token"]) is None
    assert live_tokens() == 0
    assert TokenFamily.objects.get().revoked_reason == "code_replay"


# SPEC A-3: a code that was never issued revokes nothing (another client's used code does: test_code_replay_clients).
def test_unknown_code_revokes_nothing(assistant, connected):
    response = oauth_flow.exchange(assistant, connected, code="never-issued")
    assert response.status_code in (400, 401)
    assert authenticate_bearer(connected.tokens[0]["access_token"]) is not None
    assert TokenFamily.objects.get().revoked_at is None


# SPEC A-3: two exchanges of one code racing each other: the one that loses the lock gets nothing,
# and the tokens the winner got are revoked.
def test_code_exchanged_twice_concurrently(assistant, approved, monkeypatch):
    original = AssistantOAuth2Validator.validate_code
    winner = {}

    def validate_then_lose_the_race(self, client_id, code, client, request, *args, **kwargs):
        valid = original(self, client_id, code, client, request, *args, **kwargs)
        if valid and not winner:
            # Another request redeems the same code between our checks and our write.
            winner["started"] = True
            winner["response"] = oauth_flow.exchange(Client(), approved)
        return valid

    monkeypatch.setattr(AssistantOAuth2Validator, "validate_code", validate_then_lose_the_race)
    response = oauth_flow.exchange(assistant, approved)

    assert winner["response"].status_code == 200
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert authenticate_bearer(winner["response"].json()["access_token"]) is None
    assert live_tokens() == 0
    assert TokenFamily.objects.get().revoked_reason == "code_replay"


# SPEC A-2: a code is good for 5 minutes on the product clock, then refused.
@pytest.mark.parametrize("age, accepted", [(timedelta(minutes=4, seconds=59), True), (timedelta(minutes=5), False)])
def test_code_lifetime(frozen_clock, assistant, approved, age, accepted):
    frozen_clock.advance(age)
    response = oauth_flow.exchange(assistant, approved)
    assert (response.status_code == 200) is accepted, response.content
    if not accepted:
        assert response.json()["error"] == "invalid_grant"
        assert not TokenFamily.objects.exists()


# SPEC A-2: refresh ends 30 days after the original consent, however often the tokens were rotated.
def test_refresh_family_ends_thirty_days_after_consent(frozen_clock, assistant, approved):
    refresh_token = oauth_flow.exchange(assistant, approved).json()["refresh_token"]
    for _ in range(29):
        frozen_clock.advance(timedelta(days=1))
        response = oauth_flow.refresh(assistant, approved, refresh_token)
        assert response.status_code == 200, response.content
        refresh_token = response.json()["refresh_token"]
    # Day 29 and a bit: still fine.
    frozen_clock.advance(timedelta(hours=23, minutes=59))
    response = oauth_flow.refresh(assistant, approved, refresh_token)
    assert response.status_code == 200, response.content
    refresh_token = response.json()["refresh_token"]
    # Day 30: refused, although this refresh token is fresh and unused.
    frozen_clock.advance(timedelta(minutes=1))
    response = oauth_flow.refresh(assistant, approved, refresh_token)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


# SPEC A-2: a new consent starts a new 30-day family.
def test_new_consent_starts_a_new_family(frozen_clock, assistant, browser, approved):
    oauth_flow.exchange(assistant, approved)
    frozen_clock.advance(timedelta(days=29))
    again = oauth_flow.Flow(client_id=approved.client_id)
    oauth_flow.code_from(oauth_flow.approve(browser, again), again)
    tokens = oauth_flow.exchange(assistant, again).json()
    frozen_clock.advance(timedelta(days=2))
    assert oauth_flow.refresh(assistant, again, tokens["refresh_token"]).status_code == 200
