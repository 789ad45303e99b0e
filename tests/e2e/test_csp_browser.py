"""The Content-Security-Policy as Chromium applies it: no page breaks it, and consent still reaches the assistant.

Issue 19 #9. Every product page a person or staff opens is loaded in the
browser with a listener for CSP violations; the consent form is approved and
the browser must arrive at the assistant's loopback redirect URI (the
consent page alone has no ``form-action``, which browsers also apply to the
redirect after a form is sent).
"""

from __future__ import annotations

import contextlib
import http.server
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.accounts.factors import authenticator, code_for
from tests.consent.factories import make_connection, make_fact
from tests.oauth import flow as oauth_flow
from tests.services import free_port, serving

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("compiled_catalogs")]

PASSWORD = "correct-horse-battery"


def watch(page) -> list[str]:
    """Every CSP violation the page reports, from the console and from the DOM event."""
    seen: list[str] = []
    page.on("console", lambda message: seen.append(message.text)
            if "Content Security Policy" in message.text or "Refused to" in message.text else None)
    page.add_init_script("document.addEventListener('securitypolicyviolation', e => "
                         "console.error('Content Security Policy violation: ' + e.violatedDirective + ' ' + "
                         "e.blockedURI))")
    return seen


@contextlib.contextmanager
def callback_server():
    """The assistant's loopback callback (RFC 8252): answers 200 to anything, on a free port of 127.0.0.1."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    with serving(http.server.HTTPServer(("127.0.0.1", free_port()), Handler)) as port:
        yield f"http://127.0.0.1:{port}/callback"


def log_in(page, origin, username, next_path="/me/facts/"):
    page.goto(f"{origin}/accounts/login/?next={next_path}")
    page.fill('input[name="username"]', username)
    page.fill('input[name="password"]', PASSWORD)
    with page.expect_navigation():
        page.locator('form[action="/accounts/login/"] button[type=submit]').click()


def test_no_page_violates_the_policy(live_server, transactional_db, browser, public_origin):
    user = get_user_model().objects.create_user(username="csp-person", password=PASSWORD)
    staff_device = authenticator(get_user_model().objects.create_superuser("csp-staff", "staff@example.com", PASSWORD))
    connection = make_connection(user)
    make_fact(user)
    origin = public_origin

    context = browser.new_context(locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15000)
    violations = watch(page)
    log_in(page, origin, "csp-person")
    for path in ("/me/facts/", "/me/assistants/", f"/me/assistants/{connection.pk}/", "/me/security/",
                 "/me/security/authenticator/"):
        response = page.goto(origin + path)
        assert response.status == 200 and response.headers.get("content-security-policy"), path
        with page.expect_navigation():  # me.js submits the switch on a pick: a script that must run
            page.select_option("#language-select", "zh-hans")
        assert page.locator("html").get_attribute("lang") == "zh-hans", path
        with page.expect_navigation():
            page.select_option("#language-select", "en")

    # Consent: approve, and the browser reaches the assistant's loopback redirect URI with a code.
    with callback_server() as callback:
        flow = oauth_flow.registered_as(Client(), redirect_uris=[callback])
        flow.verifier, flow.challenge = oauth_flow.pkce_pair()
        page.goto(origin + oauth_flow.authorize_url(flow.client_id, flow.challenge, redirect_uri=callback))
        assert page.locator("#consent-form").count() == 1
        with page.expect_navigation(url=lambda url: url.startswith(callback)):
            page.locator('#consent-form button[name="allow"]').click()
        assert "code" in parse_qs(urlsplit(page.url).query)
    context.close()

    staff = browser.new_context(locale="en-US")
    admin = staff.new_page()
    admin.set_default_timeout(15000)
    admin_violations = watch(admin)
    admin.goto(f"{origin}/admin/login/?next=/admin/")
    admin.fill('input[name="username"]', "csp-staff")
    admin.fill('input[name="password"]', PASSWORD)
    with admin.expect_navigation():
        admin.locator("#login-form [type=submit]").click()
    assert "/accounts/second-factor/" in admin.url  # SPEC AD-3: the code, after the password
    admin.fill('input[name="code"]', code_for(staff_device))
    with admin.expect_navigation():
        admin.locator("#second-factor-form [type=submit]").click()
    for path in ("/admin/", "/admin/accounts/user/", f"/admin/accounts/user/{user.pk}/change/",
                 "/admin/consent/connection/", "/admin/axes/accessattempt/"):
        response = admin.goto(origin + path)
        assert response.status == 200, path
    staff.close()

    assert violations == [], violations
    assert admin_violations == [], admin_violations
