"""Keep bearer tokens, codes and verifiers out of every log line (SPEC A-4)."""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

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

# One name=value pair of a query string, as a request line in an access log shows it (raw, percent-encoded).
_QUERY_PAIR = re.compile(r"(?<=[?&;])([^&;=\s\"'#]*)(=?)([^&;\s\"'#]*)")
# A secret's name being given a value, in text that was decoded: `code=…` but not `barcode=…`.
_ASSIGNED = re.compile(r"(?i)(?<![a-z0-9_])(?:" + "|".join(SECRET_PARAMETERS) + r")\s*=")
_NAMES = frozenset(SECRET_PARAMETERS)
_DECODE_ROUNDS = 4  # a name encoded more often than this is redacted anyway (see _decoded)


def _decoded(text: str) -> str:
    """``text`` percent-decoded (``+`` as a space) until it stops changing, as a server decoding it again would."""
    for _ in range(_DECODE_ROUNDS):
        plain = unquote_plus(text)
        if plain == text:
            break
        text = plain
    return text


def _query_pair(match: re.Match) -> str:
    """Redact one query pair by its *decoded* name (SPEC A-4): ``access%5Ftoken=…`` is ``access_token=…``.

    A name still encoded after every round, or a value holding a secret's assignment, goes whole.
    """
    name, equals, value = match.groups()
    plain_name = _decoded(name)
    if equals and plain_name.strip().lower() in _NAMES:
        return f"{name}={REDACTED}"
    if "%" in plain_name or _ASSIGNED.search(plain_name):
        return REDACTED
    if _ASSIGNED.search(_decoded(value)):
        return f"{name}={REDACTED}"
    return match.group(0)


def redact(text: str) -> str:
    text = _QUERY_PAIR.sub(_query_pair, text)
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
