"""Who may see what: connections, shares, proposals, access history (SPEC D-3 … D-5, D-8)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.memory.models import Category, Fact
from apps.memory.models.facts import EVIDENCE_MAX, LABEL_MAX, VALUE_MAX


# SPEC D-3 (home)
class Connection(models.Model):
    """One user's consent for one assistant (an OAuth client): a "connected assistant"."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="connections")
    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="connections"
    )
    scopes = models.JSONField(_("scopes"), default=list)
    categories = models.JSONField(_("categories"), default=list)
    created_at = models.DateTimeField(_("connected since"))
    consented_at = models.DateTimeField(_("last consent"))
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("connected assistant")
        verbose_name_plural = _("connected assistants")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "application"], name="connection_one_per_user_client"),
        ]

    def __str__(self) -> str:
        return f"{self.application.name or self.application.client_id} ← {self.user}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


# SPEC D-4 (home)
class FactShare(models.Model):  # noqa: DJ008 - its admin shows it by its columns
    """The user confirmed this fact, at this version, for this connection (SPEC D-4)."""

    connection = models.ForeignKey(Connection, on_delete=models.CASCADE, related_name="shares")
    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="shares")
    fact_version = models.PositiveIntegerField(_("fact version"))
    shared_at = models.DateTimeField(_("shared"))

    class Meta:
        verbose_name = _("fact share")
        verbose_name_plural = _("fact shares")
        constraints = [
            models.UniqueConstraint(fields=["connection", "fact"], name="share_one_per_connection_fact"),
            models.CheckConstraint(condition=Q(fact_version__gte=1), name="share_version_positive"),
        ]


# SPEC D-5 (home)
class Proposal(models.Model):
    """A memory an assistant suggested; nothing changes until the user confirms (SPEC D-5, P-7)."""

    class Op(models.TextChoices):
        ADD = "add", _("Add")
        UPDATE = "update", _("Update")
        ARCHIVE = "archive", _("Archive")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        CONFIRMED = "confirmed", _("Confirmed")
        IGNORED = "ignored", _("Ignored")
        EXPIRED = "expired", _("Expired")
        CONFLICT = "conflict", _("Conflict")

    class Source(models.TextChoices):
        ASSISTANT = "assistant", _("Assistant")
        IMPORT = "import", _("Import")

    class Slot(models.TextChoices):
        """What the suggestion is to the person's facts (SPEC P-9), as judged when made or reworded."""

        NEW = "", _("New fact")
        CHANGE = "change", _("Changes a fact")
        KNOWN = "known", _("Already known")

    # SPEC P-10: an assistant's suggestion belongs to its connection; an imported one to the person alone.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="proposals")
    source = models.CharField(_("source"), max_length=10, choices=Source.choices, default=Source.ASSISTANT)
    connection = models.ForeignKey(Connection, on_delete=models.CASCADE, related_name="proposals",
                                   null=True, blank=True)
    op = models.CharField(_("operation"), max_length=8, choices=Op.choices)
    category = models.CharField(_("category"), max_length=20, choices=Category.choices, blank=True, default="")
    label = models.CharField(_("label"), max_length=LABEL_MAX, blank=True, default="")
    value = models.CharField(_("value"), max_length=VALUE_MAX, blank=True, default="")
    evidence = models.CharField(_("evidence"), max_length=EVIDENCE_MAX, blank=True, default="")
    target_fact = models.ForeignKey(Fact, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    target_version = models.PositiveIntegerField(_("target version when proposed"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PENDING)
    fingerprint = models.CharField(_("fingerprint"), max_length=64)
    created_at = models.DateTimeField(_("proposed"))
    expires_at = models.DateTimeField(_("expires"))
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    result_fact = models.ForeignKey(Fact, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # SPEC P-9: the fact whose slot an ``add`` fills, at the version judged, and how.
    slot = models.CharField(_("slot"), max_length=8, choices=Slot.choices, blank=True, default=Slot.NEW)
    slot_fact = models.ForeignKey(Fact, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    slot_version = models.PositiveIntegerField(_("slot fact version when judged"), null=True, blank=True)

    class Meta:
        verbose_name = _("proposal")
        verbose_name_plural = _("proposals")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["connection", "fingerprint"], name="proposal_conn_fingerprint"),
            # The expiry sweep (SPEC J-1) looks for pending rows past expires_at.
            models.Index(fields=["status", "expires_at"], name="proposal_status_expires"),
            # The person's inbox of imported suggestions (SPEC P-10).
            models.Index(fields=["owner", "source", "status"], name="proposal_owner_source"),
        ]
        constraints = [
            # SPEC P-4: one live proposal per (connection, normalized arguments), even under races.
            models.UniqueConstraint(
                fields=["connection", "fingerprint"],
                condition=Q(status="pending"),
                name="proposal_one_pending_per_fingerprint",
            ),
            models.CheckConstraint(condition=Q(op__in=["add", "update", "archive"]), name="proposal_op_valid"),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "confirmed", "ignored", "expired", "conflict"]),
                name="proposal_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(op="add") | Q(target_version__isnull=False), name="proposal_target_version_required"
            ),
            # SPEC P-10: an imported suggestion has no assistant; every other one has one.
            models.CheckConstraint(
                condition=Q(source="import", connection__isnull=True, op="add")
                | Q(source="assistant", connection__isnull=False),
                name="proposal_source_owner",
            ),
            # An import said again finds its waiting suggestion instead of adding another.
            models.UniqueConstraint(
                fields=["owner", "fingerprint"],
                condition=Q(status="pending", source="import"),
                name="proposal_one_pending_import",
            ),
        ]

    def __str__(self) -> str:
        # Never the label or value: admin names records by ``__str__`` (SPEC AD-2).
        return f"{self.get_op_display()} #{self.pk} ({self.status})"

    def status_at(self, moment) -> str:
        """The status as of ``moment``: pending at or past ``expires_at`` counts as expired (SPEC P-5, J-2)."""
        if self.status == self.Status.PENDING and moment >= self.expires_at:
            return self.Status.EXPIRED
        return self.status


