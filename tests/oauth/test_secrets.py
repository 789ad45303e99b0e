"""Tokens, codes and verifiers never rest anywhere readable (SPEC A-4, AD-1).

After real flows (registration, consent, exchange, refresh, replays), none of
the raw values may appear in any column of any table, in the logs, in error
reports, or on any page (the admin pages: test_admin.py).
"""

import hashlib
import logging
import sys
from urllib.parse import urlencode

import pytest
from django.core.signals import got_request_exception
from django.db import connection
from django.test import Client
from django.views.debug import ExceptionReporter

from apps.common.logging import RedactSecretsFilter
from apps.oauth.validators import AssistantOAuth2Validator
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db


def database_text() -> str:
    chunks = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            for row in cursor.fetchall():
                for value in row:
                    if isinstance(value, memoryview):
                        value = value.tobytes()
                    if isinstance(value, bytes):
                        value = value.decode("latin-1")
                    chunks.append(str(value))
    return "\n".join(chunks)


def sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


# SPEC A-4: no raw token, code or verifier in any column of any table.
def test_no_secret_in_any_table(assistant, browser):
    flow = oauth_flow.full_flow(assistant, browser)
    text = database_text()
    assert any(sha256(secret) in text for secret in flow.secrets_seen)  # the scan does see the token tables
    leaked = [secret for secret in flow.secrets_seen if secret in text]
    assert leaked == []


# SPEC A-4: nothing secret in what is logged, at the production level, with or without the filter.
def test_no_secret_in_logs(caplog, assistant, browser):
    caplog.set_level(logging.INFO)
    flow = oauth_flow.full_flow(assistant, browser)
    logged = "\n".join(record.getMessage() + (record.exc_text or "") for record in caplog.records)
    assert "Bad Request: /oauth/token/" in logged  # the refused replays were logged...
    assert [secret for secret in flow.secrets_seen if secret in logged] == []  # ...without their values


# SPEC A-4: at DEBUG, oauthlib logs each new authorization code as a Python dict; the project's filter must
# redact it.
def test_no_secret_in_debug_logs_after_the_filter(caplog, assistant, browser):
    caplog.set_level(logging.DEBUG)
    caplog.handler.addFilter(RedactSecretsFilter())
    flow = oauth_flow.full_flow(assistant, browser)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert [secret for secret in flow.secrets_seen if secret in logged] == []


# SPEC A-4: an error report of a crash in the token endpoint shows neither the POSTed secrets nor the
# frames' variables holding them.
def test_no_secret_in_error_reports(assistant, approved, monkeypatch, settings):
    settings.DEBUG = False
    reports = []

    def crash(self, *args, **kwargs):
        raise RuntimeError("unexpected failure")

    def report(sender, request, **kwargs):
        reporter = ExceptionReporter(request, *sys.exc_info())
        reports.append(reporter.get_traceback_text() + reporter.get_traceback_html())  # the HTML has frame locals

    monkeypatch.setattr(AssistantOAuth2Validator, "validate_code", crash)
    got_request_exception.connect(report)
    try:
        crashing = Client(raise_request_exception=False)
        response = oauth_flow.exchange(crashing, approved)
    finally:
        got_request_exception.disconnect(report)
    assert response.status_code == 500
    assert len(reports) == 1
    text = reports[0]
    assert "unexpected failure" in text and "code_verifier" in text
    assert approved.code not in text
    assert approved.verifier not in text


# SPEC A-4: pages never show a token or code.
def test_no_secret_on_pages(assistant, browser):
    flow = oauth_flow.full_flow(assistant, browser)
    _, challenge = oauth_flow.pkce_pair()
    pages = [
        browser.get(oauth_flow.authorize_url(flow.client_id, challenge)),
        Client().get("/accounts/login/?" + urlencode({"next": "/oauth/authorize/"})),
    ]
    for page in pages:
        assert page.status_code == 200
        html = page.content.decode()
        assert [secret for secret in flow.secrets_seen if secret in html] == []
