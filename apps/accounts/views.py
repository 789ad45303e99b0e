"""Log in and out: Django's views, with one guard (SPEC W-1, I-3)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib.auth import views as auth_views


# SPEC W-1 (home)
class LoginView(auth_views.LoginView):
    """Django's login page; a person already logged in is sent on to the pages."""

    redirect_authenticated_user = True

    def get_redirect_url(self) -> str:  # type: ignore[override]  # Django 5.2's signature; the stubs add request
        # ``next`` naming the login page itself would send a logged-in person back here for ever
        # (Django's view answers that with a server error): go to the default page instead.
        url = super().get_redirect_url()
        return "" if urlsplit(url).path == self.request.path else url
