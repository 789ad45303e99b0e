from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "apps.ops"
    label = "ops"

    def ready(self) -> None:
        from apps.ops import checks  # noqa: F401  (registers the deploy checks)
