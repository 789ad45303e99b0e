"""Requests the authorization server refuses: wrong resource, weak PKCE, other grants, tokens in URLs."""

import dataclasses
from urllib.parse import urlencode

import pytest
from django.conf import settings
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.agents.services import policy_create
from apps.consent.models import Connection
from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import HashedGrant, TokenFamily
from apps.oauth.offers import Offer
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

OTHER_RESOURCE = "https://elsewhere.example/api"


def authorize(browser, flow, **params):
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    return browser.get(oauth_flow.authorize_url(flow.client_id, flow.challenge, **params))


def assert_error_redirect(response, error):
    assert response.status_code == 302, response.content
    assert response["Location"].startswith(oauth_flow.REDIRECT_URI + "?")
    params = oauth_flow.query_of(response["Location"])
    assert params["error"] == error, params
    assert params["state"] == "state-123"
    assert "code" not in params


def assert_nothing_issued():
    assert not HashedGrant.objects.exists()
    assert not TokenFamily.objects.exists()
    assert not Connection.objects.exists()


def _spellings_of_mcp() -> list[str]:
    """The /mcp resource as clients spell it: no resource, a trailing slash, upper-case scheme and host, the port."""
    scheme, _, rest = settings.MCP_RESOURCE_URL.partition("://")
    host, _, path = rest.partition("/")
    port = {"http": ":80", "https": ":443"}[scheme] if ":" not in host else ""
    return [None, settings.MCP_RESOURCE_URL + "/", f"{scheme.upper()}://{host.upper()}/{path}",
            f"{scheme}://{host}{port}/{path}"]


SAME_RESOURCE_IDS = ["missing", "trailing-slash", "upper-case-origin", "explicit-port"]
OTHER_SPELLINGS = [OTHER_RESOURCE, settings.PUBLIC_BASE_URL, settings.MCP_RESOURCE_URL + "//",
                   settings.MCP_RESOURCE_URL + "/x", "not a uri", settings.MCP_RESOURCE_URL.replace("/mcp", "/MCP")]
OTHER_IDS = ["other", "origin", "two-slashes", "sub-path", "malformed", "path-case"]


# SPEC A-6: a missing resource means /mcp, and /mcp is recognised however a client spells its origin.
@pytest.mark.parametrize("resource", _spellings_of_mcp(), ids=SAME_RESOURCE_IDS)
def test_authorize_and_token_take_mcp_however_spelled(assistant, browser, resource):
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow, resource=resource), flow)
    response = oauth_flow.exchange(assistant, flow, resource=resource)
    assert response.status_code == 200, response.content
    # The token is bound to the one canonical /mcp resource, whatever the client wrote.
    assert authenticate_bearer(response.json()["access_token"]) is not None
    response = oauth_flow.refresh(assistant, flow, response.json()["refresh_token"], resource=resource)
    assert response.status_code == 200, response.content
    assert authenticate_bearer(response.json()["access_token"]) is not None


# SPEC A-6: another origin or another path is still refused at the authorization endpoint.
@pytest.mark.parametrize("resource", OTHER_SPELLINGS, ids=OTHER_IDS)
def test_authorize_refuses_other_resource(assistant, browser, resource):
    flow = oauth_flow.registered(assistant)
    assert_error_redirect(authorize(browser, flow, resource=resource), "invalid_target")
    assert_nothing_issued()


# SPEC A-6: two resources at once are refused too.
def test_authorize_refuses_two_resources(assistant, browser):
    flow = oauth_flow.registered(assistant)
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    url = oauth_flow.authorize_url(flow.client_id, flow.challenge) + "&" + urlencode({"resource": OTHER_RESOURCE})
    assert_error_redirect(browser.get(url), "invalid_target")


# SPEC A-6: at the token endpoint another resource is refused; nothing is issued.
@pytest.mark.parametrize("resource", OTHER_SPELLINGS, ids=OTHER_IDS)
def test_token_refuses_other_resource(assistant, approved, resource):
    response = oauth_flow.exchange(assistant, approved, resource=resource)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"
    assert not TokenFamily.objects.exists()
    assert not HashedGrant.objects.filter(redeemed_at__isnull=False).exists()


# SPEC A-6: on refresh the token keeps its /mcp binding: another resource is refused; none inherits /mcp
# (the MCP SDK omits it when it refreshes before rediscovering the resource).
def test_refresh_resource(assistant, connected):
    response = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"], resource=OTHER_RESOURCE)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"
    response = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"], resource=None)
    assert response.status_code == 200, response.content
    assert authenticate_bearer(response.json()["access_token"]) is not None


