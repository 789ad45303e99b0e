"""The one protected resource tokens may be issued for: ``/mcp`` (SPEC A-6, RFC 8707).

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from oauthlib.oauth2.rfc6749 import errors

DEFAULT_PORTS = {"http": 80, "https": 443}


def normalised(uri: str) -> str | None:
    """``uri`` with lower-case scheme and host, no default port and no one trailing slash; ``None`` if not a URL."""
    try:
        parts = urlsplit(uri.strip() if isinstance(uri, str) else "")
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname or parts.username or parts.password or parts.fragment:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = host if port in (None, DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    path = parts.path[:-1] if parts.path.endswith("/") and not parts.path.endswith("//") else parts.path
    query = f"?{parts.query}" if parts.query else ""
    return f"{scheme}://{netloc}{path}{query}"


def names_mcp(uri: str) -> bool:
    return normalised(uri) == normalised(settings.MCP_RESOURCE_URL)


def resource_error(values: Iterable[str], *, state: str | None = None, request: Any = None) -> Any:
    """The ``invalid_target`` error for these resource indicators, or ``None`` when they name ``/mcp``.

    One indicator at most; none at all is the ``/mcp`` resource too: some clients leave the parameter out.
    """
    values = list(values)
    if len(values) <= 1 and all(names_mcp(value) for value in values):
        return None
    return errors.CustomOAuth2Error(
        error="invalid_target",
        description=f"The only resource this server issues tokens for is {settings.MCP_RESOURCE_URL}.",
        state=state,
        request=request,
    )


def requested_resources(oauthlib_request: Any) -> list[str]:
    """Every ``resource`` value of a token request (RFC 8707 allows repeating it)."""
    values = [value for key, value in (getattr(oauthlib_request, "decoded_body", None) or []) if key == "resource"]
    if values:
        return values
    single = getattr(oauthlib_request, "resource", None)
    if isinstance(single, list):
        return list(single)
    return [single] if single else []


def bind_to_mcp(oauthlib_request: Any) -> None:
    """Have the toolkit bind the tokens it issues to the canonical ``/mcp`` (checked before, by ``resource_error``)."""
    oauthlib_request.resource = [settings.MCP_RESOURCE_URL]
