from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _partitions_ahead(sender, using="default", **kwargs) -> None:
    """Every ``migrate`` leaves this week's access history partition and the next ones ready (SPEC D-8)."""
    from apps.consent.services import access_partitions_ensure  # models are loaded only once ready() ran

    access_partitions_ensure()


class ConsentConfig(AppConfig):
    name = "apps.consent"
    label = "consent"

    def ready(self) -> None:
        post_migrate.connect(_partitions_ahead, sender=self, dispatch_uid="consent.partitions_ahead")
