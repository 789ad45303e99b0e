"""Fixtures for /mcp: an assistant, its connection and tokens, and the official SDK client.

Tokens are made directly with django-oauth-toolkit's models (stored as their
SHA-256 under COMPLIANT_BCP_RFC9700_TOKEN_STORAGE, as the authorization
server will store them). ``McpClient`` drives the SDK's Streamable HTTP
client against pytest-django's live server, one short session per call, in
either protocol mode: "auto" (2026-07-28 via server/discover) or "legacy"
(the initialize handshake).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from django.conf import settings
from django.core.cache import cache
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from oauth2_provider.models import get_access_token_model, get_application_model, set_token_value

from apps.common import clock
from apps.consent.services import connection_authorize, shares_set
from apps.memory.models import Category
from apps.memory.services import fact_create

ALL_SCOPES = ("profile:read", "profile:propose", "profile:correct", "context:search")
EVIDENCE = "EVIDENCE-NEVER-SENT"


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The repeated-failure counts live in the cache; no test sees another's."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def application(db):
    return get_application_model().objects.create(
        name="Test assistant",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9999/callback",
    )


@pytest.fixture
def connect(user, application):
    """Consent for the test assistant (SPEC A-7): scopes and categories of the connection."""

    def _connect(scopes=("profile:read",), categories=None, *, owner=None):
        return connection_authorize(
            user=owner or user,
            application=application,
            scopes=set(scopes),
            categories=set(Category.shareable() if categories is None else categories),
        )

    return _connect


@pytest.fixture
def issue_token(user, application):
    """A raw access token bound to /mcp unless ``resource`` says otherwise."""

    def _issue(scopes="profile:read", *, resource=None, expires_in=600, owner=None) -> str:
        raw = secrets.token_urlsafe(32)
        token = get_access_token_model()(
            user=owner or user,
            application=application,
            scope=scopes if isinstance(scopes, str) else " ".join(scopes),
            expires=clock.now() + timedelta(seconds=expires_in),
            resource=[settings.MCP_RESOURCE_URL] if resource is None else resource,
        )
        set_token_value(token, raw)
        token.save()
        return raw

    return _issue


def make_fact(owner, index=0, **fields):
    values = {
        "category": "basic",
        "label": f"Label {index}",
        "value": f"Value {index}",
        "evidence": EVIDENCE,
        "sensitive": False,
    }
    return fact_create(owner=owner, **{**values, **fields})


def share(connection, facts) -> None:
    shares_set(connection=connection, fact_ids={fact.id for fact in facts})


@pytest.fixture
def shared_profile(user, connect, issue_token):
    """A connection with profile:read, three shared facts and a token."""
    connection = connect()
    facts = [make_fact(user, i) for i in range(3)]
    share(connection, facts)
    return connection, facts, issue_token()


@pytest.fixture(params=["auto", "legacy"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def mcp(live_server, mode):
    """``mcp(token)`` → an ``McpClient`` for the live server in this test's protocol mode."""

    def _client(token: str | None, **headers: str) -> McpClient:
        return McpClient(live_server.url + "/mcp", token, mode, headers)

    return _client


def _leaf(group: BaseExceptionGroup) -> BaseException:
    first = group.exceptions[0]
    return _leaf(first) if isinstance(first, BaseExceptionGroup) else first


class McpClient:
    """Synchronous face of the SDK client: each call opens its own short MCP session.

    Tests stay synchronous so the ORM can change consent between calls; the
    client runs its event loop in a thread of its own, the server in another.
    """

    def __init__(self, url: str, token: str | None, mode: str, headers: dict[str, str] | None = None):
        self.url, self.mode = url, mode
        self.headers = dict(headers or {})
        if token is not None:
            self.headers["Authorization"] = f"Bearer {token}"

    def run(self, operation):
        async def session():
            async with httpx2.AsyncClient(headers=self.headers, timeout=30) as http:
                transport = streamable_http_client(self.url, http_client=http)
                async with Client(transport, mode=self.mode, cache=None) as client:
                    return await operation(client)

        # A thread of its own: other fixtures (the browser tests' Playwright) may
        # keep an event loop running in the test thread for the whole session.
        with ThreadPoolExecutor(max_workers=1) as pool:
            try:
                return pool.submit(asyncio.run, session()).result()
            except BaseExceptionGroup as group:  # the SDK's task groups wrap what the call raised
                raise _leaf(group) from group

    def protocol_version(self) -> str:
        async def version(client):
            return client.protocol_version

        return self.run(version)

    def tool_names(self) -> list[str]:
        async def names(client):
            return [tool.name for tool in (await client.list_tools()).tools]

        return self.run(names)

    def call(self, name: str, arguments: dict[str, Any] | None = None):
        async def call(client):
            return await client.call_tool(name, arguments or {})

        return self.run(call)

    def read(self, uri: str) -> dict[str, Any]:
        async def read(client):
            return await client.read_resource(uri)

        result = self.run(read)
        (content,) = result.contents
        assert content.mime_type == "application/json"
        return json.loads(content.text)

    def resources(self) -> tuple[list[str], list[str]]:
        async def listing(client):
            return await client.list_resources(), await client.list_resource_templates()

        resources, templates = self.run(listing)
        return [r.uri for r in resources.resources], [t.uri_template for t in templates.resource_templates]


def bulk_share(connection, owner, count: int) -> list:
    """``count`` confirmed facts of ``owner`` shared with ``connection``, written with ``bulk_create`` (no services)."""
    from apps.consent.models import FactShare
    from apps.memory.models import Fact

    now = clock.now()
    facts = Fact.objects.bulk_create(
        Fact(owner=owner, category="preferences", label=f"Label {index}", value=f"Value {index}",
             created_at=now, updated_at=now)
        for index in range(count)
    )
    FactShare.objects.bulk_create(
        FactShare(connection=connection, fact=fact, fact_version=fact.version, shared_at=now) for fact in facts
    )
    return facts


def fact_reads(statements: list[str]) -> list[str]:
    """The statements among ``statements`` that read facts (the visible set's statement begins WITH)."""
    return [sql for sql in statements
            if '"memory_fact"' in sql and sql.lstrip().upper().startswith(("SELECT", "WITH"))]
