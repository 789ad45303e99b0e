"""Drive the OAuth flow the way an assistant and a browser do, through the real pages."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlsplit

from django.conf import settings

from apps.common import clock

REDIRECT_URI = "http://127.0.0.1:33418/callback"
SDK_SCOPE = "context:search profile:correct profile:propose profile:read"  # what the MCP SDK asks for


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def register(client, **overrides):
    body = {
        "client_name": "Helpful Assistant",
        "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    body.update(overrides)
    body = {key: value for key, value in body.items() if value is not None}
    return client.post("/oauth/register/", data=json.dumps(body), content_type="application/json")


def authorize_url(client_id: str, challenge: str, **params) -> str:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "state": "state-123",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": settings.MCP_RESOURCE_URL,
        "scope": SDK_SCOPE,
    }
    query.update(params)
    return "/oauth/authorize/?" + urlencode({k: v for k, v in query.items() if v is not None})


class _Form:
    def __init__(self, action):
        self.action = action
        self.fields: list[tuple[str, str]] = []
        self.checkboxes: list[dict] = []


class _FormReader(HTMLParser):
    """What a browser submits for each POST form: hidden and text fields, ticked and enabled checkboxes."""

    def __init__(self):
        super().__init__()
        self.forms: list[_Form] = []
        self._current = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and (attrs.get("method") or "").lower() == "post":
            self._current = _Form(attrs.get("action"))
            self.forms.append(self._current)
        elif tag == "input" and self._current is not None:
            kind = attrs.get("type", "text")
            if kind == "checkbox":
                self._current.checkboxes.append(attrs)
                if "checked" in attrs and "disabled" not in attrs:
                    self._current.fields.append((attrs["name"], attrs.get("value", "on")))
            elif kind in ("hidden", "text", "password") and "name" in attrs:
                self._current.fields.append((attrs["name"], attrs.get("value", "")))

    def handle_endtag(self, tag):
        if tag == "form":
            self._current = None


def read_form(html: str, action: tuple[str, ...] = ("/oauth/authorize/", "/accounts/login/")) -> _Form:
    """The page's consent or login form (not the header's language or logout forms)."""
    reader = _FormReader()
    reader.feed(html)
    matching = [form for form in reader.forms if form.action in action]
    assert len(matching) == 1, [form.action for form in reader.forms]
    return matching[0]


def query_of(location: str) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlsplit(location).query).items()}


@dataclass
class Flow:
    """One assistant's progress: its registration, PKCE pair and tokens."""

    client_id: str
    verifier: str = ""
    challenge: str = ""
    code: str = ""
    tokens: list[dict] = field(default_factory=list)
    secrets_seen: set[str] = field(default_factory=set)

    def remember(self, *values):
        self.secrets_seen.update(value for value in values if value)


def registered(client) -> Flow:
    return registered_as(client)


def registered_as(client, **overrides) -> Flow:
    response = register(client, **overrides)
    assert response.status_code == 201, response.content
    data = response.json()
    flow = Flow(client_id=data["client_id"])
    flow.remember(data["registration_access_token"])
    return flow


def approve(browser, flow: Flow, *, extra: list[tuple[str, str]] | None = None, **params):
    """GET the consent page, submit it as rendered plus ``allow``; return the POST response."""
    flow.verifier, flow.challenge = pkce_pair()
    flow.remember(flow.verifier)
    page = browser.get(authorize_url(flow.client_id, flow.challenge, **params))
    assert page.status_code == 200, page.content
    form = read_form(page.content.decode())
    data = form.fields + [("allow", "1")] + list(extra or [])
    return browser.post(form.action, data=urlencode(data), content_type="application/x-www-form-urlencoded")


def code_from(response, flow: Flow) -> str:
    assert response.status_code == 302, response.content
    params = query_of(response["Location"])
    assert "code" in params, response["Location"]
    flow.code = params["code"]
    flow.remember(flow.code)
    return flow.code


def exchange(client, flow: Flow, *, code=None, verifier=None, resource=settings.MCP_RESOURCE_URL, **extra):
    data = {
        "grant_type": "authorization_code",
        "code": code or flow.code,
        "redirect_uri": REDIRECT_URI,
        "client_id": flow.client_id,
        "code_verifier": verifier or flow.verifier,
        "resource": resource,
    }
    data.update(extra)
    return _token_call(client, flow, data)


def refresh(client, flow: Flow, refresh_token: str, *, resource=settings.MCP_RESOURCE_URL, **extra):
    data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": flow.client_id,
            "resource": resource}
    data.update(extra)
    return _token_call(client, flow, data)


def _token_call(client, flow, data):
    body = urlencode({key: value for key, value in data.items() if value is not None})
    response = client.post("/oauth/token/", data=body, content_type="application/x-www-form-urlencoded")
    if response.status_code == 200:
        tokens = response.json()
        flow.tokens.append(tokens)
        flow.remember(tokens.get("access_token"), tokens.get("refresh_token"))
    return response


def past_the_grace_window():
    """The product clock, frozen just past the window in which a rotated refresh token still works (SPEC A-3)."""
    return clock.frozen_at(clock.now() + settings.OAUTH_REFRESH_GRACE + timedelta(seconds=1))


def full_flow(assistant, browser):
    """Everything that mints or presents a secret, including the refused replays."""
    flow = registered(assistant)
    code_from(approve(browser, flow), flow)
    first = exchange(assistant, flow).json()
    second = refresh(assistant, flow, first["refresh_token"]).json()
    with past_the_grace_window():
        refresh(assistant, flow, first["refresh_token"])  # replay → family revoked
    exchange(assistant, flow)  # code replay
    again = Flow(client_id=flow.client_id)
    code_from(approve(browser, again), again)
    exchange(assistant, again)
    flow.remember(*again.secrets_seen, second["access_token"])
    assert len(flow.secrets_seen) >= 9
    return flow
