"""The search projection in admin (SPEC AD-1): which record and field each row indexes, never its text (SPEC AD-2)."""

from __future__ import annotations

from django.contrib import admin

from apps.retrieval.models import SearchProjection
from apps.staff.masking import PersonalAdmin, WrittenByTheProduct


@admin.register(SearchProjection)
class SearchProjectionAdmin(PersonalAdmin, WrittenByTheProduct):
    """Written only by ``retrieval.services``: staff look, nobody edits or deletes a row here."""

    list_display = ("id", "owner", "resource_type", "record_id", "field", "text", "vector_model", "updated_at")
    list_filter = ("resource_type", "vector_model", "updated_at")
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    fields = ("owner", "resource_type", "record_id", "field", "text", "vector_model", "updated_at")
    readonly_fields = fields
    shown = ("id", "owner", "resource_type", "record_id", "field", "vector_model", "updated_at")
    search_also = ("resource_type",)
    actions = None
