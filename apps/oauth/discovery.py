"""Where clients discover this server (SPEC A-6, A-8, I-6)."""

from django.conf import settings
from django.urls import reverse


def resource_metadata_url() -> str:
    """Absolute URL of the RFC 9728 document for ``/mcp``: the ``resource_metadata`` of a 401 challenge."""
    return settings.PUBLIC_BASE_URL + reverse("oauth2_provider:oauth-resource-metadata-mcp")
