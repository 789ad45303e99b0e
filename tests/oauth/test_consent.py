"""The consent page (SPEC A-5, A-7, A-9, C-4, I-4): what it shows, and that it grants no more than it offered."""

from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model

from apps.consent.models import Connection
from apps.oauth.bearer import authenticate_bearer
from apps.oauth.models import HashedGrant
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

SHAREABLE = ["basic", "preferences", "habits", "goals", "work_study"]
CLOSED = ["health", "relationships", "uncategorized"]


def consent_page(browser, flow, **params):
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    page = browser.get(oauth_flow.authorize_url(flow.client_id, flow.challenge, **params))
    assert page.status_code == 200, page.content
    return page, oauth_flow.read_form(page.content.decode())


def submit(browser, form, fields):
    return browser.post(form.action, data=urlencode(fields), content_type="application/x-www-form-urlencoded")


def checkbox(form, name, value):
    return next(box for box in form.checkboxes if box["name"] == name and box["value"] == value)


def assert_nothing_issued():
    assert not HashedGrant.objects.exists()
    assert not Connection.objects.exists()
    assert not get_access_token_model().objects.filter(user__isnull=False).exists()


# SPEC A-7: the assistant's self-declared name, marked unverified, its redirect host, scopes in plain words.
def test_page_shows_who_asks_and_for_what(assistant, browser):
    flow = oauth_flow.registered(assistant)
    page, form = consent_page(browser, flow)
    html = page.content.decode()
    assert "Helpful Assistant" in html
    assert "unverified" in html
    assert '<strong id="redirect-host">127.0.0.1:33418</strong>' in html
    assert "Read the facts you choose to share with it" in html
    assert "Search the facts you shared with it" in html
    assert page["X-Frame-Options"] == "DENY"
    assert "no-store" in page["Cache-Control"] or "max-age=0" in page["Cache-Control"]


# SPEC A-7: the self-declared name is the assistant's own, isolated text: a direction control in it (here
# U+202E RIGHT-TO-LEFT OVERRIDE) cannot turn around the "unverified" mark or anything else on the page.
def test_a_name_with_direction_controls_stays_in_its_place(assistant, browser):
    import re

    flow = oauth_flow.registered_as(assistant, client_name="Helpful \u202eAssistant")
    page, _ = consent_page(browser, flow)
    html = page.content.decode()
    assert '<strong id="assistant-name"><bdi>Helpful Assistant</bdi></strong>' in html
    assert not re.search("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", html)


