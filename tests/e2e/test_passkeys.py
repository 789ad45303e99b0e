"""Passkeys as a second factor in Chromium, with the DevTools virtual authenticator (SPEC AD-3).

Chromium's ``WebAuthn`` domain (CDP ``WebAuthn.enable`` + ``WebAuthn.addVirtualAuthenticator``) stands in for
a security key or a phone: it creates and signs real credentials, which django-otp-webauthn verifies like any
other. The live server is the public origin (``http://localhost:<port>``, a secure context; the relying party
is ``localhost``, as ``PUBLIC_BASE_URL`` says).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django_otp_webauthn.models import WebAuthnCredential

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("compiled_catalogs")]

PASSWORD = "correct-horse-battery"
AUTHENTICATOR = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                 "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True}


def with_authenticator(browser):
    """A browser page with a virtual authenticator attached; returns (context, page, cdp, authenticator id)."""
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15000)
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return context, page, cdp, added["authenticatorId"]


def admin_login(page, origin, username):
    page.goto(f"{origin}/admin/login/?next=/admin/")
    page.fill('input[name="username"]', username)
    page.fill('input[name="password"]', PASSWORD)
    with page.expect_navigation():
        page.locator("#login-form [type=submit]").click()


# SPEC AD-3: staff add a passkey on their security page (JavaScript), then their login asks for it, and it opens
# the admin; a browser without it stays at the second factor.
def test_staff_add_a_passkey_then_sign_in_with_it(live_server, transactional_db, browser, public_origin):
    staff = get_user_model().objects.create_superuser("keyholder", "key@example.com", PASSWORD)
    origin = public_origin
    assert origin.startswith("http://localhost:")
    context, page, cdp, authenticator = with_authenticator(browser)

    admin_login(page, origin, "keyholder")
    assert "/me/security/" in page.url  # no factor yet: staff must add one before the admin opens
    assert page.locator("#must-enrol").count() == 1
    with page.expect_navigation():  # security.js shows the page again once the passkey is added
        page.locator("#passkey-register-button").click()
    credential = WebAuthnCredential.objects.get(user=staff)
    assert page.locator("#passkeys li").count() == 1
    assert len(cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]) == 1
    assert page.goto(f"{origin}/admin/").status == 200  # adding it marked this session verified

    # A new login: the password, then the passkey.
    page.goto(f"{origin}/me/facts/")
    with page.expect_navigation():
        page.locator("form[action='/accounts/logout/'] button").first.click()
    admin_login(page, origin, "keyholder")
    assert "/accounts/second-factor/" in page.url
    assert page.goto(f"{origin}/admin/").url.startswith(f"{origin}/accounts/second-factor/")
    page.goto(f"{origin}/accounts/second-factor/?next=/admin/")
    with page.expect_navigation(url=f"{origin}/admin/"):
        page.locator("#passkey-verification-button").click()
    assert page.locator("#site-name").count() == 1  # the admin's own header
    credential.refresh_from_db()
    assert credential.last_used_at is not None
    context.close()

    # Another browser, its own authenticator without that credential: the passkey check fails and is counted.
    other, page, _cdp, _id = with_authenticator(browser)
    admin_login(page, origin, "keyholder")
    page.goto(f"{origin}/accounts/second-factor/?next=/admin/")
    page.locator("#passkey-verification-button").click()
    # The browser finds no credential for this site and says so (Playwright's locator waits without page script).
    page.locator("#passkey-verification-status-message", has_text="not allowed").wait_for()
    assert "/accounts/second-factor/" in page.url
    assert page.goto(f"{origin}/admin/").url.startswith(f"{origin}/accounts/second-factor/")
    other.close()
