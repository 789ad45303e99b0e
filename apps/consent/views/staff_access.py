"""Access by LifeOS staff: every reveal of, and staff change to, the person's data (SPEC AD-2)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from apps.consent.selectors.fact_lists import page_of
from apps.consent.views.mixins import MePage
from apps.staff.selectors import records_for

RECORDS_PER_PAGE = 20

# What staff did, in the person's words; an action not listed here is shown by its code.
ACTION_WORDS = {
    "reveal": _("Revealed your content to read it"),
    "add": _("Added a record"),
    "change": _("Changed a record"),
    "delete": _("Deleted records"),
    "archive": _("Archived facts"),
    "mark_sensitive": _("Marked facts sensitive"),
    "soft_delete": _("Deleted records"),
    "revoke": _("Revoked access of a connected assistant"),
    "expire_selected": _("Expired suggestions"),
    "expire_due": _("Expired suggestions past their time"),
    "end_runs": _("Ended runs of an internal agent"),
    "factor_reset": _("Reset a sign-in factor of your account"),
}


class StaffAccessView(MePage):
    nav = "staff"

    def get(self, request):
        page = page_of(records_for(person=request.user), request.GET.get("page"), RECORDS_PER_PAGE)
        for record in page.object_list:
            record.words = ACTION_WORDS.get(record.action, "")
        return self.render_page("me/staff_access.html", {"page": page})
