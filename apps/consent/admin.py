"""Admin for connections, shares and access history (SPEC AD-1); staff changes recorded for the person (SPEC AD-2).

Also SPEC C-7. Design notes: docs/design.md, docs/privacy.md.
"""

from typing import ClassVar

from django.contrib import admin
from django.core.paginator import Paginator
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.consent.models import AccessEvent, Connection, FactShare, NoticeSent, NoticeSettings
from apps.consent.selectors.pages import TOOL_WORDS
from apps.consent.services import connection_revoke
from apps.staff.masking import PersonalAdmin

ASSISTANT_SEARCH = ("application__name", "application__client_id")


class ReadOnlyAdmin(admin.ModelAdmin):
    fields: ClassVar[tuple[str, ...]] = ()

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        return self.fields


class RevokedListFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("active", _("Active")), ("revoked", _("Revoked"))]

    def queryset(self, request, queryset):
        if self.value() == "active":
            return queryset.filter(revoked_at=None)
        if self.value() == "revoked":
            return queryset.exclude(revoked_at=None)
        return queryset


@admin.register(Connection)
class ConnectionAdmin(PersonalAdmin, ReadOnlyAdmin):
    list_display = ("id", "user", "assistant", "scope_list", "category_list", "created_at", "last_used_at",
                    "revoked_at")
    list_select_related = ("user", "application")
    list_filter = (RevokedListFilter, "created_at", "last_used_at")
    person = "user"
    search_also = ASSISTANT_SEARCH
    fields = ("user", "application", "scopes", "categories", "created_at", "consented_at", "last_used_at",
              "revoked_at")
    shown = ("id", *list_display, *fields)  # which assistant, what it may do and when: no content
    actions = ("revoke",)

    @admin.display(description=_("assistant (self-declared name)"), ordering="application__name")
    def assistant(self, obj):
        return obj.application.name or obj.application.client_id

    @admin.display(description=_("scopes"))
    def scope_list(self, obj):
        return ", ".join(obj.scopes) or "—"

    @admin.display(description=_("categories"))
    def category_list(self, obj):
        return ", ".join(obj.categories) or "—"

    @admin.action(description=_("Revoke selected connections"), permissions=("change",))
    def revoke(self, request, queryset):
        count = 0
        for connection in queryset:
            connection_revoke(connection=connection)
            count += 1
        self.message_user(request, ngettext("Revoked %d connection.", "Revoked %d connections.", count) % count)

    def has_change_permission(self, request, obj=None):
        # The list may run the revoke action; a single connection is only ever viewed here.
        return obj is None and super().has_change_permission(request, obj)


@admin.register(FactShare)
class FactShareAdmin(PersonalAdmin, ReadOnlyAdmin):
    list_display = ("id", "connection", "fact_id", "fact_version", "shared_at")
    list_select_related = ("connection__user", "connection__application")
    list_filter = ("shared_at",)
    person = "connection__user"
    search_also = ("connection__application__name",)
    fields = ("connection", "fact", "fact_version", "shared_at")
    shown = ("id", *list_display, *fields)  # a fact is named by category and id

    def has_change_permission(self, request, obj=None):
        return False


class ToolListFilter(admin.SimpleListFilter):
    """The tools that record access, listed from the catalog's words rather than by a scan for distinct values."""

    title = _("tool")
    parameter_name = "tool"

    def lookups(self, request, model_admin):
        return [(tool, tool) for tool in TOOL_WORDS]

    def queryset(self, request, queryset):
        return queryset.filter(tool=self.value()) if self.value() else queryset


class CappedPaginator(Paginator):
    """Counts at most ``CAP`` rows: the access history holds hundreds of millions (SPEC D-8)."""

    CAP = 10_000

    @cached_property
    def count(self):
        return self.object_list.values("pk")[: self.CAP].count()  # type: ignore[attr-defined] # a queryset here


@admin.register(AccessEvent)
class AccessEventAdmin(PersonalAdmin, ReadOnlyAdmin):
    list_display = ("id", "connection", "tool", "fact_count", "created_at")
    list_select_related = ("connection__user", "connection__application")
    list_filter = (ToolListFilter, "created_at")
    paginator = CappedPaginator
    show_full_result_count = False
    person = "connection__user"
    search_also = ("connection__application__name", "tool")
    fields = ("connection", "tool", "facts", "created_at")
    shown = ("id", *list_display, *fields)  # ids and versions of what was sent, never its text

    @admin.display(description=_("facts sent"))
    def fact_count(self, obj):
        return len(obj.facts or [])

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(NoticeSettings)
class NoticeSettingsAdmin(PersonalAdmin, ReadOnlyAdmin):
    """What e-mail each person chose (SPEC W-7); changed only by the person, on their pages or by unsubscribing."""

    list_display = ("id", "user", "digest", "expiry_notice", "language", "updated_at")
    list_select_related = ("user",)
    list_filter = ("digest", "expiry_notice", "language")
    person = "user"
    fields = ("user", "digest", "expiry_notice", "language", "updated_at")
    shown = ("id", *list_display, *fields)  # the person's choices of e-mail, no content

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(NoticeSent)
class NoticeSentAdmin(PersonalAdmin, ReadOnlyAdmin):
    """Which notice went to whom for which window: what keeps a window from being sent twice (SPEC W-7)."""

    list_display = ("id", "user", "kind", "window", "sent_at")
    list_select_related = ("user",)
    list_filter = ("kind", "sent_at")
    person = "user"
    search_also = ("window",)
    fields = ("user", "kind", "window", "sent_at")
    shown = ("id", *list_display, *fields)  # which notice went when: no content

    def has_change_permission(self, request, obj=None):
        return False


from apps.consent import admin_proposals  # noqa: E402, F401  (registers the Proposal admin)
