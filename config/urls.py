from django.contrib import admin
from django.contrib.contenttypes import views as contenttype_views
from django.http import Http404
from django.urls import NoReverseMatch, include, path
from django.views.generic import RedirectView


def _view_on_site(request, content_type_id, object_id):
    """The admin's "view on site" redirect; a record whose page this product does not serve is a 404, not a 500."""
    try:
        return contenttype_views.shortcut(request, content_type_id, object_id)
    except NoReverseMatch:
        raise Http404("this record has no page on the site") from None


handler500 = "apps.ops.views.server_error"  # the database down is a 503 on the person's pages too

# SPEC I-6 (home)
urlpatterns = [
    path("", RedirectView.as_view(url="/me/facts/", permanent=False)),
    path("admin/r/<int:content_type_id>/<path:object_id>/", admin.site.admin_view(_view_on_site)),
    path("admin/", admin.site.urls),
    path("internal/", include("apps.agents.urls")),  # internal agent API + /internal/openapi.json
    path("", include("apps.accounts.urls")),  # /accounts/login/ …, /me/security/ (SPEC AD-3)
    path("webauthn/", include("apps.accounts.passkey_urls")),  # passkey ceremonies (django-otp-webauthn)
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("apps.oauth.urls")),  # /oauth/… and /.well-known/… (SPEC I-6)
    path("", include("apps.mcp_server.urls")),  # /mcp
    path("", include("apps.consent.urls")),  # /me/…
    path("", include("apps.ops.urls")),  # /healthz, /readyz
]
