"""A second factor after the password (SPEC AD-3), throttled like the password (SPEC A-11).

Driven through the real pages with Django's test client: the authenticator app is added on
``/me/security/authenticator/`` from the key the page shows, its codes are computed with django-otp's own
TOTP, and logging in then asks for a code on ``/accounts/second-factor/`` before anything else opens.
"""

from __future__ import annotations

import base64
import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from apps.accounts.models import RecoveryCode, RecoveryCodes, SecondFactorFailure
from apps.accounts.services import recovery_codes_issue
from tests.accounts.factors import authenticator, code_for, verified_login

pytestmark = pytest.mark.django_db

LIMIT = settings.AXES_FAILURE_LIMIT
ADDRESS = "203.0.113.20"
ELSEWHERE = "198.51.100.30"
ADMIN_PAGES = ["/admin/", "/admin/accounts/user/", "/admin/consent/connection/", "/admin/axes/accessattempt/"]


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("root", "root@example.com", "root-password")


def browser(language="en") -> Client:
    return Client(headers={"accept-language": language}, REMOTE_ADDR=ADDRESS)


def password_login(client, username, password, path="/accounts/login/", next_path=""):
    data = {"username": username, "password": password}
    if next_path:
        data["next"] = next_path
    response = client.post(path, data)
    assert response.status_code == 302, response.content[:300]
    return response


def secret_on_page(page) -> str:
    """The key the authenticator page shows for typing in, as hex."""
    shown = re.search(r'<code id="totp-secret">([A-Z2-7 ]+)</code>', page.content.decode()).group(1)
    return base64.b32decode(shown.replace(" ", "")).hex()


def add_app_through_the_page(client) -> tuple[str, str, list[str]]:
    """Add an authenticator app on its page: its key, the code that confirmed it, the recovery codes shown."""
    page = client.get("/me/security/authenticator/")
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    assert 'src="data:image/svg+xml;base64,' in page.content.decode()  # the QR code, no script needed
    key = secret_on_page(page)
    wrong = client.post("/me/security/authenticator/", {"code": "000000" if code_for(key) != "000000" else "111111"})
    assert wrong.status_code == 400 and not TOTPDevice.objects.exists()
    confirming = code_for(key)
    done = client.post("/me/security/authenticator/", {"code": confirming})
    assert done.status_code == 200, done.content[:500]
    codes = re.findall(r"<li><code>([a-z0-9-]+)</code></li>", done.content.decode())
    return key, confirming, codes


# SPEC AD-3: staff who signed in with a password alone see no admin page; they are sent to add a factor.
def test_staff_without_a_factor_never_see_the_admin(staff):
    client = browser()
    arrived = password_login(client, "root", "root-password", path="/admin/login/", next_path="/admin/")
    assert arrived.url == "/admin/"
    for path in [*ADMIN_PAGES, "/me/facts/", "/accounts/login/"]:
        response = client.get(path)
        assert response.status_code == 302 and response.url.startswith("/me/security/?next="), path
    security = client.get("/me/security/")
    assert security.status_code == 200 and 'id="must-enrol"' in security.content.decode()
    assert "no-store" in security["Cache-Control"]


# SPEC AD-3: end to end — add the app on the pages, then every login asks for its code after the password.
def test_staff_add_an_app_then_log_in_with_its_code(staff):
    client = browser()
    password_login(client, "root", "root-password", path="/admin/login/", next_path="/admin/")
    key, confirming, codes = add_app_through_the_page(client)
    assert len(codes) == 10 and len(set(codes)) == 10
    assert RecoveryCode.objects.filter(device__user=staff).count() == 10
    assert not RecoveryCode.objects.filter(digest__in=codes).exists()  # kept only as digests
    for path in ADMIN_PAGES:
        assert client.get(path).status_code == 200, path  # this session gave the code while adding the app

    client.post("/accounts/logout/")
    arrived = password_login(client, "root", "root-password", path="/admin/login/", next_path="/admin/")
    for path in ADMIN_PAGES:
        blocked = client.get(path)
        assert blocked.status_code == 302 and blocked.url.startswith("/accounts/second-factor/?next="), path
    ask = client.get(client.get(arrived.url).url)
    assert ask.status_code == 200 and 'name="code"' in ask.content.decode() and "no-store" in ask["Cache-Control"]
    refused = client.post("/accounts/second-factor/", {"code": "12345", "next": "/admin/"})
    assert refused.status_code == 400 and client.get("/admin/").status_code == 302
    # The code that added the app is used up; the next one the app shows logs in.
    used = client.post("/accounts/second-factor/", {"code": confirming, "next": "/admin/"})
    assert used.status_code == 400
    _time_passes(timedelta(seconds=2))  # django-otp's own back-off after a failure: a second
    right = client.post("/accounts/second-factor/", {"code": code_for(key, steps=1), "next": "/admin/"})
    assert right.status_code == 302 and right.url == "/admin/"
    for path in ADMIN_PAGES:
        assert client.get(path).status_code == 200, path


