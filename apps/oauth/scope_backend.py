"""Which scopes each kind of client may be issued, and which are advertised (SPEC A-1, A-5, A-6).

Two disjoint families:

* assistant scopes (``settings.ASSISTANT_SCOPES``: ``profile:*``,
  ``context:search``, ``memory:<type>:read``) — for public clients, through a
  person's consent; these are what discovery (RFC 8414 / RFC 9728
  ``scopes_supported``) advertises;
* ``internal:agents`` (``settings.AGENT_SCOPE``) — only for a confidential
  client-credentials application that has an agent policy (``apps.agents``).
  It is never advertised, never offered on the consent page, and its tokens
  carry no person, so ``/mcp`` refuses them.

django-oauth-toolkit asks this backend from ``validate_scopes`` and
``get_default_scopes``; ``AssistantOAuth2Validator`` holds the same rules as a
backstop.
"""

from __future__ import annotations

from django.conf import settings
from oauth2_provider.scopes import SettingsScopes, get_scopes_backend
from oauth2_provider.settings import oauth2_settings

# SPEC A-10: asked for by clients that want a refresh token (OpenID Connect's name for it); every
# assistant gets one anyway, so it is dropped wherever a request names it, never refused or issued.
IGNORED_SCOPES = frozenset({"offline_access"})


def without_ignored(scopes) -> list[str]:
    return [scope for scope in scopes if scope not in IGNORED_SCOPES]


def is_agent_application(application) -> bool:
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
    def has_agent_policy(self, application) -> bool:
        """No application is an agent here; ``apps.agents.scopes.AgentScopes`` knows the policies."""
        return False

    def get_all_scopes(self):
        return {**{name: name for name in settings.ASSISTANT_SCOPES}, settings.AGENT_SCOPE: settings.AGENT_SCOPE}

    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        if application is not None and is_agent_application(application):
            return [settings.AGENT_SCOPE]
        return list(settings.ASSISTANT_SCOPES)

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        if application is not None and is_agent_application(application):
            return [settings.AGENT_SCOPE]
        return list(oauth2_settings._DEFAULT_SCOPES)
