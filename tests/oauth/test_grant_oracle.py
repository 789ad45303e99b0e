"""The token endpoint refuses every grant an assistant may not use before it reads any credential (SPEC A-1).

Issue 19 #1: ``grant_type=password`` answered ``unauthorized_client`` for a right
password and ``invalid_grant "Invalid credentials given."`` for a wrong one, so
anyone could test a person's password with any registered client.
"""

from unittest import mock
from urllib.parse import urlencode

import pytest
from django.contrib.auth.signals import user_login_failed
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.oauth.validators import AssistantOAuth2Validator
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db

FORBIDDEN_GRANTS = ("password", "urn:ietf:params:oauth:grant-type:device_code", "implicit", "token", "something")


def post_token(client, data, **extra):
    return client.post("/oauth/token/", data=urlencode(data), content_type="application/x-www-form-urlencoded", **extra)


def answer(response):
    """Everything an attacker can compare: status, body and every header."""
    return response.status_code, response.content, sorted(response.items())


@pytest.fixture
def script_client():
    """A confidential client that someone provisioned for the password grant by hand."""
    return get_application_model().objects.create(
        name="Script", client_id="script", client_secret="s3cret-value", hash_client_secret=False,
        client_type="confidential", authorization_grant_type="password",
    )


@pytest.fixture
def no_credential_read(monkeypatch):
    """Fail the test if anything tries a password or a client secret."""
    def refuse(*args, **kwargs):
        raise AssertionError("a credential was read")

    monkeypatch.setattr("django.contrib.auth.authenticate", refuse)
    monkeypatch.setattr("oauth2_provider.oauth2_validators.authenticate", refuse)
    for name in ("validate_user", "authenticate_client", "authenticate_client_id", "client_authentication_required"):
        monkeypatch.setattr(AssistantOAuth2Validator, name, refuse)
    failed = mock.Mock()
    user_login_failed.connect(failed)
    yield
    user_login_failed.disconnect(failed)
    assert not failed.called


# SPEC A-1: right password, wrong password, unknown account: byte-identical answers, from a public client
# registered the ordinary way and from a confidential client made for the password grant (right or wrong secret).
def test_password_grant_answers_the_same_whatever_the_password(assistant, user, script_client, no_credential_read):
    public = oauth_flow.registered(assistant)
    answers = set()
    for client_fields in (
        {"client_id": public.client_id},
        {"client_id": "script", "client_secret": "s3cret-value"},
        {"client_id": "script", "client_secret": "wrong"},
        {"client_id": "no-such-client"},
        {},
    ):
        for username, password in (("alice", "alice-password"), ("alice", "wrong"), ("nobody", "alice-password")):
            data = {"grant_type": "password", "username": username, "password": password, **client_fields}
            response = post_token(assistant, data)
            assert response.status_code == 400, response.content
            assert response.json()["error"] == "unsupported_grant_type"
            answers.add(str(answer(response)))
    assert len(answers) == 1, answers
    assert not get_access_token_model().objects.filter(user__isnull=False).exists()


# Basic authentication of the client is not looked at either.
def test_password_grant_with_basic_auth_reads_nothing(assistant, user, script_client, no_credential_read):
    import base64

    answers = set()
    for secret in ("s3cret-value", "wrong"):
        basic = base64.b64encode(f"script:{secret}".encode()).decode()
        for password in ("alice-password", "wrong"):
            response = post_token(assistant, {"grant_type": "password", "username": "alice", "password": password},
                                  HTTP_AUTHORIZATION=f"Basic {basic}")
            assert response.status_code == 400
            answers.add(str(answer(response)))
    assert len(answers) == 1, answers


# SPEC A-1: every grant that is not the assistants' or the agents' is refused the same way, before anything.
@pytest.mark.parametrize("grant_type", FORBIDDEN_GRANTS)
def test_other_grant_types_refused_before_any_credential(assistant, user, grant_type, no_credential_read):
    flow = oauth_flow.registered(assistant)
    response = post_token(assistant, {"grant_type": grant_type, "client_id": flow.client_id, "username": "alice",
                                      "password": "alice-password", "device_code": "x"})
    assert response.status_code == 400
    assert response.json()["error"] == "unsupported_grant_type"


# SPEC A-1: the implicit grant is refused at the authorization endpoint, whatever the client was registered for.
def test_implicit_response_type_refused(assistant, browser, user):
    get_application_model().objects.create(
        name="Old SPA", client_id="spa", client_type="public", authorization_grant_type="implicit",
        redirect_uris=oauth_flow.REDIRECT_URI,
    )
    for client_id in ("spa", oauth_flow.registered(assistant).client_id):
        _verifier, challenge = oauth_flow.pkce_pair()
        response = browser.get(oauth_flow.authorize_url(client_id, challenge, response_type="token"))
        assert response.status_code == 302, response.content
        params = oauth_flow.query_of(response["Location"])
        assert params["error"] in ("unsupported_response_type", "unauthorized_client"), params
        assert "access_token" not in response["Location"]
    assert not get_access_token_model().objects.filter(user__isnull=False).exists()
