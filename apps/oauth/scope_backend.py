"""Which scopes each kind of client may be issued, and which are advertised (SPEC A-1, A-5, A-6).

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from oauth2_provider.scopes import SettingsScopes, get_scopes_backend
from oauth2_provider.settings import oauth2_settings

# SPEC A-10: asked for by clients that want a refresh token (OpenID Connect's name for it); every
# assistant gets one anyway, so it is dropped wherever a request names it, never refused or issued.
IGNORED_SCOPES = frozenset({"offline_access"})


def without_ignored(scopes: Iterable[str]) -> list[str]:
    return [scope for scope in scopes if scope not in IGNORED_SCOPES]


def is_agent_application(application: Any) -> bool:
    """A confidential client-credentials application that staff registered as an agent (has a policy)."""
    if application is None or getattr(application, "pk", None) is None:
        return False
    if application.client_type != application.CLIENT_CONFIDENTIAL:
        return False
    if application.authorization_grant_type != application.GRANT_CLIENT_CREDENTIALS:
        return False
    # Which applications have a policy is the agents app's to say: it extends this backend (SCOPES_BACKEND_CLASS).
    return get_scopes_backend().has_agent_policy(application)


class ProductScopes(SettingsScopes):
    def has_agent_policy(self, application: Any) -> bool:
        """No application is an agent here; ``apps.agents.scopes.AgentScopes`` knows the policies."""
        return False

    def get_all_scopes(self) -> dict[str, str]:
        return {**{name: name for name in settings.ASSISTANT_SCOPES}, settings.AGENT_SCOPE: settings.AGENT_SCOPE}

    def get_available_scopes(
        self, application: Any = None, request: Any = None, *args: Any, **kwargs: Any
    ) -> list[str]:
        if application is not None and is_agent_application(application):
            return [settings.AGENT_SCOPE]
        return list(settings.ASSISTANT_SCOPES)

    def get_default_scopes(
        self, application: Any = None, request: Any = None, *args: Any, **kwargs: Any
    ) -> list[str]:
        if application is not None and is_agent_application(application):
            return [settings.AGENT_SCOPE]
        return list(oauth2_settings._DEFAULT_SCOPES)
