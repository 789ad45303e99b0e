"""Admin for clients, tokens and codes that never shows a token, code, checksum or hash (SPEC AD-1).

Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from oauth2_provider.models import revoke_access_token

from apps.oauth.models import TokenFamily
from apps.oauth.redirects import redirect_uri_problem
from apps.staff.masking import PersonalAdmin

APPLICATION_SEARCH = ("application__name", "application__client_id")


# SPEC AD-1 (home)
class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written only by the OAuth flows: no adding, and every shown field read-only."""

    fields: ClassVar[tuple[str, ...]] = ()

    @admin.display(description=_("resource"))
    def resource_list(self, obj: Any) -> str:
        return " ".join(obj.resource or []) or "—"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return tuple(self.fields)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Revoke instead: deleting would drop what replay detection needs.
        return False


class ApplicationForm(forms.ModelForm):
    """Staff are held to the redirect rules assistants register under (SPEC A-6)."""

    def clean_redirect_uris(self) -> str:
        uris = self.cleaned_data.get("redirect_uris", "")
        for uri in uris.split():
            problem = redirect_uri_problem(uri)
            if problem:
                raise forms.ValidationError(problem)
        return uris


class ApplicationAdmin(admin.ModelAdmin):
    """OAuth clients: assistants register themselves; staff add internal agents' clients.

    A new client's secret is shown once, on the add form; afterwards neither it nor its hash is shown.
    """

    view_on_site = False  # the toolkit's client pages it would link to are not served here
    list_display = ("name", "client_id", "client_type", "authorization_grant_type", "registration_source", "created")
    list_filter = ("client_type", "authorization_grant_type", "registration_source")
    search_fields = ("name", "client_id")
    add_fields = ("name", "client_type", "authorization_grant_type", "redirect_uris", "client_id", "client_secret")
    change_fields = ("name", "client_id", "user", "redirect_uris", "client_type", "authorization_grant_type",
                     "registration_source", "created", "updated")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return self.add_fields if obj is None else self.change_fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return () if obj is None else self.change_fields

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        kwargs.setdefault("form", ApplicationForm)
        form = super().get_form(request, obj, change=change, **kwargs)
        if "client_secret" in form.base_fields:
            form.base_fields["client_secret"].help_text = _(
                "Copy it now: it is stored hashed and cannot be shown again."
            )
        return form


class AccessTokenAdmin(PersonalAdmin, ReadOnlyAdmin):
    list_display = ("id", "user", "application", "expires", "scope", "resource_list", "created")
    list_select_related = ("user", "application")
    list_filter = ("expires", "application")
    person = "user"
    search_also = APPLICATION_SEARCH
    fields = ("id", "user", "application", "scope", "resource_list", "expires", "created", "updated")
    shown = (*list_display, *fields)  # who, which assistant, scopes and times: no content
    actions = ("revoke",)

    @admin.action(description=_("Revoke selected access tokens"), permissions=("change",))
    def revoke(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        count = 0
        for token in queryset:
            revoke_access_token(token)
            count += 1
        self.message_user(request, ngettext("Revoked %d access token.", "Revoked %d access tokens.", count) % count)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)


class RefreshTokenAdmin(PersonalAdmin, ReadOnlyAdmin):
    list_display = ("id", "user", "application", "pair_scope", "resource_list", "revoked", "created")
    list_select_related = ("user", "application", "access_token")
    list_filter = ("revoked", "application")
    person = "user"
    search_also = APPLICATION_SEARCH
    fields = ("id", "user", "application", "pair_scope", "resource_list", "token_family", "revoked", "created")
    shown = (*list_display, *fields)  # who, which assistant, scopes and times: no content
    actions = ("revoke",)

    @admin.action(description=_("Revoke selected refresh tokens"), permissions=("change",))
    def revoke(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        count = 0
        for token in queryset:
            token.revoke()
            count += 1
        self.message_user(request, ngettext("Revoked %d refresh token.", "Revoked %d refresh tokens.", count) % count)

    @admin.display(description=_("scope"))
    def pair_scope(self, obj: Any) -> str:
        return obj.access_token.scope if obj.access_token_id else "—"

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)


class GrantAdmin(PersonalAdmin, ReadOnlyAdmin):
    list_display = ("id", "user", "application", "expires", "scope", "resource_list", "redeemed_at")
    list_select_related = ("user", "application")
    list_filter = ("expires", "redeemed_at", "application")
    person = "user"
    search_also = APPLICATION_SEARCH
    fields = ("id", "user", "application", "scope", "resource_list", "redirect_uri", "expires", "redeemed_at",
              "token_family", "created")
    shown = (*list_display, *fields)  # who, which assistant, scopes and times: no content

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class IDTokenAdmin(PersonalAdmin, ReadOnlyAdmin):
    list_display = ("id", "user", "application", "expires", "scope")
    list_select_related = ("user", "application")
    list_filter = ("expires", "application")
    person = "user"
    search_also = APPLICATION_SEARCH
    fields = ("id", "user", "application", "scope", "expires", "created")
    shown = (*list_display, *fields)  # who, which assistant, scopes and times: no content

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(TokenFamily)
class TokenFamilyAdmin(PersonalAdmin, ReadOnlyAdmin):
    """Each consent's token lineage; a replay ends it and says why (SPEC A-3)."""

    list_display = ("family", "user", "application", "consented_at", "revoked_at", "revoked_reason")
    list_select_related = ("user", "application")
    list_filter = ("revoked_reason", "consented_at", "revoked_at")
    person = "user"
    search_also = APPLICATION_SEARCH
    fields = ("family", "user", "application", "consented_at", "revoked_at", "revoked_reason")
    shown = (*list_display, *fields)  # who, which assistant, scopes and times: no content

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
