"""Keep bearer tokens, codes and verifiers out of every log line (SPEC A-4)."""

from __future__ import annotations

import logging
import re

# The one list of parameter names whose values are secrets: redacted here, refused in URLs by the OAuth views.
# `token` is RFC 7009's name for the token to revoke; `registration_access_token` is RFC 7592's.
SECRET_PARAMETERS = ("code", "refresh_token", "code_verifier", "access_token", "token", "registration_access_token",
                     "client_secret", "password")

# key=value, "key": "value" and Python reprs such as {'code': 'value'} (oauthlib's debug logs).
_PARAMS = re.compile(r"(?i)\b(" + "|".join(SECRET_PARAMETERS) + r")(=|['\"]?\s*:\s*['\"]?)([^&\s\"',;}]+)")
_AUTH_HEADER = re.compile(r"(?i)\b(authorization\"?\s*[:=]\s*\"?(?:bearer|basic)?\s*)([^\s\"',;]+)")
# Prose such as oauthlib's "Validating refresh token <value> for client …".
_PROSE = re.compile(r"(?i)\b((?:refresh|access|bearer)[ _]token|authorization code)(,?\s+)([A-Za-z0-9\-._~+/]{16,}=*)")
_BEARER = re.compile(r"(?i)\b(bearer\s+)([A-Za-z0-9\-._~+/]+=*)")

REDACTED = "[redacted]"


def redact(text: str) -> str:
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _PROSE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return _PARAMS.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)


class RedactSecretsFilter(logging.Filter):
    """Rewrite a record's message with secrets replaced; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is not ours to fix here
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
