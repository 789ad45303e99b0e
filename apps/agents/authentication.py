"""Internal agents authenticate as confidential OAuth clients (client credentials), never with a shared key.

Design notes: docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from oauth2_provider.contrib.rest_framework import OAuth2Authentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission

from apps.agents.models import AgentPolicy

if TYPE_CHECKING:
    from rest_framework.request import Request
    from rest_framework.views import APIView

CLIENT_CREDENTIALS = "client-credentials"


@dataclass(frozen=True)
class Agent:
    """``request.user`` of an internal API call."""

    policy: AgentPolicy
    is_authenticated: bool = True
    is_anonymous: bool = False

    @property
    def agent_id(self) -> str:
        return self.policy.agent_id


class AgentAuthentication(OAuth2Authentication):
    www_authenticate_realm = "internal"

    def authenticate(self, request: Request) -> tuple[Agent, Any] | None:
        if "access_token" in request.query_params:
            raise AuthenticationFailed("a token in the query string is refused; send it in the Authorization header")
        result = super().authenticate(request)
        if result is None:
            return None
        _, token = result
        application = token.application
        if (
            token.user_id is not None
            or application is None
            or application.client_type != "confidential"
            or application.authorization_grant_type != CLIENT_CREDENTIALS
        ):
            raise AuthenticationFailed("this token is not an internal agent's")
        policy = AgentPolicy.objects.filter(application=application).first()
        if policy is None:
            raise AuthenticationFailed("this client is not a registered agent")
        if settings.AGENT_SCOPE not in token.scope.split():
            raise AuthenticationFailed(f"this token lacks the {settings.AGENT_SCOPE} scope")
        return Agent(policy), token


class IsAgent(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return isinstance(request.user, Agent)
