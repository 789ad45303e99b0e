"""Who is calling /mcp: a bearer token resolved to its connection and effective scopes.

SPEC A-4 (looked up by hash only), A-6/A-8 (bound to the /mcp resource),
C-6 (scopes = token ∩ connection), C-7 (revoked connection → refused).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from oauth2_provider.models import get_access_token_model

from apps.common import clock
from apps.consent.models import Connection


@dataclass(frozen=True)
class BearerGrant:
    connection: Connection
    scopes: frozenset[str]
    token_id: int


def authenticate_bearer(raw_token: str) -> BearerGrant | None:
    """The grant behind ``raw_token``, or ``None`` when it must be refused with 401."""
    if not raw_token:
        return None
    checksum = hashlib.sha256(raw_token.encode("utf-8")).hexdigest()
    token = (
        get_access_token_model()
        .objects.filter(token_checksum=checksum, expires__gt=clock.now(), user__isnull=False)
        .values("id", "user_id", "application_id", "scope", "resource")
        .first()
    )
    # Tokens that are not bound to /mcp (e.g. the RFC 7592 registration token) are refused.
    if token is None or list(token["resource"] or []) != [settings.MCP_RESOURCE_URL]:
        return None
    connection = (
        Connection.objects.filter(user_id=token["user_id"], application_id=token["application_id"], revoked_at=None)
        .select_related("application")
        .first()
    )
    if connection is None:
        return None
    scopes = frozenset(token["scope"].split()) & frozenset(connection.scopes)
    return BearerGrant(connection=connection, scopes=scopes, token_id=token["id"])
