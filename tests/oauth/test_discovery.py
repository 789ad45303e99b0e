"""Discovery documents, exactly as MCP clients read them (SPEC A-6, I-6; RFC 8414, RFC 9728)."""

import pytest
from django.conf import settings

from apps.oauth.discovery import resource_metadata_url

pytestmark = pytest.mark.django_db

BASE = settings.PUBLIC_BASE_URL
# The assistant scopes (SPEC A-5, R-11); never the internal agents' scope.
SCOPES = ["context:search", "memory:calendar:read", "memory:contact:read", "memory:episode:read",
          "memory:todo:read", "memory:voice_memo:read", "profile:correct", "profile:propose", "profile:read"]


# SPEC A-6, I-6: RFC 8414 authorization server metadata; advertises only what the server accepts.
def test_authorization_server_metadata(client):
    response = client.get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "issuer": BASE,
        "authorization_endpoint": f"{BASE}/oauth/authorize/",
        "token_endpoint": f"{BASE}/oauth/token/",
        "revocation_endpoint": f"{BASE}/oauth/revoke_token/",
        "registration_endpoint": f"{BASE}/oauth/register/",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "scopes_supported": SCOPES,
        "authorization_response_iss_parameter_supported": True,
        "client_id_metadata_document_supported": True,
    }


# The issuer is the public origin whatever host name the request used (it must match the `iss` parameter).
def test_issuer_does_not_follow_the_host_header(client):
    response = client.get("/.well-known/oauth-authorization-server", HTTP_HOST="localhost")
    assert response.json()["issuer"] == BASE
    assert response.json()["token_endpoint"] == f"{BASE}/oauth/token/"


# SPEC A-6, I-6: RFC 9728 protected resource metadata for /mcp, at the path-suffixed and the root location.
@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"])
def test_protected_resource_metadata(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.json() == {
        "resource": settings.MCP_RESOURCE_URL,
        "authorization_servers": [BASE],
        "scopes_supported": SCOPES,
        "bearer_methods_supported": ["header"],
        "resource_name": "LifeOS Memory",
    }


def test_unknown_resource_has_no_metadata(client):
    assert client.get("/.well-known/oauth-protected-resource/other").status_code == 404


# SPEC A-8: the URL /mcp's 401 challenge points at.
def test_resource_metadata_url():
    assert resource_metadata_url() == f"{BASE}/.well-known/oauth-protected-resource/mcp"
