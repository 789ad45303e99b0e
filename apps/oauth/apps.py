from django.apps import AppConfig


class OauthConfig(AppConfig):
    name = "apps.oauth"
    label = "oauth"

    def ready(self) -> None:
        from apps.oauth import (
            deactivation,  # noqa: F401  (signal receivers, SPEC A-11)
            public_clients,  # noqa: F401  (a public client keeps no secret)
        )
