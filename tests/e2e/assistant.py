"""An external assistant and the person it asks, for the browser tests (SPEC A-1, A-6, M-1, W-1).

``Assistant`` is the official MCP SDK client as a desktop assistant runs it:
``OAuthClientProvider`` on an ``httpx2`` client under ``streamable_http_client``.
On its first 401 it discovers, registers and runs the PKCE authorization
itself; its redirect handler hands the authorization URL to the person's
browser, and its callback handler waits for the redirect that browser makes to
a loopback listener (RFC 8252). Nothing is stubbed: every request goes over
real HTTP to the live server.

``Person`` is that browser: Playwright's Chromium, logging in through the login
page and answering the consent page.

Threads: the SDK client runs on one event loop in a thread of its own for the
whole test (its provider keeps tokens and a lock across sessions). Playwright's
sync API stays in the test's thread, which serves the client's consent
requests while it waits for the client to finish (``Assistant.run``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from tests.e2e.test_pages_flow import log_in, shot
from tests.mcp_server.conftest import _leaf
from tests.mcp_server.rpc import ACCEPT, rpc
from tests.oauth.flow import query_of
from tests.oauth.test_mcp_sdk_client import MemoryStorage

# What an assistant's first connection looks like on the wire (SPEC M-1, A-1, A-6, A-8): refused with a
# challenge, protected-resource and authorization-server discovery, registration, the code exchange, served.
DISCOVERY_STEPS = [
    ("POST", "/mcp", 401),
    ("GET", "/.well-known/oauth-protected-resource/mcp", 200),
    ("GET", "/.well-known/oauth-authorization-server", 200),
    ("POST", "/oauth/register/", 201),
    ("POST", "/oauth/token/", 200),
    ("POST", "/mcp", 200),
]

# Names of the secret values an OAuth exchange carries, in form bodies and JSON answers (SPEC A-4).
SECRET_FIELDS = ("code", "code_verifier", "access_token", "refresh_token", "registration_access_token")
RUN_TIMEOUT = 90  # seconds one client session (including a consent in the browser) may take


class LoopbackCallback:
    """The one-shot HTTP listener on 127.0.0.1 a desktop assistant opens for the authorization response."""

    def __init__(self):
        received: queue.Queue[str] = queue.Queue()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if urlsplit(self.path).path == "/callback":  # not the browser's favicon request
                    received.put(f"http://127.0.0.1:{self.server.server_port}{self.path}")
                body = b"<!doctype html><title>Connected</title><p>You can close this window.</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.received = received
        self._server = HTTPServer(("127.0.0.1", 0), Handler)
        self.redirect_uri = f"http://127.0.0.1:{self._server.server_port}/callback"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


class ClientLoop:
    """An asyncio event loop running in a thread of its own until closed."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def submit(self, coroutine) -> concurrent.futures.Future:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


@dataclass(frozen=True)
class Exchange:
    """One HTTP request the assistant made, and what came back."""

    method: str
    url: str
    status: int
    challenge: str  # the WWW-Authenticate header, if any

    @property
    def path(self) -> str:
        return urlsplit(self.url).path


