"""The OAuth scopes backend that knows agents (django-oauth-toolkit's ``SCOPES_BACKEND_CLASS``, SPEC A-1).

The rules stay in ``apps/oauth/scope_backend.py``; this adds only which applications are agents."""

from __future__ import annotations

from apps.agents.models import AgentPolicy
from apps.oauth.scope_backend import ProductScopes


class AgentScopes(ProductScopes):
    def has_agent_policy(self, application) -> bool:
        return AgentPolicy.objects.filter(application_id=application.pk).exists()