# SPEC A-5: a refresh may narrow the token's scopes, never widen them, and never to context:search without
# profile:read, which the person could not have granted either; a refused refresh rotates nothing.
def test_refresh_scope_rules(assistant, browser):
    flow = oauth_flow.registered(assistant)
    page = authorize(browser, flow)
    form = oauth_flow.read_form(page.content.decode())
    data = form.fields + [("scopes", "context:search"), ("allow", "1")]
    oauth_flow.code_from(browser.post(form.action, data=urlencode(data),
                                      content_type="application/x-www-form-urlencoded"), flow)
    tokens = oauth_flow.exchange(assistant, flow).json()
    assert "context:search" in tokens["scope"].split()

    for scope in ("context:search", "context:search profile:propose", "profile:read internal:agents"):
        response = oauth_flow.refresh(assistant, flow, tokens["refresh_token"], scope=scope)
        assert response.status_code == 400, (scope, response.content)
        assert response.json()["error"] == "invalid_scope"
    assert authenticate_bearer(tokens["access_token"]) is not None

    response = oauth_flow.refresh(assistant, flow, tokens["refresh_token"], scope="context:search profile:read")
    assert response.status_code == 200, response.content
    assert sorted(response.json()["scope"].split()) == ["context:search", "profile:read"]


# SPEC C-5, C-6: after the person removed a scope on the web page, a refresh issues a token without it and
# says so; asking for it by name is refused, so it cannot be regained without a new consent.
def test_refresh_after_narrowing_drops_the_removed_scope(assistant, connected, user):
    from apps.consent.models import Connection
    from apps.consent.services import connection_narrow

    first = connected.tokens[0]
    assert "profile:propose" in first["scope"].split()
    connection = Connection.objects.get(user=user)
    connection_narrow(connection=connection, scopes={"profile:read"})
    asked = oauth_flow.refresh(assistant, connected, first["refresh_token"], scope="profile:read profile:propose")
    assert asked.status_code == 400 and asked.json()["error"] == "invalid_scope"
    response = oauth_flow.refresh(assistant, connected, first["refresh_token"])
    assert response.status_code == 200, response.content
    assert response.json()["scope"] == "profile:read"
    assert authenticate_bearer(response.json()["access_token"]).scopes == {"profile:read"}


# SPEC A-1: PKCE is required and must be S256.
@pytest.mark.parametrize(
    "params, error",
    [
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge_method": None}, "invalid_request"),  # defaults to plain
        ({"code_challenge": None, "code_challenge_method": None}, "invalid_request"),
        # RFC 7636 §4.1, §4.2: an S256 challenge is BASE64URL text, 43 to 128 characters of [A-Za-z0-9-._~].
        ({"code_challenge": "a" * 5000}, "invalid_request"),
        ({"code_challenge": "a" * 129}, "invalid_request"),
        ({"code_challenge": "a" * 42}, "invalid_request"),
        ({"code_challenge": "a" * 42 + "\x00"}, "invalid_request"),
        ({"code_challenge": "a" * 42 + "="}, "invalid_request"),
        ({"code_challenge": "a" * 40 + "+/ b"}, "invalid_request"),
        ({"code_challenge": "a" * 42 + "\u00e9"}, "invalid_request"),
    ],
    ids=["plain", "method-missing", "no-pkce", "challenge-5000", "challenge-129", "challenge-42", "challenge-nul",
         "challenge-padding", "challenge-base64", "challenge-non-ascii"],
)
def test_authorize_refuses_weak_or_missing_pkce(assistant, browser, params, error):
    flow = oauth_flow.registered(assistant)
    assert_error_redirect(authorize(browser, flow, **params), error)
    assert_nothing_issued()


# SPEC A-1, RFC 7636 §4.2: the challenge rule holds where the code is created too, whatever reached it.
@pytest.mark.parametrize("challenge", ["a" * 5000, "a" * 42 + "\x00"], ids=["too-long", "nul"])
def test_code_creation_refuses_malformed_challenge(assistant, browser, user, challenge):
    flow = oauth_flow.registered(assistant)
    page = authorize(browser, flow)
    assert page.status_code == 200, page.content
    form = oauth_flow.read_form(page.content.decode())
    offer = Offer.unsign(dict(form.fields)["offer"], user=user)
    forged = dataclasses.replace(offer, code_challenge=challenge).sign(user=user)
    fields = [(k, forged if k == "offer" else v) for k, v in form.fields] + [("allow", "1")]
    response = browser.post(form.action, data=urlencode(fields), content_type="application/x-www-form-urlencoded")
    assert_error_redirect(response, "invalid_request")
    assert_nothing_issued()


# RFC 6749 §5.2: a client_id no client can have (a NUL) is invalid_client at the token endpoint, not a 500.
def test_token_refuses_unstorable_client_id(assistant, approved):
    response = oauth_flow.exchange(assistant, approved, client_id="no\x00body")
    assert response.status_code == 401, response.content
    assert response.json()["error"] == "invalid_client"
    assert not TokenFamily.objects.exists()


# SPEC A-1: the code is exchanged only with the matching verifier.
@pytest.mark.parametrize("verifier, error", [("", "invalid_request"), ("x" * 50, "invalid_grant")],
                         ids=["missing", "wrong"])
