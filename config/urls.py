from django.conf.urls.i18n import i18n_patterns  # noqa: F401  (language switch lives at /i18n/)
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", RedirectView.as_view(url="/me/facts/", permanent=False)),
    path("admin/", admin.site.urls),
    path("accounts/", include("apps.accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
]
