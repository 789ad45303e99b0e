"""Operational state that staff set in admin (SPEC D-9)."""

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


# SPEC D-9 (home)
class ServiceStatus(models.Model):
    """Whether the assistant entry point (/mcp) is open. A single row, id 1."""

    class State(models.TextChoices):
        OPEN = "open", pgettext_lazy("service status", "Open")
        CLOSED = "closed", _("Closed")
        MAINTENANCE = "maintenance", _("Maintenance")

    state = models.CharField(_("state"), max_length=12, choices=State.choices, default=State.OPEN)
    message = models.CharField(_("message to users and assistants"), max_length=300, blank=True, default="")
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("service status")
        verbose_name_plural = _("service status")
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="service_status_singleton")]

    def __str__(self) -> str:
        return self.get_state_display()
