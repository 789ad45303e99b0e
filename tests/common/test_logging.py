"""SPEC A-4: secrets never reach a log line."""

import logging

import pytest

from apps.common.logging import REDACTED, RedactSecretsFilter, redact


@pytest.mark.parametrize(
    "line,secret",
    [
        ("POST /oauth/token/ code=abc123XYZ&code_verifier=verif-987", "abc123XYZ"),
        ("POST /oauth/token/ code=abc123XYZ&code_verifier=verif-987", "verif-987"),
        ('{"refresh_token": "rt-SECRET-1", "scope": "profile:read"}', "rt-SECRET-1"),
        ("Saving grant {'code': 'cOdE-42', 'state': 'x'}", "cOdE-42"),
        ("Authorization: Bearer tok.en-VALUE_9", "tok.en-VALUE_9"),
        ("headers={'Authorization': 'Bearer AbC'}", "AbC"),
        ("GET /mcp?access_token=qs-token-1 HTTP/1.1", "qs-token-1"),
        ("Validating refresh token pX4MMITn76KEaBKtLUVVv6sw for client x", "pX4MMITn76KEaBKtLUVVv6sw"),
        ("Invalid refresh token, pX4MMITn76KEaBKtLUVVv6sw, for client x", "pX4MMITn76KEaBKtLUVVv6sw"),
        # SPEC A-4: RFC 7009 names the token to revoke `token`; the revocation view refuses it in the query
        # string (400), and the access log still writes the request line: the secret must not be in it.
        ("POST /oauth/revoke_token/?token=rt-in-the-url-77&token_type_hint=refresh_token HTTP/1.1",
         "rt-in-the-url-77"),
        ('{"registration_access_token": "rat-SECRET-5", "client_id": "x"}', "rat-SECRET-5"),
    ],
)
def test_secrets_are_redacted(line, secret):
    cleaned = redact(line)
    assert secret not in cleaned
    assert REDACTED in cleaned


@pytest.mark.parametrize("line", [
    "GET /me/facts/ 200 (category=preferences, version=3)",
    "POST /me/assistants/3/shares/ csrfmiddlewaretoken=form-guard&share=4",  # not a bearer secret
    "token_type_hint=refresh_token",
])
def test_ordinary_lines_are_kept(line):
    assert redact(line) == line


def test_filter_rewrites_record_args():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "token request %s", ("code=SeCrEt",), None)
    assert RedactSecretsFilter().filter(record)
    assert "SeCrEt" not in record.getMessage()


# SPEC A-4: the development server's request log (``runserver``, the local default) keeps its own handler,
# which does not pass records on to the root's; a secret in a request line is redacted there too.
def test_the_development_servers_request_log_is_redacted():
    logger = logging.getLogger("django.server")
    record = logger.makeRecord("django.server", logging.INFO, __file__, 1, '"%s" %s %s',
                               ("POST /mcp?access_token=LEAKME0123456789 HTTP/1.1", 400, 168), None,
                               extra={"server_time": "30/Nov/2026 09:25:49"})
    assert logger.handlers and not logger.propagate
    for handler in logger.handlers:
        assert handler.filter(record)
        line = handler.format(record)
        assert "LEAKME0123456789" not in line and REDACTED in line and "400" in line


# Django's records (a refused request, an error) reach the console once, through the root's redacting handler.
def test_djangos_records_reach_the_console_once():
    django_logger = logging.getLogger("django")
    assert django_logger.handlers == [] and django_logger.propagate
    assert any(isinstance(f, RedactSecretsFilter) for h in logging.getLogger().handlers for f in h.filters)
