"""The one protected resource tokens may be issued for: ``/mcp`` (SPEC A-6, RFC 8707).

django-oauth-toolkit accepts any absolute URI as a resource indicator; this
product has exactly one resource, so every indicator is compared, as a plain
string, with ``settings.MCP_RESOURCE_URL``.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from oauthlib.oauth2.rfc6749 import errors


def resource_error(values: Iterable[str], *, required: bool, state: str | None = None, request=None):
    """The ``invalid_target`` error for these resource indicators, or ``None`` when they are acceptable.

    Acceptable means exactly one indicator equal to the ``/mcp`` resource, or
    none at all when ``required`` is false (the refresh grant inherits the
    resource its refresh token is bound to).
    """
    values = list(values)
    if not values and not required:
        return None
    if values == [settings.MCP_RESOURCE_URL]:
        return None
    if not values:
        description = f"The resource parameter is required and must be {settings.MCP_RESOURCE_URL}."
    else:
        description = f"The only resource this server issues tokens for is {settings.MCP_RESOURCE_URL}."
    return errors.CustomOAuth2Error(error="invalid_target", description=description, state=state, request=request)


def requested_resources(oauthlib_request) -> list[str]:
    """Every ``resource`` value of a token request (RFC 8707 allows repeating it)."""
    values = [value for key, value in (getattr(oauthlib_request, "decoded_body", None) or []) if key == "resource"]
    if values:
        return values
    single = getattr(oauthlib_request, "resource", None)
    if isinstance(single, list):
        return list(single)
    return [single] if single else []
