"""The other eight memory resources (SPEC D-6).

Also SPEC R-12. Design notes: docs/design.md.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


# SPEC D-6 (home)
class OwnedResource(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(_("created"))
    updated_at = models.DateTimeField(_("updated"))
    deleted_at = models.DateTimeField(_("deleted"), null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        # Type and id only: admin names records by ``__str__`` (breadcrumbs, history, messages), and staff
        # do not read a person's content unless they reveal it (SPEC AD-2).
        return f"{self._meta.verbose_name} #{self.pk}"


class Transcript(OwnedResource):
    """Speaker-segmented text; the body (segments with offsets) is a JSON object in storage."""

    title = models.CharField(_("title"), max_length=200)
    language = models.CharField(_("language"), max_length=16, default="zh-hans")
    recorded_at = models.DateTimeField(_("recorded at"))
    duration_seconds = models.PositiveIntegerField(_("duration (seconds)"), default=0)
    speakers = models.JSONField(_("speakers"), default=list, blank=True)
    segment_count = models.PositiveIntegerField(_("segments"), default=0)
    body_path = models.CharField(_("body object"), max_length=255, unique=True)
    body_bytes = models.PositiveBigIntegerField(_("body size (bytes)"))
    body_sha256 = models.CharField(_("body SHA-256"), max_length=64)

    class Meta(OwnedResource.Meta):
        verbose_name = _("transcript")
        verbose_name_plural = _("transcripts")


class CalendarEvent(OwnedResource):
    class Status(models.TextChoices):
        CONFIRMED = "confirmed", _("Confirmed")
        TENTATIVE = "tentative", _("Tentative")
        CANCELLED = "cancelled", _("Cancelled")

    title = models.CharField(_("title"), max_length=200)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.CONFIRMED)
    location = models.CharField(_("location"), max_length=200, blank=True, default="")
    notes = models.TextField(_("notes"), blank=True, default="")
    reminders = models.JSONField(_("reminders (minutes before)"), default=list, blank=True)

    class Meta(OwnedResource.Meta):
        verbose_name = _("calendar event")
        verbose_name_plural = _("calendar events")
        constraints = [
            models.CheckConstraint(condition=Q(ends_at__gte=models.F("starts_at")), name="calendar_ends_after_start"),
            models.CheckConstraint(
                condition=Q(status__in=["confirmed", "tentative", "cancelled"]), name="calendar_status_valid"
            ),
        ]

    def clean(self) -> None:
        if self.starts_at and self.ends_at and self.ends_at < self.starts_at:
            raise ValidationError({"ends_at": _("An event cannot end before it starts.")})


class Todo(OwnedResource):
    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("todo status", "Open")
        DONE = "done", _("Done")
        CANCELLED = "cancelled", _("Cancelled")

    title = models.CharField(_("title"), max_length=200)
    notes = models.TextField(_("notes"), blank=True, default="")
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.OPEN)
    due_at = models.DateTimeField(_("due"), null=True, blank=True)
    completed_at = models.DateTimeField(_("completed"), null=True, blank=True)

    class Meta(OwnedResource.Meta):
        verbose_name = _("todo")
        verbose_name_plural = _("todos")
        constraints = [
            models.CheckConstraint(condition=Q(status__in=["open", "done", "cancelled"]), name="todo_status_valid"),
        ]


class Contact(OwnedResource):
    display_name = models.CharField(_("display name"), max_length=120)
    aliases = models.JSONField(_("aliases"), default=list, blank=True)
    relation = models.CharField(_("relation"), max_length=60, blank=True, default="")
    notes = models.TextField(_("notes"), blank=True, default="")

    class Meta(OwnedResource.Meta):
        verbose_name = _("contact")
        verbose_name_plural = _("contacts")


class Episode(OwnedResource):
    """A meeting or conversation: what happened, who was there, what came of it."""

    title = models.CharField(_("title"), max_length=200)
    summary = models.TextField(_("summary"), blank=True, default="")
    topics = models.JSONField(_("topics"), default=list, blank=True)
    participants = models.JSONField(_("participants"), default=list, blank=True)
    occurred_at = models.DateTimeField(_("occurred at"))
    transcript = models.ForeignKey(
        Transcript, on_delete=models.SET_NULL, null=True, blank=True, related_name="episodes"
    )
    calendar_event = models.ForeignKey(
        CalendarEvent, on_delete=models.SET_NULL, null=True, blank=True, related_name="episodes"
    )
    todos = models.ManyToManyField(Todo, blank=True, related_name="episodes")

    class Meta(OwnedResource.Meta):
        verbose_name = _("episode")
        verbose_name_plural = _("episodes")


class VoiceMemo(OwnedResource):
    title = models.CharField(_("title"), max_length=200)
    text = models.TextField(_("text"))
    recorded_at = models.DateTimeField(_("recorded at"))
    duration_seconds = models.PositiveIntegerField(_("duration (seconds)"), default=0)

    class Meta(OwnedResource.Meta):
        verbose_name = _("voice memo")
        verbose_name_plural = _("voice memos")


class Digest(OwnedResource):
    class Period(models.TextChoices):
        DAY = "day", _("Day")
        WEEK = "week", _("Week")
        MONTH = "month", _("Month")

    period = models.CharField(_("period"), max_length=8, choices=Period.choices)
    period_start = models.DateField(_("from"))
    period_end = models.DateField(_("to"))
    summary = models.TextField(_("summary"))
    episodes = models.ManyToManyField(Episode, blank=True, related_name="digests")

    class Meta(OwnedResource.Meta):
        verbose_name = _("digest")
        verbose_name_plural = _("digests")
        constraints = [
            models.CheckConstraint(condition=Q(period_end__gte=models.F("period_start")), name="digest_period_order"),
        ]

    def __str__(self) -> str:
        return f"{self.get_period_display()} {self.period_start}"

    def clean(self) -> None:
        if self.period_start and self.period_end and self.period_end < self.period_start:
            raise ValidationError({"period_end": _("A period cannot end before it starts.")})


class Intent(OwnedResource):
    """An action the product proposes to take on a resource, waiting for a decision."""

    class Status(models.TextChoices):
        PROPOSED = "proposed", _("Proposed")
        ACCEPTED = "accepted", _("Accepted")
        REJECTED = "rejected", _("Rejected")
        DONE = "done", _("Done")

    action = models.CharField(_("proposed action"), max_length=300)
    target_ref = models.CharField(_("target resource"), max_length=80, blank=True, default="")
    payload = models.JSONField(_("details"), default=dict, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PROPOSED)

    class Meta(OwnedResource.Meta):
        verbose_name = _("intent")
        verbose_name_plural = _("intents")