class Assistant:
    """The official MCP SDK client with its OAuth provider, against the live server at ``origin``.

    ``consent(authorization_url)`` is the person's browser: it must end on the
    redirect to ``redirect_uri``. Each sync method below opens one MCP session
    in this assistant's protocol ``mode`` ("auto": 2026-07-28 by
    server/discover; "legacy": the initialize handshake).
    """

    def __init__(self, origin: str, consent: Callable[[str], None], *, mode: str = "auto",
                 name: str = "Journey Assistant"):
        self.origin, self.url, self.mode = origin, origin + "/mcp", mode
        self.consent = consent
        self.callback = LoopbackCallback()
        self.redirect_uri = self.callback.redirect_uri
        self.storage = MemoryStorage()
        self.provider = OAuthClientProvider(
            server_url=self.url,
            client_metadata=OAuthClientMetadata(
                client_name=name, redirect_uris=[self.redirect_uri],
                grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=self.storage,
            redirect_handler=self._redirect,
            callback_handler=self._callback,
        )
        self.exchanges: list[Exchange] = []
        self.secrets: set[str] = set()  # every token, code and verifier that went over the wire
        self.authorizations: list[str] = []  # authorization URLs handed to the browser
        self._asks: queue.Queue[str] = queue.Queue()
        self._answers: queue.Queue[str | BaseException] = queue.Queue()
        self._loop = ClientLoop()

    def close(self) -> None:
        self._loop.close()
        self.callback.close()

    # --- The SDK's OAuth hooks (run on the client's loop) -------------------------

    async def _redirect(self, authorization_url: str) -> None:
        self.authorizations.append(authorization_url)
        self._asks.put(authorization_url)

    async def _callback(self) -> AuthorizationCodeResult:
        answer = await anyio.to_thread.run_sync(self._answers.get)
        if isinstance(answer, BaseException):
            raise answer
        params = query_of(answer)
        self._remember(params.get("code"))
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))

    # --- What went over the wire -------------------------------------------------------

    def _remember(self, *values) -> None:
        self.secrets.update(value for value in values if value)

    async def _on_request(self, request: httpx2.Request) -> None:
        if urlsplit(str(request.url)).path.startswith("/oauth/"):
            form = dict(parse_qsl(request.content.decode("utf-8", "replace")))
            self._remember(*(form.get(name) for name in SECRET_FIELDS))

    async def _on_response(self, response: httpx2.Response) -> None:
        request = response.request
        self.exchanges.append(Exchange(request.method, str(request.url), response.status_code,
                                       response.headers.get("www-authenticate", "")))
        if urlsplit(str(request.url)).path.startswith("/oauth/"):
            await response.aread()
            try:
                data = response.json()
            except ValueError:
                return
            if isinstance(data, dict):
                self._remember(*(data.get(name) for name in SECRET_FIELDS))

    # --- Sessions -----------------------------------------------------------------------

    def run(self, operation: Callable[[Client], Any]) -> Any:
        """Run ``await operation(client)`` in one MCP session, answering consent requests meanwhile."""

        async def session():
            hooks = {"request": [self._on_request], "response": [self._on_response]}
            async with httpx2.AsyncClient(auth=self.provider, timeout=30, event_hooks=hooks) as http:
                async with Client(streamable_http_client(self.url, http_client=http), mode=self.mode,
                                  cache=None) as client:
                    return await operation(client)

        future = self._loop.submit(session())
        deadline = time.monotonic() + RUN_TIMEOUT
        while True:
            if concurrent.futures.wait([future], timeout=0.05).done:
                try:
                    return future.result()
                except BaseExceptionGroup as group:  # the SDK's task groups wrap what the call raised
                    raise _leaf(group) from group
            if time.monotonic() > deadline:
                future.cancel()
                raise TimeoutError(f"the MCP session took more than {RUN_TIMEOUT}s")
            try:
                authorization_url = self._asks.get_nowait()
            except queue.Empty:
                continue
            try:
                self.consent(authorization_url)
                self._answers.put(self.callback.received.get(timeout=15))
            except BaseException:
                self._answers.put(RuntimeError("the person's browser did not complete the consent"))
                concurrent.futures.wait([future], timeout=10)
                if future.done() and not future.cancelled():
                    future.exception()  # the client's failure follows from this one; it is retrieved, not raised
                raise

    def protocol_version(self) -> str:
        async def version(client):
            return client.protocol_version

        return self.run(version)

    def tool_names(self) -> list[str]:
        async def names(client):
            return sorted(tool.name for tool in (await client.list_tools()).tools)

        return self.run(names)

    def call(self, name: str, arguments: dict[str, Any] | None = None):
        async def call(client):
            return await client.call_tool(name, arguments or {})

        return self.run(call)

    def context(self) -> dict:
        """The overview (get_user_context) as the assistant receives it."""
        result = self.call("get_user_context")
        assert not result.is_error, result.structured_content
        return result.structured_content

    def visible(self) -> dict[str, str]:
        """Label → value of every fact the assistant can read now (one overview; small profiles)."""
        overview = self.context()
        assert overview["has_more"] is False
        return {fact["label"]: fact["value"] for fact in overview["facts"]}

    def pages(self) -> list[dict]:
        """The overview, then every page by read_user_context_page/next_offset, in one session (SPEC M-6, M-7)."""

        async def read_all(client):
            result = await client.call_tool("get_user_context", {})
            assert not result.is_error, result.structured_content
            pages = [result.structured_content]
            while pages[-1]["has_more"]:
                last = pages[-1]
                result = await client.call_tool("read_user_context_page",
                                                {"offset": last["next_offset"], "version": last["version"]})
                assert not result.is_error, result.structured_content
                pages.append(result.structured_content)
                assert len(pages) < 100, "paging does not end"
            return pages

        return self.run(read_all)

    def propose(self, **arguments) -> str:
        result = self.call("propose_memory", arguments)
        assert not result.is_error, result.structured_content
        assert result.structured_content["status"] == "pending"
        return result.structured_content["id"]

    # --- Its tokens, outside the SDK ---------------------------------------------------------

    @property
    def tokens(self):
        return self.storage.tokens

    @property
    def client_id(self) -> str:
        return self.storage.client_info.client_id

    def lapse(self) -> None:
        """The client's own clock says its access token has run out: the next request refreshes first."""
        self.provider.context.token_expiry_time = time.time() - 1

    def refresh_directly(self, refresh_token: str) -> httpx2.Response:
        """POST a refresh grant to /oauth/token/ by hand (as a thief holding a copy would)."""
        response = httpx2.post(self.origin + "/oauth/token/", data={
            "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id,
            "resource": self.url,
        }, timeout=30)
        if response.status_code == 200:
            self._remember(*(response.json().get(name) for name in SECRET_FIELDS))
        return response


