"""The service status in admin: one row, edited in place, never deleted (SPEC D-9, AD-1)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from apps.ops.models import ServiceStatus
from apps.ops.services import service_status_set


@admin.register(ServiceStatus)
class ServiceStatusAdmin(admin.ModelAdmin):
    list_display = ("state", "message", "updated_at")
    fields = ("state", "message", "updated_at")
    readonly_fields = ("updated_at",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and not ServiceStatus.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: ServiceStatus | None = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        """There is one status: go straight to it (or to creating it)."""
        status = ServiceStatus.objects.filter(pk=1).first()
        if status is not None and self.has_view_or_change_permission(request, status):
            return redirect(reverse("admin:ops_servicestatus_change", args=[status.pk]))
        if status is None and self.has_add_permission(request):
            return redirect(reverse("admin:ops_servicestatus_add"))
        return super().changelist_view(request, extra_context)

    def save_model(self, request: HttpRequest, obj: ServiceStatus, form: Any, change: bool) -> None:
        saved = service_status_set(state=obj.state, message=obj.message)
        obj.pk, obj.message, obj.updated_at = saved.pk, saved.message, saved.updated_at