# SPEC AD-3: a person (not staff) may add an app too; from then on their login asks for it, consent included.
def test_a_person_adds_an_app_and_their_login_asks_for_it(user):
    client = browser()
    password_login(client, "alice", "alice-password")
    assert client.get("/me/facts/").status_code == 200  # no factor yet: nothing is asked
    key, _confirming, _codes = add_app_through_the_page(client)
    client.post("/accounts/logout/")
    arrived = password_login(client, "alice", "alice-password", next_path="/me/assistants/")
    assert arrived.url == "/me/assistants/"
    for path in ["/me/facts/", "/me/assistants/", "/me/security/", "/me/export/",
                 "/oauth/authorize/?client_id=x&response_type=code"]:
        response = client.get(path)
        assert response.status_code == 302 and response.url.startswith("/accounts/second-factor/"), path
    done = client.post("/accounts/second-factor/", {"code": code_for(key, steps=1), "next": "/me/assistants/"})
    assert done.url == "/me/assistants/" and client.get("/me/facts/").status_code == 200


# SPEC AD-3: a recovery code logs in once, in place of the app; the others keep working.
def test_a_recovery_code_works_once(user):
    authenticator(user)
    codes = recovery_codes_issue(user=user, name="Recovery codes")
    client = browser()
    password_login(client, "alice", "alice-password")
    assert client.post("/accounts/second-factor/", {"code": codes[0].upper().replace("-", " ")}).status_code == 302
    assert client.get("/me/facts/").status_code == 200
    client.post("/accounts/logout/")
    password_login(client, "alice", "alice-password")
    assert client.post("/accounts/second-factor/", {"code": codes[0]}).status_code == 400
    _time_passes(timedelta(seconds=2))  # django-otp's own back-off after one failure: a second
    assert client.post("/accounts/second-factor/", {"code": codes[1]}).status_code == 302
    assert RecoveryCode.objects.filter(device__user=user).count() == 8


def _fail(client, times):
    return [client.post("/accounts/second-factor/", {"code": "000000"}) for _ in range(times)]


def _time_passes(by):
    """Move the failures (and django-otp's per-device back-off) into the past, as the cool-off would."""
    for failure in SecondFactorFailure.objects.all():
        SecondFactorFailure.objects.filter(pk=failure.pk).update(at=failure.at - by)
    for model in (TOTPDevice, RecoveryCodes):
        for device in model.objects.exclude(throttling_failure_timestamp=None):
            model.objects.filter(pk=device.pk).update(
                throttling_failure_timestamp=device.throttling_failure_timestamp - by)


# SPEC A-11, AD-3: wrong codes are throttled per account — even the right code waits out the cool-off.
def test_wrong_codes_lock_the_account_for_the_cool_off(user):
    device = authenticator(user)
    client = browser()
    password_login(client, "alice", "alice-password")
    answers = _fail(client, LIMIT)
    assert all(answer.status_code == 400 for answer in answers)
    locked = client.post("/accounts/second-factor/", {"code": code_for(device)})
    assert locked.status_code == 429 and "no-store" in locked["Cache-Control"] and locked["Retry-After"] == "900"
    assert client.get("/me/facts/").status_code == 302
    # Logging in again with the right password does not reset the count (it would, for django-axes' count).
    client.post("/accounts/logout/")
    other = Client(REMOTE_ADDR=ELSEWHERE)
    password_login(other, "alice", "alice-password")
    assert other.post("/accounts/second-factor/", {"code": code_for(device)}).status_code == 429
    _time_passes(settings.AXES_COOLOFF_TIME + timedelta(minutes=1))
    assert other.post("/accounts/second-factor/", {"code": code_for(device)}).status_code == 302
    assert not SecondFactorFailure.objects.filter(user=user).exists()  # the right code starts from zero


# SPEC A-11, AD-3: and per address — wrong codes for several accounts from one address lock that address.
def test_wrong_codes_lock_the_address(user, other_user):
    authenticator(user)
    bobs = authenticator(other_user)
    first = browser()
    password_login(first, "alice", "alice-password")
    _fail(first, LIMIT)
    second = browser()
    password_login(second, "bob", "bob-password")
    assert second.post("/accounts/second-factor/", {"code": code_for(bobs)}).status_code == 429
    elsewhere = Client(REMOTE_ADDR=ELSEWHERE)
    password_login(elsewhere, "bob", "bob-password")
    assert elsewhere.post("/accounts/second-factor/", {"code": code_for(bobs)}).status_code == 302


