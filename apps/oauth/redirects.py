"""Where an assistant may send the person back to (SPEC A-6, A-7; RFC 8252).

Design notes: docs/design.md.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from apps.common.text import unstorable_text_reason

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
# Schemes whose "redirect" would run script, show local content or reach the browser's own pages.
NEVER_SCHEMES = frozenset({"javascript", "data", "file", "vbscript", "blob", "about", "filesystem", "view-source",
                           "chrome", "chrome-extension", "intent", "http", "https"})
SCHEME = re.compile(r"[a-z][a-z0-9+.\-]*")
MAX_REDIRECT_URI_LENGTH = 2000


def private_use_schemes(names: Iterable[str]) -> list[str]:
    """The operator's list of native-app schemes, checked once at start-up: a dangerous one stops it."""
    schemes = [name.strip().lower() for name in names]
    for scheme in schemes:
        if not SCHEME.fullmatch(scheme) or scheme in NEVER_SCHEMES:
            raise ImproperlyConfigured(f"OAUTH_PRIVATE_USE_SCHEMES: {scheme!r} cannot be a redirect scheme")
    return schemes


def _whitespace_or_control(text: str) -> bool:
    return any(char.isspace() or unicodedata.category(char) == "Cc" for char in text)


def redirect_uri_problem(uri: str) -> str | None:
    """Why this redirect URI cannot be registered, or ``None``.

    Whitespace and control characters are refused: the toolkit space-joins the URIs it stores.
    """
    if not isinstance(uri, str) or not uri:
        return "Each redirect URI must be a non-empty string."
    if len(uri) > MAX_REDIRECT_URI_LENGTH:
        return f"Redirect URIs are limited to {MAX_REDIRECT_URI_LENGTH} characters."
    if _whitespace_or_control(uri) or unstorable_text_reason(uri) is not None:
        return "Redirect URIs must not contain whitespace, control characters or lone surrogates."
    if not uri.isascii():
        # RFC 3986: a URI is ASCII, so no authorization request could name this one; and a Unicode host
        # would be shown to people as a look-alike of another (SPEC A-7).
        return "Redirect URIs must be ASCII: percent-encode the path, write an IDN host in its xn-- form."
    if "#" in uri:
        return "Redirect URIs must not have a fragment."
    try:
        parts = urlsplit(uri)  # an unbalanced "[" or "]" raises here
        host = parts.hostname
        parts.port  # noqa: B018 - a malformed port raises here
    except ValueError:
        return "Redirect URIs must be valid absolute URLs."
    if "@" in parts.netloc:
        return "Redirect URIs must not carry credentials."
    if parts.scheme == "https" and host:
        return None
    if parts.scheme == "http" and host in LOOPBACK_HOSTS:
        return None
    if parts.scheme in settings.OAUTH_PRIVATE_USE_SCHEMES and (host or parts.path.strip("/")):
        return None
    return (
        "Redirect URIs must use https, http on a loopback address (127.0.0.1, localhost, [::1]), "
        "or the private-use scheme of a known native app."
    )
