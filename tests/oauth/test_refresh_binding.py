"""A refresh token is bound to its client, its resource and its family (SPEC A-2, A-3, A-6).

Each test here was seen failing with the rule it names removed from the
validator (docs/testing.md).
"""

from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.conf import settings
from oauth2_provider.models import get_refresh_token_model

from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import TokenFamily
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

RefreshToken = get_refresh_token_model()


def connect(assistant, browser) -> oauth_flow.Flow:
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    assert oauth_flow.exchange(assistant, flow).status_code == 200
    return flow


def assert_untouched(assistant, flow):
    """The pair still works and its refresh token was not rotated: it refreshes once, normally."""
    tokens = flow.tokens[0]
    assert authenticate_bearer(tokens["access_token"]) is not None
    assert TokenFamily.objects.filter(revoked_at__isnull=False).count() == 0
    response = oauth_flow.refresh(assistant, flow, tokens["refresh_token"])
    assert response.status_code == 200, response.content


# SPEC A-3: one client's refresh token presented by another client the same person also connected is
# refused, and rotates nothing. (The other client's own live connection is what makes this the
# validator's decision: without one the exchange is refused later, for want of a connection.)
def test_refresh_token_of_another_connected_client_is_refused(assistant, browser):
    one = connect(assistant, browser)
    two = connect(assistant, browser)
    response = oauth_flow.refresh(assistant, two, one.tokens[0]["refresh_token"])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert len(two.tokens) == 1
    assert_untouched(assistant, one)


# SPEC A-3: a refresh token nobody was issued is an ordinary refusal, not a server error.
def test_unknown_refresh_token_is_invalid_grant(assistant, connected):
    response = oauth_flow.refresh(assistant, connected, "never-issued-" + "x" * 30)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert_untouched(assistant, connected)


# SPEC A-6: on refresh, a resource on another origin or another path of this origin is refused before
# anything rotates (a missing one inherits /mcp: tests/oauth/test_rules.py).
@pytest.mark.parametrize(
    "resource",
    [
        "https://elsewhere.example/mcp",
        settings.MCP_RESOURCE_URL.rsplit("/", 1)[0] + "/api",
        settings.MCP_RESOURCE_URL + "/other",
    ],
    ids=["other-origin", "other-path", "sub-path"],
)
def test_refresh_for_another_resource_is_refused(assistant, connected, resource):
    response = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"], resource=resource)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"
    assert_untouched(assistant, connected)


# SPEC A-6: one resource indicator, exactly: /mcp sent twice is refused at refresh as it is at the
# authorization and the code exchange (the toolkit's own binding check lets a repeat through).
def test_refresh_with_the_resource_repeated_is_refused(assistant, connected):
    body = urlencode([("grant_type", "refresh_token"), ("refresh_token", connected.tokens[0]["refresh_token"]),
                      ("client_id", connected.client_id), ("resource", settings.MCP_RESOURCE_URL),
                      ("resource", settings.MCP_RESOURCE_URL)])
    response = assistant.post("/oauth/token/", data=body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_target"
    assert_untouched(assistant, connected)


# SPEC A-3: a family ended by a code replay keeps that reason (and time) when a rotated refresh token
# of it is replayed later: the person's notice names the first attack, not the last.
def test_a_revoked_family_keeps_its_first_reason(frozen_clock, assistant, connected):
    first = connected.tokens[0]
    assert oauth_flow.refresh(assistant, connected, first["refresh_token"]).status_code == 200
    assert oauth_flow.exchange(assistant, connected).status_code == 400  # code replay
    family = TokenFamily.objects.get()
    assert family.revoked_reason == "code_replay"
    # Past any grace window for a just-rotated token (SPEC A-3, at most 60 s).
    frozen_clock.advance(timedelta(minutes=5))
    assert oauth_flow.refresh(assistant, connected, first["refresh_token"]).status_code == 400
    again = TokenFamily.objects.get()
    assert (again.revoked_reason, again.revoked_at) == ("code_replay", family.revoked_at)


# SPEC A-2: a refresh token whose family record is gone (purged) refreshes nothing.
def test_refresh_without_a_family_record_is_refused(assistant, connected):
    TokenFamily.objects.all().delete()
    response = oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    assert RefreshToken.objects.filter(revoked=None).count() == 1
