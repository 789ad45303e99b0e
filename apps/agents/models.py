"""Internal agents: their policies and their runs' frozen grants (SPEC D-7, R-4).

Design notes: docs/design.md.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.retrieval.layer.access import GrantInvalid, check_pattern
from apps.retrieval.layer.registry import registry

EVERY_FIELD = "*"  # in a grant's field list: every declared field of the type


class AgentPolicy(models.Model):
    agent_id = models.SlugField(_("agent id"), max_length=64, unique=True)
    name = models.CharField(_("name"), max_length=120)
    application = models.OneToOneField(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL,
        on_delete=models.CASCADE,
        related_name="agent_policy",
        verbose_name=_("OAuth client"),
        help_text=_("A confidential client with the client-credentials grant; the agent authenticates as it."),
    )
    enabled = models.BooleanField(_("enabled"), default=True)
    updated_at = models.DateTimeField(_("updated"))

    class Meta:
        verbose_name = _("agent policy")
        verbose_name_plural = _("agent policies")
        ordering = ["agent_id"]

    def __str__(self) -> str:
        return self.agent_id


def grant_operations(*, can_list: bool, can_read: bool, can_search: bool) -> list[str]:
    return [op for op, on in (("list", can_list), ("read", can_read), ("search", can_search)) if on]


def grant_field_patterns(fields: str) -> list[str]:
    """A grant's stored field lines as patterns ("" for every field)."""
    lines = [line.strip() for line in fields.splitlines() if line.strip()]
    return ["" if line == EVERY_FIELD else line for line in lines]


def _resource_choices() -> list[tuple[str, str]]:
    return [(r.type, r.type) for r in registry.all()]


class AgentGrant(models.Model):
    """One resource type an agent may use: the operations and the field paths."""

    policy = models.ForeignKey(AgentPolicy, on_delete=models.CASCADE, related_name="grants")
    resource = models.CharField(_("resource type"), max_length=32, choices=_resource_choices)
    can_list = models.BooleanField(_("list"), default=True)
    can_search = models.BooleanField(_("search"), default=True)
    can_read = models.BooleanField(_("read"), default=True)
    fields = models.TextField(
        _("fields"),
        blank=True,
        help_text=_('One JSON Pointer per line, e.g. /title or /participants/*/display_name. '
                    'A path grants everything under it; "*" alone grants every field.'),
    )

    class Meta:
        verbose_name = _("resource grant")
        verbose_name_plural = _("resource grants")
        ordering = ["resource"]
        constraints = [models.UniqueConstraint(fields=["policy", "resource"], name="agent_grant_one_per_type")]

    def __str__(self) -> str:
        return f"{self.policy_id}:{self.resource}"

    @property
    def operations(self) -> list[str]:
        return grant_operations(can_list=self.can_list, can_read=self.can_read, can_search=self.can_search)

    @property
    def field_patterns(self) -> list[str]:
        return grant_field_patterns(self.fields)

    def clean(self) -> None:
        resource = registry.get(self.resource)
        if resource is None:
            raise ValidationError({"resource": _("Unknown resource type.")})
        try:
            for pattern in self.field_patterns:
                check_pattern(resource, pattern)
        except GrantInvalid as exc:
            raise ValidationError({"fields": str(exc)}) from None


# SPEC D-7 (home)
class RunSnapshot(models.Model):
    """One agent run and the grant frozen when it started (SPEC D-7)."""

    run_id = models.UUIDField(_("run id"), default=uuid.uuid4, unique=True, editable=False)
    thread_id = models.CharField(_("thread id"), max_length=200)
    agent_key = models.SlugField(_("agent id"), max_length=64)
    agent = models.ForeignKey(
        AgentPolicy, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs",
        verbose_name=_("agent policy"),
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    audience = models.CharField(_("audience"), max_length=16, default="internal")
    grant = models.JSONField(_("granted at start"))
    started_at = models.DateTimeField(_("started"))
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)

    class Meta:
        verbose_name = _("run snapshot")
        verbose_name_plural = _("run snapshots")
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["agent_key", "started_at"], name="run_agent_started")]

    def __str__(self) -> str:
        return f"{self.agent_key} {self.run_id}"
