"""The append-only record of staff access to a person's data (SPEC AD-2).

Design notes: docs/privacy.md.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

REVEAL = "reveal"
REVEAL_PERMISSION = "staff.reveal_personal_content"


class AccessRecord(models.Model):
    """One staff reveal of, or change to, one person's data. Written once by ``staff.services``, never changed.

    A reveal row also holds when it ends (``until``): the active reveal is a row, so it ends on every worker at
    the same moment, whatever the session.
    """

    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("staff member"),
    )
    staff_name = models.CharField(_("staff member's login"), max_length=150)  # kept if the account goes
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("person"),
    )
    action = models.CharField(_("action"), max_length=64)
    records = models.JSONField(_("records"), default=list, blank=True)
    reason = models.TextField(_("reason"), blank=True, default="")
    ticket = models.CharField(_("ticket reference"), max_length=100, blank=True, default="")
    at = models.DateTimeField(_("when"))
    until = models.DateTimeField(_("revealed until"), null=True, blank=True)

    class Meta:
        verbose_name = _("staff access record")
        verbose_name_plural = _("staff access records")
        ordering = ["-at", "-id"]
        permissions = [("reveal_personal_content", _("May reveal personal content"))]
        indexes = [
            models.Index(fields=["person", "-at"], name="staff_access_person_time"),
            models.Index(fields=["staff", "action", "-at"], name="staff_access_staff_action"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(action=REVEAL) | models.Q(until__isnull=False), name="staff_reveal_has_end",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} #{self.pk}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ValueError("a staff access record is never changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("a staff access record is never deleted")