def mcp_probe(origin: str, access_token: str | None) -> httpx2.Response:
    """One plain JSON-RPC ``tools/list`` POST to /mcp with ``access_token``: is it served (200) or refused (401)?"""
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    if access_token is not None:
        headers["Authorization"] = f"Bearer {access_token}"
    return httpx2.post(origin + "/mcp", content=json.dumps(rpc("tools/list")), headers=headers, timeout=30)


class Person:
    """The person's browser: one Playwright page in ``locale``, with every product page's HTML kept."""

    def __init__(self, browser, origin: str, *, username: str, locale: str, artifacts, prefix: str):
        self.origin, self.username = origin, username
        self.context = browser.new_context(locale=locale, viewport={"width": 1100, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(15000)
        self.artifacts, self.prefix = artifacts, prefix
        self.html_seen: list[str] = []  # every product page shown, for the secret scans (SPEC A-4)
        self.on_consent_page: Callable[[Any], None] | None = None  # look at or change the form before Allow

    def keep(self) -> None:
        self.html_seen.append(self.page.content())

    def shot(self, name: str) -> None:
        shot(self.page, self.artifacts, self.prefix, name)

    def open(self, path: str) -> None:
        self.page.goto(self.origin + path)
        assert self.page.url == self.origin + path, self.page.url
        self.keep()

    def consent(self, authorization_url: str) -> None:
        """Open what the assistant sent; log in if asked (SPEC I-3); press Allow on the consent page (SPEC I-4)."""
        page = self.page
        page.goto(authorization_url)
        if "/accounts/login/" in page.url:
            self.keep()
            self.shot("login")
            parts = urlsplit(authorization_url)
            log_in(page, self.username, f"{parts.path}?{parts.query}")
        assert page.locator("#consent-form").count() == 1, page.content()
        self.keep()
        if self.on_consent_page is not None:
            self.on_consent_page(page)
        self.shot("consent")
        with page.expect_navigation(url=lambda url: url.startswith(self._callback_prefix(authorization_url))):
            page.locator('#consent-form button[name="allow"]').click()

    @staticmethod
    def _callback_prefix(authorization_url: str) -> str:
        return dict(parse_qsl(urlsplit(authorization_url).query))["redirect_uri"]

    def close(self) -> None:
        self.context.close()
