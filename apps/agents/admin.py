"""Agent policies are edited in admin (resources, operations, field paths); runs are inspected and ended."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.agents.models import AgentGrant, AgentPolicy, RunSnapshot
from apps.agents.services import runs_end
from apps.staff.masking import PersonalAdmin

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class AgentGrantInline(admin.TabularInline):
    model = AgentGrant
    extra = 0
    fields = ("resource", "can_list", "can_search", "can_read", "fields")


@admin.register(AgentPolicy)
class AgentPolicyAdmin(admin.ModelAdmin):
    list_display = ("agent_id", "name", "application", "enabled", "updated_at")
    list_filter = ("enabled",)
    search_fields = ("agent_id", "name", "application__name", "application__client_id")
    readonly_fields = ("updated_at",)
    raw_id_fields = ("application",)
    inlines = [AgentGrantInline]

    def save_model(self, request: HttpRequest, obj: AgentPolicy, form: Any, change: bool) -> None:
        obj.updated_at = timezone.now()
        super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        # A changed grant is a changed policy: the next call of every run sees it (SPEC R-4).
        AgentPolicy.objects.filter(pk=form.instance.pk).update(updated_at=timezone.now())


class EndedFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, StrOrPromise]]:
        return [("live", _("running")), ("ended", _("ended"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[RunSnapshot]) -> QuerySet[RunSnapshot]:
        if self.value() == "live":
            return queryset.filter(ended_at=None)
        if self.value() == "ended":
            return queryset.exclude(ended_at=None)
        return queryset


@admin.register(RunSnapshot)
class RunSnapshotAdmin(PersonalAdmin):
    """A run's frozen grant names types, operations and field paths, never a person's content (SPEC AD-2)."""

    list_display = ("run_id", "agent_key", "user", "thread_id", "started_at", "ended_at")
    list_filter = (EndedFilter, "agent_key", "audience")
    person = "user"
    search_also = ("run_id", "thread_id", "agent_key")
    date_hierarchy = "started_at"
    readonly_fields = ("run_id", "thread_id", "agent_key", "agent", "user", "audience", "grant", "started_at",
                       "ended_at")
    shown = ("id", *readonly_fields)
    actions = ["end_runs"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: RunSnapshot | None = None) -> bool:
        return False

    def has_end_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("agents.change_runsnapshot")

    @admin.action(description=_("End the selected runs"), permissions=["end"])
    def end_runs(self, request: HttpRequest, queryset: QuerySet[RunSnapshot]) -> None:
        ended = runs_end(runs=list(queryset))
        self.message_user(request, _("%(n)d runs ended.") % {"n": ended}, messages.SUCCESS)