# SPEC A-5, C-4, I-4: requested scopes ticked except context:search; five categories ticked, three closed.
def test_default_choices(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    scopes = {box["value"]: box for box in form.checkboxes if box["name"] == "scopes"}
    assert set(scopes) == {"profile:read", "profile:propose", "profile:correct", "context:search"}
    assert "checked" not in scopes["context:search"]
    assert all("checked" in scopes[name] for name in ("profile:read", "profile:propose", "profile:correct"))
    categories = {box["value"]: box for box in form.checkboxes if box["name"] == "categories"}
    assert list(categories) == SHAREABLE + CLOSED
    for code in SHAREABLE:
        assert "checked" in categories[code] and "disabled" not in categories[code]
    for code in CLOSED:
        assert "disabled" in categories[code] and "checked" not in categories[code]


# SPEC A-5: only requested scopes are offered.
def test_only_requested_scopes_offered(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow, scope="profile:read")
    assert [box["value"] for box in form.checkboxes if box["name"] == "scopes"] == ["profile:read"]


# SPEC A-5: no scope asked for means the default, profile:read.
def test_no_scope_requested_offers_read(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow, scope=None)
    assert [box["value"] for box in form.checkboxes if box["name"] == "scopes"] == ["profile:read"]


# SPEC A-7, I-4: the form as rendered plus allow approves exactly the defaults, and the token carries them.
def test_defaults_become_connection_and_token(assistant, browser, user):
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    tokens = oauth_flow.exchange(assistant, flow).json()
    assert tokens["scope"] == "profile:read profile:propose profile:correct"
    connection = Connection.objects.get(user=user)
    assert connection.scopes == ["profile:read", "profile:propose", "profile:correct"]
    assert connection.categories == SHAREABLE


# SPEC A-7: the person's narrower choice is exactly what the code and token carry.
def test_narrower_choice(assistant, browser, user):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    fields = [(k, v) for k, v in form.fields if k == "offer" or k == "csrfmiddlewaretoken"]
    fields += [("scopes", "profile:read"), ("categories", "goals"), ("allow", "1")]
    oauth_flow.code_from(submit(browser, form, fields), flow)
    tokens = oauth_flow.exchange(assistant, flow).json()
    assert tokens["scope"] == "profile:read"
    assert authenticate_bearer(tokens["access_token"]).scopes == {"profile:read"}
    connection = Connection.objects.get(user=user)
    assert connection.scopes == ["profile:read"] and connection.categories == ["goals"]


# SPEC A-5: context:search is granted only when ticked, and only together with profile:read.
def test_context_search_ticked_with_read(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    oauth_flow.code_from(submit(browser, form, form.fields + [("scopes", "context:search"), ("allow", "1")]), flow)
    assert oauth_flow.exchange(assistant, flow).json()["scope"] == (
        "profile:read profile:propose profile:correct context:search"
    )


def test_context_search_refused_without_read(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    fields = [(k, v) for k, v in form.fields if k != "scopes"] + [
        ("scopes", "context:search"), ("scopes", "profile:propose"), ("allow", "1")]
    response = submit(browser, form, fields)
    assert response.status_code == 400
    assert "needs permission to read" in response.content.decode()
    assert_nothing_issued()


# SPEC A-9: a POST asking for more than the page offered is refused and issues nothing.
@pytest.mark.parametrize(
    "extra",
    [
        [("categories", "health")],
        [("categories", "relationships")],
        [("categories", "uncategorized")],
        [("categories", "secrets")],
        [("scopes", "profile:propose")],  # not requested below
        [("scopes", "admin")],
    ],
    ids=["health", "relationships", "uncategorized", "unknown-category", "unrequested-scope", "unknown-scope"],
)
def test_crafted_post_refused(assistant, browser, extra):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow, scope="profile:read")
    response = submit(browser, form, form.fields + extra + [("allow", "1")])
    assert response.status_code == 400
    assert "errorlist" in response.content.decode()
    assert_nothing_issued()


# SPEC A-9: the offer cannot be tampered with, reused by someone else, or kept for ever.
def test_tampered_offer_refused(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow, scope="profile:read")
    fields = [(k, (v[:-3] + "AAA") if k == "offer" else v) for k, v in form.fields] + [("allow", "1")]
    assert submit(browser, form, fields).status_code == 400
    assert_nothing_issued()


def test_offer_of_another_person_refused(assistant, browser, other_user):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    intruder = Client()
    intruder.force_login(other_user)
    assert submit(intruder, form, form.fields + [("allow", "1")]).status_code == 400
    assert_nothing_issued()


def test_expired_offer_refused(frozen_clock, assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    frozen_clock.advance(timedelta(minutes=16))
    response = submit(browser, form, form.fields + [("allow", "1")])
    assert response.status_code == 400
    assert "expired" in response.content.decode()
    assert_nothing_issued()


def test_no_scope_chosen_refused(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    fields = [(k, v) for k, v in form.fields if k != "scopes"] + [("allow", "1")]
    assert submit(browser, form, fields).status_code == 400
    assert_nothing_issued()


# SPEC A-7: deny sends the assistant away with access_denied and issues nothing.
def test_deny(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    response = submit(browser, form, form.fields + [("deny", "1")])
    assert response.status_code == 302
    params = oauth_flow.query_of(response["Location"])
    assert params["error"] == "access_denied" and params["state"] == "state-123"
    assert_nothing_issued()


# SPEC A-7: a new consent replaces the connection's scopes and categories.
def test_new_consent_replaces_choice(assistant, browser, user):
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    _, form = consent_page(browser, flow, scope="profile:read context:search")
    fields = [(k, v) for k, v in form.fields if k in ("offer", "csrfmiddlewaretoken")]
    fields += [("scopes", "profile:read"), ("scopes", "context:search"), ("categories", "habits"), ("allow", "1")]
    oauth_flow.code_from(submit(browser, form, fields), flow)
    connection = Connection.objects.get(user=user)
    assert connection.scopes == ["profile:read", "context:search"]
    assert connection.categories == ["habits"]


# SPEC A-7: the page is never skipped, even for an assistant already connected that asks not to prompt.
def test_consent_always_asked(assistant, browser):
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    oauth_flow.exchange(assistant, flow)
    _, challenge = oauth_flow.pkce_pair()
    response = browser.get(oauth_flow.authorize_url(flow.client_id, challenge, approval_prompt="auto"))
    assert response.status_code == 200
    response = browser.get(oauth_flow.authorize_url(flow.client_id, challenge, prompt="none"))
    assert response.status_code == 302
    assert oauth_flow.query_of(response["Location"])["error"] == "consent_required"


# SPEC I-3: an anonymous POST goes to the login page and issues nothing.
def test_anonymous_post_redirected_to_login(assistant, browser):
    flow = oauth_flow.registered(assistant)
    _, form = consent_page(browser, flow)
    anonymous = Client()
    response = submit(anonymous, form, form.fields + [("allow", "1")])
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert_nothing_issued()


# A request from an unknown client or to an unregistered redirect URI is shown as an error, never redirected.
# RFC 6749 §4.1.2.1: so is a client_id with a NUL, which names no client (and PostgreSQL cannot be asked about).
@pytest.mark.parametrize("params", [{"client_id": "nobody"}, {"client_id": "no\x00body"},
                                    {"redirect_uri": "https://evil.example/cb"}])
def test_fatal_errors_are_shown_not_redirected(assistant, browser, params):
    flow = oauth_flow.registered(assistant)
    _, challenge = oauth_flow.pkce_pair()
    url = oauth_flow.authorize_url(params.get("client_id", flow.client_id), challenge,
                                   **{k: v for k, v in params.items() if k != "client_id"})
    response = browser.get(url)
    assert response.status_code == 400
    assert "cannot be accepted" in response.content.decode()
