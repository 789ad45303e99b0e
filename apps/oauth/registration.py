"""Dynamic client registration for assistants (SPEC A-6, RFC 7591 / 7592).

Design notes: docs/design.md.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from oauth2_provider.views import DynamicClientRegistrationManagementView, DynamicClientRegistrationView

from apps.common.addresses import client_ip
from apps.common.text import unstorable_text_reason
from apps.oauth.redirects import redirect_uri_problem
from apps.oauth.services import application_deregister
from apps.oauth.throttle import throttle_hit, unlimited

PUBLIC_AUTH_METHOD = "none"
# SPEC A-1: a public client, or a confidential one whose secret comes in the body or in Basic.
AUTH_METHODS = (PUBLIC_AUTH_METHOD, "client_secret_post", "client_secret_basic")
GRANT_TYPES = ("authorization_code", "refresh_token")
RESPONSE_TYPES = ("code",)
MAX_REDIRECT_URIS = 10
MAX_CLIENT_NAME_LENGTH = 100


class MetadataRefused(Exception):
    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description

    def response(self) -> JsonResponse:
        return JsonResponse({"error": self.error, "error_description": self.description}, status=400)


def _string_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# SPEC A-6 (home)
def assistant_metadata(data: dict[str, Any]) -> dict[str, Any]:
    """The client metadata with the product's rules applied; raises ``MetadataRefused``.

    An omitted ``token_endpoint_auth_method`` becomes "none" (RFC 7591 §3.2.1).
    """
    if not isinstance(data, dict):
        raise MetadataRefused("invalid_client_metadata", "Request body must be a JSON object.")
    data = dict(data)
    method = data.setdefault("token_endpoint_auth_method", PUBLIC_AUTH_METHOD)
    if not isinstance(method, str) or method not in AUTH_METHODS:
        raise MetadataRefused(
            "invalid_client_metadata", "token_endpoint_auth_method must be one of: " + ", ".join(AUTH_METHODS) + "."
        )
    grant_types = data.setdefault("grant_types", list(GRANT_TYPES))
    if (
        not _string_list(grant_types)
        or "authorization_code" not in grant_types
        or not set(grant_types) <= set(GRANT_TYPES)
    ):
        raise MetadataRefused(
            "invalid_client_metadata", "grant_types must be authorization_code, optionally with refresh_token."
        )
    response_types = data.get("response_types", list(RESPONSE_TYPES))
    if not _string_list(response_types) or not set(response_types) <= set(RESPONSE_TYPES) or not response_types:
        raise MetadataRefused("invalid_client_metadata", 'response_types must be ["code"].')
    name = data.get("client_name", "")
    if not isinstance(name, str) or len(name) > MAX_CLIENT_NAME_LENGTH:
        raise MetadataRefused(
            "invalid_client_metadata", f"client_name must be a string of at most {MAX_CLIENT_NAME_LENGTH} characters."
        )
    if unstorable_text_reason(name) is not None:
        raise MetadataRefused(
            "invalid_client_metadata", "client_name must not contain NUL characters or lone surrogates."
        )
    redirect_uris = data.get("redirect_uris")
    if not isinstance(redirect_uris, list) or not redirect_uris or len(redirect_uris) > MAX_REDIRECT_URIS:
        raise MetadataRefused(
            "invalid_redirect_uri", f"redirect_uris must list between 1 and {MAX_REDIRECT_URIS} URIs."
        )
    for uri in redirect_uris:
        problem = redirect_uri_problem(uri)
        if problem:
            raise MetadataRefused("invalid_redirect_uri", problem)
    return data


def _apply_rules(request: HttpRequest) -> dict[str, Any] | JsonResponse:
    """Check the JSON body and hand the toolkit the normalised metadata; returns it, or the refusal."""
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: arrays nested too deep
        return MetadataRefused("invalid_client_metadata", "Request body must be valid JSON.").response()
    try:
        metadata = assistant_metadata(data)
    except MetadataRefused as refused:
        return refused.response()
    # The toolkit's view reads the body itself; give it the normalised metadata.
    request._body = json.dumps(metadata).encode("utf-8")
    return metadata


def _as_registered(response: HttpResponse, metadata: dict) -> HttpResponse:
    """RFC 7591 §3.2.1: say the auth method the client asked for (the toolkit names Basic for every
    confidential client, and takes either) and, beside a secret, that it never expires.
    """
    body = json.loads(response.content)
    body["token_endpoint_auth_method"] = metadata["token_endpoint_auth_method"]
    body["client_id_issued_at"] = int(datetime.now(UTC).timestamp())
    if "client_secret" in body:
        body["client_secret_expires_at"] = 0
    response.content = json.dumps(body)
    return response


class RegistrationView(DynamicClientRegistrationView):
    """RFC 7591 registration endpoint, at most N registrations per client IP per window."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        address = client_ip(request)
        retry_after = None if unlimited(address) else throttle_hit(
            scope="oauth-registration",
            key=address,
            limit=settings.OAUTH_REGISTRATION_RATE_LIMIT,
            window=settings.OAUTH_REGISTRATION_RATE_WINDOW,
        )
        if retry_after is not None:
            response = JsonResponse(
                {
                    "error": "rate_limited",
                    "error_description": "Too many client registrations from this address; try again later.",
                    "retry_after": retry_after,
                },
                status=429,
            )
            response["Retry-After"] = str(retry_after)
            return response
        metadata = _apply_rules(request)
        if isinstance(metadata, HttpResponse):
            return metadata
        response = super().post(request, *args, **kwargs)
        return _as_registered(response, metadata) if response.status_code == 201 else response


class RegistrationManagementView(DynamicClientRegistrationManagementView):
    """RFC 7592 client configuration endpoint; an update obeys the same rules as registration."""

    def put(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        # RFC 7592 §2.2: only the holder of the registration access token may update; a caller without
        # it is refused (401) before its metadata is looked at. The toolkit's put() checks the token again.
        auth = self._authenticate_registration_request(request, client_id)
        if isinstance(auth, HttpResponse):
            return auth
        metadata = _apply_rules(request)
        if isinstance(metadata, HttpResponse):
            return metadata
        return super().put(request, client_id, *args, **kwargs)

    def delete(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        # RFC 7592 §2.3. The toolkit deletes the client, and with it every connection people made to it.
        auth = self._authenticate_registration_request(request, client_id)
        if isinstance(auth, HttpResponse):
            return auth
        application_deregister(application=auth.application)
        return HttpResponse(status=204)
