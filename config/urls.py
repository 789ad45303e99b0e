from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", RedirectView.as_view(url="/me/facts/", permanent=False)),
    path("admin/", admin.site.urls),
    path("internal/", include("apps.agents.urls")),  # internal agent API + /internal/openapi.json
    path("accounts/", include("apps.accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("apps.oauth.urls")),  # /oauth/… and /.well-known/… (SPEC I-6)
    path("", include("apps.mcp_server.urls")),  # /mcp
    path("", include("apps.consent.urls")),  # /me/…
    path("", include("apps.ops.urls")),  # /healthz, /readyz
]
