"""Registering a public client hashes no secret (issue: registration cost); a confidential one still does (A-1).

The CPU per registration is measured by ``bench/registration.py`` (docs/performance.md); these tests hold
what makes the difference: a public client's row keeps no secret, so nothing is hashed on its save, and no
secret — empty or otherwise — authenticates it, while the whole public flow works as before.
"""

from __future__ import annotations

import base64

import pytest
from django.contrib.auth.hashers import identify_hasher
from oauth2_provider.models import get_application_model

from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db


def stored(client_id):
    return get_application_model().objects.values("client_secret", "hash_client_secret").get(client_id=client_id)


# Issue: registration cost — a public client (token_endpoint_auth_method "none") keeps no secret to hash.
def test_a_public_registration_stores_no_secret(assistant):
    response = oauth_flow.register(assistant)
    assert response.status_code == 201 and "client_secret" not in response.json()
    assert stored(response.json()["client_id"]) == {"client_secret": "", "hash_client_secret": False}


# SPEC A-1: a confidential client's secret is still returned once and stored only hashed.
@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_a_confidential_registration_still_hashes_its_secret(assistant, method):
    response = oauth_flow.register(assistant, token_endpoint_auth_method=method)
    data = response.json()
    row = stored(data["client_id"])
    assert row["hash_client_secret"] and identify_hasher(row["client_secret"])
    assert data["client_secret"] and data["client_secret"] not in row["client_secret"]


# SPEC A-1: with nothing stored, no presented secret authenticates a public client — an empty one included.
@pytest.mark.parametrize("secret", ["", "anything"])
def test_no_secret_authenticates_a_public_client(assistant, browser, secret):
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    basic = base64.b64encode(f"{flow.client_id}:{secret}".encode()).decode()
    assistant.defaults["HTTP_AUTHORIZATION"] = f"Basic {basic}"
    refused = oauth_flow.exchange(assistant, flow)
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    del assistant.defaults["HTTP_AUTHORIZATION"]
    body = oauth_flow.exchange(assistant, flow, client_secret=secret)
    if secret:  # an empty secret in the body is no secret at all: the public flow, and it succeeds
        assert body.status_code == 401 and body.json()["error"] == "invalid_client"
    else:
        assert body.status_code == 200


# The public flow itself is unchanged: PKCE, no secret, tokens.
def test_the_public_flow_still_works(assistant, connected):
    assert connected.tokens and connected.tokens[0]["access_token"]
