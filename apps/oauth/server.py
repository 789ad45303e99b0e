"""The OAuth server class django-oauth-toolkit builds (``OAUTH2_SERVER_CLASS``): only the grants the product uses.

SPEC A-1: the password and implicit grants (and the device grant) are refused
before any credential is looked at. oauthlib's all-grants ``Server`` hands a
``grant_type=password`` request to its password handler, which authenticates
the client and then checks the person's password before it asks whether the
grant is allowed at all; the two answers told a right password from a wrong
one. Here those handlers do not exist: such a request reaches the
authorization-code handler, whose first step is to answer
``unsupported_grant_type``, the same bytes whatever else the request holds.
"""

from __future__ import annotations

from oauthlib.oauth2 import Server

# Assistants (authorization code + PKCE, then refresh) and internal agents (client credentials,
# confidential clients only: validators.py). Nothing else is routed.
TOKEN_GRANTS = ("authorization_code", "refresh_token", "client_credentials")
RESPONSE_TYPES = ("code",)


# SPEC A-1 (home)
class ProductServer(Server):
    """oauthlib's server with the password, implicit and device grants left out."""

    def __init__(self, request_validator, *args, **kwargs):
        super().__init__(request_validator, *args, **kwargs)
        self._grant_types = {name: handler for name, handler in self._grant_types.items() if name in TOKEN_GRANTS}
        self._response_types = {
            name: handler for name, handler in self._response_types.items() if name in RESPONSE_TYPES
        }
