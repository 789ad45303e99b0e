"""The official MCP SDK client's OAuth provider, driven against this server in-process (SPEC A-6, M-1).

``/mcp`` is stubbed here by the bearer check it will use (``apps.oauth.bearer``):
401 with ``resource_metadata`` without a good token, 200 with one. Everything
else (discovery, registration, authorize, token, refresh) is the real server.
"""

import threading
import time
from urllib.parse import urlencode, urlsplit

import anyio
import httpx2
import pytest
from django import db
from django.conf import settings
from django.test import Client
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from apps.oauth.bearer import authenticate_bearer
from apps.oauth.discovery import resource_metadata_url
from apps.oauth.models import TokenFamily
from tests.oauth import flow as oauth_flow

# The client runs in its own thread and event loop, with its own database connection: it sees only
# committed data.
pytestmark = pytest.mark.django_db(transaction=True)


class MemoryStorage:
    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class Server:
    """Route the SDK's HTTP requests into Django's test client; record what it sent."""

    def __init__(self):
        self.django = Client()
        self.sent: list[tuple[str, str, bytes]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        url = urlsplit(str(request.url))
        self.sent.append((request.method, str(request.url), request.content))
        if url.path == "/mcp":
            header = request.headers.get("authorization", "")
            if header.startswith("Bearer ") and authenticate_bearer(header[len("Bearer "):]) is not None:
                return httpx2.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": {}})
            return httpx2.Response(
                401, headers={"WWW-Authenticate": f'Bearer resource_metadata="{resource_metadata_url()}"'}
            )
        path = url.path + (f"?{url.query}" if url.query else "")
        headers = {"content_type": request.headers.get("content-type", "")}
        if "authorization" in request.headers:
            headers["HTTP_AUTHORIZATION"] = request.headers["authorization"]
        response = self.django.generic(request.method, path, data=request.content, **headers)
        return httpx2.Response(
            response.status_code,
            content=response.content,
            headers={key: value for key, value in response.items() if key.lower() != "content-length"},
        )


def run_in_own_thread(coroutine_function):
    """Run the client in a fresh thread with its own event loop, whatever the test runner's thread holds."""
    outcome = {}

    def target():
        try:
            outcome["value"] = anyio.run(coroutine_function)
        except BaseException as exc:  # re-raised in the test's thread
            outcome["error"] = exc
        finally:
            db.connections.close_all()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=120)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_sdk_client_connects_and_refreshes(monkeypatch, user):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the Django test client runs inside the event loop
    server = Server()
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(user)
    callback = {}

    async def redirect_handler(authorization_url: str) -> None:
        # The person's browser: open the consent page, approve it as rendered.
        parts = urlsplit(authorization_url)
        page = browser.get(f"{parts.path}?{parts.query}")
        assert page.status_code == 200, page.content
        form = oauth_flow.read_form(page.content.decode())
        response = browser.post(form.action, data=urlencode(form.fields + [("allow", "1")]),
                                content_type="application/x-www-form-urlencoded")
        assert response.status_code == 302, response.content
        callback.update(oauth_flow.query_of(response["Location"]))

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=callback["code"], state=callback["state"], iss=callback.get("iss"))

    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=settings.MCP_RESOURCE_URL,
        client_metadata=OAuthClientMetadata(
            client_name="SDK Test Client", redirect_uris=[oauth_flow.REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )

    async def session():
        async with httpx2.AsyncClient(auth=provider, transport=httpx2.MockTransport(server)) as http:
            first = await http.post(settings.MCP_RESOURCE_URL, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                    headers={"MCP-Protocol-Version": "2025-06-18"})
            assert first.status_code == 200
            issued = storage.tokens
            # Let the access token lapse on the client's side: the next call refreshes first.
            provider.context.token_expiry_time = time.time() - 1
            second = await http.post(settings.MCP_RESOURCE_URL, json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
                                     headers={"MCP-Protocol-Version": "2025-06-18"})
            assert second.status_code == 200
            return issued, storage.tokens

    issued, refreshed = run_in_own_thread(session)

    assert issued.scope == "profile:read profile:propose profile:correct"
    assert refreshed.access_token != issued.access_token
    assert refreshed.refresh_token != issued.refresh_token
    assert authenticate_bearer(issued.access_token) is None
    assert authenticate_bearer(refreshed.access_token) is not None
    assert TokenFamily.objects.get().user == user

    token_calls = [body.decode() for method, url, body in server.sent if url.endswith("/oauth/token/")]
    assert len(token_calls) == 2
    assert all(f"resource={urlencode({'': settings.MCP_RESOURCE_URL})[1:]}" in body for body in token_calls)
    assert "grant_type=refresh_token" in token_calls[1]
