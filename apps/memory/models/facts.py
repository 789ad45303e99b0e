"""Profile facts (SPEC D-1, D-2)."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual
from django.utils.translation import gettext_lazy as _

# SPEC D-1 (home)
LABEL_MAX = 40
VALUE_MAX = 300
EVIDENCE_MAX = 300


# SPEC D-2 (home)
class Category(models.TextChoices):
    BASIC = "basic", _("Basic information")
    PREFERENCES = "preferences", _("Preferences")
    HABITS = "habits", _("Habits")
    GOALS = "goals", _("Goals")
    WORK_STUDY = "work_study", _("Work and study")
    HEALTH = "health", _("Health")
    RELATIONSHIPS = "relationships", _("Relationships")
    UNCATEGORIZED = "uncategorized", _("Uncategorized")

    # SPEC C-4 (home)
    @classmethod
    def shareable(cls) -> list[str]:
        """Categories an assistant may ever be granted (SPEC D-2, C-4)."""
        return [cls.BASIC, cls.PREFERENCES, cls.HABITS, cls.GOALS, cls.WORK_STUDY]

    @classmethod
    def is_shareable(cls, code: str) -> bool:
        return code in cls.shareable()


class Certainty(models.TextChoices):
    CONFIRMED = "confirmed", _("Confirmed")
    GUESS = "guess", _("Guess")


class FactStatus(models.TextChoices):
    ACTIVE = "active", _("Active")
    ARCHIVED = "archived", _("Archived")


def shareable_lookups(path: str = "") -> dict:
    """What a fact must be to be shared with any assistant at all: active, not sensitive, confirmed.

    The fact's part of SPEC C-1, as lookups for a caller's one ``filter()``; ``path``: ``"fact__"`` from a share."""
    return {f"{path}status": FactStatus.ACTIVE, f"{path}sensitive": False, f"{path}certainty": Certainty.CONFIRMED}


class FactQuerySet(models.QuerySet):
    def shareable(self, **lookups) -> "FactQuerySet":
        """The facts that may be shared at all (``shareable_lookups``) and match ``lookups``, in one filter."""
        return self.filter(**shareable_lookups(), **lookups)


def validate_one_line(text: str) -> None:
    if "\n" in text or "\r" in text:
        raise ValidationError(_("Must be a single line."), code="multi_line")


def _one_line(field: str) -> Q:
    return ~Q(**{f"{field}__contains": "\n"}) & ~Q(**{f"{field}__contains": "\r"})


class Fact(models.Model):
    """Something true about its owner. Written only through ``memory.services``."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="facts")
    category = models.CharField(_("category"), max_length=20, choices=Category.choices)
    label = models.CharField(_("label"), max_length=LABEL_MAX)
    value = models.CharField(_("value"), max_length=VALUE_MAX)
    evidence = models.CharField(
        _("evidence"), max_length=EVIDENCE_MAX, blank=True, default="", validators=[validate_one_line]
    )
    certainty = models.CharField(_("certainty"), max_length=10, choices=Certainty.choices, default=Certainty.CONFIRMED)
    sensitive = models.BooleanField(_("sensitive"), default=False)
    status = models.CharField(_("status"), max_length=10, choices=FactStatus.choices, default=FactStatus.ACTIVE)
    version = models.PositiveIntegerField(_("version"), default=1)
    created_at = models.DateTimeField(_("created"))
    updated_at = models.DateTimeField(_("updated"))

    objects = FactQuerySet.as_manager()

    class Meta:
        verbose_name = _("fact")
        verbose_name_plural = _("facts")
        ordering = ["category", "id"]
        indexes = [models.Index(fields=["owner", "status", "category"], name="fact_owner_status_cat")]
        constraints = [
            models.CheckConstraint(condition=Q(category__in=Category.values), name="fact_category_valid"),
            models.CheckConstraint(condition=Q(certainty__in=Certainty.values), name="fact_certainty_valid"),
            models.CheckConstraint(condition=Q(status__in=FactStatus.values), name="fact_status_valid"),
            models.CheckConstraint(condition=Q(version__gte=1), name="fact_version_positive"),
            models.CheckConstraint(condition=~Q(label=""), name="fact_label_not_empty"),
            models.CheckConstraint(condition=~Q(value=""), name="fact_value_not_empty"),
            models.CheckConstraint(condition=LessThanOrEqual(Length("label"), LABEL_MAX), name="fact_label_len"),
            models.CheckConstraint(condition=LessThanOrEqual(Length("value"), VALUE_MAX), name="fact_value_len"),
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("evidence"), EVIDENCE_MAX), name="fact_evidence_len"
            ),
            models.CheckConstraint(condition=_one_line("evidence"), name="fact_evidence_one_line"),
        ]

    def __str__(self) -> str:
        # The category and id, never the label: admin names records by ``__str__`` (SPEC AD-2).
        return f"{self.get_category_display()} #{self.pk}"
