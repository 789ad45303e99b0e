"""Proposals in Django admin (SPEC AD-1): inspect, and expire on request. Writes go through services.

What an assistant proposed is the person's content: masked unless revealed (SPEC AD-2)."""

from typing import TYPE_CHECKING

from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.common import clock
from apps.consent.models import Proposal
from apps.consent.services import proposal_expire, proposal_expire_due
from apps.staff.masking import PersonalAdmin

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class StatusNowFilter(admin.SimpleListFilter):
    """The status as of now, as the list shows it: a pending proposal past its expiry is expired
    before the hourly sweep records it (SPEC J-2).
    """

    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return Proposal.Status.choices

    def queryset(self, request, queryset):
        value, now, Status = self.value(), clock.now(), Proposal.Status
        if value == Status.PENDING:
            return queryset.filter(status=Status.PENDING, expires_at__gt=now)
        if value == Status.EXPIRED:
            return queryset.filter(Q(status=Status.EXPIRED) | Q(status=Status.PENDING, expires_at__lte=now))
        if value in Status.values:
            return queryset.filter(status=value)
        return queryset


@admin.register(Proposal)
class ProposalAdmin(PersonalAdmin):
    list_display = ("id", "op", "category", "label", "owner", "source", "connection", "shown_status", "created_at",
                    "expires_at")
    list_filter = (StatusNowFilter, "source", "op", "category", "slot", "created_at")
    person = "owner"
    search_also = ("connection__application__name",)
    list_select_related = ("owner", "connection", "connection__user", "connection__application")
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
    actions = ("expire_selected", "expire_due")
    readonly_fields = (
        "owner", "source", "connection", "op", "category", "label", "value", "evidence", "target_fact",
        "target_version", "slot", "slot_fact", "slot_version", "shown_status", "fingerprint", "created_at",
        "expires_at", "decided_at", "result_fact",
    )
    fields = readonly_fields  # the status as of now in place of the stored one, which the sweep may not have moved
    shown = ("id", "owner", "source", "connection", "op", "category", "target_fact", "target_version", "slot",
             "slot_fact", "slot_version", "shown_status", "created_at", "expires_at", "decided_at",
             "result_fact")  # not the label, value, evidence or their fingerprint

    def has_add_permission(self, request):
        return False  # proposals come from assistants and the person's imports only

    def has_change_permission(self, request, obj=None):
        return False  # read-only: decisions are the person's, on their page

    def has_expire_permission(self, request) -> bool:
        return request.user.has_perm("consent.change_proposal")

    @admin.display(description=_("status"), ordering="status")
    def shown_status(self, obj: Proposal) -> "StrOrPromise":
        return Proposal.Status(obj.status_at(clock.now())).label

    @admin.action(description=_("Expire the selected pending proposals"), permissions=["expire"])
    def expire_selected(self, request, queryset):
        count = 0
        for proposal in queryset.filter(status=Proposal.Status.PENDING):
            proposal_expire(proposal=proposal)
            count += 1
        self.message_user(
            request, ngettext("%d proposal expired.", "%d proposals expired.", count) % count, messages.SUCCESS
        )

    @admin.action(description=_("Expire every proposal past 30 days now"), permissions=["expire"])
    def expire_due(self, request, queryset):
        # Not the selected rows: every due one, whoever it belongs to. Recorded for each person it touches.
        due = Proposal.objects.filter(status=Proposal.Status.PENDING, expires_at__lte=clock.now())
        with transaction.atomic():
            self.record_staff_change(request, "expire_due", due.values_list("pk", "connection__user"))
            count = proposal_expire_due()
        self.message_user(
            request, ngettext("%d proposal expired.", "%d proposals expired.", count) % count, messages.SUCCESS
        )

    expire_due.records_itself = True  # type: ignore[attr-defined]
