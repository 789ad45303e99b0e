"""django-oauth-toolkit validator: the product's OAuth rules, through DOT's hooks.

Design notes: docs/design.md.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.views.decorators.debug import sensitive_variables
from oauth2_provider.models import get_access_token_model, get_grant_model, get_refresh_token_model
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.settings import oauth2_settings
from oauthlib.oauth2.rfc6749 import errors

from apps.common import clock
from apps.common.text import unstorable_text_reason
from apps.consent import scopes as scope_rules
from apps.consent.selectors.visibility import connection_scopes
from apps.consent.services import connection_live_locked
from apps.oauth.models import TokenFamily
from apps.oauth.resource import bind_to_mcp, requested_resources, resource_error
from apps.oauth.scope_backend import is_agent_application, without_ignored
from apps.oauth.selectors import family_of_code
from apps.oauth.services import RevokedReason, token_family_open, token_family_revoke

# SPEC A-1: the only grants an assistant (a public client) may use: a person's consent, then refresh.
ASSISTANT_GRANT_TYPES = ("authorization_code", "refresh_token")
# Internal agents authenticate as confidential clients that staff provision with an agent policy
# (apps/agents); their tokens carry only ``internal:agents`` and no user, so /mcp never accepts them
# (bearer.py).
SERVICE_GRANT_TYPES = ("client_credentials",)
PKCE_METHOD = "S256"
# RFC 7636 §4.1, §4.2: BASE64URL text, 43 to 128 unreserved characters; DOT's code_challenge column holds 128.
PKCE_CHALLENGE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")


def pkce_problem(method: object, challenge: object) -> str | None:
    """Why this PKCE method and challenge cannot be used (SPEC A-1), or ``None``."""
    if method != PKCE_METHOD or not challenge:
        return "PKCE with code_challenge_method S256 is required."
    if not isinstance(challenge, str) or not PKCE_CHALLENGE.fullmatch(challenge):
        return "code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~' (RFC 7636)."
    return None


class _Replayed(Exception):
    """A code or refresh token was used twice; raised inside the transaction that found out."""

    def __init__(self, family: uuid.UUID | None, reason: str) -> None:
        super().__init__(reason)
        self.family = family
        self.reason = reason


def _checksum(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _rotated(rt: Any) -> bool:
    """This refresh token was replaced by a newer one of its family (not merely revoked)."""
    return bool(rt.token_family) and get_refresh_token_model().objects.filter(
        token_family=rt.token_family, pk__gt=rt.pk
    ).exists()


def _in_grace(rt: Any, client: Any) -> bool:
    """SPEC A-3: concurrency is not theft. The token's own client, presenting it just after it was rotated, gets a pair.

    Only the token just rotated, whose successor access token is still live.
    """
    return (
        rt.revoked is not None
        and rt.application_id == getattr(client, "pk", None)
        and clock.now() - rt.revoked <= settings.OAUTH_REFRESH_GRACE
        and get_access_token_model().objects.filter(source_refresh_token=rt).exists()
    )


def _as_list(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value] if value else []


class AssistantOAuth2Validator(OAuth2Validator):
    """Authorization code + PKCE S256 for ``/mcp`` only, single-use codes, rotating refresh families.

    Besides that, only client credentials, for confidential clients (internal agents).
    """

    def _load_application(self, client_id: str, request: Any) -> Any:
        # No client_id holds text a database cannot store (a NUL, a lone surrogate). The toolkit expects the
        # driver to refuse one with a ValueError; psycopg 3 sends the query and PostgreSQL answers DataError
        # (a 500), so it is never asked.
        if isinstance(client_id, str) and unstorable_text_reason(client_id) is not None:
            return None
        return super()._load_application(client_id, request)

    def authenticate_client(self, request: Any, *args: Any, **kwargs: Any) -> bool:
        """A client with no stored secret (every public client, apps/oauth/public_clients.py) never
        authenticates with one: an empty secret would otherwise match the empty value stored.
        """
        if not super().authenticate_client(request, *args, **kwargs):
            return False
        return bool(getattr(request.client, "client_secret", ""))

    # --- SPEC A-1: grants and response types -------------------------------------

    def validate_grant_type(
        self, client_id: str, grant_type: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        # Client credentials: only a confidential client that staff registered as an agent (it has a policy).
        allowed = grant_type in ASSISTANT_GRANT_TYPES or (
            grant_type in SERVICE_GRANT_TYPES and is_agent_application(client)
        )
        if not allowed:
            return False
        return super().validate_grant_type(client_id, grant_type, client, request, *args, **kwargs)

    def validate_scopes(
        self, client_id: str, scopes: list[str], client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        """Agents get ``internal:agents`` and nothing else; nobody else ever gets it (backstop of scope_backend.py)."""
        # The list is the request's own: what is left of it is what the consent page offers.
        scopes[:] = without_ignored(scopes) or self.get_default_scopes(client_id, request)
        wanted = set(scopes)
        if settings.AGENT_SCOPE in wanted and (
            request.grant_type not in SERVICE_GRANT_TYPES or not is_agent_application(client)
        ):
            return False
        if request.grant_type in SERVICE_GRANT_TYPES and wanted - {settings.AGENT_SCOPE}:
            return False
        return super().validate_scopes(client_id, scopes, client, request, *args, **kwargs)

    def validate_response_type(
        self, client_id: str, response_type: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        if response_type != "code":
            return False
        return super().validate_response_type(client_id, response_type, client, request, *args, **kwargs)

    # --- Authorization codes (SPEC A-2 …) --------------------------------

    @sensitive_variables()
    def save_authorization_code(
        self, client_id: str, code: dict[str, Any], request: Any, *args: Any, **kwargs: Any
    ) -> None:
        """Store the code's hash, bound to ``/mcp`` and S256 PKCE, expiring on the product clock.

        The consent view checks both first; this is the backstop.
        """
        problem = pkce_problem(request.code_challenge_method, request.code_challenge)
        if problem is not None:
            raise errors.InvalidRequestError(description=problem, request=request)
        error = resource_error(_as_list(getattr(request, "resource", None)), request=request)
        if error is not None:
            raise error
        bind_to_mcp(request)
        expires = clock.now() + timedelta(seconds=oauth2_settings.AUTHORIZATION_CODE_EXPIRE_SECONDS)
        self._create_authorization_code(request, code, expires=expires)

    @sensitive_variables()
    def validate_code(self, client_id: str, code: str, client: Any, request: Any, *args: Any, **kwargs: Any) -> bool:
        """A live, unredeemed code of this client, exchanged for ``/mcp``.

        A code presented again is refused and its tokens revoked, whichever client presents it (SPEC A-3).
        """
        grant = get_grant_model().objects.filter(code=code).first()
        if grant is None:  # never issued, or purged after it expired: its family still knows it
            token_family_revoke(family=family_of_code(code=code), reason=RevokedReason.CODE_REPLAY)
            return False
        if grant.redeemed_at is not None:
            token_family_revoke(family=grant.token_family, reason=RevokedReason.CODE_REPLAY)
            return False
        if grant.application_id != client.pk:  # not used yet: refused, and left to its own client
            return False
        if clock.now() >= grant.expires:
            return False
        error = resource_error(requested_resources(request), request=request)
        if error is not None:
            raise error
        bind_to_mcp(request)
        request.scopes = grant.scope.split()
        request.user = grant.user
        request.validated_grant = grant
        return True

    # The toolkit reads the code's row again for each of the next three checks; a revocation may
    # delete it in between (``connection_revoke``). They use the row ``validate_code`` read, and the
    # exchange then fails at its write (``_save_bearer_token``).

    def confirm_redirect_uri(
        self, client_id: str, code: str, redirect_uri: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        return request.validated_grant.redirect_uri_allowed(redirect_uri)

    def get_code_challenge(self, code: str, request: Any) -> str | None:
        return request.validated_grant.code_challenge or None

    def get_code_challenge_method(self, code: str, request: Any) -> str | None:
        return request.validated_grant.code_challenge_method or None

    def invalidate_authorization_code(self, client_id: str, code: str, request: Any, *args: Any, **kwargs: Any) -> None:
        """Keep the code row (marked redeemed with its tokens) until it expires, so a replay is recognised."""
        redeemed = get_grant_model().objects.filter(code=code, application=request.client, redeemed_at__isnull=False)
        if not redeemed.exists():
            raise errors.InvalidGrantError(request=request)

    # --- Refresh tokens (SPEC) -------------------------------------------

    # SPEC A-3 (home)
    @sensitive_variables()
    def validate_refresh_token(
        self, refresh_token: str, client: Any, request: Any, *args: Any, **kwargs: Any
    ) -> bool:
        """A live refresh token of this client whose family is younger than 30 days from consent (SPEC A-2).

        A rotated token presented again revokes its family, unless its own client is within ``_in_grace``.
        """
        if request.scope:  # read by the toolkit after this check: a refresh may name offline_access too
            request.scope = " ".join(without_ignored(request.scope.split())) or None
        refresh_token_model = get_refresh_token_model()
        rt = (
            refresh_token_model.objects.filter(token_checksum=_checksum(refresh_token))
            .select_related("access_token")
            .order_by(F("revoked").desc(nulls_first=True))
            .first()
        )
        if rt is None:
            return False
        if rt.revoked is not None and not _in_grace(rt, client):
            rotated = _rotated(rt)
            super().validate_refresh_token(refresh_token, client, request, *args, **kwargs)
            if rotated:
                token_family_revoke(family=rt.token_family, reason=RevokedReason.REFRESH_REPLAY)
            return False
        if rt.application_id != client.pk or (rt.revoked is None and rt.access_token is None):
            return False
        error = resource_error(requested_resources(request), request=request)
        if error is not None:
            raise error
        bind_to_mcp(request)
        family = TokenFamily.objects.filter(family=rt.token_family).first()
        if family is None or family.revoked_at is not None:
            return False
        if clock.now() >= family.consented_at + settings.REFRESH_FAMILY_LIFETIME:
            return False
        request.user = rt.user
        request.refresh_token = refresh_token
        request.refresh_token_instance = rt
        return True

    def get_original_scopes(self, refresh_token: str, request: Any, *args: Any, **kwargs: Any) -> list[str]:
        """The refreshed token's scopes, less those the person has removed since (SPEC C-5, C-6).

        A refresh asking for more is refused as ``invalid_scope``: a removed scope needs a new consent.
        """
        original = super().get_original_scopes(refresh_token, request, *args, **kwargs).split()
        granted = connection_scopes(user=request.user, application=request.client)
        return original if granted is None else [scope for scope in original if scope in granted]

    # --- Saving tokens ---------------------------------------------------------------

    def save_bearer_token(self, token: dict[str, Any], request: Any, *args: Any, **kwargs: Any) -> None:
        try:
            return super().save_bearer_token(token, request, *args, **kwargs)
        except _Replayed as replay:
            # The transaction that noticed rolled back; the revocation needs its own.
            token_family_revoke(family=replay.family, reason=replay.reason)
            raise errors.InvalidGrantError(request=request) from None

    @sensitive_variables()
    def _save_bearer_token(self, token: dict[str, Any], request: Any, *args: Any, **kwargs: Any) -> None:
        """Save the pair, stamping expiry on the product clock; a code exchange opens a family.

        Locks the live connection, then the code or refresh token: of two concurrent exchanges, one is a replay.
        """
        if request.grant_type in ASSISTANT_GRANT_TYPES and not connection_live_locked(
            user=request.user, application=request.client
        ):  # the person revoked meanwhile (or never consented): nothing is issued (SPEC C-7)
            raise errors.InvalidGrantError(request=request)
        grant = previous = None
        in_grace = False
        if request.grant_type == "authorization_code":
            grant = get_grant_model().objects.select_for_update().filter(
                code=request.code, application=request.client
            ).first()
            if grant is None or grant.redeemed_at is not None:
                raise _Replayed(grant.token_family if grant else None, RevokedReason.CODE_REPLAY)
        elif request.grant_type == "refresh_token":
            # The toolkit lets a refresh narrow the scopes to any subset; not to one a person could not grant
            # (SPEC A-5: context:search only together with profile:read).
            if scope_rules.scope_errors(set(request.scopes)):
                raise errors.InvalidScopeError(request=request)
            # Lock order: connection, family, refresh token — as a revocation of the family takes them.
            family = TokenFamily.objects.select_for_update().filter(
                family=request.refresh_token_instance.token_family
            ).first()
            previous = get_refresh_token_model().objects.select_for_update().filter(
                pk=request.refresh_token_instance.pk
            ).first()
            if family is None or family.revoked_at is not None or previous is None:
                raise errors.InvalidGrantError(request=request)
            if previous.revoked is not None:
                if not _in_grace(previous, request.client):
                    raise _Replayed(previous.token_family, RevokedReason.REFRESH_REPLAY)
                # Rotated already, by a concurrent request of the same client: the toolkit mints a fresh pair
                # and leaves the rotated token alone; the pair joins the family below.
                in_grace = True
                request.refresh_token_instance = None

        super()._save_bearer_token(token, request, *args, **kwargs)

        access_token_model = get_access_token_model()
        access_token = access_token_model.objects.get(token_checksum=_checksum(token["access_token"]))
        lifetime = timedelta(seconds=token.get("expires_in", oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS))
        access_token_model.objects.filter(pk=access_token.pk).update(expires=clock.now() + lifetime)
        if in_grace:
            get_refresh_token_model().objects.filter(access_token=access_token).update(
                token_family=previous.token_family  # type: ignore[union-attr]  # in_grace: previous was found
            )
        elif previous is not None:  # rotated now: the grace window is measured on the product clock
            get_refresh_token_model().objects.filter(pk=previous.pk).update(revoked=clock.now())
        if grant is not None:
            family = (
                get_refresh_token_model()
                .objects.filter(access_token=access_token)
                .values_list("token_family", flat=True)
                .get()
            )
            token_family_open(family=family, user=grant.user, application=grant.application, code=request.code)
            get_grant_model().objects.filter(pk=grant.pk).update(redeemed_at=clock.now(), token_family=family)
