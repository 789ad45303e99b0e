"""Concurrency is not theft (SPEC A-3): the grace window for a refresh token its own client just rotated.

Clients refresh several times at once when several requests find the access
token expired together (the MCP TypeScript SDK's auth() runs per request; VS
Code and Claude Code were seen doing it). Within the window every such request
gets a working pair of the same family and the family survives; after it, the
old token is a replay and the family dies — the theft rule stands.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from oauth2_provider.models import get_refresh_token_model

from apps.common import clock
from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import TokenFamily
from tests.consent.test_proposals_races import run_threads
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db


def family_count() -> int:
    return get_refresh_token_model().objects.values("token_family").distinct().count()


# SPEC A-3: the same token twice within the window: two working pairs, one family, no notice.
@pytest.mark.parametrize("later", [timedelta(0), timedelta(seconds=10)], ids=["at-once", "at-the-edge"])
def test_refresh_twice_within_the_window(frozen_clock, assistant, connected, later):
    first = connected.tokens[0]
    one = oauth_flow.refresh(assistant, connected, first["refresh_token"])
    clock.advance(later)
    two = oauth_flow.refresh(assistant, connected, first["refresh_token"])
    assert one.status_code == 200 and two.status_code == 200, two.content
    one, two = one.json(), two.json()
    assert one["refresh_token"] != two["refresh_token"]
    assert authenticate_bearer(one["access_token"]) is not None
    assert authenticate_bearer(two["access_token"]) is not None
    assert family_count() == 1
    family = TokenFamily.objects.get()
    assert family.revoked_at is None and family.revoked_reason == ""
    # Both branches keep working: each refresh token rotates on its own.
    assert oauth_flow.refresh(assistant, connected, one["refresh_token"]).status_code == 200
    assert oauth_flow.refresh(assistant, connected, two["refresh_token"]).status_code == 200


# SPEC A-3: one second past the window the same presentation is a replay: the family dies.
def test_after_the_window_a_replay_revokes(frozen_clock, assistant, connected):
    first = connected.tokens[0]
    second = oauth_flow.refresh(assistant, connected, first["refresh_token"]).json()
    clock.advance(settings.OAUTH_REFRESH_GRACE + timedelta(seconds=1))
    response = oauth_flow.refresh(assistant, connected, first["refresh_token"])
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    assert authenticate_bearer(second["access_token"]) is None
    assert TokenFamily.objects.get().revoked_reason == "refresh_replay"


# SPEC A-3: the window is for the client the token belongs to; another client presenting it gets nothing.
def test_another_client_gets_no_grace(frozen_clock, assistant, browser, connected):
    first = connected.tokens[0]
    second = oauth_flow.refresh(assistant, connected, first["refresh_token"]).json()
    other = oauth_flow.registered_as(assistant, client_name="Other")
    response = oauth_flow.refresh(assistant, other, first["refresh_token"])
    assert response.status_code == 400
    assert authenticate_bearer(second["access_token"]) is None  # a stolen token shown elsewhere is theft


# SPEC A-3: a token several rotations old is no concurrent refresh, even within the window.
def test_an_older_generation_gets_no_grace(frozen_clock, assistant, connected):
    tokens = [connected.tokens[0]]
    for _ in range(2):
        tokens.append(oauth_flow.refresh(assistant, connected, tokens[-1]["refresh_token"]).json())
    response = oauth_flow.refresh(assistant, connected, tokens[0]["refresh_token"])
    assert response.status_code == 400
    assert TokenFamily.objects.get().revoked_reason == "refresh_replay"


# SPEC A-3: the window is a setting of at most a minute, 10 s by default.
def test_grace_setting():
    assert settings.OAUTH_REFRESH_GRACE == timedelta(seconds=10)
    import subprocess
    import sys

    for value, ok in (("60", True), ("61", False), ("-1", False)):
        code = subprocess.run([sys.executable, "-c", "import django; django.setup()"], capture_output=True,
                              env={"OAUTH_REFRESH_GRACE_SECONDS": value, "DJANGO_SETTINGS_MODULE": "config.settings",
                                   "PATH": "/usr/bin:/bin"}).returncode
        assert (code == 0) == ok, value


# SPEC A-3: two refreshes with one token, truly at once (PostgreSQL, two connections): both succeed, one family.
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_refreshes_at_once(assistant, connected):
    first = connected.tokens[0]
    barrier = threading.Barrier(2)

    def refresh():
        barrier.wait()
        return oauth_flow.refresh(Client(), connected, first["refresh_token"])

    results = run_threads(refresh, refresh)
    assert [response.status_code for response in results] == [200, 200], [r.content for r in results]
    assert all(authenticate_bearer(response.json()["access_token"]) is not None for response in results)
    assert family_count() == 1
    assert TokenFamily.objects.get().revoked_at is None
