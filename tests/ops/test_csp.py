"""A Content-Security-Policy on every page (issue 19 #9; django-csp).

The pages need no inline script or style: the policy allows scripts, styles,
images and fonts from the site itself only, no plugins, no <base>, no
framing, forms posting to the site (the consent page excepted: approving
sends the browser on to the assistant's redirect URI). Checked on every page
as served, and by scanning the project's templates for anything inline.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.accounts.factors import verified_login
from tests.consent.factories import make_connection, make_fact
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def policy(response) -> dict[str, list[str]]:
    header = response.get("Content-Security-Policy", "")
    assert header, (response.status_code, response.request.get("PATH_INFO"), "no Content-Security-Policy")
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


def assert_strict(response, *, form_action=True):
    directives = policy(response)
    for name in ("default-src", "script-src", "style-src"):
        assert directives.get(name) == ["'self'"], (name, directives)
    for name in ("object-src", "base-uri", "frame-ancestors"):
        assert directives.get(name) == ["'none'"], (name, directives)
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    assert "'unsafe-eval'" not in response["Content-Security-Policy"]
    if form_action:
        assert directives.get("form-action") == ["'self'"], directives
    else:
        assert "form-action" not in directives


class InlineFinder(HTMLParser):
    """Script or style the policy would refuse: inline <script>/<style>, style= and on…= attributes,
    javascript: URLs."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []
        self._script_inline = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and not attrs.get("src") and attrs.get("type") not in ("application/json",):
            self._script_inline = True
        if tag == "style":
            self.found.append("<style>")
        for name, value in attrs.items():
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}=…>")
            scripted = (value or "").strip().lower().startswith("javascript:")
            if name in ("href", "src", "action", "formaction") and scripted:
                self.found.append(f"<{tag} {name}=javascript:…>")

    def handle_data(self, data):
        if self._script_inline and data.strip():
            self.found.append("inline <script>")

    def handle_endtag(self, tag):
        if tag == "script":
            self._script_inline = False


def inline_parts(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


@pytest.fixture
def person(user):
    connection = make_connection(user)
    make_fact(user)
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(user)
    return browser, connection


def test_the_persons_pages(person):
    browser, connection = person
    for url in ("/me/facts/", "/me/assistants/", f"/me/assistants/{connection.pk}/"):
        response = browser.get(url)
        assert response.status_code == 200
        assert_strict(response)
        assert inline_parts(response.content.decode()) == [], url
    assert_strict(browser.get("/me/export/"))


def test_login_lockout_and_error_pages():
    anonymous = Client(headers={"accept-language": "en"})
    for url in ("/accounts/login/", "/no-such-page/"):
        response = anonymous.get(url)
        assert_strict(response)
        assert inline_parts(response.content.decode()) == [], url
    for _ in range(6):
        locked = anonymous.post("/accounts/login/", {"username": "x", "password": "y"})
    assert locked.status_code == 429
    assert_strict(locked)
    assert inline_parts(locked.content.decode()) == []


def test_the_consent_page(user):
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(user)
    flow = oauth_flow.registered(Client())
    flow.verifier, flow.challenge = oauth_flow.pkce_pair()
    page = browser.get(oauth_flow.authorize_url(flow.client_id, flow.challenge))
    assert page.status_code == 200
    # Approving posts here and is redirected to the assistant's redirect URI, which a form-action of
    # 'self' would make the browser refuse: that one directive is left out on this page.
    assert_strict(page, form_action=False)
    assert inline_parts(page.content.decode()) == []


def test_admin_pages(user):
    staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "staff-password")
    admin = verified_login(Client(), staff)
    for url in ("/admin/", "/admin/accounts/user/", f"/admin/accounts/user/{user.pk}/change/", "/admin/login/"):
        assert_strict(admin.get(url))


def test_discovery_and_api_answers_carry_it_too():
    for url in ("/.well-known/oauth-authorization-server", "/healthz"):
        assert policy(Client().get(url))["default-src"] == ["'self'"]


# The project's own templates hold nothing inline, so the policy never needs 'unsafe-inline'.
@pytest.mark.parametrize("template", sorted(str(path.relative_to(TEMPLATES)) for path in TEMPLATES.rglob("*.html")))
def test_templates_hold_nothing_inline(template):
    source = (TEMPLATES / template).read_text()
    assert not re.search(r"<style\b", source), template
    assert not re.search(r"\sstyle\s*=", source), template
    assert not re.search(r"\son[a-z]+\s*=", source), template
    assert not re.search(r"javascript:", source, re.I), template
    for script in re.finditer(r"<script\b([^>]*)>", source):
        assert "src=" in script.group(1), template
