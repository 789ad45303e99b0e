"""Extensions of django-oauth-toolkit through its swappable models (SPEC A-2 … A-4)."""

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from oauth2_provider.models import AbstractGrant

from apps.oauth.fields import HashedSecretField


class HashedGrant(AbstractGrant):
    """DOT's authorization code, with the code stored only as its SHA-256.

    A redeemed code is kept until it expires, so a replay is recognised (SPEC A-3).
    """

    code = HashedSecretField(unique=True, verbose_name=_("code hash"))
    redeemed_at = models.DateTimeField(_("redeemed"), null=True, blank=True)
    token_family = models.UUIDField(_("token family"), null=True, blank=True)

    class Meta(AbstractGrant.Meta):
        swappable = "OAUTH2_PROVIDER_GRANT_MODEL"
        verbose_name = _("authorization code")
        verbose_name_plural = _("authorization codes")


# SPEC A-2 (home)
class TokenFamily(models.Model):  # noqa: DJ008 - its admin shows it by its columns
    """All tokens descended from one consent; refresh ends 30 days after it (SPEC A-2).

    ``code`` is the hash of its authorization code, so a replay of the code revokes the family (SPEC A-3).
    """

    family = models.UUIDField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    consented_at = models.DateTimeField(_("consented"))
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    revoked_reason = models.CharField(_("why revoked"), max_length=40, blank=True, default="")
    code = HashedSecretField(unique=True, null=True, blank=True, verbose_name=_("code hash"))

    class Meta:
        verbose_name = _("token family")
        verbose_name_plural = _("token families")
        indexes = [models.Index(fields=["user", "application"], name="family_user_app")]

    @staticmethod
    def kept_since(now: datetime) -> datetime:
        """Families consented before this moment are forgotten: 30 days of refresh, then 30 in which
        a revoked refresh token can still be replayed and recognised (``token_families_purge``).
        """
        return now - 2 * settings.REFRESH_FAMILY_LIFETIME
