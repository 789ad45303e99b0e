"""The second factor after the password, and the person's own security page (SPEC AD-3, W-5).

``/accounts/second-factor/`` asks a session that owes its factor for a code (authenticator app or recovery
code, a form that needs no JavaScript) or a passkey (which needs the browser's WebAuthn API).
``/me/security/`` lists the person's factors and adds them: an authenticator app (QR code and key, confirmed
by its first code), passkeys, new recovery codes. Every answer is ``no-store`` (SPEC A-11).
"""

from __future__ import annotations

import base64
from binascii import unhexlify
from typing import Any

import segno
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _
from django.views import View
from django.views.decorators.cache import never_cache
from django_otp import login as otp_login

from apps.accounts import services
from apps.accounts.lockout import lockout_response
from apps.accounts.middleware import SESSION_KEY, VERIFY, second_factor_due
from apps.accounts.passkeys import passkeys_available
from apps.accounts.selectors import factors_of
from apps.common.addresses import client_ip_address
from apps.consent.views.mixins import MePage

TOTP_KEY = "accounts_totp_key"  # the key being added, until its first code confirms it

ERRORS = {
    "wrong_code": _("That code is not right. Check the code and try again."),
    "already": _("You already have an authenticator app. Remove it first to add another."),
}


def _safe_next(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        return target
    return default


def verified(request: HttpRequest, device: Any) -> None:
    """Mark the session as having given its second factor, under a new session key (no fixation)."""
    request.session.cycle_key()
    otp_login(request, device)
    request.session[SESSION_KEY] = True


@method_decorator(never_cache, name="dispatch")
class SecondFactorView(LoginRequiredMixin, View):
    """After the password: the authenticator code, a recovery code or a passkey (SPEC AD-3, A-11)."""

    template_name = "registration/second_factor.html"

    def render_form(self, error: str = "", status: int = 200) -> HttpResponse:
        factors = factors_of(user=self.request.user)  # type: ignore[arg-type]  # behind the login
        context = {"factors": factors, "error": error, "next": _safe_next(self.request, ""), "owes_second_factor": True,
                   "passkeys": bool(factors.passkeys) and passkeys_available()}
        return render(self.request, self.template_name, context, status=status)

    def get(self, request: HttpRequest) -> HttpResponse:
        if second_factor_due(request) != VERIFY:  # verified already, or nothing to give (yet)
            return HttpResponseRedirect(_safe_next(request, reverse("consent:facts")))
        return self.render_form()

    def post(self, request: HttpRequest) -> HttpResponse:
        try:
            device = services.second_factor_verify(user=request.user, code=request.POST.get("code", ""),  # type: ignore[arg-type]
                                                   address=client_ip_address(request))
        except services.SecondFactorError as error:
            if error.code == "locked":
                return lockout_response(request)
            return self.render_form(str(ERRORS["wrong_code"]), status=400)
        verified(request, device)
        return HttpResponseRedirect(_safe_next(request, reverse("consent:facts")))


class SecurityView(MePage):
    """``/me/security/``: the person's second factors, and the ways to add them."""

    nav = "security"

    def get(self, request: HttpRequest) -> HttpResponse:
        factors = factors_of(user=self.request.user)
        return self.render_page("me/security.html", {
            "factors": factors, "passkeys_available": passkeys_available(), "next": _safe_next(request, ""),
            "must_enrol": self.request.user.is_staff and not self.request.user.is_verified(),  # type: ignore[attr-defined]
        })


def _qr_data_uri(url: str) -> str:
    svg = segno.make(url, error="m").svg_inline(scale=4, border=2)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


class AuthenticatorView(MePage):
    """``/me/security/authenticator/``: add an authenticator app; its first code confirms it (SPEC AD-3)."""

    nav = "security"

    def render_form(self, error: str = "", status: int = 200) -> HttpResponse:
        key = self.request.session.get(TOTP_KEY)
        if not key:
            key = self.request.session[TOTP_KEY] = services.totp_key_new()
        url = services.totp_config_url(user=self.request.user, key=key)
        secret = base64.b32encode(unhexlify(key)).decode()
        return self.render_page("me/security_authenticator.html", {
            "qr": _qr_data_uri(url), "secret": " ".join(secret[i:i + 4] for i in range(0, len(secret), 4)),
            "error": error, "next": _safe_next(self.request, ""),
        }, status=status, page_path=reverse("accounts:authenticator"))

    def get(self, request: HttpRequest) -> HttpResponse:
        if factors_of(user=self.request.user).authenticator_app is not None:
            messages.info(request, ERRORS["already"])
            return HttpResponseRedirect(reverse("accounts:security"))
        return self.render_form()

    def post(self, request: HttpRequest) -> HttpResponse:
        key = request.session.get(TOTP_KEY)
        if not key:
            return self.render_form(str(ERRORS["wrong_code"]), status=400)
        try:
            device = services.totp_device_add(user=self.request.user, key=key, code=request.POST.get("code", ""),
                                              name=str(_("Authenticator app")))
        except services.SecondFactorError as error:
            return self.render_form(str(ERRORS[error.code]), status=400)
        del request.session[TOTP_KEY]
        if not request.user.is_verified():  # type: ignore[union-attr]
            verified(request, device)
        messages.success(request, _("Your authenticator app is added. Logging in now asks for its code."))
        if factors_of(user=self.request.user).recovery_codes_left == 0:
            return self._recovery_codes()
        return HttpResponseRedirect(_safe_next(request, reverse("accounts:security")))

    def _recovery_codes(self) -> HttpResponse:
        codes = services.recovery_codes_issue(user=self.request.user, name=str(_("Recovery codes")))
        return self.render_page("me/recovery_codes.html", {"codes": codes, "next": _safe_next(self.request, "")})


class RecoveryCodesView(MePage):
    """POST ``/me/security/recovery-codes/``: new recovery codes, shown once; the old ones stop working."""

    http_method_names = ["post"]
    nav = "security"

    def post(self, request: HttpRequest) -> HttpResponse:
        if not request.user.is_verified() or not factors_of(user=self.request.user).any_primary:  # type: ignore[union-attr]
            messages.error(request, _("Add an authenticator app or a passkey first."))
            return HttpResponseRedirect(reverse("accounts:security"))
        codes = services.recovery_codes_issue(user=self.request.user, name=str(_("Recovery codes")))
        return self.render_page("me/recovery_codes.html", {"codes": codes, "next": ""})


class AuthenticatorRemoveView(MePage):
    """POST ``/me/security/authenticator/remove/``: remove the authenticator app; staff keep at least one factor."""

    http_method_names = ["post"]
    nav = "security"

    def post(self, request: HttpRequest) -> HttpResponse:
        factors = factors_of(user=self.request.user)
        if request.user.is_staff and not factors.passkeys:
            messages.error(request, _("Staff accounts keep a second factor: add a passkey before removing the app."))
        elif request.user.is_verified():  # type: ignore[union-attr]
            services.totp_device_remove(user=self.request.user)
            messages.success(request, _("The authenticator app is removed."))
        return HttpResponseRedirect(reverse("accounts:security"))