# SPEC D-8 (home)
class AccessEvent(models.Model):  # noqa: DJ008 - its admin shows it by its columns
    """Which facts (id and version) a connection was sent, by which tool, when (SPEC D-8).

    On PostgreSQL the table is partitioned by four weeks of ``created_at`` (``apps/consent/partitions.py``):
    its primary key there is ``(id, created_at)``, ids still come from one sequence. There is no database
    foreign key to the connection (a partition's drop would lock the connections every call reads);
    deleting a connection deletes its events through ``on_delete``.
    """

    connection = models.ForeignKey(Connection, on_delete=models.CASCADE, related_name="access_events",
                                   db_constraint=False, db_index=False)
    tool = models.CharField(_("tool"), max_length=64)
    facts = models.JSONField(_("facts sent (id, version)"), default=list)
    created_at = models.DateTimeField(_("when"), db_index=True)

    class Meta:
        verbose_name = _("access event")
        verbose_name_plural = _("access events")
        ordering = ["-created_at", "-id"]
        # A connection's history newest first, the page's whole order: each partition's index walk
        # stops after one page, newest partition first.
        indexes = [models.Index(fields=["connection", "-created_at", "-id"], name="access_conn_time_id")]


class NoticeSettings(models.Model):
    """What e-mail a person wants about suggestions waiting for them (SPEC W-7). No row: the defaults."""

    class Digest(models.TextChoices):
        OFF = "off", _("Off")
        DAILY = "daily", _("Daily")
        WEEKLY = "weekly", _("Weekly")

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice_settings")
    digest = models.CharField(_("digest of waiting suggestions"), max_length=8, choices=Digest.choices,
                              default=Digest.OFF)
    expiry_notice = models.BooleanField(_("notice before suggestions expire"), default=True)
    language = models.CharField(_("language of the e-mails"), max_length=16, default=settings.LANGUAGE_CODE)
    updated_at = models.DateTimeField(_("updated"))

    class Meta:
        verbose_name = _("notice settings")
        verbose_name_plural = _("notice settings")
        constraints = [
            models.CheckConstraint(condition=Q(digest__in=["off", "daily", "weekly"]), name="notice_digest_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.digest}"


class NoticeSent(models.Model):
    """One message of one kind for one window was sent to this person: never a second (SPEC W-7).

    Written, and committed, before the message is handed to the mail server; removed again when the server
    refuses it, so a later run sends it. ``window``: the day or ISO week of a digest, the expiry date of a notice.
    """

    class Kind(models.TextChoices):
        DIGEST = "digest", _("Digest of waiting suggestions")
        EXPIRY = "expiry", _("Suggestions about to expire")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    window = models.CharField(_("window"), max_length=16)
    sent_at = models.DateTimeField(_("sent"))

    class Meta:
        verbose_name = _("notice sent")
        verbose_name_plural = _("notices sent")
        ordering = ["-sent_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "window"], name="notice_once_per_window"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.window} → {self.user}"
