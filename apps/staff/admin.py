"""The staff access record in admin, read-only, and the reveal form (SPEC AD-2).

Design notes: docs/privacy.md.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _

from apps.common.errors import CodedError
from apps.staff.masking import WrittenByTheProduct
from apps.staff.models import REVEAL_PERMISSION, AccessRecord
from apps.staff.selectors import active_reveal
from apps.staff.services import REASON_MAX, REASON_MIN, TICKET_MAX, reveal_lifetime, staff_reveal


class RevealForm(forms.Form):
    person = forms.CharField(label=_("Person (login or id)"), max_length=150)
    reason = forms.CharField(
        label=_("Why you need to read their content"), min_length=REASON_MIN, max_length=REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("The person reads this, word for word, on their page “Access by LifeOS staff”."),
    )
    ticket = forms.CharField(label=_("Ticket reference"), max_length=TICKET_MAX, required=False)
    next = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_person(self) -> Any:
        given = self.cleaned_data["person"].strip()
        people = get_user_model()._default_manager
        found = people.filter(**{people.model.USERNAME_FIELD: given}).first()
        if found is None and given.isdigit():
            found = people.filter(pk=int(given)).first()
        if found is None:
            raise forms.ValidationError(_("No account has this login or id."))
        return found


@admin.register(AccessRecord)
class AccessRecordAdmin(WrittenByTheProduct):
    """Append-only: nobody adds, changes or deletes a row here, whatever their permissions."""

    list_display = ("at", "staff_name", "person", "action", "record_count", "ticket", "until")
    list_filter = ("action", "at")
    list_select_related = ("person",)
    search_fields = ("=person__username", "=person__email", "=staff_name", "=ticket")
    date_hierarchy = "at"
    fields = ("at", "staff_name", "person", "action", "records", "reason", "ticket", "until")
    readonly_fields = fields
    actions = None

    @admin.display(description=_("records"))
    def record_count(self, obj: AccessRecord) -> int:
        return len(obj.records or [])

    def get_urls(self) -> list[URLPattern]:
        reveal = path("reveal/", self.admin_site.admin_view(self.reveal_view), name="staff_accessrecord_reveal")
        return [reveal, *super().get_urls()]

    def reveal_view(self, request: HttpRequest) -> HttpResponse:
        """One person's content, for ``STAFF_REVEAL_MINUTES``, for a written reason that the person reads."""
        if not request.user.has_perm(REVEAL_PERMISSION):
            raise PermissionDenied
        form = RevealForm(request.POST or None, initial={
            "person": request.GET.get("person", ""), "next": request.GET.get("next", ""),
        })
        if request.method == "POST" and form.is_valid():
            try:
                record = staff_reveal(staff=request.user, person=form.cleaned_data["person"],  # type: ignore[arg-type]
                                      reason=form.cleaned_data["reason"], ticket=form.cleaned_data["ticket"])
            except CodedError as refused:
                form.add_error(refused.field if refused.field in form.fields else None, refused.message)
            else:
                until = date_format(localtime(record.until), "TIME_FORMAT")
                self.message_user(request, _(
                    "%(person)s's content is shown to you until %(until)s. The person sees this reveal and your "
                    "reason on their page."
                ) % {"person": record.person.get_username(), "until": until}, messages.WARNING)
                target = form.cleaned_data.get("next") or ""
                if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
                    target = reverse("admin:index")
                return redirect(target)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Reveal a person's content"),
            "opts": self.opts,
            "form": form,
            "active": active_reveal(staff=request.user),  # type: ignore[arg-type]
            "minutes": int(reveal_lifetime().total_seconds() // 60),
        }
        return TemplateResponse(request, "admin/staff/reveal.html", context, status=400 if form.errors else 200)
