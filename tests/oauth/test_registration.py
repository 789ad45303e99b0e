"""Dynamic client registration (SPEC A-1, A-6, RFC 7591): public or confidential, safe redirect URIs, rate-limited."""

import json
from datetime import timedelta

import pytest
from oauth2_provider.models import get_application_model

from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

Application = get_application_model()


# SPEC A-6: a public client registers with the metadata the MCP SDK sends.
def test_public_client_registers(assistant):
    response = oauth_flow.register(assistant)
    assert response.status_code == 201
    data = response.json()
    assert data["token_endpoint_auth_method"] == "none"
    assert data["grant_types"] == ["authorization_code", "refresh_token"]
    assert data["redirect_uris"] == [oauth_flow.REDIRECT_URI]
    assert data["client_name"] == "Helpful Assistant"
    assert "client_secret" not in data
    app = Application.objects.get(client_id=data["client_id"])
    assert app.client_type == "public" and app.authorization_grant_type == "authorization-code"
    assert app.registration_source == "dcr"


# RFC 7591 §3.2.1: an omitted auth method is registered as "none" (the MCP SDK may omit it).
def test_omitted_auth_method_becomes_none(assistant):
    response = oauth_flow.register(assistant, token_endpoint_auth_method=None, grant_types=None,
                                   response_types=None)
    assert response.status_code == 201, response.content
    assert response.json()["token_endpoint_auth_method"] == "none"
    assert Application.objects.get().client_type == "public"


# SPEC A-1: other grants, auth methods and response types cannot register.
@pytest.mark.parametrize(
    "overrides",
    [
        {"token_endpoint_auth_method": "private_key_jwt"},
        {"token_endpoint_auth_method": ["none"]},
        {"grant_types": ["client_credentials"]},
        {"grant_types": ["authorization_code", "password"]},
        {"grant_types": ["implicit"]},
        {"response_types": ["token"]},
        {"client_name": "x" * 101},
    ],
)
def test_refused_metadata(assistant, overrides):
    response = oauth_flow.register(assistant, **overrides)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
    assert not Application.objects.exists()


# SPEC A-6: redirect URIs are https, or http on a loopback address.
@pytest.mark.parametrize(
    "uri",
    [
        "https://assistant.example/callback",
        "http://127.0.0.1:33418/callback",
        "http://localhost:8080/oauth/callback",
        "http://[::1]:9000/cb",
        "https://127.0.0.1/cb?x=1",
        "https://xn--80ak6aa92e.com/callback",  # an IDN host in its ASCII form
        # SPEC A-6: private-use schemes of native apps, as Cursor and VS Code register them.
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "vscode://vscode.github-authentication/did-authenticate",
    ],
)
def test_accepted_redirect_uris(assistant, uri):
    response = oauth_flow.register(assistant, redirect_uris=[uri])
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "uri",
    [
        "http://assistant.example/callback",
        "http://192.168.1.20:8080/callback",
        "http://127.0.0.2/callback",
        "http://localhost.example.com/callback",
        "myapp://callback",  # a private-use scheme no operator listed (OAUTH_PRIVATE_USE_SCHEMES)
        "javascript:alert(1)",
        "JavaScript://%0aalert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "vbscript:msgbox(1)",
        "blob:https://assistant.example/uuid",
        "about:blank",
        "https://assistant.example/callback#frag",
        "https://user:pw@assistant.example/callback",
        "/relative/callback",
        "",
        # SPEC A-7: a URI is ASCII (RFC 3986); a Unicode host would show on the person's pages as a look-alike
        # (Cyrillic letters here), and no authorization request could use it anyway.
        "https://\u0430\u0440\u0440\u04cf\u0435.com/callback",
        "https://assistant.example/caf\u00e9",
    ],
)
def test_refused_redirect_uris(assistant, uri):
    response = oauth_flow.register(assistant, redirect_uris=[oauth_flow.REDIRECT_URI, uri])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"
    assert not Application.objects.exists()


