"""Client ID Metadata Documents (SPEC A-6, A-7): an https client_id, fetched, checked, cached.

Claude, ChatGPT, VS Code and Goose identify themselves this way when the
server advertises it (draft-ietf-oauth-client-id-metadata-document). Served
here by a real https server on loopback (metadata_server.py).
"""

from __future__ import annotations

import pytest
from oauth2_provider.models import get_application_model

from apps.oauth.bearer import authenticate_bearer
from tests.oauth import flow as oauth_flow
from tests.oauth.metadata_server import Document

pytestmark = pytest.mark.django_db

Application = get_application_model()


def metadata(client_id: str) -> dict:
    return {
        "client_id": client_id,
        "client_name": "Claude",
        "client_uri": "https://claude.ai",
        "redirect_uris": [oauth_flow.REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }


def publish(documents, path="/oauth/client.json", **overrides) -> str:
    documents.serve(path, {key: value for key, value in {**metadata(documents.url(path)), **overrides}.items()
                           if value is not None})
    return documents.url(path)


# SPEC A-6: discovery says documents are welcome.
def test_advertised(client):
    assert client.get("/.well-known/oauth-authorization-server").json()["client_id_metadata_document_supported"]


# SPEC: the whole flow with a document as the client's identity; the consent page shows its host as
# verified beside the self-declared name; the document is fetched once and then cached.
def test_metadata_document_client_connects(documents, assistant, browser):
    client_id = publish(documents)
    flow = oauth_flow.Flow(client_id=client_id)
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    page = browser.get(oauth_flow.authorize_url(client_id, flow.challenge))
    assert page.status_code == 200, page.content
    html = page.content.decode()
    assert 'id="verified-host"' in html and "<strong>localhost</strong>" in html
    assert "Claude" in html
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    tokens = oauth_flow.exchange(assistant, flow)
    assert tokens.status_code == 200, tokens.content
    assert authenticate_bearer(tokens.json()["access_token"]) is not None
    assert oauth_flow.refresh(assistant, flow, tokens.json()["refresh_token"]).status_code == 200
    assert documents.hits["/oauth/client.json"] == 1  # Cache-Control: max-age=600
    app = Application.objects.get(client_id=client_id)
    assert app.registration_source == "cimd" and app.client_type == "public"


# A registered (DCR) client is not shown as verified: its name and host are its own say-so.
def test_registered_client_is_not_verified(assistant, browser):
    flow = oauth_flow.registered(assistant)
    page = browser.get(oauth_flow.authorize_url(flow.client_id, oauth_flow.pkce_pair()[1]))
    assert page.status_code == 200
    assert b'id="verified-host"' not in page.content


def assert_unknown_client(browser, client_id):
    page = browser.get(oauth_flow.authorize_url(client_id, oauth_flow.pkce_pair()[1]))
    assert page.status_code == 400, page.content
    assert b"invalid_client" in page.content or b"Invalid client_id" in page.content
    assert "code=" not in page.get("Location", "")
    assert not Application.objects.filter(client_id=client_id).exists()


# SPEC A-6: a document is held to the registration rules: no dangerous or foreign-http redirect, no
# secret, no other grant; its client_id must be the URL it came from.
@pytest.mark.parametrize(
    "overrides",
    [
        {"redirect_uris": ["javascript:alert(1)"]},
        {"redirect_uris": ["http://evil.example/callback"]},
        {"redirect_uris": ["data:text/html,hi"]},
        {"redirect_uris": []},
        {"grant_types": ["client_credentials"]},
        {"grant_types": ["implicit"]},
        {"token_endpoint_auth_method": "client_secret_post", "client_secret": "s3cret"},
        {"client_name": "x" * 101},
        {"client_id": "https://claude.ai/oauth/client.json"},
    ],
    ids=["javascript", "foreign-http", "data", "no-redirect", "client-credentials", "implicit", "secret",
         "long-name", "other-client-id"],
)
def test_document_held_to_the_rules(documents, browser, overrides):
    client_id = publish(documents, **overrides)
    assert_unknown_client(browser, client_id)


# SPEC A-6: the fetch is bounded: size, time, JSON only, no redirects.
@pytest.mark.parametrize(
    "document",
    [
        Document(b"{" + b" " * (17 * 1024) + b"}"),
        Document(b"{}", delay=3.0),
        Document(b"<html></html>", content_type="text/html"),
        Document(b"", status=302, location="https://claude.ai/oauth/client.json"),
    ],
    ids=["too-large", "too-slow", "not-json", "redirect"],
)
def test_fetch_is_bounded(documents, browser, settings, document):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_FETCH_TIMEOUT_SECONDS": 1}
    client_id = documents.serve("/bounded.json", document)
    assert_unknown_client(browser, client_id)


# SPEC A-6: private addresses are never fetched unless the test-only setting allows loopback.
def test_private_addresses_are_not_fetched(documents, browser, settings):
    settings.CIMD_ALLOW_LOOPBACK = False
    client_id = publish(documents)
    assert_unknown_client(browser, client_id)
    assert documents.hits.get("/oauth/client.json", 0) == 0


# An http client_id is no document URL at all.
def test_http_client_id_is_unknown(browser):
    assert_unknown_client(browser, "http://localhost:1/client.json")
