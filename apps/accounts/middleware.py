"""No page before the second factor, where one is needed (SPEC AD-3).

After the right password, a session whose person must give a second factor sees only the pages that lead to
one: staff without any factor are sent to add one (``/me/security/``), everyone with a factor to give it
(``/accounts/second-factor/``); logging out and switching the language stay open. Nothing else answers,
the admin, the person's pages and the OAuth consent included, until django-otp marks the session verified.

Whether a person has a factor is read once, at login, and kept in the session, so a page costs no extra
query; staff status is read from the user row the request loads anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.http import HttpResponseRedirect
from django.urls import reverse

from apps.accounts.selectors import has_second_factor

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.http import HttpRequest, HttpResponse

SESSION_KEY = "accounts_second_factor"  # True: the person had a factor when this session logged in

ENROL, VERIFY = "enrol", "verify"


def second_factor_remember(*, request: HttpRequest, user: Any) -> None:
    """At login (``user_logged_in``): remember in the session whether this person has a second factor."""
    if hasattr(request, "session"):
        request.session[SESSION_KEY] = has_second_factor(user=user)


def on_logged_in(sender: Any, request: HttpRequest | None = None, user: Any = None, **kwargs: Any) -> None:
    if request is not None and user is not None:
        second_factor_remember(request=request, user=user)


def second_factor_due(request: HttpRequest) -> str | None:
    """``VERIFY`` (give your factor), ``ENROL`` (staff: add one first) or ``None`` (nothing is due).

    Worked out once per request (the middleware's answer is kept on the request for the views).
    """
    if not hasattr(request, "_second_factor_due"):
        request._second_factor_due = _due(request)  # type: ignore[attr-defined]
    return request._second_factor_due  # type: ignore[attr-defined]


def _due(request: HttpRequest) -> str | None:
    user = request.user
    if not user.is_authenticated or user.is_verified():  # type: ignore[attr-defined]  # django-otp's middleware
        return None
    remembered = request.session.get(SESSION_KEY)
    if remembered is None or remembered:
        # A session from before this check, or one whose factor may have been reset since: ask the database.
        found = has_second_factor(user=user)
        if found != remembered:  # written only when it changes: no session save on every page
            request.session[SESSION_KEY] = found
        remembered = found
    if remembered:
        return VERIFY
    return ENROL if user.is_staff else None


# Paths open to a session that still owes its factor, by what it owes. Prefixes.
_ALWAYS = ("/accounts/logout/", "/i18n/", "/static/", "/webauthn/jsi18n/", "/notices/unsubscribe/")
_OPEN = {
    ENROL: (*_ALWAYS, "/me/security/", "/webauthn/registration/"),
    VERIFY: (*_ALWAYS, "/accounts/second-factor/", "/webauthn/authentication/"),
}


# SPEC AD-3 (home)
class SecondFactorMiddleware:
    """After django-otp's ``OTPMiddleware``: a session that owes a second factor reaches nothing else."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        due = second_factor_due(request)
        if due is None or request.path.startswith(_OPEN[due]):
            return self.get_response(request)
        target = reverse("accounts:second-factor") if due == VERIFY else reverse("accounts:security")
        return HttpResponseRedirect(f"{target}?{urlencode({'next': request.get_full_path()})}")
