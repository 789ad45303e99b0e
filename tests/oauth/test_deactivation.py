"""Deactivating an account ends every token it has; reactivating it revives none (SPEC A-11).
The RFC 7592 registration access token expires (SPEC A-6).

Issue 19 #7: an access or refresh token issued before a deactivation worked
again the moment staff ticked "active" again; and the registration access
token, which can delete a client (and so revoke every person's connection to
it), was valid until the year 9999.
"""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from apps.consent.models import Connection
from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import HashedGrant, TokenFamily
from tests.accounts.factors import verified_login
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db


def set_active(user, active: bool) -> None:
    user.is_active = active
    user.save()


def two_families(assistant, browser, connected):
    """``connected`` plus a second assistant with a family of its own, and one code not exchanged yet."""
    other = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, other), other)
    assert oauth_flow.exchange(assistant, other).status_code == 200
    pending = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, pending), pending)
    return [connected, other], pending


def test_deactivation_revokes_every_family_and_reactivation_revives_none(assistant, browser, connected, user):
    flows, pending = two_families(assistant, browser, connected)
    set_active(user, False)
    set_active(user, True)

    for flow in flows:
        tokens = flow.tokens[0]
        assert authenticate_bearer(tokens["access_token"]) is None
        refreshed = oauth_flow.refresh(assistant, flow, tokens["refresh_token"])
        assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"
    assert oauth_flow.exchange(assistant, pending).status_code == 400  # a code issued before is dead too
    assert not get_refresh_token_model().objects.filter(user=user, revoked=None).exists()
    assert not get_access_token_model().objects.filter(user=user).exists()
    families = TokenFamily.objects.filter(user=user)
    assert families.count() == 2
    assert all(family.revoked_at is not None for family in families)
    # No security notice: nobody replayed anything.
    assert {family.revoked_reason for family in families} == {"account_deactivated"}
    # The person's consent stands: the assistant may ask again, and the new tokens work.
    assert Connection.objects.filter(user=user, revoked_at=None).count() == 3
    again = oauth_flow.Flow(client_id=connected.client_id)
    oauth_flow.code_from(oauth_flow.approve(browser, again), again)
    fresh = oauth_flow.exchange(assistant, again)
    assert fresh.status_code == 200 and authenticate_bearer(fresh.json()["access_token"]) is not None


def test_deactivation_in_the_admin_revokes(connected, user, assistant):
    staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "staff-password")
    admin = verified_login(Client(), staff)
    page = admin.get(f"/admin/accounts/user/{user.pk}/change/")
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update({"is_active": "", "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
                 "date_joined_1": user.date_joined.strftime("%H:%M:%S"), "groups": [], "user_permissions": []})
    data = {name: value for name, value in data.items() if name not in ("date_joined", "last_login")}
    response = admin.post(f"/admin/accounts/user/{user.pk}/change/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    user.refresh_from_db()
    assert user.is_active is False
    set_active(user, True)
    assert authenticate_bearer(connected.tokens[0]["access_token"]) is None


def test_saving_an_active_account_revokes_nothing(connected, user):
    user.first_name = "Alice"
    user.save()
    set_active(user, True)
    assert authenticate_bearer(connected.tokens[0]["access_token"]) is not None
    assert TokenFamily.objects.get().revoked_at is None


def test_other_people_keep_their_tokens(assistant, connected, other_user, user):
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(other_user)
    theirs = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, theirs), theirs)
    assert oauth_flow.exchange(assistant, theirs).status_code == 200
    set_active(user, False)
    assert authenticate_bearer(theirs.tokens[0]["access_token"]) is not None
    assert TokenFamily.objects.get(user=other_user).revoked_at is None
    assert HashedGrant.objects.filter(user=other_user).exists()


# --- SPEC A-6: the registration access token of RFC 7592 expires --------------------------------------------

def test_registration_access_token_expires(assistant):
    flow_response = oauth_flow.register(assistant)
    data = flow_response.json()
    token = get_access_token_model().objects.get(application__client_id=data["client_id"], user=None)
    lifetime = settings.OAUTH2_PROVIDER["DCR_REGISTRATION_TOKEN_EXPIRE_SECONDS"]
    assert lifetime is not None and 60 <= lifetime <= 30 * 86400
    assert abs((token.expires - timezone.now()) - timedelta(seconds=lifetime)) < timedelta(minutes=1)

    headers = {"Authorization": f"Bearer {data['registration_access_token']}"}
    uri = f"/oauth/register/{data['client_id']}/"
    assert assistant.get(uri, headers=headers).status_code == 200
    get_access_token_model().objects.filter(pk=token.pk).update(expires=timezone.now() - timedelta(seconds=1))
    assert assistant.get(uri, headers=headers).status_code == 401
    assert assistant.delete(uri, headers=headers).status_code == 401
    assert get_access_token_model().objects.filter(pk=token.pk).exists()  # nothing was deleted