def test_redirect_uris_required(assistant):
    for value in (None, [], "http://127.0.0.1/cb", [oauth_flow.REDIRECT_URI] * 11):
        response = oauth_flow.register(assistant, redirect_uris=value)
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_redirect_uri"


# RFC 7591 §3.2.2: a body that is not JSON, or nested too deep for the parser, is invalid_client_metadata.
@pytest.mark.parametrize("body", ["client_name=x", "[" * 100_000 + "]" * 100_000], ids=["form", "deeply-nested"])
def test_not_json(assistant, body):
    response = assistant.post("/oauth/register/", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
    data = oauth_flow.register(assistant).json()
    response = assistant.put(f"/oauth/register/{data['client_id']}/", data=body, content_type="application/json",
                             HTTP_AUTHORIZATION="Bearer " + data["registration_access_token"])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"


# SPEC A-6: registration is rate-limited per client IP, with a clear 429 JSON error.
def test_registration_rate_limit(settings, frozen_clock, assistant):
    settings.OAUTH_REGISTRATION_RATE_LIMIT = 3
    for _ in range(3):
        assert oauth_flow.register(assistant).status_code == 201
    response = oauth_flow.register(assistant)
    assert response.status_code == 429
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] == "rate_limited"
    assert "try again later" in body["error_description"]
    assert 0 < int(response["Retry-After"]) <= 3600
    assert Application.objects.count() == 3

    # Another address has its own allowance; refused requests count too, so the address stays blocked.
    other = assistant.post("/oauth/register/", data="{}", content_type="application/json", REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 400
    assert oauth_flow.register(assistant).status_code == 429

    # The next window starts afresh.
    frozen_clock.advance(timedelta(hours=1))
    assert oauth_flow.register(assistant).status_code == 201


# Behind our own load balancer, the address it saw is the one that counts, not whatever the client claims.
def test_rate_limit_behind_proxy(settings, assistant):
    settings.OAUTH_REGISTRATION_RATE_LIMIT = 1
    settings.TRUSTED_PROXY_COUNT = 1
    forwarded = {"HTTP_X_FORWARDED_FOR": "203.0.113.7, 198.51.100.1", "REMOTE_ADDR": "10.0.0.1"}
    spoofed = {"HTTP_X_FORWARDED_FOR": "203.0.113.99, 198.51.100.1", "REMOTE_ADDR": "10.0.0.1"}
    assert oauth_flow.register(assistant).status_code == 201  # REMOTE_ADDR 127.0.0.1, no header
    assert _register_from(assistant, forwarded).status_code == 201
    assert _register_from(assistant, spoofed).status_code == 429  # same last hop: same client
    assert _register_from(assistant, {"HTTP_X_FORWARDED_FOR": "198.51.100.2"}).status_code == 201


# SPEC A-6: a broker registers every one of its users from a few shared addresses (Claude does). The default
# allowance serves a busy one, and an operator can exempt a broker's published egress networks outright.
def test_a_busy_client_is_not_locked_out(settings, assistant):
    assert settings.OAUTH_REGISTRATION_RATE_LIMIT >= 600
    settings.OAUTH_REGISTRATION_RATE_LIMIT = 2
    settings.OAUTH_REGISTRATION_UNLIMITED_NETWORKS = ["160.79.104.0/23", "2607:6bc0::/48"]
    for address in ["160.79.104.10"] * 5 + ["2607:6bc0::10"] * 3:
        assert _register_from(assistant, {"REMOTE_ADDR": address}).status_code == 201, address
    for _ in range(2):
        assert _register_from(assistant, {"REMOTE_ADDR": "160.79.106.1"}).status_code == 201
    assert _register_from(assistant, {"REMOTE_ADDR": "160.79.106.1"}).status_code == 429


def _register_from(assistant, meta):
    body = {"client_name": "A", "redirect_uris": [oauth_flow.REDIRECT_URI], "token_endpoint_auth_method": "none"}
    return assistant.post("/oauth/register/", data=json.dumps(body), content_type="application/json", **meta)


# RFC 7592: an update through the management endpoint obeys the same rules.
def test_management_update_obeys_rules(assistant):
    data = oauth_flow.register(assistant).json()
    auth = {"HTTP_AUTHORIZATION": "Bearer " + data["registration_access_token"]}
    url = f"/oauth/register/{data['client_id']}/"
    assert data["registration_client_uri"].endswith(url)
    bad = {"redirect_uris": ["http://evil.example/cb"], "token_endpoint_auth_method": "none"}
    response = assistant.put(url, data=json.dumps(bad), content_type="application/json", **auth)
    assert response.status_code == 400
    assert Application.objects.get().redirect_uris == oauth_flow.REDIRECT_URI
    good = {"redirect_uris": ["https://assistant.example/cb"], "client_name": "Renamed"}
    response = assistant.put(url, data=json.dumps(good), content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    app = Application.objects.get()
    assert app.redirect_uris == "https://assistant.example/cb" and app.client_type == "public"


# SPEC A-6: the toolkit keeps redirect URIs space-joined and splits them when it checks one, so a URI holding
# whitespace would register an unchecked second URI; whitespace and control characters are refused outright.
@pytest.mark.parametrize(
    "uri",
    [
        "https://ok.example/cb http://evil.example/cb",
        "https://ok.example/cb\nhttp://evil.example/cb",
        "https://ok.example/cb\thttp://evil.example/cb",
        "https://ok.example/cb\u00a0http://evil.example/cb",
        "https://ok.example/c b",
        "https://ok.example/cb\x00",
        "https://ok.example/cb\x7f",
        "https://ok.example/cb\ud800",
    ],
    ids=["space", "newline", "tab", "nbsp", "inner-space", "nul", "del", "lone-surrogate"],
)
def test_redirect_uri_with_whitespace_or_control_characters_refused(assistant, uri):
    response = oauth_flow.register(assistant, redirect_uris=[uri])
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid_redirect_uri"
    assert not Application.objects.exists()


# RFC 7591 §3.2.2: malformed metadata is an invalid_client_metadata / invalid_redirect_uri error, never a 500.
MALFORMED = [
    ({"redirect_uris": ["http://[::1/cb"]}, "invalid_redirect_uri"),
    ({"redirect_uris": ["https://::1]/cb"]}, "invalid_redirect_uri"),
    ({"response_types": [[1]]}, "invalid_client_metadata"),
    ({"response_types": [{}]}, "invalid_client_metadata"),
    ({"grant_types": ["authorization_code", {}]}, "invalid_client_metadata"),
    ({"grant_types": ["authorization_code", ["refresh_token"]]}, "invalid_client_metadata"),
    ({"client_name": "\ud800"}, "invalid_client_metadata"),
    ({"client_name": "a\x00b"}, "invalid_client_metadata"),
    ({"client_name": ["x"]}, "invalid_client_metadata"),
]
MALFORMED_IDS = ["ipv6-bracket", "ipv6-unopened", "response-type-list", "response-type-object", "grant-type-object",
                 "grant-type-list", "name-surrogate", "name-nul", "name-list"]


@pytest.mark.parametrize("overrides, error", MALFORMED, ids=MALFORMED_IDS)
def test_malformed_metadata_refused(assistant, overrides, error):
    response = oauth_flow.register(assistant, **overrides)
    assert response.status_code == 400, response.content
    assert response.json()["error"] == error
    assert not Application.objects.exists()


@pytest.mark.parametrize("overrides, error", MALFORMED, ids=MALFORMED_IDS)
def test_management_update_refuses_malformed_metadata(assistant, overrides, error):
    data = oauth_flow.register(assistant).json()
    auth = {"HTTP_AUTHORIZATION": "Bearer " + data["registration_access_token"]}
    url = f"/oauth/register/{data['client_id']}/"
    body = {"client_name": "Renamed", "redirect_uris": ["https://assistant.example/cb"], **overrides}
    response = assistant.put(url, data=json.dumps(body), content_type="application/json", **auth)
    assert response.status_code == 400, response.content
    assert response.json()["error"] == error
    app = Application.objects.get()
    assert app.name == "Helpful Assistant" and app.redirect_uris == oauth_flow.REDIRECT_URI


# RFC 7592 §2.2, §3: an update without a valid registration access token is refused as such (401) before
# its metadata is looked at, so the endpoint tells an unauthenticated caller nothing about its rules.
@pytest.mark.parametrize("token", [None, "not-the-token"], ids=["no-token", "wrong-token"])
@pytest.mark.parametrize("overrides", [{"redirect_uris": ["http://[::1/cb"]}, {"response_types": [[1]]},
                                       {"redirect_uris": ["http://evil.example/cb"]}], ids=["500", "500b", "400"])
def test_management_update_authenticates_first(assistant, token, overrides):
    data = oauth_flow.register(assistant).json()
    auth = {"HTTP_AUTHORIZATION": "Bearer " + token} if token else {}
    body = {"client_name": "Renamed", "redirect_uris": ["https://assistant.example/cb"], **overrides}
    response = assistant.put(f"/oauth/register/{data['client_id']}/", data=json.dumps(body),
                             content_type="application/json", **auth)
    assert response.status_code == 401, response.content
    assert response.json()["error"] == "invalid_token"
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert Application.objects.get().name == "Helpful Assistant"


# SPEC D-8, C-7, RFC 7592 §2.3: an assistant deleting its own registration ends every token at once, but
# the person's connection, with its access history and proposals, stays on their page (revoked).
def test_management_delete_keeps_the_persons_record(assistant, browser, user):
    from apps.consent.models import AccessEvent, Connection
    from apps.oauth.bearer import authenticate_bearer

    data = oauth_flow.register(assistant).json()
    flow = oauth_flow.Flow(client_id=data["client_id"])
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    tokens = oauth_flow.exchange(assistant, flow).json()
    connection = Connection.objects.get(user=user)
    AccessEvent.objects.create(
        connection=connection, tool="get_user_context", facts=[], created_at=connection.created_at
    )
    auth = {"HTTP_AUTHORIZATION": "Bearer " + data["registration_access_token"]}

    response = assistant.delete(f"/oauth/register/{data['client_id']}/", **auth)

    assert response.status_code == 204
    connection = Connection.objects.get(pk=connection.pk)
    assert connection.revoked_at is not None
    assert AccessEvent.objects.filter(connection=connection).exists()
    assert authenticate_bearer(tokens["access_token"]) is None
    assert oauth_flow.refresh(assistant, flow, tokens["refresh_token"]).status_code in (400, 401)
    # The client is gone for good: its registration token no longer works, no new consent can start.
    assert assistant.get(f"/oauth/register/{data['client_id']}/", **auth).status_code == 401
    again = oauth_flow.Flow(client_id=data["client_id"])
    page = browser.get(oauth_flow.authorize_url(again.client_id, oauth_flow.pkce_pair()[1]))
    assert page.status_code == 400


# SPEC A-6: the schemes of the native apps an operator lists are accepted too; the dangerous ones can
# never be listed (the setting is refused at start-up).
def test_listed_private_use_scheme(assistant, settings):
    from django.core.exceptions import ImproperlyConfigured

    from apps.oauth.redirects import private_use_schemes

    settings.OAUTH_PRIVATE_USE_SCHEMES = ["myapp"]
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https", "myapp"]}
    assert oauth_flow.register(assistant, redirect_uris=["myapp://callback"]).status_code == 201
    for scheme in ("javascript", "data", "file", "vbscript", "blob", "about", "http", "https", "not a scheme"):
        with pytest.raises(ImproperlyConfigured):
            private_use_schemes([scheme])
