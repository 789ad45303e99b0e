"""What each shipping assistant sends, request by request (SPEC A-1, A-3, A-6, A-8, A-10; docs/clients.md).

A profile is the client's own discovery, registration (or client metadata
document), authorization and token requests, as its public source or its
reported traffic shows them. ``Connection`` replays one over real HTTP against
the live server, with a person who logs in on the login page and allows on the
consent page, and reads what the assistant then can.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import threading
from dataclasses import dataclass, field
from html import unescape
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from tests.consent.test_proposals_races import run_threads
from tests.oauth.flow import read_form

MCP_ACCEPT = "application/json, text/event-stream"


@dataclass(frozen=True)
class Profile:
    """One client. ``registration`` is a DCR body, or ``None`` when it identifies itself by a metadata document
    (``document``, served at ``document_path``). ``callback`` is the redirect URI it sends at authorization
    (a loopback client listens on a port of the moment); ``resource`` whether it names the resource
    (``"exact"``, ``"slash"``, or ``None`` to leave it out); ``auth`` how it authenticates at the token
    endpoint; ``origin`` the page origin of a browser-based client."""

    name: str
    callback: str
    registration: dict | None = None
    document: dict | None = None
    document_path: str = "/client.json"
    resource: str | None = "exact"
    auth: str = "none"
    origin: str | None = None
    extra_authorize: dict = field(default_factory=dict)
    refresh_resource: bool = True


@dataclass
class Replay:
    """The requests of one profile against ``origin``; what they answered is kept for the test to check."""

    profile: Profile
    origin: str
    client_id: str = ""
    client_secret: str = ""
    verifier: str = ""
    tokens: dict = field(default_factory=dict)
    challenge_scope: str = ""
    consent_html: str = ""

    def __post_init__(self):
        headers = {"Origin": self.profile.origin} if self.profile.origin else {}
        self.http = httpx.Client(base_url=self.origin, headers=headers, timeout=30)

    def close(self) -> None:
        """Close the client's connections (a socket left to the garbage collector is a ResourceWarning)."""
        self.http.close()

    # -- discovery (RFC 9728, RFC 8414), from the 401 as MCP clients start it --------------------------
    def discover(self) -> dict:
        unauthorised = self.http.post("/mcp", json={"jsonrpc": "2.0", "id": 0, "method": "initialize"},
                                      headers={"Accept": MCP_ACCEPT})
        assert unauthorised.status_code == 401, unauthorised.text
        challenge = unauthorised.headers["WWW-Authenticate"]
        self.challenge_scope = re.search(r'scope="([^"]*)"', challenge).group(1)
        metadata_url = re.search(r'resource_metadata="([^"]*)"', challenge).group(1)
        resource = self.http.get(metadata_url).json()
        server = self.http.get(resource["authorization_servers"][0] + "/.well-known/oauth-authorization-server")
        assert server.status_code == 200
        self.resource = resource["resource"]
        return server.json()

    # -- registration (RFC 7591) or a client ID metadata document ----------------------------------------
    def register(self, server: dict, documents=None) -> None:
        if self.profile.registration is None:
            assert server["client_id_metadata_document_supported"] is True
            self.client_id = documents.url(self.profile.document_path)
            documents.serve(self.profile.document_path, {"client_id": self.client_id, **self.profile.document})
            return
        response = self.http.post(server["registration_endpoint"], json=self.profile.registration)
        assert response.status_code == 201, response.text
        body = response.json()
        self.client_id, self.client_secret = body["client_id"], body.get("client_secret", "")
        assert body["token_endpoint_auth_method"] == self.profile.auth

    # -- authorization, through the person's browser ------------------------------------------------------
    def authorize_url(self, server: dict) -> str:
        self.verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(self.verifier.encode()).digest()).rstrip(b"=").decode()
        params = {"response_type": "code", "client_id": self.client_id, "redirect_uri": self.profile.callback,
                  "code_challenge": challenge, "code_challenge_method": "S256", "state": secrets.token_urlsafe(16),
                  "scope": self.challenge_scope, **self.profile.extra_authorize}
        if self.profile.resource == "exact":
            params["resource"] = self.resource
        elif self.profile.resource == "slash":
            params["resource"] = self.resource + "/"
        self.state = params["state"]
        return server["authorization_endpoint"] + "?" + urlencode(params)

    def consent(self, url: str, *, username: str, password: str) -> str:
        """Log in on the login page, allow on the consent page; returns the code the client receives."""
        with httpx.Client(base_url=self.origin, timeout=30) as browser:  # its sockets closed when done
            page = browser.get(url)
            assert page.status_code == 302 and "/accounts/login/" in page.headers["Location"]
            login = browser.get(page.headers["Location"])
            form = read_form(login.text, action=("/accounts/login/",))
            fields = dict(form.fields) | {"username": username, "password": password}
            back = browser.post(form.action + "?" + urlsplit(page.headers["Location"]).query, data=fields)
            assert back.status_code == 302, back.text
            page = browser.get(back.headers["Location"])
            assert page.status_code == 200, page.text
            self.consent_html = page.text
            form = read_form(page.text, action=("/oauth/authorize/",))
            sent = browser.post(form.action, content=urlencode([*form.fields, ("allow", "1")]),
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
            assert sent.status_code == 302, sent.text
            location = sent.headers["Location"]
            assert location.startswith(self.profile.callback + "?"), location
            query = {key: values[-1] for key, values in parse_qs(urlsplit(location).query).items()}
            assert query["state"] == self.state and query["iss"] == self.origin
            return query["code"]

    # -- the token endpoint, authenticated as the client does it ------------------------------------------
    def token(self, server: dict, data: dict) -> httpx.Response:
        headers = {}
        if self.profile.auth == "client_secret_basic":
            pair = f"{self.client_id}:{self.client_secret}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        else:
            data = {**data, "client_id": self.client_id}
            if self.profile.auth == "client_secret_post":
                data["client_secret"] = self.client_secret
        return self.http.post(server["token_endpoint"], data=data, headers=headers)

    def exchange(self, server: dict, code: str) -> dict:
        data = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.profile.callback,
                "code_verifier": self.verifier}
        if self.profile.resource:
            data["resource"] = self.resource
        response = self.token(server, data)
        assert response.status_code == 200, response.text
        self.tokens = response.json()
        return self.tokens

    def refresh(self, server: dict, refresh_token: str) -> httpx.Response:
        data = {"grant_type": "refresh_token", "refresh_token": refresh_token}
        if self.profile.refresh_resource and self.profile.resource:
            data["resource"] = self.resource
        return self.token(server, data)

    def refresh_twice_at_once(self, server: dict, refresh_token: str, *, together: bool) -> list[httpx.Response]:
        """The same refresh token twice, as two requests that found the access token expired together."""
        if not together:
            return [self.refresh(server, refresh_token) for _ in range(2)]
        barrier = threading.Barrier(2)

        def one():
            barrier.wait()
            return self.refresh(server, refresh_token)

        return run_threads(one, one)

    # -- what the assistant reads --------------------------------------------------------------------------
    def get_user_context(self, access_token: str) -> dict:
        response = self.http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                "params": {"name": "get_user_context", "arguments": {}}},
                                  headers={"Authorization": f"Bearer {access_token}", "Accept": MCP_ACCEPT,
                                           "MCP-Protocol-Version": "2025-11-25"})
        assert response.status_code == 200, response.text
        result = response.json()["result"]
        assert result["isError"] is False, result
        return result["structuredContent"]


def shown(html: str, element_id: str) -> str:
    """The text of the element with this id on a page, tags stripped ("" when there is none)."""
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</(?:p|strong)>', html, re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", match.group(1))).split()) if match else ""
