"""Builders for agent tests: a confidential client-credentials agent with a policy, and its token."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.agents.services import policy_create
from apps.retrieval.layer.registry import registry

OPS = ["list", "read", "search"]


def make_agent(agent_id: str = "planner", grants: dict | None = None):
    application = get_application_model().objects.create(
        name=f"{agent_id} agent",
        client_type="confidential",
        authorization_grant_type="client-credentials",
        redirect_uris="",
    )
    if grants is None:
        grants = {r.type: {"operations": OPS, "fields": [""]} for r in registry.all()}
    return policy_create(agent_id=agent_id, name=agent_id.title(), application=application, grants=grants)


def agent_token(policy, *, expires_in: int = 600, user=None, scope: str = "internal:agents") -> str:
    """An access token as DOT issues for the client-credentials grant (stored only as its hash)."""
    raw = secrets.token_urlsafe(32)
    get_access_token_model().objects.create(
        token=raw, application=policy.application, user=user, scope=scope,
        expires=timezone.now() + timedelta(seconds=expires_in),
    )
    return raw
