"""Pages with personal data, the consent page and the export are never kept by a browser or a proxy (SPEC A-11).

Issue 19 #6: ``/me/`` pages sent no ``Cache-Control: no-store``, so after a
logout on a shared computer Back showed them again. Every route of the
person's pages is checked (taken from the URL configuration, so a page added
later is checked too), for GET and for the actions' POST, redirects included.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import URLPattern, get_resolver

from apps.consent.models import Proposal
from apps.consent.services import proposal_submit
from tests.consent.factories import make_connection, make_fact
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db


def assert_no_store(response, what):
    cache_control = {part.strip() for part in response.get("Cache-Control", "").lower().split(",")}
    assert "no-store" in cache_control, (what, response.status_code, response.get("Cache-Control"))
    assert "private" in cache_control, (what, response.get("Cache-Control"))
    assert "public" not in cache_control and not any(part.startswith("max-age=") and part != "max-age=0"
                                                     for part in cache_control), what


def me_routes():
    """Every URL pattern of the person's pages (apps/consent/urls.py), as reached through the site root."""
    for entry in get_resolver().url_patterns:
        namespace = getattr(entry, "namespace", None)
        if namespace == "consent":
            for pattern in entry.url_patterns:
                assert isinstance(pattern, URLPattern)
                yield str(pattern.pattern)


@pytest.fixture
def setting(user):
    connection = make_connection(user)
    fact = make_fact(user)
    proposal_submit(connection=connection, arguments={"op": "add", "category": "basic", "label": "Pet",
                                                      "value": "A cat"})
    return {"pk": None, "connection": connection.pk, "fact": fact.pk, "proposal": Proposal.objects.get().pk}


def concrete(route: str, setting) -> str:
    if "<int:pk>" not in route:
        return "/" + route
    kind = "proposal" if route.startswith("me/proposals") else "fact" if route.startswith("me/facts") else "connection"
    return "/" + route.replace("<int:pk>", str(setting[kind]))


def test_every_me_route_is_known():
    routes = list(me_routes())
    assert "me/facts/" in routes and "me/export/" in routes and len(routes) >= 14


def test_every_me_page_and_action_sends_no_store(user, setting):
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(user)
    anonymous = Client()
    for route in me_routes():
        url = concrete(route, setting)
        for client, who in ((browser, "owner"), (anonymous, "anonymous")):
            for method in ("get", "post"):
                response = getattr(client, method)(url)
                if response.status_code == 405:
                    continue
                assert_no_store(response, f"{method.upper()} {url} as {who}")


def test_the_export_sends_no_store(user, setting):
    browser = Client()
    browser.force_login(user)
    response = browser.get("/me/export/")
    assert response.status_code == 200 and response["Content-Disposition"].startswith("attachment")
    assert_no_store(response, "export")


def test_the_consent_page_sends_no_store(user):
    assistant = Client()
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(user)
    flow = oauth_flow.registered(assistant)
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    page = browser.get(oauth_flow.authorize_url(flow.client_id, flow.challenge))
    assert page.status_code == 200 and b"allow" in page.content
    assert_no_store(page, "consent page")
    refused = browser.post("/oauth/authorize/", data={"offer": "tampered", "allow": "1"})
    assert refused.status_code == 400
    assert_no_store(refused, "consent page, refused POST")
    assert_no_store(Client().get(oauth_flow.authorize_url(flow.client_id, flow.challenge)), "consent, anonymous")


def test_the_login_page_sends_no_store():
    assert_no_store(Client().get("/accounts/login/"), "login page")
