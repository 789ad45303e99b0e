"""The whole authorization code + PKCE flow through the real login and consent pages."""

from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from apps.consent.models import Connection
from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import HashedGrant, TokenFamily
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

AccessToken = get_access_token_model()
RefreshToken = get_refresh_token_model()


# SPEC, I-3, I-4: register → login → consent → code → token → refresh → rotation.
def test_complete_flow_through_login_and_consent(user, assistant):
    flow = oauth_flow.registered(assistant)

    browser = Client(headers={"accept-language": "en"})
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    url = oauth_flow.authorize_url(flow.client_id, flow.challenge)

    # I-3: anonymous → login page, with the way back.
    response = browser.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?")
    assert oauth_flow.query_of(response["Location"]) == {"next": url}

    login_page = browser.get(response["Location"])
    assert login_page.status_code == 200
    form = oauth_flow.read_form(login_page.content.decode())
    fields = dict(form.fields)
    assert {"csrfmiddlewaretoken", "username", "password", "next"} <= set(fields)
    assert fields["next"] == url
    browser_csrf = Client(headers={"accept-language": "en"}, enforce_csrf_checks=True)
    browser_csrf.cookies = browser.cookies
    fields.update(username="alice", password="alice-password")
    response = browser_csrf.post(form.action, data=fields)
    assert response.status_code == 302 and response["Location"] == url

    # The consent page, submitted as rendered plus allow (I-4), with CSRF enforced.
    page = browser_csrf.get(url)
    assert page.status_code == 200
    consent = oauth_flow.read_form(page.content.decode())
    data = consent.fields + [("allow", "1")]
    response = browser_csrf.post(consent.action, data=urlencode(data), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 302
    params = oauth_flow.query_of(response["Location"])
    assert response["Location"].startswith(oauth_flow.REDIRECT_URI + "?")
    assert params["state"] == "state-123"
    assert params["iss"] == settings.PUBLIC_BASE_URL  # RFC 9207, checked by the MCP SDK
    flow.code = params["code"]

    # The person's choice is the connection; defaults leave context:search out and use the five
    # shareable categories (C-4).
    connection = Connection.objects.get(user=user, application__client_id=flow.client_id)
    assert connection.scopes == ["profile:read", "profile:propose", "profile:correct"]
    assert connection.categories == ["basic", "preferences", "habits", "goals", "work_study"]

    # Code → tokens, with the verifier and the resource.
    response = oauth_flow.exchange(assistant, flow)
    assert response.status_code == 200, response.content
    first = response.json()
    assert first["token_type"] == "Bearer"
    assert first["expires_in"] == 600
    assert first["scope"] == "profile:read profile:propose profile:correct"
    assert response["Cache-Control"] == "no-store"
    grant = authenticate_bearer(first["access_token"])
    assert grant is not None and grant.connection == connection
    assert grant.scopes == {"profile:read", "profile:propose", "profile:correct"}

    # Tokens are bound to /mcp.
    stored = AccessToken.objects.get(pk=grant.token_id)
    assert stored.resource == [settings.MCP_RESOURCE_URL]

    # Refresh rotates the refresh token and retires the access token it replaces.
    response = oauth_flow.refresh(assistant, flow, first["refresh_token"])
    assert response.status_code == 200, response.content
    second = response.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["access_token"] != first["access_token"]
    assert second["scope"] == first["scope"]
    assert authenticate_bearer(first["access_token"]) is None
    assert authenticate_bearer(second["access_token"]) is not None
    old = RefreshToken.objects.get(pk=RefreshToken.objects.order_by("pk").first().pk)
    assert old.revoked is not None

    # The rotated token cannot be used again...
    response = oauth_flow.refresh(assistant, flow, second["refresh_token"])
    assert response.status_code == 200, response.content
    third = response.json()
    assert authenticate_bearer(third["access_token"]) is not None
    # ...and all of them are one family, opened when the code was exchanged.
    families = set(RefreshToken.objects.values_list("token_family", flat=True))
    assert len(families) == 1
    family = TokenFamily.objects.get()
    assert family.family in families and family.user == user and family.revoked_at is None
    assert HashedGrant.objects.get().token_family == family.family


# SPEC A-2: the access token lives 10 minutes on the product clock.
def test_access_token_expires_after_ten_minutes(frozen_clock, assistant, browser):
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    tokens = oauth_flow.exchange(assistant, flow).json()
    frozen_clock.advance(timedelta(minutes=9, seconds=59))
    assert authenticate_bearer(tokens["access_token"]) is not None
    frozen_clock.advance(timedelta(seconds=1))
    assert authenticate_bearer(tokens["access_token"]) is None


# SPEC A-3: the refresh after rotation retires only its own pair; other connections are untouched.
def test_two_assistants_have_separate_families(assistant, browser, user):
    one = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, one), one)
    two = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, two), two)
    first = oauth_flow.exchange(assistant, one).json()
    second = oauth_flow.exchange(assistant, two).json()
    assert TokenFamily.objects.count() == 2
    oauth_flow.refresh(assistant, one, first["refresh_token"])
    with oauth_flow.past_the_grace_window():
        oauth_flow.refresh(assistant, one, first["refresh_token"])  # replay: kills one's family only
    assert authenticate_bearer(second["access_token"]) is not None
    assert oauth_flow.refresh(assistant, two, second["refresh_token"]).status_code == 200


# SPEC A-1: a refresh token works only for the client it was issued to.
def test_refresh_token_of_another_client_refused(assistant, connected):
    other = oauth_flow.registered(assistant)
    response = oauth_flow.refresh(assistant, other, connected.tokens[0]["refresh_token"])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    # The rightful client can still use it.
    assert oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"]).status_code == 200


# RFC 7009: the assistant can revoke its own refresh token; the pair dies.
def test_revocation_endpoint(assistant, connected):
    tokens = connected.tokens[0]
    body = urlencode({"token": tokens["refresh_token"], "token_type_hint": "refresh_token",
                      "client_id": connected.client_id})
    response = assistant.post("/oauth/revoke_token/", data=body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    assert authenticate_bearer(tokens["access_token"]) is None
    assert oauth_flow.refresh(assistant, connected, tokens["refresh_token"]).status_code == 400