def test_token_needs_the_verifier(assistant, approved, verifier, error):
    data = {"grant_type": "authorization_code", "code": approved.code, "redirect_uri": oauth_flow.REDIRECT_URI,
            "client_id": approved.client_id, "resource": settings.MCP_RESOURCE_URL}
    if verifier:
        data["code_verifier"] = verifier
    response = assistant.post("/oauth/token/", data=urlencode(data), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response.json()["error"] == error
    assert not TokenFamily.objects.exists()


# SPEC A-1: no other grant: implicit, password and client credentials are refused.
def test_other_grants_refused(assistant, browser, user):
    flow = oauth_flow.registered(assistant)
    assert_error_redirect(authorize(browser, flow, response_type="token"), "unsupported_response_type")
    for data in (
        {"grant_type": "password", "username": "alice", "password": "alice-password", "client_id": flow.client_id},
        {"grant_type": "client_credentials", "client_id": flow.client_id},
    ):
        response = assistant.post("/oauth/token/", data=urlencode(data),
                                  content_type="application/x-www-form-urlencoded")
        assert response.status_code in (400, 401)
        assert response.json()["error"] in ("unauthorized_client", "unsupported_grant_type", "invalid_client")
    assert_nothing_issued()


# SPEC A-1: the password grant is refused even to a client provisioned for it by hand.
def test_password_grant_refused_even_for_a_client_made_for_it(assistant, user):
    get_application_model().objects.create(
        name="Script", client_id="script", client_secret="s3cret-value", hash_client_secret=False,
        client_type="confidential", authorization_grant_type="password",
    )
    data = {"grant_type": "password", "client_id": "script", "client_secret": "s3cret-value",
            "username": "alice", "password": "alice-password"}
    response = assistant.post("/oauth/token/", data=urlencode(data), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response.json()["error"] == "unsupported_grant_type"  # never routed (apps/oauth/server.py)
    assert not get_access_token_model().objects.exists()


# Internal agents are confidential clients with client credentials and an agent policy; their tokens carry
# no person and only internal:agents, and are refused at /mcp (SPEC A-8). A public client never gets one
# (SPEC A-1), nor does a confidential client that is no registered agent.
@pytest.mark.parametrize("client_type, agent, accepted", [
    ("confidential", True, True), ("confidential", False, False), ("public", True, False), ("public", False, False),
])
def test_client_credentials_only_for_agents(assistant, client_type, agent, accepted):
    application = get_application_model().objects.create(
        name="Planner agent", client_id="planner", client_secret="s3cret-value", hash_client_secret=False,
        client_type=client_type, authorization_grant_type="client-credentials",
    )
    if agent:
        policy_create(agent_id="planner", name="Planner", application=application, grants={})
    data = {"grant_type": "client_credentials", "client_id": "planner", "client_secret": "s3cret-value"}
    response = assistant.post("/oauth/token/", data=urlencode(data), content_type="application/x-www-form-urlencoded")
    if not accepted:
        assert response.status_code in (400, 401)
        assert not get_access_token_model().objects.exists()
        return
    assert response.status_code == 200, response.content
    token = response.json()
    assert "refresh_token" not in token and token["scope"] == "internal:agents"
    assert authenticate_bearer(token["access_token"]) is None
    stored = get_access_token_model().objects.get()
    assert stored.user is None and stored.scope == "internal:agents"
    # Nothing from the assistants' family, whatever the agent asks for (SPEC A-5).
    for scope in ("profile:read", "memory:todo:read", "internal:agents profile:read"):
        refused = assistant.post("/oauth/token/", data=urlencode({**data, "scope": scope}),
                                 content_type="application/x-www-form-urlencoded")
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_scope", scope


# SPEC A-4: codes, tokens and verifiers in the query string are refused, even on a POST.
def test_secrets_in_query_string_refused(assistant, approved):
    query = urlencode({"code": approved.code, "code_verifier": approved.verifier})
    body = urlencode({"grant_type": "authorization_code", "redirect_uri": oauth_flow.REDIRECT_URI,
                      "client_id": approved.client_id, "resource": settings.MCP_RESOURCE_URL})
    response = assistant.post("/oauth/token/?" + query, data=body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert not TokenFamily.objects.exists()
    # The same exchange with everything in the body works.
    assert oauth_flow.exchange(assistant, approved).status_code == 200


# SPEC A-4: the revocation endpoint refuses a token in the query string (and revokes nothing).
def test_revocation_refuses_query_string(assistant, connected):
    tokens = connected.tokens[0]
    response = assistant.post(
        "/oauth/revoke_token/?" + urlencode({"token": tokens["access_token"]}),
        data=urlencode({"client_id": connected.client_id}),
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 400
    assert authenticate_bearer(tokens["access_token"]) is not None


# SPEC A-8: the registration access token (RFC 7592) is not a /mcp token.
def test_registration_token_is_not_an_mcp_token(assistant):
    response = oauth_flow.register(assistant)
    assert authenticate_bearer(response.json()["registration_access_token"]) is None
