"""E-mail about waiting suggestions: the person's choices, and the unsubscribe link of every message (SPEC W-7)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from apps.consent import notice_mail
from apps.consent.forms import NoticeSettingsForm
from apps.consent.selectors import notices as selectors
from apps.consent.services import notice_settings_save, notices_unsubscribe
from apps.consent.views.mixins import MeAction, MePage

TEMPLATE = "me/notices.html"


class NoticesPageMixin(MePage):
    nav = "notices"

    def render_notices(self, form=None, status=200):
        chosen = selectors.notice_settings(user=self.request.user)
        form = form or NoticeSettingsForm.for_settings(chosen, self.request.user.email)
        language = dict(settings.LANGUAGES).get(notice_mail.language_of(chosen.language), "")
        return self.render_page(TEMPLATE, {"form": form, "chosen": chosen, "mail_language": language},
                                status=status, page_path=reverse("consent:notices"))


class NoticesView(NoticesPageMixin):
    def get(self, request):
        return self.render_notices()


class NoticesSaveView(NoticesPageMixin, MeAction):
    def post(self, request):
        form = NoticeSettingsForm(request.POST, auto_id="notices-%s")
        if form.is_valid():
            try:
                # The messages are written in the language of the page the person saved their choice on.
                notice_settings_save(user=request.user, language=get_language(), **form.cleaned_data)
            except ValidationError as error:
                found = error.error_dict if hasattr(error, "error_dict") else {None: error.error_list}
                for field, errors in found.items():
                    form.add_error(field if field in form.fields else None, errors)
            else:
                messages.success(request, _("Saved your e-mail choices."))
                return redirect(reverse("consent:notices"))
        return self.render_notices(form, status=400)


@method_decorator([never_cache, csrf_exempt], name="dispatch")
class UnsubscribeView(View):
    """The link every message carries: no login; the signed token names the person (SPEC W-7).

    GET shows one button (link checkers of mail providers open links, and must not unsubscribe anyone);
    POST unsubscribes — the button, or a mail client's one-click POST (RFC 8058), which carries no CSRF
    cookie: the signed token is the proof, and all it can do is stop e-mail.
    """

    http_method_names = ["get", "post"]

    def get(self, request, token):
        known = notice_mail.unsubscribe_user_id(token) is not None
        return render(request, "notices/unsubscribe.html", {"valid": known, "done": False},
                      status=200 if known else 404)

    def post(self, request, token):
        user_id = notice_mail.unsubscribe_user_id(token)
        if user_id is None or not notices_unsubscribe(user_id=user_id):
            return render(request, "notices/unsubscribe.html", {"valid": False, "done": False}, status=404)
        return render(request, "notices/unsubscribe.html", {"valid": True, "done": True})
