"""What shipping clients send that a strict reading refused: each one is served now (SPEC A-6, A-8, A-10)."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client

from apps.oauth.bearer import authenticate_bearer
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

BROWSER_ORIGIN = "https://inspector.example"


# SPEC A-6 (RFC 8252 §7.3): a "localhost" callback, like a 127.0.0.1 one, may use any port at request time.
def test_localhost_redirect_on_another_port(assistant, browser):
    flow = oauth_flow.registered_as(assistant, redirect_uris=["http://localhost:8787/callback"])
    response = oauth_flow.approve(browser, flow, redirect_uri="http://localhost:54321/callback")
    assert response.status_code == 302, response.content
    assert response["Location"].startswith("http://localhost:54321/callback?code=")


# The port is free; the host and path are not: localhost is not 127.0.0.1, and the path must match.
@pytest.mark.parametrize("redirect_uri", ["http://127.0.0.1:54321/callback", "http://localhost:54321/other"])
def test_localhost_redirect_must_match_host_and_path(assistant, browser, redirect_uri):
    flow = oauth_flow.registered_as(assistant, redirect_uris=["http://localhost:8787/callback"])
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    page = browser.get(oauth_flow.authorize_url(flow.client_id, flow.challenge, redirect_uri=redirect_uri))
    assert page.status_code == 400
    assert "code=" not in page.get("Location", "")


# SPEC A-10: offline_access (asked for by clients that want a refresh token) is accepted and ignored.
def test_offline_access_is_accepted_and_ignored(assistant, browser):
    flow = oauth_flow.registered(assistant)
    page = browser.get(oauth_flow.authorize_url(flow.client_id, oauth_flow.pkce_pair()[1],
                                                scope="profile:read offline_access"))
    assert page.status_code == 200, page.content
    assert b'value="offline_access"' not in page.content
    oauth_flow.code_from(oauth_flow.approve(browser, flow, scope="profile:read offline_access"), flow)
    tokens = oauth_flow.exchange(assistant, flow).json()
    assert tokens["scope"] == "profile:read"
    refreshed = oauth_flow.refresh(assistant, flow, tokens["refresh_token"], scope="profile:read offline_access")
    assert refreshed.status_code == 200, refreshed.content
    assert refreshed.json()["scope"] == "profile:read"


# Asking for offline_access alone is asking for the default scope.
def test_offline_access_alone_means_the_default_scope(assistant, browser):
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow, scope="offline_access"), flow)
    assert oauth_flow.exchange(assistant, flow).json()["scope"] == "profile:read"


# SPEC A-8: the 401 challenge names the base scope beside resource_metadata: what MCP clients then ask for.
@pytest.mark.parametrize("path", ["/mcp", "/mcp/"])
def test_unauthenticated_challenge_names_the_base_scope(client, path):
    response = client.post(path, data="{}", content_type="application/json")
    assert response.status_code == 401
    challenge = response["WWW-Authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'scope="profile:read profile:propose profile:correct"' in challenge
    assert f'resource_metadata="{settings.PUBLIC_BASE_URL}/.well-known/oauth-protected-resource/mcp"' in challenge


# SPEC A-10: /mcp/ is /mcp — served, not a 404 or a redirect a POST would not follow.
def test_mcp_with_trailing_slash_is_served(connected):
    token = connected.tokens[0]["access_token"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_user_context", "arguments": {}}}
    for path in ("/mcp", "/mcp/"):
        response = Client().post(path, data=json.dumps(body), content_type="application/json",
                                 headers={"Authorization": f"Bearer {token}",
                                          "Accept": "application/json, text/event-stream",
                                          "MCP-Protocol-Version": "2025-11-25"})
        assert response.status_code == 200, (path, response.content)
        assert response.json()["result"]["isError"] is False


PUBLIC_ENDPOINTS = ["/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp",
                    "/.well-known/oauth-protected-resource", "/oauth/register/", "/oauth/token/",
                    "/oauth/revoke_token/"]


# SPEC A-10: discovery, registration and the token endpoints answer a browser's preflight from any origin,
# without cookies (no Allow-Credentials).
@pytest.mark.parametrize("path", PUBLIC_ENDPOINTS)
def test_public_endpoints_answer_preflight(client, path):
    response = client.options(path, headers={"Origin": BROWSER_ORIGIN, "Access-Control-Request-Method": "POST",
                                             "Access-Control-Request-Headers": "content-type, mcp-protocol-version"})
    assert response.status_code in (200, 204)
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "POST" in response["Access-Control-Allow-Methods"]
    allowed = {name.strip().lower() for name in response["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "authorization", "mcp-protocol-version"} <= allowed
    assert "Access-Control-Allow-Credentials" not in response


# SPEC A-10: and their answers, success and error alike, carry the CORS header a browser needs to read them.
def test_public_endpoints_answer_cors(client, assistant, browser):
    headers = {"Origin": BROWSER_ORIGIN}
    for path in PUBLIC_ENDPOINTS[:3]:
        response = client.get(path, headers=headers)
        assert response["Access-Control-Allow-Origin"] == "*", path
    registration = Client(headers=headers).post("/oauth/register/", data=json.dumps(
        {"redirect_uris": [oauth_flow.REDIRECT_URI], "token_endpoint_auth_method": "none"}),
        content_type="application/json")
    assert registration.status_code == 201
    assert registration["Access-Control-Allow-Origin"] == "*"
    flow = oauth_flow.Flow(client_id=registration.json()["client_id"])
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    token = oauth_flow.exchange(Client(headers=headers), flow)
    assert token.status_code == 200
    assert token["Access-Control-Allow-Origin"] == "*"
    refused = oauth_flow.exchange(Client(headers=headers), flow)  # the code again: an error, readable all the same
    assert refused.status_code == 400
    assert refused["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in token


# SPEC A-10: the person's pages and the consent page are not opened to other origins.
@pytest.mark.parametrize("path", ["/oauth/authorize/", "/me/facts/", "/accounts/login/"])
def test_pages_get_no_cors(client, path):
    response = client.get(path, headers={"Origin": BROWSER_ORIGIN})
    assert "Access-Control-Allow-Origin" not in response


# SPEC A-10: /mcp answers browser origins only from the configured allow-list, none by default.
def test_mcp_refuses_browser_origins_unless_listed(connected, settings):
    token = connected.tokens[0]["access_token"]
    assert authenticate_bearer(token) is not None
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    headers = {"Authorization": f"Bearer {token}", "Origin": "http://localhost:6274",
               "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    assert Client().post("/mcp", data=body, content_type="application/json", headers=headers).status_code == 403
    settings.MCP_ALLOWED_ORIGINS = ["http://localhost:6274"]
    response = Client().post("/mcp", data=body, content_type="application/json", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Access-Control-Allow-Origin"] == "http://localhost:6274"
