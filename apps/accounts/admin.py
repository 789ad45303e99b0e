"""People in admin (SPEC AD-1): who they are, whether they are staff, how much they keep here.

A change to a person's account is a staff change to their data, recorded for them (SPEC AD-2)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django_otp.plugins.otp_totp.models import TOTPDevice

from apps.accounts.models import RecoveryCodes, SecondFactorFailure, User
from apps.staff.masking import PersonalAdmin

# A person's authenticator apps are not edited in admin: a lost factor is reset by the documented command, which
# records the reset for the person (SPEC AD-2, AD-3); the admin's device pages would be a change nobody sees.
admin.site.unregister(TOTPDevice)


@admin.register(User)
class UserAdmin(PersonalAdmin, DjangoUserAdmin):
    list_display = ("username", "email", "full_name", "active_facts", "is_active", "is_staff", "is_superuser",
                    "date_joined", "last_login")
    list_filter = ("is_active", "is_staff", "is_superuser", "date_joined", "last_login", "groups")
    person = ""  # the row is the person
    # Who the person is and what they may do here; their memory is elsewhere, masked.
    shown = ("id", *list_display, "password", "first_name", "last_name", "groups", "user_permissions",
             "facts_link", "usable_password", "password1", "password2")
    ordering = ("username",)
    readonly_fields = ("last_login", "date_joined", "facts_link")
    fieldsets = (
        *DjangoUserAdmin.fieldsets,  # type: ignore[misc]  # Django's user admin has them
        (_("Memory"), {"fields": ("facts_link",)}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        # One query for the whole page instead of one count per row.
        return super().get_queryset(request).annotate(
            active_fact_count=Count("facts", filter=Q(facts__status="active")),
        )

    @admin.display(description=_("name"), ordering="last_name")
    def full_name(self, obj: User) -> str:
        return obj.get_full_name() or "—"

    @admin.display(description=_("active facts"), ordering="active_fact_count")
    def active_facts(self, obj: Any) -> int:
        return obj.active_fact_count

    @admin.display(description=_("facts"))
    def facts_link(self, obj: User) -> str:
        if obj.pk is None:
            return "—"
        url = reverse("admin:memory_fact_changelist") + f"?owner__id__exact={obj.pk}"
        return format_html('<a href="{}">{}</a>', url, _("Show this person's facts"))


@admin.register(RecoveryCodes)
class RecoveryCodesAdmin(PersonalAdmin, admin.ModelAdmin):
    """A person's recovery codes (SPEC AD-3): how many are left and when one was last used, never a code."""

    list_display = ("user", "codes_left", "created_at", "last_used_at", "throttling_failure_count")
    person = "user"
    fields = readonly_fields = ("user", "name", "codes_left", "created_at", "last_used_at",
                                "throttling_failure_count")
    shown = ("id", *readonly_fields)  # counts and dates; the codes are digests and never listed

    def get_queryset(self, request: HttpRequest) -> QuerySet[RecoveryCodes]:
        return super().get_queryset(request).select_related("user").annotate(left=Count("codes"))

    @admin.display(description=_("codes left"), ordering="left")
    def codes_left(self, obj: Any) -> int:
        return obj.left

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # issued by the person, on their security page


@admin.register(SecondFactorFailure)
class SecondFactorFailureAdmin(PersonalAdmin, admin.ModelAdmin):
    """Wrong second factors (SPEC A-11): staff unlock an account early by deleting its rows."""

    list_display = ("user", "ip_address", "at")
    list_filter = ("at",)
    person = "user"
    search_also = ("ip_address",)
    fields = readonly_fields = ("user", "ip_address", "at")
    shown = ("id", *readonly_fields)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
