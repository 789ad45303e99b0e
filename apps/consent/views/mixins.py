"""What every /me/ page has in common: its owner only, and the service notice."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import render
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views import View

from apps.ops.models import ServiceStatus
from apps.ops.selectors import service_status

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


def consent_error_message(error) -> str:
    return CONSENT_ERRORS.get(getattr(error, "code", ""), CONSENT_ERROR_DEFAULT)


# SPEC I-3 (home)
class MePage(LoginRequiredMixin, View):
    """A page or action under /me/: anonymous visitors go to the login page (SPEC I-3).

    Nothing of it is ever cached (``dispatch``). Every page shows the service
    notice while the assistant entry point is not open (SPEC M-10), so people
    know why their assistants cannot reach them.
    """

    nav = ""  # which header link is the current page

    @method_decorator(never_cache)
    def dispatch(self, request, *args, **kwargs):
        """Every answer, the login redirect included, is ``no-store, private`` (SPEC A-11).

        Personal data must not stay in a browser's or a proxy's cache: after a
        logout on a shared computer, Back would show the pages again.
        """
        return super().dispatch(request, *args, **kwargs)

    def render_page(self, template: str, context: dict, status: int = 200, *, page_path: str | None = None):
        """``page_path``: the page's own address, for a page an action re-renders after a refusal.

        The language switch returns there: the action's address answers only POST.
        """
        status_row = service_status()
        notice = status_row if status_row.state != ServiceStatus.State.OPEN else None
        context = {**context, "service_notice": notice, "nav": self.nav, "page_path": page_path}
        return render(self.request, template, context, status=status)


# SPEC W-5 (home)
class MeAction(MePage):
    """A POST-only action (SPEC W-5): it changes something, then redirects or re-renders."""

    http_method_names = ["post"]
