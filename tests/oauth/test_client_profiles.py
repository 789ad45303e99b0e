"""Every major assistant connects as it ships (SPEC A-1, A-3, A-6, A-8, A-10; docs/clients.md).

Each profile replays one client's own requests over real HTTP against the live
server — discovery from the 401, its registration or client metadata document,
its authorization request, its token requests and client authentication —
through the real login and consent pages, then reads the shared fact with
``tools/call get_user_context``, refreshes, and refreshes twice at once with
one refresh token (truly concurrently on PostgreSQL). Where each body comes from:

- Claude (claude.ai, Claude Desktop), registration: the body Claude sends, quoted in
  anthropics/claude-code#5826 (redirect ``https://claude.ai/api/mcp/auth_callback``,
  ``token_endpoint_auth_method: client_secret_post``); with a document when the server
  advertises them (``claude.com`` as well as ``claude.ai`` callbacks).
- Claude Code: the MCP TypeScript SDK's ``auth()`` (packages/client/src/client/auth.ts), a
  public client on a loopback ``/callback``; it was reported to leave ``resource`` out.
- ChatGPT: a client metadata document, callback ``https://chatgpt.com/connector_platform_oauth_redirect``.
- VS Code: ``fetchDynamicRegistration`` in microsoft/vscode src/vs/base/common/oauth.ts — four
  redirect URIs (two vscode.dev pages, ``http://127.0.0.1/`` and port 33418), ``application_type:
  native``, ``client_uri``, ``scope``; it listens on a loopback port of the moment.
- Cursor: ``cursor://anysphere.cursor-mcp/oauth/callback``, ``https://www.cursor.com/agents/mcp/oauth/callback``
  and ``http://localhost:8787/callback``, as measured for this product.
- Goose: a public client on a ``localhost`` callback of its own port, with a trailing slash on the resource.
- MCP Inspector (browser): registers and exchanges from its page at ``http://localhost:6274`` (CORS),
  callback ``/oauth/callback``, ``client_uri`` of its repository; it asks ``offline_access`` too.
- The official Python SDK: ``OAuthClientMetadata`` as its examples fill it in (public client).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection as database
from oauth2_provider.models import get_refresh_token_model

from apps.consent.models import Connection
from apps.consent.services import shares_set
from apps.oauth.models import TokenFamily
from tests.e2e.conftest import fresh_cache, public_origin  # noqa: F401  (fixtures)
from tests.mcp_server.conftest import make_fact
from tests.oauth.clients import Profile, Replay, shown

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-password-for-testing"
CLAUDE_CALLBACK = "https://claude.ai/api/mcp/auth_callback"
CODE_FLOW = {"grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}

PROFILES = [
    Profile("claude-web", CLAUDE_CALLBACK, registration={
        "client_name": "Claude", "redirect_uris": [CLAUDE_CALLBACK], **CODE_FLOW,
        "token_endpoint_auth_method": "client_secret_post"}, auth="client_secret_post"),
    Profile("claude-web-document", CLAUDE_CALLBACK, document={
        "client_name": "Claude", "client_uri": "https://claude.ai",
        "redirect_uris": [CLAUDE_CALLBACK, "https://claude.com/api/mcp/auth_callback"], **CODE_FLOW,
        "token_endpoint_auth_method": "none"}, document_path="/oauth/claude-client.json"),
    Profile("claude-code", "http://localhost:51703/callback", registration={
        "client_name": "Claude Code (lifeos)", "redirect_uris": ["http://localhost:51703/callback"], **CODE_FLOW,
        "token_endpoint_auth_method": "none"}, resource=None),
    Profile("chatgpt", "https://chatgpt.com/connector_platform_oauth_redirect", document={
        "client_name": "ChatGPT", "redirect_uris": ["https://chatgpt.com/connector_platform_oauth_redirect"],
        **CODE_FLOW, "token_endpoint_auth_method": "none"}, document_path="/oauth/chatgpt.json"),
    Profile("vscode", "http://127.0.0.1:49877/", registration={
        "client_name": "Visual Studio Code", "client_uri": "https://code.visualstudio.com",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "redirect_uris": ["https://insiders.vscode.dev/redirect", "https://vscode.dev/redirect", "http://127.0.0.1/",
                          "http://127.0.0.1:33418/"],
        "scope": "profile:read profile:propose profile:correct", "token_endpoint_auth_method": "none",
        "application_type": "native"}),
    Profile("cursor", "cursor://anysphere.cursor-mcp/oauth/callback", registration={
        "client_name": "Cursor", "redirect_uris": ["cursor://anysphere.cursor-mcp/oauth/callback",
                                                   "https://www.cursor.com/agents/mcp/oauth/callback",
                                                   "http://localhost:8787/callback"],
        **CODE_FLOW, "token_endpoint_auth_method": "none"}),
    Profile("goose", "http://localhost:40123/oauth_callback", registration={
        "client_name": "goose", "redirect_uris": ["http://localhost:8080/oauth_callback"], **CODE_FLOW,
        "token_endpoint_auth_method": "none"}, resource="slash", refresh_resource=False),
    Profile("mcp-inspector", "http://localhost:6274/oauth/callback", registration={
        "client_name": "MCP Inspector", "client_uri": "https://github.com/modelcontextprotocol/inspector",
        "redirect_uris": ["http://localhost:6274/oauth/callback", "http://localhost:6274/oauth/callback/debug"],
        **CODE_FLOW, "token_endpoint_auth_method": "none"}, origin="http://localhost:6274",
        extra_authorize={"prompt": "consent"}),
    Profile("python-sdk", "http://localhost:3030/callback", registration={
        "client_name": "Example MCP Client", "redirect_uris": ["http://localhost:3030/callback"], **CODE_FLOW,
        "token_endpoint_auth_method": "none"}),
]


@pytest.mark.parametrize("profile", PROFILES, ids=[profile.name for profile in PROFILES])
def test_client_connects_reads_and_refreshes(profile, public_origin, fresh_cache, documents, settings):  # noqa: F811 - fixtures
    if profile.origin:  # a browser page calling /mcp itself needs its origin listed (SPEC A-10)
        settings.MCP_ALLOWED_ORIGINS = [profile.origin]
    person = get_user_model().objects.create_user(username=f"p-{profile.name}", password=PASSWORD)
    fact = make_fact(person, 1, category="preferences", label="Coffee", value="Flat white, no sugar")
    replay = Replay(profile, public_origin)
    try:
        _connects_reads_and_refreshes(replay, profile, documents, person, fact)
    finally:
        replay.close()


def _connects_reads_and_refreshes(replay, profile, documents, person, fact):
    # SPEC: the 401 names the base scope and the resource metadata; discovery follows.
    server = replay.discover()
    assert replay.challenge_scope.split()[0] == "profile:read"
    replay.register(server, documents)

    # SPEC A-7: the consent page names the assistant, where it sends the person back, and — for a document —
    # the host that vouches for it.
    code = replay.consent(replay.authorize_url(server), username=person.username, password=PASSWORD)
    assert (shown(replay.consent_html, "verified-host") != "") == (profile.registration is None)
    destination = shown(replay.consent_html, "redirect-host")
    assert destination == (profile.callback.split("/oauth")[0] if profile.callback.startswith("cursor:")
                           else profile.callback.split("/")[2])

    tokens = replay.exchange(server, code)
    assert set(tokens["scope"].split()) == set(replay.challenge_scope.split())
    shares_set(connection=Connection.objects.get(user=person), fact_ids={fact.pk})
    context = replay.get_user_context(tokens["access_token"])
    assert [item["value"] for item in context["facts"]] == ["Flat white, no sugar"]

    # SPEC A-3: refresh rotates; then two refreshes at once with the one token both work, one family lives on.
    refreshed = replay.refresh(server, tokens["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    pair = replay.refresh_twice_at_once(server, refreshed.json()["refresh_token"],
                                        together=database.vendor == "postgresql")
    assert [response.status_code for response in pair] == [200, 200], [response.text for response in pair]
    for response in pair:
        assert replay.get_user_context(response.json()["access_token"])["facts"]
    assert TokenFamily.objects.get(user=person).revoked_at is None
    assert get_refresh_token_model().objects.filter(user=person).values("token_family").distinct().count() == 1