# SPEC AD-3: with the password alone, nobody adds a factor of their own to an account that has one.
def test_a_password_alone_cannot_add_a_factor(user):
    authenticator(user)
    client = browser()
    password_login(client, "alice", "alice-password")
    for path in ["/me/security/", "/me/security/authenticator/"]:
        assert client.get(path).url.startswith("/accounts/second-factor/"), path
    for path in ["/me/security/authenticator/", "/me/security/recovery-codes/", "/me/security/authenticator/remove/",
                 "/webauthn/registration/begin/"]:
        assert client.post(path, {"code": "123456"}).url.startswith("/accounts/second-factor/"), path
    assert TOTPDevice.objects.filter(user=user).count() == 1 and not RecoveryCode.objects.exists()


# SPEC AD-3, AD-1, AD-2: the admin has no page of an authenticator app (no key, no QR code, no edit nobody sees);
# a lost factor is reset by the recorded command.
def test_the_admin_has_no_authenticator_pages(admin_client, admin_user):
    device = authenticator(admin_user)
    assert admin_client.get(f"/admin/otp_totp/totpdevice/{device.pk}/change/").status_code == 404
    assert admin_client.get("/admin/otp_totp/totpdevice/").status_code == 404
    assert device.key not in admin_client.get("/admin/").content.decode()


# SPEC AD-3, W-4: the pages speak Chinese too.
def test_the_pages_in_chinese(user):
    authenticator(user)
    client = browser("zh-hans")
    password_login(client, "alice", "alice-password")
    page = client.get("/accounts/second-factor/").content.decode()
    assert "Confirm it is you" not in page and "验证" in page


# SPEC AD-3: new recovery codes replace the old; the page that shows them is not cached.
def test_new_recovery_codes_replace_the_old(user):
    device = authenticator(user)
    old = recovery_codes_issue(user=user, name="Recovery codes")
    client = verified_login(browser(), user)
    page = client.post("/me/security/recovery-codes/")
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    new = re.findall(r"<li><code>([a-z0-9-]+)</code></li>", page.content.decode())
    assert len(new) == 10 and not set(new) & set(old)
    client.post("/accounts/logout/")
    password_login(client, "alice", "alice-password")
    assert client.post("/accounts/second-factor/", {"code": old[0]}).status_code == 400
    assert device.pk


# SPEC A-11, AD-3: a refused passkey counts like a wrong code; at the limit the passkey check is refused too.
def test_refused_passkeys_are_counted(user):
    from django_otp_webauthn.models import WebAuthnCredential

    WebAuthnCredential.objects.create(user=user, name="Key", credential_id=b"id", public_key=b"key",
                                      sign_count=0, credential_id_sha256="0" * 64)
    client = browser()
    password_login(client, "alice", "alice-password")
    for _ in range(LIMIT):
        assert client.post("/webauthn/authentication/begin/").status_code == 200
        refused = client.post("/webauthn/authentication/complete/", '{"id": "x"}', content_type="application/json")
        assert 400 <= refused.status_code < 500 and refused.status_code != 429
    assert SecondFactorFailure.objects.filter(user=user).count() == LIMIT
    client.post("/webauthn/authentication/begin/")
    locked = client.post("/webauthn/authentication/complete/", '{"id": "x"}', content_type="application/json")
    assert locked.status_code == 429 and locked.json()["code"] == "locked"
    assert client.get("/me/facts/").status_code == 302


# SPEC AD-3: what the pages cost — a fixed number of statements, whatever the person has.
def test_the_pages_statements(user, django_assert_max_num_queries):
    authenticator(user)
    recovery_codes_issue(user=user, name="Recovery codes")
    client = browser()
    password_login(client, "alice", "alice-password")
    with django_assert_max_num_queries(6):  # session, user, then the authenticator app, passkeys, recovery codes
        assert client.get("/accounts/second-factor/").status_code == 200
    verified_login(client, user)
    with django_assert_max_num_queries(9):  # session, user, the verifying device, status, factors
        assert client.get("/me/security/").status_code == 200


# SPEC AD-3: the second-factor page sends on whoever owes nothing (no factor, or already given).
def test_the_page_sends_on_whoever_owes_nothing(user):
    client = browser()
    password_login(client, "alice", "alice-password")
    assert client.get("/accounts/second-factor/?next=/me/assistants/").url == "/me/assistants/"
    verified_login(client, user)
    assert client.get("/accounts/second-factor/?next=https://evil.example/").url == "/me/facts/"


# SPEC AD-3: before the factor, the header shows nothing of the person's (no links, no waiting count).
def test_nothing_personal_before_the_factor(user):
    authenticator(user)
    client = browser()
    password_login(client, "alice", "alice-password")
    page = client.get("/accounts/second-factor/").content.decode()
    assert 'class="site-nav"' not in page and "/me/facts/" not in page
