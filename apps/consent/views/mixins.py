"""What every /me/ page has in common: its owner only, and the service notice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import render
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views import View
from django.views.decorators.cache import never_cache

from apps.ops.models import ServiceStatus
from apps.ops.selectors import service_status

if TYPE_CHECKING:
    from django.http import HttpRequest
    from django_stubs_ext import StrOrPromise

    from apps.accounts.models import User

    class PersonRequest(HttpRequest):
        user: User  # every page here is behind the login

# The services' ConsentError codes in the person's words.
CONSENT_ERRORS = {
    "revoked": _("This assistant's access was revoked; nothing can be changed for it any more."),
    "not_shareable": _(
        "Some of the ticked facts cannot be shared with this assistant (they changed, became sensitive, "
        "or are outside its categories). Nothing was changed — please check the list and save again."
    ),
    "changed": _(
        "Some of the ticked facts changed after this page was loaded, so you have not seen what they say now. "
        "Nothing was saved: they are unticked below — look at them and save again."
    ),
    "widening_refused": _("Access can only be removed here. To give more, the assistant has to ask again."),
}
CONSENT_ERROR_DEFAULT = _("This change is not allowed. Nothing was changed.")


def consent_error_message(error: Exception) -> StrOrPromise:
    return CONSENT_ERRORS.get(getattr(error, "code", ""), CONSENT_ERROR_DEFAULT)


# SPEC I-3 (home)
class MePage(LoginRequiredMixin, View):
    """A page or action under /me/: anonymous visitors go to the login page (SPEC I-3).

    Never cached; shows the service notice while the assistant entry point is closed (SPEC M-10).
    """

    request: PersonRequest
    nav = ""  # which header link is the current page

    @method_decorator(never_cache)
    def dispatch(self, request, *args, **kwargs):
        """Every answer, the login redirect too, is ``no-store, private`` (SPEC A-11): no personal page stays cached."""
        return super().dispatch(request, *args, **kwargs)

    def render_page(self, template: str, context: dict, status: int = 200, *, page_path: str | None = None):
        """``page_path``: the page's own address, where the language switch returns after a refused action."""
        status_row = service_status()
        notice = status_row if status_row.state != ServiceStatus.State.OPEN else None
        context = {**context, "service_notice": notice, "nav": self.nav, "page_path": page_path}
        return render(self.request, template, context, status=status)


# SPEC W-5 (home)
class MeAction(MePage):
    """A POST-only action (SPEC W-5): it changes something, then redirects or re-renders."""

    http_method_names = ["post"]
