"""The memory read scopes on the consent page, and the agents' scope never reaching it (SPEC A-5, A-7, A-9, R-11)."""

from urllib.parse import urlencode

import pytest
from oauth2_provider.models import get_access_token_model

from apps.consent.models import Connection
from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import HashedGrant
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

MEMORY = ["memory:episode:read", "memory:calendar:read", "memory:todo:read", "memory:voice_memo:read",
          "memory:contact:read"]
ASKED = "profile:read " + " ".join(MEMORY)


def consent_page(browser, flow, **params):
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    page = browser.get(oauth_flow.authorize_url(flow.client_id, flow.challenge, **params))
    assert page.status_code == 200, page.content
    return page, oauth_flow.read_form(page.content.decode())


def submit(browser, form, fields):
    return browser.post(form.action, data=urlencode(fields), content_type="application/x-www-form-urlencoded")


def scope_boxes(form) -> dict:
    return {box["value"]: box for box in form.checkboxes if box["name"] == "scopes"}


def assert_nothing_issued():
    assert not HashedGrant.objects.exists()
    assert not Connection.objects.exists()
    assert not get_access_token_model().objects.filter(user__isnull=False).exists()


# SPEC: each requested memory scope is offered in plain words and starts unticked.
def test_memory_scopes_offered_unticked(assistant, browser):
    flow = oauth_flow.registered(assistant)
    page, form = consent_page(browser, flow, scope=ASKED)
    boxes = scope_boxes(form)
    assert list(boxes) == ["profile:read", *MEMORY]
    assert "checked" in boxes["profile:read"]
    assert all("checked" not in boxes[name] for name in MEMORY)
    html = page.content.decode()
    assert "List, search and read your to-dos (without their notes)" in html
    assert "never transcripts" in html


# SPEC A-5: a memory scope that was not requested is not offered.
def test_memory_scopes_offered_only_when_requested(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow, scope="profile:read memory:todo:read")
    assert list(scope_boxes(form)) == ["profile:read", "memory:todo:read"]
    _, form = consent_page(browser, flow)  # what the SDK asks for by default: no memory scope
    assert not set(scope_boxes(form)) & set(MEMORY)


# SPEC A-5, I-4: the form as rendered plus allow grants no memory scope.
def test_defaults_grant_no_memory_scope(assistant, browser, user):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow, scope=ASKED)
    oauth_flow.code_from(submit(browser, form, form.fields + [("allow", "1")]), flow)
    assert oauth_flow.exchange(assistant, flow).json()["scope"] == "profile:read"
    assert Connection.objects.get(user=user).scopes == ["profile:read"]


# SPEC: a ticked memory scope reaches the connection and the token.
def test_ticked_memory_scope_is_granted(assistant, browser, user):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow, scope=ASKED)
    oauth_flow.code_from(submit(browser, form, form.fields + [("scopes", "memory:todo:read"), ("allow", "1")]), flow)
    tokens = oauth_flow.exchange(assistant, flow).json()
    assert tokens["scope"] == "profile:read memory:todo:read"
    assert authenticate_bearer(tokens["access_token"]).scopes == {"profile:read", "memory:todo:read"}
    assert Connection.objects.get(user=user).scopes == ["profile:read", "memory:todo:read"]


# SPEC A-9: a POST with a memory scope that was not requested is refused and issues nothing.
@pytest.mark.parametrize("extra", ["memory:episode:read", "memory:digest:read", "internal:agents"])
def test_unrequested_memory_scope_refused(assistant, browser, extra):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow, scope="profile:read memory:todo:read")
    response = submit(browser, form, form.fields + [("scopes", extra), ("allow", "1")])
    assert response.status_code == 400
    assert "errorlist" in response.content.decode()
    assert_nothing_issued()


# SPEC A-1, A-5: an assistant asking for the internal agents' scope (or a scope that does not exist) gets no
# consent page: the request is refused with invalid_scope and nothing is issued.
@pytest.mark.parametrize("scope", ["internal:agents", "profile:read internal:agents", "memory:digest:read"])
def test_agents_scope_refused_at_authorize(assistant, browser, scope):
    flow = oauth_flow.registered(assistant)
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    response = browser.get(oauth_flow.authorize_url(flow.client_id, flow.challenge, scope=scope))
    assert response.status_code == 302
    assert oauth_flow.query_of(response["Location"])["error"] == "invalid_scope"
    assert_nothing_issued()
