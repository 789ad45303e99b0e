"""django-otp-webauthn's endpoints under ``/webauthn/``, with a refused passkey counted (SPEC A-11, AD-3).

The library's own views, under its URL names (its template tags reverse them), except that completing an
authentication is the subclass below: a locked account or address is refused before the passkey is checked,
and a refused passkey counts as a wrong second factor.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from django.views.i18n import JavaScriptCatalog
from django_otp_webauthn import exceptions
from django_otp_webauthn.views import (
    BeginCredentialAuthenticationView,
    BeginCredentialRegistrationView,
    CompleteCredentialAuthenticationView,
    CompleteCredentialRegistrationView,
)

from apps.accounts import throttle
from apps.accounts.middleware import SESSION_KEY
from apps.common.addresses import client_ip_address


@method_decorator(never_cache, name="dispatch")
class PasskeyAuthenticationView(CompleteCredentialAuthenticationView):
    """The library's second-factor passkey check, throttled with the codes (SPEC A-11)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user, address = request.user, client_ip_address(request)
        if throttle.second_factor_locked(user=user, address=address):  # type: ignore[arg-type]
            return JsonResponse({"detail": "Too many failed attempts.", "code": "locked"}, status=429)
        try:
            response = super().post(request, *args, **kwargs)
        except exceptions.OTPWebAuthnApiError:
            throttle.second_factor_failed(user=user, address=address)  # type: ignore[arg-type]
            raise
        throttle.second_factor_succeeded(user=user)  # type: ignore[arg-type]
        request.session.cycle_key()
        request.session[SESSION_KEY] = True
        return response


app_name = "otp_webauthn"

urlpatterns = [
    path("registration/begin/", BeginCredentialRegistrationView.as_view(), name="credential-registration-begin"),
    path("registration/complete/", CompleteCredentialRegistrationView.as_view(),
         name="credential-registration-complete"),
    path("authentication/begin/", BeginCredentialAuthenticationView.as_view(),
         name="credential-authentication-begin"),
    path("authentication/complete/", PasskeyAuthenticationView.as_view(), name="credential-authentication-complete"),
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["django_otp_webauthn"]), name="js-i18n-catalog"),
]
