"""The authorization server's URLs (SPEC A-6, I-6), mounted at the site root.

Design notes: docs/design.md.
"""

from django.urls import path
from oauth2_provider.views import OAuthProtectedResourceMetadataView, OAuthServerMetadataView

from apps.oauth import registration, views
from apps.oauth.cors import open_to_every_origin

app_name = "oauth2_provider"

urlpatterns = [
    path("oauth/authorize/", views.ConsentView.as_view(), name="authorize"),
    # SPEC A-10: what follows is called by clients before they hold a token; browser-based ones included.
    path("oauth/token/", open_to_every_origin(views.TokenView.as_view()), name="token"),
    path("oauth/revoke_token/", open_to_every_origin(views.RevokeTokenView.as_view()), name="revoke-token"),
    path("oauth/register/", open_to_every_origin(registration.RegistrationView.as_view()), name="dcr-register"),
    path(
        "oauth/register/<str:client_id>/",
        open_to_every_origin(registration.RegistrationManagementView.as_view()),
        name="dcr-register-management",
    ),
    # RFC 8414: the issuer is the origin, so the document sits at the root.
    path(
        ".well-known/oauth-authorization-server",
        open_to_every_origin(OAuthServerMetadataView.as_view()),
        name="oauth-server-metadata",
    ),
    # RFC 9728: the resource is /mcp, so its document is the path-suffixed one; the
    # root form is served too, for clients that only try that.
    path(
        ".well-known/oauth-protected-resource/mcp",
        open_to_every_origin(OAuthProtectedResourceMetadataView.as_view()),
        name="oauth-resource-metadata-mcp",
    ),
    path(
        ".well-known/oauth-protected-resource",
        open_to_every_origin(OAuthProtectedResourceMetadataView.as_view()),
        name="oauth-resource-metadata",
    ),
]
