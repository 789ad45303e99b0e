"""The OAuth server class django-oauth-toolkit builds (``OAUTH2_SERVER_CLASS``): only the grants the product uses.

Also SPEC A-1. Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any

from oauthlib.oauth2 import Server

# Assistants (authorization code + PKCE, then refresh) and internal agents (client credentials,
# confidential clients only: validators.py). Nothing else is routed.
TOKEN_GRANTS = ("authorization_code", "refresh_token", "client_credentials")
RESPONSE_TYPES = ("code",)


# SPEC A-1 (home)
class ProductServer(Server):
    """oauthlib's server with the password, implicit and device grants left out."""

    def __init__(self, request_validator: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(request_validator, *args, **kwargs)
        self._grant_types: dict[str, Any] = {
            name: handler for name, handler in self._grant_types.items() if name in TOKEN_GRANTS
        }
        self._response_types: dict[str, Any] = {
            name: handler for name, handler in self._response_types.items() if name in RESPONSE_TYPES
        }
