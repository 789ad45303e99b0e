"""The memory resources in admin (SPEC AD-1), their content masked unless revealed (SPEC AD-2).

Also SPEC C-2, R-6. Design notes: docs/design.md, docs/privacy.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.memory import storage
from apps.memory.models import (
    CalendarEvent,
    Contact,
    Digest,
    Episode,
    Fact,
    FactStatus,
    Intent,
    Todo,
    Transcript,
    VoiceMemo,
)
from apps.memory.services import fact_archive, fact_create, fact_update, resource_delete, todo_update
from apps.memory.services.facts import EDITABLE_FIELDS
from apps.memory.services.resources import transcript_segments
from apps.staff.masking import PersonalAdmin

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

TIMESTAMPS = ("created_at", "updated_at")
RESOURCE_STRUCTURE = ("id", "owner", *TIMESTAMPS, "deleted_at")


def _copy_saved(saved: Model, *, into: Model) -> None:
    """Let admin's messages and redirects see the row the service wrote."""
    for field in saved._meta.concrete_fields:
        setattr(into, field.attname, getattr(saved, field.attname))
    into._state.adding = False


# --- Facts (the user_profile resource) ---------------------------------------------


@admin.register(Fact)
class FactAdmin(PersonalAdmin):
    # The value's column shows its length; a staff member who revealed the owner's content sees it whole.
    list_display = ("id", "owner", "category", "label", "value", "certainty", "sensitive", "status",
                    "version", "updated_at")
    shown = ("id", "owner", "category", "certainty", "sensitive", "status", "version", *TIMESTAMPS)
    list_display_links = ("id",)
    list_filter = ("category", "certainty", "sensitive", "status", "updated_at")
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    fields = ("owner", *EDITABLE_FIELDS, "status", "version", *TIMESTAMPS)
    readonly_fields = ("status", "version", *TIMESTAMPS)
    actions = ("archive", "mark_sensitive")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # A fact never changes hands.
        readonly = super().get_readonly_fields(request, obj)
        return (*readonly, "owner") if obj else readonly

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        """Write through the services: version and detection behave as everywhere else."""
        if not change:
            saved = fact_create(
                owner=obj.owner, category=obj.category, label=obj.label, value=obj.value, evidence=obj.evidence,
                certainty=obj.certainty, sensitive=obj.sensitive or None,  # unticked: let detection decide
            )
        else:
            changes = {name: form.cleaned_data[name] for name in form.changed_data if name in EDITABLE_FIELDS}
            saved = fact_update(fact=obj, **changes)
        _copy_saved(saved, into=obj)

    @admin.action(description=_("Archive selected facts"), permissions=("change",))
    def archive(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        count = 0
        for fact in queryset.filter(status=FactStatus.ACTIVE):
            fact_archive(fact=fact)
            count += 1
        self.message_user(request, ngettext("Archived %d fact.", "Archived %d facts.", count) % count)

    @admin.action(description=_("Mark selected facts sensitive"), permissions=("change",))
    def mark_sensitive(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        count = 0
        for fact in queryset.filter(sensitive=False):
            fact_update(fact=fact, sensitive=True)
            count += 1
        self.message_user(request, ngettext("Marked %d fact sensitive.", "Marked %d facts sensitive.", count) % count)


# --- The other eight resources -------------------------------------------------------


class DeletedListFilter(admin.SimpleListFilter):
    title = _("deleted")
    parameter_name = "deleted"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, StrOrPromise]]:
        return [("no", _("No")), ("yes", _("Yes"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "no":
            return queryset.filter(deleted_at=None)
        if self.value() == "yes":
            return queryset.exclude(deleted_at=None)
        return queryset


class ResourceAdmin(PersonalAdmin):
    """Read-only view of a product-written resource, with soft delete as the one action."""

    list_select_related: ClassVar[tuple[str, ...]] = ("owner",)
    raw_id_fields = ("owner",)
    date_hierarchy = "created_at"
    actions = ("soft_delete",)
    editable: tuple = ()  # fields a subclass lets staff correct through a service

    def get_list_filter(self, request: HttpRequest) -> Any:
        return (*super().get_list_filter(request), DeletedListFilter, "created_at")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = self.get_fields(request, obj)
        return (*super().get_readonly_fields(request, obj), *(name for name in fields if name not in self.editable))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # records come from the product's own flows, never typed in

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # The list may run soft delete; a single record is only viewed unless some field is correctable.
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or bool(self.editable))

    @admin.action(description=_("Soft-delete selected records"), permissions=("change",))
    def soft_delete(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        count = 0
        for instance in queryset.filter(deleted_at=None):
            resource_delete(instance=instance)
            count += 1
        self.message_user(request, ngettext("Deleted %d record.", "Deleted %d records.", count) % count)


@admin.register(Transcript)
class TranscriptAdmin(ResourceAdmin):
    list_display = ("id", "title", "owner", "language", "recorded_at", "duration_seconds", "segment_count",
                    "body_size", "deleted_at")
    list_filter = ("language", "recorded_at")
    shown = (*RESOURCE_STRUCTURE, "language", "recorded_at", "duration_seconds", "segment_count", "body_size",
             "body_path", "body_bytes", "body_sha256")
    fields = ("owner", "title", "language", "recorded_at", "duration_seconds", "speakers", "segment_count",
              "body_path", "body_bytes", "body_sha256", "body_preview", *TIMESTAMPS, "deleted_at")

    @admin.display(description=_("body size"), ordering="body_bytes")
    def body_size(self, obj: Transcript) -> str:
        return f"{obj.body_bytes / 1024:.1f} KiB"

    @admin.display(description=_("first segments"))
    def body_preview(self, obj: Transcript) -> StrOrPromise:
        """The opening of the stored body, so staff can see that it is really there (SPEC R-12)."""
        try:
            segments = transcript_segments(obj)
        except storage.TranscriptBodyMissing:
            return _("The body object is missing from storage.")
        except storage.TranscriptBodyCorrupt:
            return _("The body object does not match its recorded SHA-256.")
        lines = [f"[{s.get('start_ms', 0) // 1000}s] {s.get('speaker', '')}: {s.get('text', '')}" for s in segments[:5]]
        more = len(segments) - len(lines)
        return "\n".join(lines + ([f"… ({more} more)"] if more > 0 else []))


@admin.register(CalendarEvent)
class CalendarEventAdmin(ResourceAdmin):
    list_display = ("id", "title", "owner", "starts_at", "ends_at", "status", "location", "deleted_at")
    list_filter = ("status", "starts_at")
    shown = (*RESOURCE_STRUCTURE, "starts_at", "ends_at", "status", "reminders")
    fields = ("owner", "title", "starts_at", "ends_at", "status", "location", "notes", "reminders",
              *TIMESTAMPS, "deleted_at")


@admin.register(Todo)
class TodoAdmin(ResourceAdmin):
    list_display = ("id", "title", "owner", "status", "due_at", "completed_at", "deleted_at")
    list_filter = ("status", "due_at")
    shown = (*RESOURCE_STRUCTURE, "status", "due_at", "completed_at")
    fields = ("owner", "title", "notes", "status", "due_at", "completed_at", *TIMESTAMPS, "deleted_at")
    editable = ("status", "due_at")

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        changes = {name: form.cleaned_data[name] for name in form.changed_data if name in self.editable}
        if changes:
            _copy_saved(todo_update(todo=obj, **changes), into=obj)


@admin.register(Contact)
class ContactAdmin(ResourceAdmin):
    list_display = ("id", "display_name", "owner", "relation", "alias_list", "updated_at", "deleted_at")
    shown = RESOURCE_STRUCTURE
    fields = ("owner", "display_name", "aliases", "relation", "notes", *TIMESTAMPS, "deleted_at")

    @admin.display(description=_("aliases"))
    def alias_list(self, obj: Contact) -> str:
        return ", ".join(obj.aliases or []) or "—"


class EpisodeTodoInline(admin.TabularInline):
    model = Episode.todos.through
    verbose_name = _("linked todo")
    verbose_name_plural = _("linked todos")
    raw_id_fields = ("todo",)
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Episode)
class EpisodeAdmin(ResourceAdmin):
    list_display = ("id", "title", "owner", "occurred_at", "transcript", "calendar_event", "deleted_at")
    list_filter = ("occurred_at",)
    list_select_related = ("owner", "transcript", "calendar_event")
    shown = (*RESOURCE_STRUCTURE, "occurred_at", "transcript", "calendar_event")
    fields = ("owner", "title", "occurred_at", "summary", "topics", "participants", "transcript",
              "calendar_event", *TIMESTAMPS, "deleted_at")
    inlines = (EpisodeTodoInline,)


@admin.register(VoiceMemo)
class VoiceMemoAdmin(ResourceAdmin):
    list_display = ("id", "title", "owner", "recorded_at", "duration_seconds", "deleted_at")
    list_filter = ("recorded_at",)
    shown = (*RESOURCE_STRUCTURE, "recorded_at", "duration_seconds")
    fields = ("owner", "title", "text", "recorded_at", "duration_seconds", *TIMESTAMPS, "deleted_at")


@admin.register(Digest)
class DigestAdmin(ResourceAdmin):
    list_display = ("id", "__str__", "owner", "period", "period_start", "period_end", "deleted_at")
    list_filter = ("period", "period_start")
    shown = (*RESOURCE_STRUCTURE, "__str__", "period", "period_start", "period_end", "episodes")
    fields = ("owner", "period", "period_start", "period_end", "summary", "episodes", *TIMESTAMPS, "deleted_at")


@admin.register(Intent)
class IntentAdmin(ResourceAdmin):
    list_display = ("id", "action", "owner", "target_ref", "status", "updated_at", "deleted_at")
    list_filter = ("status",)
    shown = (*RESOURCE_STRUCTURE, "target_ref", "status")
    fields = ("owner", "action", "target_ref", "payload", "status", *TIMESTAMPS, "deleted_at")

