"""Confidential assistants (SPEC A-1): Claude's web and desktop apps register with a secret.

The secret is returned once and stored only hashed; the token endpoint wants it
(client_secret_post or client_secret_basic) and PKCE all the same.
"""

from __future__ import annotations

import base64
import json

import pytest
from django.test import Client
from oauth2_provider.models import get_application_model

from apps.oauth.bearer import authenticate_bearer
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

Application = get_application_model()


def confidential(assistant, method="client_secret_post"):
    response = oauth_flow.register(assistant, token_endpoint_auth_method=method)
    assert response.status_code == 201, response.content
    data = response.json()
    flow = oauth_flow.Flow(client_id=data["client_id"])
    return flow, data


def basic(client_id: str, secret: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()}


# SPEC A-1: what the client asked for is what it registered; the secret comes back once, never stored plain.
@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic"])
def test_confidential_client_registers(assistant, method):
    flow, data = confidential(assistant, method)
    assert data["token_endpoint_auth_method"] == method
    assert len(data["client_secret"]) >= 32
    assert data["client_secret_expires_at"] == 0  # RFC 7591 §3.2.1: required with a secret; 0 = never
    app = Application.objects.get(client_id=flow.client_id)
    assert app.client_type == "confidential"
    assert data["client_secret"] not in app.client_secret
    # RFC 7592 read: the secret is not shown again.
    read = assistant.get(f"/oauth/register/{flow.client_id}/",
                         HTTP_AUTHORIZATION="Bearer " + data["registration_access_token"])
    assert read.status_code == 200
    assert data["client_secret"] not in read.content.decode()


# SPEC A-1: the secret in the body (client_secret_post, as Claude sends it) or in Basic; PKCE still applies.
@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic"])
def test_confidential_client_exchanges_and_refreshes(assistant, browser, method):
    flow, data = confidential(assistant, method)
    secret = data["client_secret"]
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    if method == "client_secret_post":
        response = oauth_flow.exchange(assistant, flow, client_secret=secret)
    else:
        response = oauth_flow.exchange(Client(headers=basic(flow.client_id, secret)), flow)
    assert response.status_code == 200, response.content
    tokens = response.json()
    assert authenticate_bearer(tokens["access_token"]) is not None
    refreshed = oauth_flow.refresh(Client(headers=basic(flow.client_id, secret)), flow, tokens["refresh_token"])
    assert refreshed.status_code == 200, refreshed.content


# SPEC A-1: without its secret, or with a wrong one, a confidential client gets nothing.
@pytest.mark.parametrize("secret", [None, "wrong", ""])
def test_confidential_client_needs_its_secret(assistant, browser, secret):
    flow, data = confidential(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    response = oauth_flow.exchange(assistant, flow, client_secret=secret)
    assert response.status_code == 401, response.content
    assert response.json()["error"] == "invalid_client"
    # The code was not used up by the failed attempt: with the secret it still works.
    assert oauth_flow.exchange(assistant, flow, client_secret=data["client_secret"]).status_code == 200


# SPEC A-1: PKCE is required of confidential clients too: no verifier, no token.
def test_confidential_client_still_needs_pkce(assistant, browser):
    flow, data = confidential(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    response = oauth_flow.exchange(assistant, flow, client_secret=data["client_secret"], code_verifier="x" * 43)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    page = browser.get(oauth_flow.authorize_url(flow.client_id, flow.challenge, code_challenge=None,
                                                code_challenge_method=None))
    assert page.status_code == 302 and "error=invalid_request" in page["Location"]


# SPEC A-6: discovery says which client authentication the token endpoint takes.
def test_discovery_names_the_auth_methods(client):
    document = json.loads(client.get("/.well-known/oauth-authorization-server").content)
    assert document["token_endpoint_auth_methods_supported"] == ["none", "client_secret_post", "client_secret_basic"]
