"""The search projection: per record and searchable field, the text used for matching (SPEC R-6)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.common.indexes import CoveringIndex


class SearchProjection(models.Model):
    """One searchable field of one record, as normalized matching text; written only by ``retrieval.services``.

    ``text`` is never shown: answers are built from the re-checked source record. Indexes: docs/search.md.
    """

    resource_type = models.CharField(_("resource type"), max_length=32)
    record_id = models.BigIntegerField(_("record id"))
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    field = models.CharField(_("field (JSON Pointer)"), max_length=200)
    text = models.TextField(_("matching text"))
    updated_at = models.DateTimeField(_("updated"))
    # SPEC S-4: the field's meaning, as the embedder named in ``vector_model`` saw ``text``'s source
    # (``embeddings.codec``: int8 with a scale). Null until embedded; reset whenever the text changes.
    vector = models.BinaryField(_("meaning vector"), null=True, editable=False)
    vector_model = models.CharField(_("vector model"), max_length=100, null=True, editable=False)  # noqa: DJ001 - null with vector

    class Meta:
        verbose_name = _("search projection row")
        verbose_name_plural = _("search projection rows")
        constraints = [
            models.UniqueConstraint(fields=["resource_type", "record_id", "field"], name="projection_one_per_field"),
        ]
        indexes = [
            # Owner first: every search is one person's, and short queries scan only that person's rows.
            models.Index(fields=["owner", "resource_type", "field"], name="projection_owner_type_field"),
            # SPEC S-4: the vector scope (``vector_scope_sql``) answered from the index alone — a person's
            # rows are spread over the whole table, and reading them cost one table page per row. On SQLite,
            # which has no non-key columns, the covered ones end the key (apps/common/indexes.py).
            CoveringIndex(fields=["owner", "vector_model", "resource_type", "field"],
                          covering=["record_id", "id", "updated_at"], condition=models.Q(vector_model__isnull=False),
                          name="projection_owner_vectors"),
        ]

    def __str__(self) -> str:
        return f"{self.resource_type}:{self.record_id}{self.field}"
